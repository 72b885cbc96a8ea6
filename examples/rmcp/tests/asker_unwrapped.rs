//! A server served as it is, not through `AskingService`: on 2026-07-28 a tool that asks is
//! refused unless the server promises its asker comes before its parameters, and then the
//! round is bound to the arguments all the same; on 2025-11-25 nothing is sealed, so it asks.
//!
//! `cargo test -p elicit-examples --features oauth --test asker_unwrapped`

use mcp_elicit::Revision;
use mcp_elicit::rmcp::AskConfig;
use rmcp::model::ErrorCode;
use serde_json::json;

mod common;

use common::*;

#[tokio::test]
async fn unwrapped_an_asker_before_parameters_binds_the_arguments() {
    // Served as it is, not through `AskingService`, and promising the asker comes first: the
    // asker reads the arguments itself.
    let asking = AskConfig::single_user()
        .unwrap()
        .with_asker_before_parameters();
    let client = Client::declaring(form_only());
    let s = connect_served(Revision::V2026_07_28, ops_with(asking), client, false).await;
    let asked = s.first_round("deploy", deploy(), None).await;
    let other = json!({"service": "payments"});
    let result = s.send("deploy", other, None, Some(asked.answered(&staging())));
    assert_eq!(refused(result.await), ErrorCode::INVALID_PARAMS);
    let retry = s.send("deploy", deploy(), None, Some(asked.answered(&staging())));
    assert_eq!(completed(retry.await), ok(DEPLOYED));
}

#[tokio::test]
async fn unwrapped_without_the_promise_a_tool_that_asks_is_refused() {
    let client = Client::declaring(form_only()).answering([staging()]);
    let s = connect_served(Revision::V2026_07_28, ops(), client, false).await;
    let result = s.send("deploy", deploy(), None, None).await;
    let Err(error) = result else {
        panic!("expected a JSON-RPC error, got {result:?}")
    };
    assert_eq!(error.code, ErrorCode::INTERNAL_ERROR);
    assert!(error.message.contains("AskingService"), "{}", error.message);
    assert!(
        error.message.contains("with_asker_before_parameters"),
        "{}",
        error.message
    );
    assert!(s.asked().is_empty(), "nothing was asked");
}

/// Only a 2026-07-28 round is bound to the arguments; before it nothing is sealed.
#[tokio::test]
async fn unwrapped_on_2025_11_25_a_tool_asks_without_the_promise() {
    let client = Client::declaring(form_only()).answering([staging()]);
    let s = connect_served(Revision::V2025_11_25, ops(), client, false).await;
    assert_eq!(s.call("deploy", deploy()).await, ok(DEPLOYED));
}
