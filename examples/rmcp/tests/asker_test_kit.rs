//! The test kit: a scripted user, answering `ops_server` through `AnsweringClient` (the kit's
//! own client) on both revisions that ask.
//!
//! `cargo test -p elicit-examples --features rmcp --test asker_test_kit`

use std::sync::Arc;

use mcp_elicit::client::{Scripted, Step as KitStep};
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
