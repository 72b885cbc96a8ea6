//! Multi round-trip requests, one test per rule of the MRTR spec (2026-07-28) and of this crate's
//! design: a handler that runs from the top on every round, reading answers by key.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Barrier};

use elicit_core::mrtr::{
    Answer, Ask, Capability, InputRequests, InputRequiredResult, MrtrError, Retry, Round, Rounds,
};
use elicit_core::state::{
    Binding, KeyId, MemoryReplayGuard, ParamsDigest, RedeemError, RequestMismatch, StateError,
    StateKey, StateKeys, UnixTime,
};
use elicit_core::{Elicit, Elicitation, Mode, UrlOutcome, UrlRequest};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// Where should `billing-api` be deployed?
#[derive(elicit_derive::Elicit, Debug, PartialEq)]
#[elicit(crate = elicit_core)]
struct DeployTarget {
    env: Env,
    /// The change ticket approving the deploy.
    #[elicit(min_length = 4)]
    ticket: Option<String>,
}

#[derive(elicit_derive::Elicit, Debug, Clone, Copy, PartialEq)]
#[elicit(crate = elicit_core, rename_all = "lowercase")]
enum Env {
    Staging,
    #[elicit(dangerous)]
    Production,
}

/// When may the deploy start?
#[derive(elicit_derive::Elicit, Debug, PartialEq)]
#[elicit(crate = elicit_core)]
struct Window {
    /// Hour of the day, UTC.
    #[elicit(minimum = 0, maximum = 23)]
    hour: u8,
}

/// The JSON of a JSON-RPC error object, for comparing with the wire.
trait ToValue {
    fn to_value(&self) -> Value;
}

impl ToValue for elicit_core::protocol::jsonrpc::JsonRpcError {
    fn to_value(&self) -> Value {
        serde_json::to_value(self).expect("an error object serializes")
    }
}

const NOW: UnixTime = UnixTime::from_secs(1_800_000_000);
const PRINCIPAL: &str = "user-8f3a";

fn keys() -> StateKeys {
    StateKeys::single(KeyId::new(1), StateKey::from_bytes([9; 32]))
}

fn rounds() -> Rounds {
    Rounds::new(keys())
}

fn capabilities(capabilities: Value) -> Value {
    json!({ "io.modelcontextprotocol/clientCapabilities": capabilities })
}

/// A `tools/call` params object: the first request, from a client that declares form elicitation.
fn call() -> Value {
    json!({
        "name": "deploy",
        "arguments": { "service": "billing-api" },
        "_meta": capabilities(json!({ "elicitation": {}, "sampling": {}, "roots": {} })),
    })
}

/// The retry of `params` after `result`, with `responses`.
fn retry(params: &Value, result: &InputRequiredResult, responses: Value) -> Value {
    let mut retry = params.clone();
    retry["inputResponses"] = responses;
    retry["requestState"] = json!(result.request_state().expect("every round seals its state"));
    retry
}

fn binding(params: &Value) -> Binding<'static> {
    Binding {
        principal: PRINCIPAL,
        method: "tools/call",
        params_digest: ParamsDigest::of_request_params(params),
    }
}

fn round<'r, S: serde::de::DeserializeOwned>(
    rounds: &'r Rounds,
    params: &'r Value,
) -> Result<Round<'r, S>, MrtrError> {
    rounds.round(Retry::from_params(params)?, binding(params), NOW)
}

fn ask<T>(answer: Answer<T>) -> InputRequiredResult {
    match answer {
        Answer::Ask(result) => result,
        Answer::Ready(_) => panic!("expected the round to ask"),
        Answer::Rejected(rejected) => panic!("expected the round to ask, got {rejected}"),
    }
}

fn ready<T>(answer: Answer<T>) -> T {
    match answer {
        Answer::Ready(answers) => answers,
        Answer::Ask(result) => panic!("expected answers, got {}", result.to_value()),
        Answer::Rejected(rejected) => panic!("expected answers, got {rejected}"),
    }
}

/// One run on `params` that must ask: its input-required result.
fn asked<A: elicit_core::mrtr::Asks>(
    rounds: &Rounds,
    params: &Value,
    asks: A,
) -> InputRequiredResult {
    ask(round::<()>(rounds, params).unwrap().answer(asks).unwrap())
}

fn keys_of(result: &InputRequiredResult) -> Vec<&str> {
    result.input_requests().keys().collect()
}

fn accept(content: Value) -> Value {
    json!({ "action": "accept", "content": content })
}

// ---------------------------------------------------------------------------------------------
// The result

