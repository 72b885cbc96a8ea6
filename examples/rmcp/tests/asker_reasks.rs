//! An answer that breaks `ops_server`'s `DeployTarget` rules is asked again, saying what was
//! wrong, as many times as the server's rounds allow; then the call ends with a tool error
//! naming the broken rule. On both revisions that ask.
//!
//! `cargo test -p elicit-examples --features oauth --test asker_reasks`

use mcp_elicit::Revision;
use serde_json::json;

#[macro_use]
mod common;

use common::*;

on_both_revisions! {
    async fn an_invalid_answer_is_asked_again_saying_what_was_wrong(revision) {
        let client = Client::declaring(form_only()).answering([
            accept(json!({"env": "staging", "replicas": 11})),
            accept(json!({"env": "staging", "replicas": 4})),
        ]);
        let s = connect(revision, ops(), client).await;
        let result = s.call("deploy", deploy()).await;
        assert_eq!(result, ok("Deployed `billing-api` to Staging with 4 replicas."));
        let again = reasked("Replicas must be at most 10.", DEPLOY_MESSAGE);
        assert_eq!(s.messages(), [DEPLOY_MESSAGE, &again]);
        let asked = s.asked();
        assert_eq!(form(&asked[1]).1, form(&asked[0]).1, "the same form, asked again");
    }
}

/// Calls `deploy` with a client whose every answer breaks the form's rules; returns the result
/// and the messages asked.
async fn always_invalid(revision: Revision, server: Ops) -> (Returned, Vec<String>) {
    let client = Client::declaring(form_only())
        .answering([accept(json!({"env": "staging", "replicas": 99}))]);
    let s = connect(revision, server, client).await;
    (s.call("deploy", deploy()).await, s.messages())
}

on_both_revisions! {
    async fn invalid_answers_are_asked_twice_then_rejected_as_a_tool_error(revision) {
        let (result, messages) = always_invalid(revision, ops()).await;
        assert_eq!(result, rejected_after("2 tries"));
        let again = reasked("Replicas must be at most 10.", DEPLOY_MESSAGE);
        assert_eq!(messages, [DEPLOY_MESSAGE, &again]);
    }
}

on_both_revisions! {
    async fn with_no_reasks_an_invalid_answer_is_rejected_at_once(revision) {
        let (result, messages) = always_invalid(revision, reasking(0)).await;
        assert_eq!(result, rejected_after("1 try"));
        assert_eq!(messages, [DEPLOY_MESSAGE]);
    }
}

on_both_revisions! {
    async fn with_two_reasks_an_invalid_answer_is_asked_three_times(revision) {
        let (result, messages) = always_invalid(revision, reasking(2)).await;
        assert_eq!(result, rejected_after("3 tries"));
        let again = reasked("Replicas must be at most 10.", DEPLOY_MESSAGE);
        assert_eq!(messages, [DEPLOY_MESSAGE, &again, &again]);
    }
}

/// 2026-07-28: replaying round 1's state with another bad answer cannot reset the count. The
/// server's rounds spend every state (`AskConfig::single_user` sets a replay guard), so the
/// replay is refused and the latest state's next bad answer ends the call.
#[tokio::test]
async fn replaying_an_earlier_round_cannot_reset_the_reask_count() {
    let s = on_2026_07_28(ops()).await;
    let bad = accept(json!({"env": "staging", "replicas": 11}));
    let first = s.first_round("deploy", deploy(), None).await;
    let again = match s
        .send("deploy", deploy(), None, Some(first.answered(&bad)))
        .await
    {
        Ok(rmcp::model::ServerResult::InputRequiredResult(result)) => Asked::from(result),
        other => panic!("asked again, got {other:?}"),
    };
    for _ in 0..3 {
        let replayed = s.send("deploy", deploy(), None, Some(first.answered(&bad)));
        assert_eq!(
            refused(replayed.await),
            rmcp::model::ErrorCode::INVALID_PARAMS
        );
    }
    let last = s.send("deploy", deploy(), None, Some(again.answered(&bad)));
    assert_eq!(completed(last.await), rejected_after("2 tries"));
}

on_both_revisions! {
    /// Codex has answered `accept` with `{}` for forms it rendered as an approval dialog: the
    /// form is asked once more, naming each required field, then the call stops legibly
    /// (and does not loop).
    async fn an_empty_accept_is_asked_once_naming_the_required_fields_then_stopped(revision) {
        let client = Client::declaring(form_only()).answering([accept(json!({}))]);
        let s = connect(revision, ops(), client).await;
        let result = s.call("deploy", deploy()).await;
        let missing = "Environment is required; Replicas is required.";
        assert_eq!(
            result,
            error(&format!(
                "The answer could not be used after 2 tries: {missing} Nothing was deployed."
            ))
        );
        assert_eq!(s.messages(), [DEPLOY_MESSAGE, &reasked(missing, DEPLOY_MESSAGE)]);
    }
}

on_both_revisions! {
    /// GitHub Copilot CLI shows a select's first option highlighted without selecting it, so
    /// the answer lacks that field: asked once more naming it, with what was answered
    /// pre-filled, then the call stops legibly.
    async fn a_select_left_out_is_asked_once_naming_it_then_stopped(revision) {
        let client = Client::declaring(form_only()).answering([accept(json!({"replicas": 3}))]);
        let s = connect(revision, ops(), client).await;
        let result = s.call("deploy", deploy()).await;
        assert_eq!(
            result,
            error(
                "The answer could not be used after 2 tries: Environment is required. \
                 Nothing was deployed."
            )
        );
        let again = reasked("Environment is required.", DEPLOY_MESSAGE);
        assert_eq!(s.messages(), [DEPLOY_MESSAGE, &again]);
        let asked = s.asked();
        let schema = form(&asked[1]).1;
        assert_eq!(schema["properties"]["replicas"]["default"], 3, "what was answered");
        assert_eq!(schema["properties"]["env"]["default"], "staging", "the form's own");
    }
}

on_both_revisions! {
    /// What kept its rules comes back pre-filled, through rmcp's types: the environment chosen
    /// (not the form's own default) and the ticket; the replicas that broke a rule keep the
    /// form's own default, never the 11.
    async fn a_reask_prefills_what_kept_its_rules(revision) {
        let client = Client::declaring(form_only()).answering([
            accept(json!({"env": "production", "replicas": 11, "change_ticket": "CHG-1234"})),
            staging(),
        ]);
        let s = connect(revision, ops(), client).await;
        assert_eq!(s.call("deploy", deploy()).await, ok(DEPLOYED));
        let asked = s.asked();
        let schema = form(&asked[1]).1;
        assert_eq!(schema["properties"]["env"]["default"], "production");
        assert_eq!(schema["properties"]["change_ticket"]["default"], "CHG-1234");
        assert_eq!(schema["properties"]["replicas"]["default"], 2);
    }
}
