//! The test kit: a scripted user, answering `ops_server` through `AnsweringClient` (the kit's
//! own client) on both revisions that ask.
//!
//! `cargo test -p elicit-examples --features oauth --test asker_test_kit`

use std::sync::Arc;
use std::time::Duration;

use mcp_elicit::client::{Scripted, Step as KitStep};
use mcp_elicit::rmcp::KitError;
use mcp_elicit::{Mode, Revision};
use serde_json::json;

#[macro_use]
mod common;

use common::*;

on_both_revisions! {
    async fn a_scripted_user_answers_through_the_answering_client(revision) {
        let user = Arc::new(Scripted::new().when_field("replicas", KitStep::accept(
            json!({"env": "staging", "replicas": 2}),
        )));
        let client = kit(revision, ops(), &user).await;
        assert_eq!(call_deploy(&client).await, ok(DEPLOYED));
        let seen = user.seen();
        let [(_, asked)] = &seen[..] else { panic!("asked {} times", seen.len()) };
        assert_eq!(asked.message(), DEPLOY_MESSAGE);
    }
}

on_both_revisions! {
    async fn a_scripted_decline_and_a_scripted_invalid_answer(revision) {
        let user = Arc::new(Scripted::new().then(KitStep::Decline));
        let client = kit(revision, ops(), &user).await;
        assert_eq!(call_deploy(&client).await, ok("You declined: nothing was deployed."));

        let invalid = KitStep::accept(json!({"env": "staging", "replicas": 99}));
        let user = Arc::new(Scripted::new().when_field("replicas", invalid));
        let client = kit(revision, ops(), &user).await;
        assert_eq!(call_deploy(&client).await, rejected_after("2 tries"));
        assert_eq!(user.seen().len(), 2, "asked once, and once again");
    }
}

on_both_revisions! {
    /// Issue 25, point 10: a test that scripted a form's acceptance fails when the tool sends
    /// a URL request instead, naming both modes; the page is not agreed to.
    async fn a_step_for_a_form_that_meets_a_url_request_fails_the_call(revision) {
        let user = Arc::new(Scripted::new().then(KitStep::accept(json!({"confirm": true}))));
        let client = kit(revision, ops(), &user).await;
        let called = client.call("connect_github", json!({})).await;
        let error = called.expect_err("the script expected a form, and the tool sent a URL");
        let KitError::WrongMode { tool, wrong } = &error else { panic!("{error:?}") };
        assert_eq!((tool.as_str(), wrong.step, wrong.asked), ("connect_github", Mode::Form, Mode::Url));
        assert_eq!(
            error.to_string(),
            "calling `connect_github`: the script's step answers a form, and the server sent a URL \
             request (\"Connect your GitHub account on our page, so I can open pull requests for \
             you.\"): it was cancelled, not accepted (`Step::Accept` answers a form; a URL \
             request's is `Step::OpenPage`)"
        );
        assert_eq!(user.seen().len(), 1, "shown once, and not agreed to");

        // Said as it is meant, the page is agreed to (each time: on 2026-07-28 it is asked
        // again, after each retry waited for it); never finished there, the step is not read
        // as done.
        let user = Arc::new(Scripted::new().when_url(KitStep::OpenPage));
        let client = kit(revision, waiting(Duration::from_millis(300)), &user).await;
        if revision == Revision::V2025_11_25 {
            let called = client.call("connect_github", json!({})).await.expect("a tool result");
            assert!(called.is_error(), "{}", called.text());
            assert!(called.text().contains("not finished"), "{}", called.text());
        } else {
            // An accept is never a bad answer: the tool asks while the client accepts, and the
            // client's own round cap ends it.
            let error = client.call("connect_github", json!({})).await.unwrap_err();
            assert!(matches!(error, KitError::RoundsExceeded { .. }), "{error}");
        }
    }
}