#[test]
fn several_elicitations_are_asked_in_one_round() {
    let rounds = rounds();
    let params = call();
    let mut round = round::<()>(&rounds, &params).unwrap();
    let result = ask(round
        .answer((
            Ask::form::<DeployTarget>("target"),
            Ask::form::<Window>("window"),
        ))
        .unwrap());
    assert_eq!(keys_of(&result), ["target", "window"]);
    let value = result.to_value();
    assert_eq!(value["resultType"], "input_required");
    assert_eq!(
        value["inputRequests"]["target"]["method"],
        "elicitation/create"
    );
    assert_eq!(
        value["inputRequests"]["target"]["params"],
        serde_json::to_value(DeployTarget::form_request()).unwrap()
    );
    assert_eq!(
        value["inputRequests"]["window"]["params"]["message"],
        "When may the deploy start?"
    );
}

#[test]
fn input_request_keys_are_unique_within_a_request() {
    let rounds = rounds();
    let params = call();
    let mut round = round::<()>(&rounds, &params).unwrap();
    let error = round
        .answer((
            Ask::form::<DeployTarget>("target"),
            Ask::form::<Window>("target"),
        ))
        .unwrap_err();
    assert!(matches!(&error, MrtrError::DuplicateKey { key } if key == "target"));
    assert_eq!(
        error.to_string(),
        "input request key `target` is used twice; keys must be unique within a request"
    );
    assert_eq!(error.to_jsonrpc_error().code(), -32603);

    let requests = InputRequests::new().roots("workspace").unwrap();
    assert!(
        matches!(requests.roots("workspace"), Err(MrtrError::DuplicateKey { key }) if key == "workspace")
    );
}

#[test]
fn sampling_and_roots_requests_mix_with_elicitations() {
    let rounds = rounds();
    let params = call();
    let sampling = json!({
        "messages": [{ "role": "user", "content": { "type": "text", "text": "Summarise the diff" } }],
        "maxTokens": 200,
    });
    let asks = || {
        (
            Ask::form::<DeployTarget>("target"),
            Ask::sampling("summary", sampling.clone()),
            Ask::roots("workspace"),
        )
    };
    let mut first = round::<()>(&rounds, &params).unwrap();
    let result = ask(first.answer(asks()).unwrap());
    let value = result.to_value();
    assert_eq!(
        value["inputRequests"]["summary"],
        json!({ "method": "sampling/createMessage", "params": sampling })
    );
    assert_eq!(
        value["inputRequests"]["workspace"],
        json!({ "method": "roots/list" })
    );

    let summary = json!({ "role": "assistant", "content": { "type": "text", "text": "Bumps a dependency." }, "model": "m", "stopReason": "endTurn" });
    let roots = json!({ "roots": [{ "uri": "file:///srv/billing", "name": "billing" }] });
    let retried = retry(
        &params,
        &result,
        json!({
            "target": accept(json!({ "env": "staging" })),
            "summary": summary,
            "workspace": roots,
        }),
    );
    let mut second = round::<()>(&rounds, &retried).unwrap();
    let (target, got_summary, got_roots) = ready(second.answer(asks()).unwrap());
    assert_eq!(
        target,
        Elicitation::Accept(DeployTarget {
            env: Env::Staging,
            ticket: None
        })
    );
    assert_eq!(got_summary, summary);
    assert_eq!(got_roots, roots);
}

#[test]
fn input_requests_must_be_one_of_the_three_request_kinds() {
    let mut requests = InputRequests::new();
    let error = requests
        .insert("x", json!({ "method": "tools/call", "params": {} }))
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "input request `x` is not allowed: `method` must be \"elicitation/create\", \"sampling/createMessage\" or \"roots/list\""
    );
    let error = requests
        .insert("y", json!({ "method": "sampling/createMessage" }))
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "input request `y` is not allowed: `params` is required for this method"
    );
    let error = InputRequests::new().sampling("z", json!([1])).unwrap_err();
    assert_eq!(
        error.to_string(),
        "input request `z` is not allowed: `params` must be an object"
    );
}

#[test]
fn a_result_carries_input_requests_or_request_state() {
    let error = InputRequiredResult::new(InputRequests::new(), None).unwrap_err();
    assert!(matches!(error, MrtrError::EmptyResult));
    let state_only = InputRequiredResult::new(InputRequests::new(), Some("s".into())).unwrap();
    assert_eq!(
        state_only.to_value(),
        json!({ "resultType": "input_required", "requestState": "s" })
    );

    // Every result a round builds carries its sealed state; a checkpoint carries nothing else.
    let rounds = rounds();
    let params = call();
    let mut round = round::<u32>(&rounds, &params).unwrap();
    round.keep(50);
    let checkpoint = round.checkpoint().unwrap();
    assert!(checkpoint.input_requests().is_empty());
    let resumed = retry(&params, &checkpoint, json!({}));
    assert_eq!(
        self::round::<u32>(&rounds, &resumed).unwrap().state(),
        Some(&50)
    );

    // Deserializing enforces the same rules.
    let none: Result<InputRequiredResult, _> =
        serde_json::from_value(json!({ "resultType": "input_required" }));
    assert!(
        none.unwrap_err()
            .to_string()
            .contains("at least one of `inputRequests` or `requestState`")
    );
    let complete: Result<InputRequiredResult, _> =
        serde_json::from_value(json!({ "resultType": "complete", "requestState": "s" }));
    assert!(
        complete
            .unwrap_err()
            .to_string()
            .contains("`resultType` must be \"input_required\"")
    );
}

