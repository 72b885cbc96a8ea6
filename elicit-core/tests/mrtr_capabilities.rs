//! Multi round-trip requests (2026-07-28), the client's capabilities: a request carries them in
//! its `_meta`; only what the client declared is asked (`-32021` otherwise), and missing or
//! malformed capabilities are invalid params.

use elicit_core::Mode;
use elicit_core::mrtr::{Ask, Capability, MrtrError, Retry};
use serde_json::json;

mod common;

use common::*;

#[test]
fn only_input_requests_the_client_declared_are_sent() {
    let rounds = rounds();
    let headless = json!({ "name": "deploy", "arguments": {}, "_meta": capabilities(json!({})) });
    let mut round = round::<()>(&rounds, &headless).unwrap();
    let error = round
        .answer((Ask::form::<DeployTarget>("target"), Ask::roots("workspace")))
        .unwrap_err();
    assert_eq!(error.to_jsonrpc_error().code(), -32021);
    assert_eq!(
        error.to_jsonrpc_error().to_value(),
        json!({
            "code": -32021,
            "message": "the client did not declare the capability this request needs: input request `target` needs the `elicitation.form` client capability; input request `workspace` needs the `roots` client capability",
            "data": { "requiredCapabilities": { "elicitation": { "form": {} }, "roots": {} } },
        })
    );

    // A URL-only client cannot be sent a form; no `_meta` at all declares nothing.
    let url_only =
        json!({ "name": "deploy", "_meta": capabilities(json!({ "elicitation": { "url": {} } })) });
    let round_url = self::round::<()>(&rounds, &url_only).unwrap();
    assert!(
        !round_url
            .capabilities()
            .supports(Capability::Elicitation(Mode::Form))
    );
    assert!(
        round_url
            .capabilities()
            .supports(Capability::Elicitation(Mode::Url))
    );
    let empty = json!({ "name": "deploy", "_meta": capabilities(json!({})) });
    let mut round_empty = self::round::<()>(&rounds, &empty).unwrap();
    assert!(matches!(
        round_empty.answer(Ask::form::<Window>("window")),
        Err(MrtrError::MissingCapabilities(_))
    ));
}

#[test]
fn missing_or_malformed_capabilities_are_invalid_params() {
    let cases = [
        (
            json!({ "name": "deploy" }),
            "client capabilities: `_meta` is required",
        ),
        (
            json!({ "name": "deploy", "_meta": {} }),
            "client capabilities: `io.modelcontextprotocol/clientCapabilities` is required",
        ),
        (
            json!({ "name": "deploy", "_meta": capabilities(json!("all")) }),
            "client capabilities: `capabilities` must be an object",
        ),
        (
            json!({ "name": "deploy", "_meta": capabilities(json!({ "roots": true })) }),
            "client capabilities: `roots` must be an object",
        ),
    ];
    for (params, message) in cases {
        let error = Retry::from_params(&params).unwrap_err();
        assert_eq!(error.to_jsonrpc_error().code(), -32602);
        assert_eq!(error.to_string(), message);
        assert_eq!(
            error.to_jsonrpc_error().to_value()["data"],
            json!({ "field": "_meta" })
        );
    }
}
