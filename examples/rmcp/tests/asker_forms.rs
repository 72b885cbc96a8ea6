//! The form path between `ops_server`'s `deploy` and rmcp's client, on both revisions that ask:
//! an answer is final (accept, decline, cancel) and read once as asked, and the form reaches the
//! client with its fields in struct order.
//!
//! `cargo test -p elicit-examples --features oauth --test asker_forms`

use serde_json::json;

#[macro_use]
mod common;

use common::*;

// ----------------------------------------------------------------------------------- final answers

on_both_revisions! {
    async fn an_accepted_form_is_read_once_as_asked(revision) {
        let client = Client::declaring(form_only())
            .answering([accept(json!({"env": "production", "replicas": 3}))]);
        let s = connect(revision, ops(), client).await;
        let result = s.call("deploy", deploy()).await;
        assert_eq!(result, ok("Deployed `billing-api` to Production with 3 replicas."));
        let [asked] = &s.asked()[..] else { panic!("asked {:?}", s.asked()) };
        let (message, schema) = form(asked);
        assert_eq!(message, DEPLOY_MESSAGE);
        assert_eq!(schema["required"], json!(["env", "replicas"]));
        assert_eq!(schema["properties"]["env"]["default"], "staging");
        let replicas = &schema["properties"]["replicas"];
        assert_eq!((&replicas["minimum"], &replicas["maximum"]), (&json!(1), &json!(10)));
    }
}

on_both_revisions! {
    async fn a_decline_is_final_and_never_asked_again(revision) {
        let client = Client::declaring(form_only()).answering([decline()]);
        let s = connect(revision, ops(), client).await;
        assert_eq!(s.call("deploy", deploy()).await, ok("You declined: nothing was deployed."));
        assert_eq!(s.messages(), [DEPLOY_MESSAGE]);
    }
}

on_both_revisions! {
    async fn a_cancel_is_final_and_never_asked_again(revision) {
        let client = Client::declaring(form_only()).answering([cancel()]);
        let s = connect(revision, ops(), client).await;
        let result = s.call("deploy", deploy()).await;
        assert_eq!(result, ok("You dismissed the question: nothing was deployed."));
        assert_eq!(s.messages(), [DEPLOY_MESSAGE]);
    }
}

// ------------------------------------------------------------------------------------- field order

on_both_revisions! {
    async fn a_form_reaches_the_client_in_struct_order(revision) {
        let client = Client::declaring(form_only()).answering([decline()]);
        let s = connect(revision, ops(), client).await;
        s.call("deploy", deploy()).await;
        let [line] = &s.questions_on_the_wire()[..] else { panic!("{:?}", s.wire()) };
        let properties = &line[line.find(r#""properties":"#).expect("a schema")..];
        let at = |field: &str| properties.find(&format!(r#""{field}":{{"#)).expect(field);
        // Alphabetical would be change_ticket, env, replicas.
        assert!(at("env") < at("replicas") && at("replicas") < at("change_ticket"), "{line}");
    }
}