// ---------------------------------------------------------------------------------------------
// Capabilities

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

#[test]
fn url_mode_elicitations_are_asked_and_read_as_url_outcomes() {
    let rounds = rounds();
    let params = json!({ "name": "connect", "_meta": capabilities(json!({ "elicitation": { "url": {} } })) });
    let page = || {
        UrlRequest::new(
            "Connect your Example Co account.",
            "https://mcp.example.com/connect?flow=7f3a",
        )
        .unwrap()
    };
    let result = ask(round::<()>(&rounds, &params)
        .unwrap()
        .answer(Ask::url("connect", page()))
        .unwrap());
    assert_eq!(
        result.to_value()["inputRequests"]["connect"]["params"],
        json!({
            "mode": "url",
            "message": "Connect your Example Co account.",
            "url": "https://mcp.example.com/connect?flow=7f3a",
        })
    );
    let retried = retry(
        &params,
        &result,
        json!({ "connect": { "action": "accept" } }),
    );
    let outcome = ready(
        round::<()>(&rounds, &retried)
            .unwrap()
            .answer(Ask::url("connect", page()))
            .unwrap(),
    );
    assert_eq!(outcome, UrlOutcome::Accept);

    // A form cannot be sent to a client that declared only URL mode.
    let mut round = round::<()>(&rounds, &params).unwrap();
    let error = round.answer(Ask::form::<Window>("window")).unwrap_err();
    assert_eq!(
        error.to_jsonrpc_error().to_value()["data"],
        json!({ "requiredCapabilities": { "elicitation": { "form": {} } } })
    );
}

#[test]
fn a_retry_reads_answers_by_key_into_typed_outcomes() {
    let rounds = rounds();
    let params = call();
    let asks = || {
        (
            Ask::form::<DeployTarget>("target"),
            Ask::form::<Window>("window"),
        )
    };
    let result = ask(round::<()>(&rounds, &params)
        .unwrap()
        .answer(asks())
        .unwrap());
    let retried = retry(
        &params,
        &result,
        json!({
            "target": accept(json!({ "env": "production", "ticket": "CHG-1234" })),
            "window": accept(json!({ "hour": 22 })),
        }),
    );
    let (target, window) = ready(
        round::<()>(&rounds, &retried)
            .unwrap()
            .answer(asks())
            .unwrap(),
    );
    assert_eq!(
        target,
        Elicitation::Accept(DeployTarget {
            env: Env::Production,
            ticket: Some("CHG-1234".into())
        })
    );
    assert_eq!(window, Elicitation::Accept(Window { hour: 22 }));
}

#[test]
fn a_missing_answer_is_asked_again_not_an_error() {
    let rounds = rounds();
    let params = call();
    let asks = || {
        (
            Ask::form::<DeployTarget>("target"),
            Ask::form::<Window>("window"),
        )
    };
    let result = ask(round::<()>(&rounds, &params)
        .unwrap()
        .answer(asks())
        .unwrap());
    let retried = retry(
        &params,
        &result,
        json!({ "window": accept(json!({ "hour": 6 })) }),
    );
    let again = ask(round::<()>(&rounds, &retried)
        .unwrap()
        .answer(asks())
        .unwrap());
    assert_eq!(
        keys_of(&again),
        ["target"],
        "only the missing answer is asked again"
    );

    // The answer already given travels in the state: the next retry need only carry `target`.
    let last = retry(
        &params,
        &again,
        json!({ "target": accept(json!({ "env": "staging" })) }),
    );
    let (_, window) = ready(round::<()>(&rounds, &last).unwrap().answer(asks()).unwrap());
    assert_eq!(window, Elicitation::Accept(Window { hour: 6 }));
}

#[test]
fn an_unparsable_or_invalid_answer_is_asked_again() {
    let rounds = rounds();
    let params = call();
    let result = ask(round::<()>(&rounds, &params)
        .unwrap()
        .answer(Ask::form::<Window>("window"))
        .unwrap());
    for bad in [
        accept(json!({ "hour": 24 })),
        json!({ "action": "maybe" }),
        json!("accept"),
    ] {
        let retried = retry(&params, &result, json!({ "window": bad }));
        let mut round = round::<()>(&rounds, &retried).unwrap();
        let again = ask(round.answer(Ask::form::<Window>("window")).unwrap());
        assert_eq!(keys_of(&again), ["window"]);
        let [(key, _reason)] = round.unusable_answers() else {
            panic!("one unusable answer")
        };
        assert_eq!(key, "window");
    }
}

/// The message of the elicitation asked under `key`.
fn message_of<'a>(result: &'a InputRequiredResult, key: &str) -> &'a str {
    result.input_requests().get(key).unwrap()["params"]["message"]
        .as_str()
        .expect("an elicitation has a message")
}

