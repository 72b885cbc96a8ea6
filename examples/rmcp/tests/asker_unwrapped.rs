//! A server served as it is, through neither `AskingService` nor `AskingHttpService`: on
//! 2026-07-28 a tool that asks is refused (nothing recorded the arguments its round must be
//! bound to); on 2025-11-25 nothing is sealed, so it asks.
//!
//! `cargo test -p elicit-examples --features oauth --test asker_unwrapped`

use mcp_elicit::Revision;
use rmcp::model::ErrorCode;

mod common;

use common::*;

#[tokio::test]
async fn unwrapped_a_tool_that_asks_on_2026_07_28_is_refused_naming_both_wrappers() {
    let client = Client::declaring(form_only()).answering([staging()]);
    let s = connect_served(Revision::V2026_07_28, ops(), client, false).await;
    let result = s.send("deploy", deploy(), None, None).await;
    let Err(error) = result else {
        panic!("expected a JSON-RPC error, got {result:?}")
    };
    assert_eq!(error.code, ErrorCode::INTERNAL_ERROR);
    assert!(error.message.contains("AskingService"), "{}", error.message);
    assert!(
        error.message.contains("AskingHttpService"),
        "{}",
        error.message
    );
    assert!(s.asked().is_empty(), "nothing was asked");
}

/// Only a 2026-07-28 round is bound to the arguments; before it nothing is sealed.
#[tokio::test]
async fn unwrapped_on_2025_11_25_a_tool_asks() {
    let client = Client::declaring(form_only()).answering([staging()]);
    let s = connect_served(Revision::V2025_11_25, ops(), client, false).await;
    assert_eq!(s.call("deploy", deploy()).await, ok(DEPLOYED));
}
