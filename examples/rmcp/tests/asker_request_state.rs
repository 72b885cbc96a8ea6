//! 2026-07-28: a round's `requestState` is sealed and bound. A retry under a tampered state,
//! for other arguments or for another principal is refused with a JSON-RPC error, and the state
//! as it was sent still opens. The retries are sent by hand: rmcp's client only ever retries
//! with the `requestState` it was sent, for the call it made.
//!
//! `cargo test -p elicit-examples --features oauth --test asker_request_state`

use mcp_elicit::mrtr::Rounds;
use mcp_elicit::rmcp::AskConfig;
use mcp_elicit::state::{KeyId, StateKey, StateKeys};
use rmcp::model::ErrorCode;
use serde_json::json;

mod common;

use common::*;

/// `ops_server`'s server for several users, each named by [`PRINCIPAL`] in the request's `_meta`.
fn per_user() -> Ops {
    let key = StateKey::generate().expect("the OS has randomness");
    let rounds = Rounds::new(StateKeys::single(KeyId::new(1), key));
    ops_with(AskConfig::per_user(rounds, |request| {
        let principal = request.meta.get(PRINCIPAL)?;
        principal.as_str().map(str::to_owned)
    }))
}

/// `state` with one character in its middle changed.
fn tampered(state: &str) -> String {
    let mut bytes = state.as_bytes().to_vec();
    let middle = bytes.len() / 2;
    bytes[middle] = if bytes[middle] == b'A' { b'B' } else { b'A' };
    String::from_utf8(bytes).unwrap()
}

#[tokio::test]
async fn a_tampered_request_state_is_invalid_params() {
    let s = on_2026_07_28(ops()).await;
    let asked = s.first_round("deploy", deploy(), None).await;
    let forged = asked.answered_under(&staging(), tampered(&asked.state()));
    let result = s.send("deploy", deploy(), None, Some(forged)).await;
    assert_eq!(refused(result), ErrorCode::INVALID_PARAMS);
    // The state as it was sent opens: what was refused is the change.
    let retry = s.send("deploy", deploy(), None, Some(asked.answered(&staging())));
    assert_eq!(completed(retry.await), ok(DEPLOYED));
}

#[tokio::test]
async fn a_request_state_is_bound_to_the_calls_arguments() {
    let s = on_2026_07_28(ops()).await;
    let asked = s.first_round("deploy", deploy(), None).await;
    let other = json!({"service": "payments"});
    let result = s.send("deploy", other, None, Some(asked.answered(&staging())));
    assert_eq!(refused(result.await), ErrorCode::INVALID_PARAMS);
    let retry = s.send("deploy", deploy(), None, Some(asked.answered(&staging())));
    assert_eq!(completed(retry.await), ok(DEPLOYED));
}

#[tokio::test]
async fn a_request_state_opens_only_for_the_principal_it_was_sealed_for() {
    let s = on_2026_07_28(per_user()).await;
    let asked = s.first_round("deploy", deploy(), Some("alice")).await;
    let mallory = s.send(
        "deploy",
        deploy(),
        Some("mallory"),
        Some(asked.answered(&staging())),
    );
    assert_eq!(refused(mallory.await), ErrorCode::INVALID_PARAMS);
    let alice = s.send(
        "deploy",
        deploy(),
        Some("alice"),
        Some(asked.answered(&staging())),
    );
    assert_eq!(completed(alice.await), ok(DEPLOYED));
}

#[tokio::test]
async fn a_per_user_server_refuses_a_request_with_no_principal() {
    let s = on_2026_07_28(per_user()).await;
    let result = s.send("deploy", deploy(), None, None).await;
    assert_eq!(refused(result), ErrorCode::INVALID_REQUEST);
}

/// A principal that names no one (empty, or only white space) is no principal: a state sealed
/// for it would open for every request that names no one the same way.
#[tokio::test]
async fn a_per_user_server_refuses_a_principal_that_names_no_one() {
    let s = on_2026_07_28(per_user()).await;
    for no_one in ["", " ", "\t\u{3000}"] {
        let result = s.send("deploy", deploy(), Some(no_one), None).await;
        assert_eq!(refused(result), ErrorCode::INVALID_REQUEST, "{no_one:?}");
    }
}