#[test]
fn an_invalid_answer_is_asked_again_once_saying_what_was_wrong_then_rejected() {
    let rounds = rounds();
    let params = call();
    let first = asked(&rounds, &params, Ask::form::<Window>("window"));
    let original = message_of(&first, "window").to_owned();

    // The first invalid answer: asked again, the message saying which field broke which rule.
    let retried = retry(
        &params,
        &first,
        json!({ "window": accept(json!({ "hour": 24 })) }),
    );
    let again = asked(&rounds, &retried, Ask::form::<Window>("window"));
    assert_eq!(
        message_of(&again, "window"),
        format!("Your last answer could not be used: hour must be at most 23.\n\n{original}")
    );
    assert_eq!(
        again.input_requests().get("window").unwrap()["params"]["requestedSchema"],
        first.input_requests().get("window").unwrap()["params"]["requestedSchema"],
        "the same form is asked again",
    );

    // The second: the re-ask is spent, whatever the client does with the state.
    let retried = retry(
        &params,
        &again,
        json!({ "window": accept(json!({ "hour": -1 })) }),
    );
    let mut round = round::<()>(&rounds, &retried).unwrap();
    let Answer::Rejected(rejected) = round.answer(Ask::form::<Window>("window")).unwrap() else {
        panic!("the re-ask is spent")
    };
    assert_eq!(rejected.asks(), 2);
    assert_eq!(rejected.name(), "Window");
    assert_eq!(rejected.explanation(), "hour must be at least 0.");
    assert_eq!(
        rejected.to_string(),
        "The answer could not be used after 2 tries: hour must be at least 0."
    );
    assert!(
        rejected
            .error()
            .violations()
            .is_some_and(|v| v.concerns("hour"))
    );
}

#[test]
fn a_valid_answer_after_an_invalid_one_is_used() {
    let rounds = rounds();
    let params = call();
    let first = asked(&rounds, &params, Ask::form::<Window>("window"));
    let retried = retry(
        &params,
        &first,
        json!({ "window": accept(json!({ "hour": 99 })) }),
    );
    let again = asked(&rounds, &retried, Ask::form::<Window>("window"));
    let retried = retry(
        &params,
        &again,
        json!({ "window": accept(json!({ "hour": 9 })) }),
    );
    let window = ready(
        round::<()>(&rounds, &retried)
            .unwrap()
            .answer(Ask::form::<Window>("window"))
            .unwrap(),
    );
    assert_eq!(window, Elicitation::Accept(Window { hour: 9 }));
}

#[test]
fn reasks_are_configurable_and_corrections_do_not_pile_up() {
    for reasks in [0, 1, 3] {
        let rounds = rounds().with_reasks(reasks);
        let params = call();
        let mut result = asked(&rounds, &params, Ask::form::<Window>("window"));
        let original = message_of(&result, "window").to_owned();
        let mut asks = 1;
        loop {
            let retried = retry(
                &params,
                &result,
                json!({ "window": accept(json!({ "hour": 30 })) }),
            );
            match round::<()>(&rounds, &retried)
                .unwrap()
                .answer(Ask::form::<Window>("window"))
                .unwrap()
            {
                Answer::Ask(again) => {
                    asks += 1;
                    assert_eq!(
                        message_of(&again, "window"),
                        format!(
                            "Your last answer could not be used: hour must be at most 23.\n\n{original}"
                        ),
                        "ask {asks} with {reasks} re-asks",
                    );
                    result = again;
                }
                Answer::Rejected(rejected) => {
                    assert_eq!(rejected.asks(), asks);
                    break;
                }
                Answer::Ready(_) => panic!("an invalid answer is never ready"),
            }
        }
        assert_eq!(asks, reasks + 1, "asked once plus {reasks} re-asks");
    }
}

#[test]
fn a_rejected_question_asks_nothing_else() {
    let rounds = rounds().with_reasks(0);
    let params = call();
    let asks = || {
        (
            Ask::form::<DeployTarget>("target"),
            Ask::form::<Window>("window"),
        )
    };
    let first = asked(&rounds, &params, asks());
    assert_eq!(keys_of(&first), ["target", "window"]);
    let retried = retry(
        &params,
        &first,
        json!({ "window": accept(json!({ "hour": 24 })) }),
    );
    let mut round = round::<()>(&rounds, &retried).unwrap();
    let Answer::Rejected(rejected) = round.answer(asks()).unwrap() else {
        panic!("no re-asks allowed")
    };
    assert_eq!(rejected.name(), "Window");
    // The next `answer` in the same run starts clean: nothing of the rejected round is sent.
    let next = ask(round.answer(Ask::form::<DeployTarget>("later")).unwrap());
    assert_eq!(keys_of(&next), ["later"]);
}

