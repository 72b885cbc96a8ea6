//! URL mode: `ops_server`'s `connect_github` sends the user to a page, and reads the answer as
//! a `UrlOutcome`; on the wire the request has an `elicitationId` only before 2026-07-28.
//!
//! `cargo test -p elicit-examples --features rmcp --test asker_url_mode`

use mcp_elicit::Revision;
use serde_json::json;

#[macro_use]
mod common;

use common::*;

const CONNECT_MESSAGE: &str =
    "Connect your GitHub account on our page, so I can open pull requests for you.";

on_both_revisions! {
    async fn an_accepted_page_is_accepted(revision) {
        let client = Client::declaring(form_and_url()).answering([accept_url()]);
        let s = connect(revision, ops(), client).await;
        let result = s.call("connect_github", json!({})).await;
        let finish = "Finish connecting GitHub on the page that opened, then call this tool again.";
        assert_eq!(result, ok(finish));
        let [asked] = &s.asked()[..] else { panic!("asked {:?}", s.asked()) };
        let (message, page, elicitation_id) = url(asked);
        assert_eq!((message.as_str(), page.as_str()), (CONNECT_MESSAGE, PAGE));
        // 2026-07-28 has no elicitationId: rmcp's client reads the absent member as "".
        assert_eq!(elicitation_id.is_empty(), revision == Revision::V2026_07_28);
    }
}

on_both_revisions! {
    async fn a_declined_page_is_declined(revision) {
        let client = Client::declaring(form_and_url()).answering([decline()]);
        let s = connect(revision, ops(), client).await;
        let result = s.call("connect_github", json!({})).await;
        assert_eq!(result, ok("You declined: GitHub was not connected."));
        assert_eq!(s.asked().len(), 1);
    }
}

on_both_revisions! {
    async fn the_url_request_on_the_wire_has_an_elicitation_id_only_before_2026_07_28(revision) {
        let client = Client::declaring(form_and_url()).answering([decline()]);
        let s = connect(revision, ops(), client).await;
        s.call("connect_github", json!({})).await;
        let [line] = &s.questions_on_the_wire()[..] else { panic!("{:?}", s.wire()) };
        assert!(line.contains(r#""mode":"url""#), "{line}");
        if revision == Revision::V2025_11_25 {
            assert!(!line.contains(r#""elicitationId":"""#), "an empty id: {line}");
            assert!(line.contains(r#""elicitationId":""#), "no id: {line}");
        } else {
            assert!(!line.contains("elicitationId"), "2026-07-28 removed it: {line}");
        }
    }
}