#[test]
fn an_unreadable_url_answer_counts_against_the_same_reasks() {
    let rounds = rounds();
    let params = call();
    let page = || {
        Ask::url(
            "connect",
            elicit_core::UrlRequest::new("Connect your account.", "https://example.com/connect")
                .unwrap(),
        )
    };
    let meta = capabilities(json!({ "elicitation": { "url": {} } }));
    let mut params = params;
    params["_meta"] = meta;
    let first = asked(&rounds, &params, page());
    let retried = retry(&params, &first, json!({ "connect": { "action": "maybe" } }));
    let again = asked(&rounds, &retried, page());
    assert_eq!(
        again.input_requests().get("connect").unwrap(),
        first.input_requests().get("connect").unwrap(),
        "a URL request is asked again as it was"
    );
    let retried = retry(&params, &again, json!({ "connect": { "action": "maybe" } }));
    let Answer::Rejected(rejected) = round::<()>(&rounds, &retried)
        .unwrap()
        .answer(page())
        .unwrap()
    else {
        panic!("the re-ask is spent")
    };
    assert_eq!(
        rejected.explanation(),
        "the client's reply could not be read (`action` must be \"accept\", \"decline\" or \"cancel\")."
    );
}

#[test]
fn a_key_is_read_once_per_run() {
    let rounds = rounds();
    let params = call();
    let mut run = round::<()>(&rounds, &params).unwrap();
    let _first = run.answer(Ask::form::<Window>("window")).unwrap();
    let again = run.answer(Ask::form::<Window>("window"));
    assert!(
        matches!(&again, Err(MrtrError::DuplicateKey { key }) if key == "window"),
        "a second question under a key would read the first one's answer: {again:?}"
    );
}

/// A consent form whose message names the table, asked under the key `confirm`.
fn drop_consent(table: &str) -> Ask<Elicitation<serde_json::Map<String, Value>>> {
    let schema =
        elicit_core::schema::RequestedSchema::new(vec![elicit_core::schema::Property::new(
            "confirm",
            elicit_core::schema::BooleanSchema::new(),
        )])
        .unwrap();
    let form = elicit_core::FormRequest::new(format!("Drop table `{table}`?"), schema).unwrap();
    Ask::form_request("confirm", form)
}

#[test]
fn a_fresh_answer_is_read_only_for_the_question_it_answered() {
    let rounds = rounds();
    let params = call();
    let first = asked(&rounds, &params, drop_consent("staging_tmp"));
    // The retry's run asks about another table under the same key (the list it drops from
    // changed): the user's yes was not about it.
    let retried = retry(
        &params,
        &first,
        json!({ "confirm": accept(json!({ "confirm": true })) }),
    );
    let again = asked(&rounds, &retried, drop_consent("customers"));
    assert_eq!(message_of(&again, "confirm"), "Drop table `customers`?");
}

#[test]
fn a_carried_answer_is_read_only_for_the_question_it_answered() {
    let rounds = rounds();
    let params = call();
    let asks = |table: &str| (drop_consent(table), Ask::form::<Window>("window"));
    let first = asked(&rounds, &params, asks("staging_tmp"));
    // Round 2: the consent is answered, the window not yet: the consent is carried.
    let retried = retry(
        &params,
        &first,
        json!({ "confirm": accept(json!({ "confirm": true })) }),
    );
    let second = asked(&rounds, &retried, asks("staging_tmp"));
    assert_eq!(keys_of(&second), ["window"]);
    // Round 3 asks about another table: the carried yes is not read for it.
    let retried = retry(
        &params,
        &second,
        json!({ "window": accept(json!({ "hour": 9 })) }),
    );
    let third = asked(&rounds, &retried, asks("customers"));
    assert_eq!(keys_of(&third), ["confirm"]);
    assert_eq!(message_of(&third, "confirm"), "Drop table `customers`?");
    // And with the same table, the carried yes and the fresh window complete the call.
    let (consent, window) = ready(
        round::<()>(&rounds, &retried)
            .unwrap()
            .answer(asks("staging_tmp"))
            .unwrap(),
    );
    assert!(consent.is_accepted());
    assert_eq!(window, Elicitation::Accept(Window { hour: 9 }));
}

#[test]
fn unknown_response_keys_are_ignored() {
    let rounds = rounds();
    let params = call();
    let result = asked(&rounds, &params, Ask::form::<Window>("window"));
    let retried = retry(
        &params,
        &result,
        json!({
            "window": accept(json!({ "hour": 9 })),
            "surprise": { "anything": true },
        }),
    );
    let window = ready(
        round::<()>(&rounds, &retried)
            .unwrap()
            .answer(Ask::form::<Window>("window"))
            .unwrap(),
    );
    assert_eq!(window, Elicitation::Accept(Window { hour: 9 }));
}

#[test]
fn malformed_input_responses_is_invalid_params() {
    let mut params = call();
    params["inputResponses"] = json!([{ "action": "accept" }]);
    let error = Retry::from_params(&params).unwrap_err();
    assert_eq!(
        error.to_jsonrpc_error().to_value(),
        json!({
            "code": -32602,
            "message": "`inputResponses` must be an object keyed by the inputRequests keys, but is an array",
            "data": { "field": "inputResponses" },
        })
    );
    params["inputResponses"] = json!(null);
    params["requestState"] = json!(7);
    let error = Retry::from_params(&params).unwrap_err();
    assert_eq!(
        error.to_string(),
        "`requestState` must be the string the server sent, but is a number"
    );
    assert_eq!(
        error.to_jsonrpc_error().to_value()["data"],
        json!({ "field": "requestState" })
    );
    assert!(matches!(
        Retry::from_params(&json!([])),
        Err(MrtrError::ParamsNotAnObject { .. })
    ));
}

#[test]
fn decline_and_cancel_are_final_answers_never_asked_again() {
    let rounds = rounds();
    let params = call();
    for (action, outcome) in [
        ("decline", Elicitation::Decline),
        ("cancel", Elicitation::Cancel),
    ] {
        let result = asked(&rounds, &params, Ask::form::<DeployTarget>("target"));
        let retried = retry(&params, &result, json!({ "target": { "action": action } }));
        let mut round = round::<()>(&rounds, &retried).unwrap();
        let target = ready(round.answer(Ask::form::<DeployTarget>("target")).unwrap());
        assert_eq!(target, outcome);

        // A later ask in the same run carries the refusal forward: on the next retry it is still
        // the answer, and `target` is not among the requests.
        let later = ask(round.answer(Ask::form::<Window>("window")).unwrap());
        assert_eq!(keys_of(&later), ["window"]);
        let third = retry(
            &params,
            &later,
            json!({ "window": accept(json!({ "hour": 1 })) }),
        );
        let mut round = self::round::<()>(&rounds, &third).unwrap();
        let target = ready(round.answer(Ask::form::<DeployTarget>("target")).unwrap());
        assert_eq!(target, outcome);
    }
}

#[test]
fn answers_the_server_did_not_ask_for_are_ignored() {
    let rounds = rounds();
    // A first request that arrives with a pre-filled "consent" and no state: never read.
    let mut params = call();
    params["inputResponses"] =
        json!({ "target": accept(json!({ "env": "production", "ticket": "CHG-0001" })) });
    let result = asked(&rounds, &params, Ask::form::<DeployTarget>("target"));
    assert_eq!(keys_of(&result), ["target"]);

    // A retry answering a key that round did not ask: not read either.
    let first = call();
    let asked_window = asked(&rounds, &first, Ask::form::<Window>("window"));
    let retried = retry(
        &first,
        &asked_window,
        json!({
            "window": accept(json!({ "hour": 3 })),
            "target": accept(json!({ "env": "production", "ticket": "CHG-0001" })),
        }),
    );
    let mut round = round::<()>(&rounds, &retried).unwrap();
    assert!(ready(round.answer(Ask::form::<Window>("window")).unwrap()).is_accepted());
    let target = ask(round.answer(Ask::form::<DeployTarget>("target")).unwrap());
    assert_eq!(keys_of(&target), ["target"]);
}

#[test]
fn input_responses_from_a_transport_map_read_the_same() {
    let rounds = rounds();
    let params = call();
    let result = asked(&rounds, &params, Ask::form::<Window>("window"));
    // What rmcp hands over: `BTreeMap<String, Value>` and `Option<String>`.
    let responses: BTreeMap<String, Value> =
        BTreeMap::from([("window".to_owned(), accept(json!({ "hour": 12 })))]);
    let request_state: Option<String> = result.request_state().map(str::to_owned);
    let capabilities = Retry::from_params(&params)
        .unwrap()
        .capabilities()
        .to_owned();
    let retry = Retry::new(capabilities)
        .with_input_response_pairs(&responses)
        .with_request_state(request_state.as_deref());
    let mut round = rounds.round::<()>(retry, binding(&params), NOW).unwrap();
    assert_eq!(
        ready(round.answer(Ask::form::<Window>("window")).unwrap()),
        Elicitation::Accept(Window { hour: 12 })
    );
}

// ---------------------------------------------------------------------------------------------
// Request state

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Found {
    accounts: Vec<String>,
}

#[test]
fn the_typed_state_travels_sealed_between_rounds() {
    let rounds = rounds();
    let params = call();
    let mut first = round::<Found>(&rounds, &params).unwrap();
    assert!(!first.is_resumed());
    assert_eq!(first.state(), None);
    first.keep(Found {
        accounts: vec!["acme".into(), "acme-eu".into()],
    });
    let result = ask(first.answer(Ask::form::<Window>("window")).unwrap());
    let state = result.request_state().unwrap();
    assert!(
        !state.contains("acme"),
        "the state is sealed, not merely encoded"
    );

    let retried = retry(&params, &result, json!({}));
    let second = round::<Found>(&rounds, &retried).unwrap();
    assert!(second.is_resumed());
    assert_eq!(second.state().unwrap().accounts, ["acme", "acme-eu"]);
}

#[test]
fn a_request_state_that_does_not_open_is_invalid_params_naming_the_check() {
    let rounds = rounds();
    let params = call();
    let result = asked(&rounds, &params, Ask::form::<Window>("window"));
    let retried = retry(&params, &result, json!({}));
    let open = |params: &Value, binding: Binding<'_>, now| {
        let retry = Retry::from_params(params).unwrap();
        rounds
            .round::<()>(retry, binding, now)
            .map(|_| ())
            .unwrap_err()
    };

    let mut tampered = retried.clone();
    let text = tampered["requestState"].as_str().unwrap().to_owned();
    // One character in the middle changed: still base64url, no longer authentic. (The last
    // character also carries padding bits, so changing it can make the text non-canonical.)
    let middle = text.len() / 2;
    let flipped = if &text[middle..=middle] == "A" {
        "B"
    } else {
        "A"
    };
    tampered["requestState"] = json!(format!(
        "{}{flipped}{}",
        &text[..middle],
        &text[middle + 1..]
    ));
    let errors = [
        open(&tampered, binding(&tampered), NOW),
        open(
            &retried,
            Binding {
                principal: "someone-else",
                ..binding(&retried)
            },
            NOW,
        ),
        open(
            &retried,
            Binding {
                method: "prompts/get",
                ..binding(&retried)
            },
            NOW,
        ),
        open(
            &retried,
            binding(&json!({ "name": "deploy", "arguments": { "service": "ledger" } })),
            NOW,
        ),
        open(
            &retried,
            binding(&retried),
            UnixTime::from_secs(NOW.as_secs() + 601),
        ),
    ];
    let expected = [
        StateError::Tampered,
        StateError::WrongPrincipal,
        StateError::WrongRequest(RequestMismatch::Method),
        StateError::WrongRequest(RequestMismatch::Params),
        StateError::Expired {
            expired_at: UnixTime::from_secs(NOW.as_secs() + 600),
        },
    ];
    for (error, expected) in errors.iter().zip(expected) {
        assert!(
            matches!(error, MrtrError::State(e) if *e == expected),
            "{error:?}"
        );
        assert_eq!(error.to_jsonrpc_error().code(), -32602);
        assert_eq!(
            error.to_jsonrpc_error().to_value()["data"],
            json!({ "field": "requestState" })
        );
        assert!(error.to_string().starts_with("requestState "), "{error}");
    }
}

#[test]
fn sixty_four_concurrent_redemptions_of_one_round_succeed_exactly_once() {
    let rounds = Arc::new(rounds());
    let params = call();
    let result = asked(&rounds, &params, Ask::form::<Window>("window"));
    let retried = Arc::new(retry(
        &params,
        &result,
        json!({ "window": accept(json!({ "hour": 4 })) }),
    ));
    let guard = Arc::new(MemoryReplayGuard::new());
    let barrier = Arc::new(Barrier::new(64));
    let applied = Arc::new(AtomicUsize::new(0));
    let threads: Vec<_> = (0..64)
        .map(|_| {
            let (rounds, retried, guard, barrier, applied) = (
                rounds.clone(),
                retried.clone(),
                guard.clone(),
                barrier.clone(),
                applied.clone(),
            );
            std::thread::spawn(move || {
                let mut round = round::<()>(&rounds, &retried).unwrap();
                let window = ready(round.answer(Ask::form::<Window>("window")).unwrap());
                barrier.wait();
                let redeemed = block_on(round.redeem_once(&*guard));
                if redeemed.is_ok() && window.is_accepted() {
                    applied.fetch_add(1, Ordering::SeqCst);
                }
                redeemed
            })
        })
        .collect();
    let outcomes: Vec<_> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    assert_eq!(outcomes.iter().filter(|o| o.is_ok()).count(), 1);
    assert!(
        outcomes
            .iter()
            .all(|o| o.is_ok() || matches!(o, Err(RedeemError::AlreadyRedeemed)))
    );
    assert_eq!(applied.load(Ordering::SeqCst), 1);
}

#[test]
fn two_replicas_built_from_the_same_keys_resume_each_others_rounds() {
    let replica_a = Rounds::new(StateKeys::single(
        KeyId::new(3),
        StateKey::from_bytes([5; 32]),
    ));
    let replica_b = Rounds::new(StateKeys::single(
        KeyId::new(3),
        StateKey::from_bytes([5; 32]),
    ));
    let params = call();
    let asks = || {
        (
            Ask::form::<DeployTarget>("target"),
            Ask::form::<Window>("window"),
        )
    };
    let first = ask(round::<()>(&replica_a, &params)
        .unwrap()
        .answer(asks())
        .unwrap());
    let second_params = retry(
        &params,
        &first,
        json!({ "target": accept(json!({ "env": "staging" })) }),
    );
    let second = ask(round::<()>(&replica_b, &second_params)
        .unwrap()
        .answer(asks())
        .unwrap());
    let third_params = retry(
        &params,
        &second,
        json!({ "window": accept(json!({ "hour": 8 })) }),
    );
    let (target, window) = ready(
        round::<()>(&replica_a, &third_params)
            .unwrap()
            .answer(asks())
            .unwrap(),
    );
    assert!(target.is_accepted() && window.is_accepted());
}

/// Drives a future that never waits (the in-memory guard's) to completion.
fn block_on<F: std::future::Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    let mut context = std::task::Context::from_waker(std::task::Waker::noop());
    loop {
        if let std::task::Poll::Ready(output) = future.as_mut().poll(&mut context) {
            return output;
        }
    }
}

// ---------------------------------------------------------------------------------------------
// A complete tool

/// What the deploy tool answers.
#[derive(Debug)]
enum ToolResponse {
    Complete(String),
    InputRequired(InputRequiredResult),
}

/// A deploy tool: asks where and when in one round, then deploys exactly once. Runs from the top
/// on every round; nothing happens before both answers exist.
fn deploy_tool(
    rounds: &Rounds,
    guard: &MemoryReplayGuard,
    deployed: &AtomicUsize,
    principal: &str,
    params: &Value,
) -> Result<ToolResponse, Value> {
    let error = |e: MrtrError| e.to_jsonrpc_error().to_value();
    let binding = Binding {
        principal,
        method: "tools/call",
        params_digest: ParamsDigest::of_request_params(params),
    };
    let retry = Retry::from_params(params).map_err(error)?;
    let mut round = rounds.round::<()>(retry, binding, NOW).map_err(error)?;

    let asks = (
        Ask::form::<DeployTarget>("target"),
        Ask::form::<Window>("window"),
    );
    let (target, window) = match round.answer(asks).map_err(error)? {
        Answer::Ready(answers) => answers,
        Answer::Ask(result) => return Ok(ToolResponse::InputRequired(result)),
        Answer::Rejected(rejected) => return Ok(ToolResponse::Complete(rejected.to_string())),
    };
    let (Elicitation::Accept(target), Elicitation::Accept(window)) = (target, window) else {
        return Ok(ToolResponse::Complete("Nothing was deployed.".into()));
    };
    block_on(round.redeem_once(guard))
        .map_err(|e| json!({ "code": e.to_jsonrpc_error().code(), "message": e.to_string() }))?;
    deployed.fetch_add(1, Ordering::SeqCst);
    Ok(ToolResponse::Complete(format!(
        "Deploying to {:?} at {:02}:00 UTC.",
        target.env, window.hour
    )))
}

#[test]
fn a_complete_two_round_tool_call() {
    let rounds = rounds();
    let guard = MemoryReplayGuard::new();
    let deployed = AtomicUsize::new(0);
    let params = call();

    // Round 1: both questions, one round, nothing deployed.
    let ToolResponse::InputRequired(result) =
        deploy_tool(&rounds, &guard, &deployed, PRINCIPAL, &params).unwrap()
    else {
        panic!("round 1 asks")
    };
    assert_eq!(keys_of(&result), ["target", "window"]);
    assert_eq!(
        deployed.load(Ordering::SeqCst),
        0,
        "nothing is applied before the answer exists"
    );

    // Round 2: the client retries with both answers and the echoed state.
    let retried = retry(
        &params,
        &result,
        json!({
            "target": accept(json!({ "env": "production", "ticket": "CHG-1234" })),
            "window": accept(json!({ "hour": 22 })),
        }),
    );
    let ToolResponse::Complete(text) =
        deploy_tool(&rounds, &guard, &deployed, PRINCIPAL, &retried).unwrap()
    else {
        panic!("round 2 completes")
    };
    assert_eq!(text, "Deploying to Production at 22:00 UTC.");
    assert_eq!(deployed.load(Ordering::SeqCst), 1);

    // The same retry replayed: refused, nothing deployed twice.
    let replay = deploy_tool(&rounds, &guard, &deployed, PRINCIPAL, &retried).unwrap_err();
    assert_eq!(replay["code"], -32602);
    // Someone else presenting it: refused before anything is read.
    let stolen = deploy_tool(&rounds, &guard, &deployed, "user-0000", &retried).unwrap_err();
    assert_eq!(
        stolen["message"],
        "requestState was issued to a different principal"
    );
    assert_eq!(deployed.load(Ordering::SeqCst), 1);

    // A decline completes without deploying, and is not asked again.
    let declined = retry(
        &params,
        &result,
        json!({ "target": { "action": "decline" }, "window": { "action": "decline" } }),
    );
    let ToolResponse::Complete(text) =
        deploy_tool(&rounds, &guard, &deployed, PRINCIPAL, &declined).unwrap()
    else {
        panic!("a decline is final")
    };
    assert_eq!(text, "Nothing was deployed.");
}
