//! A URL question that starts a flow, on 2026-07-28: the flow's id travels in the sealed round
//! state, so the question and its URL are the same in every round; an accept whose step is not
//! finished is asked again with a note, and never counts against the re-ask bound (the server
//! waits for the page before it reads it: the rmcp `Asker`'s part); a finished step is read
//! with its value, whatever the client answered. An accept never reads as done.

use std::time::Duration;

use elicit_core::UrlRequest;
use elicit_core::mrtr::{Answer, Ask, InputRequiredResult, Round};
use elicit_core::state::ParamsDigest;
use elicit_core::url_mode::{Flow, FlowId, FlowOutcome, FlowStatus, MemoryFlowStore};
use serde_json::{Value, json};

mod common;

use common::*;

fn connect() -> Value {
    json!({
        "name": "connect_api_key",
        "_meta": capabilities(json!({ "elicitation": { "url": {} } })),
    })
}

/// What a tool does each round: the round's flow, its URL, and the flow as the store has it.
fn run(round: &mut Round<'_, ()>, store: &MemoryFlowStore) -> (FlowId, Answer<FlowOutcome>) {
    let flow = round.flow_id("api_key").unwrap();
    let id = flow.id;
    if flow.started {
        let call = ParamsDigest::of_request_params(&connect());
        let flow = Flow::new(id, "api_key", PRINCIPAL, call, "Enter your API key.")
            .expiring(NOW, Duration::from_secs(600))
            .unwrap();
        store.begin_now(flow, NOW).unwrap();
    }
    let request = UrlRequest::new(
        "Enter your API key.",
        &format!("https://mcp.example.com/elicit/{id}"),
    )
    .unwrap()
    .with_name("api_key");
    let status = store.get_now(&id, NOW).unwrap().status().clone();
    (
        id,
        round
            .answer(Ask::url_flow("api_key", request, status))
            .unwrap(),
    )
}

fn url_of(result: &InputRequiredResult) -> &str {
    result.input_requests().get("api_key").unwrap()["params"]["url"]
        .as_str()
        .unwrap()
}

#[test]
fn the_url_is_the_same_every_round_and_an_accept_is_not_done_until_the_page_is() {
    let rounds = rounds().with_reasks(2);
    let store = MemoryFlowStore::new();
    let params = connect();

    let (id, first) = run(&mut round(&rounds, &params).unwrap(), &store);
    let first = ask(first);
    assert_eq!(
        url_of(&first),
        format!("https://mcp.example.com/elicit/{id}")
    );
    assert_eq!(message_of(&first, "api_key"), "Enter your API key.");

    // The user agreed to open the page, and has not finished: asked again, same URL, saying so.
    let accepted = retry(
        &params,
        &first,
        json!({ "api_key": { "action": "accept" } }),
    );
    let mut second = round::<()>(&rounds, &accepted).unwrap();
    assert!(
        !second.flow_id("api_key").unwrap().started,
        "carried, not started again"
    );
    let mut second = round::<()>(&rounds, &accepted).unwrap();
    let (again_id, again) = run(&mut second, &store);
    let again = ask(again);
    assert_eq!(again_id, id);
    assert_eq!(url_of(&again), url_of(&first));
    assert!(
        message_of(&again, "api_key").contains("still open"),
        "{}",
        message_of(&again, "api_key")
    );

    // The page finishes; the next accept reads the value.
    store.open_now(&id, PRINCIPAL, "b1", NOW).unwrap();
    let claim = store
        .claim_now(&id, PRINCIPAL, "b1", Duration::from_secs(60), NOW)
        .unwrap();
    store
        .finish_now(&claim, Ok(json!({ "ending": "4f2a" })), NOW)
        .unwrap();
    let accepted = retry(
        &params,
        &again,
        json!({ "api_key": { "action": "accept" } }),
    );
    let (_, done) = run(&mut round(&rounds, &accepted).unwrap(), &store);
    assert_eq!(
        ready(done),
        FlowOutcome::Completed(json!({ "ending": "4f2a" }))
    );
}

/// The spec's diagram has the client accept as soon as the user agrees to open the page: an
/// early accept is not a bad answer, and however many times it comes, it is asked again rather
/// than rejected (fast-agent was told "could not be used after 2 tries" 10 ms into the call).
#[test]
fn an_accept_before_the_page_is_finished_never_counts_against_the_reask_bound() {
    let rounds = rounds().with_reasks(1);
    let store = MemoryFlowStore::new();
    let params = connect();
    let (_, first) = run(&mut round(&rounds, &params).unwrap(), &store);
    let mut result = ask(first);
    for _ in 0..5 {
        let accepted = retry(
            &params,
            &result,
            json!({ "api_key": { "action": "accept" } }),
        );
        let mut round = round(&rounds, &accepted).unwrap();
        result = ask(run(&mut round, &store).1);
        assert!(round.continues(), "the call goes on");
        assert!(message_of(&result, "api_key").contains("still open"));
    }
}

/// The page finished before the client's answer came: the sink has the secret, so the tool
/// reads what the page did, not the late decline (the URL mode guide says why).
#[test]
fn a_page_finished_before_a_decline_is_read_as_finished() {
    for action in ["decline", "cancel"] {
        let rounds = rounds();
        let store = MemoryFlowStore::new();
        let params = connect();
        let (id, first) = run(&mut round(&rounds, &params).unwrap(), &store);
        let first = ask(first);
        store.open_now(&id, PRINCIPAL, "b1", NOW).unwrap();
        let claim = store
            .claim_now(&id, PRINCIPAL, "b1", Duration::from_secs(60), NOW)
            .unwrap();
        store.finish_now(&claim, Ok(json!("stored")), NOW).unwrap();
        let answered = retry(&params, &first, json!({ "api_key": { "action": action } }));
        let (_, done) = run(&mut round(&rounds, &answered).unwrap(), &store);
        assert_eq!(
            ready(done),
            FlowOutcome::Completed(json!("stored")),
            "{action}"
        );
    }
}

#[test]
fn failed_expired_declined_and_cancelled_steps_are_final_outcomes() {
    for (status, action, outcome) in [
        (
            FlowStatus::Failed("the vault is down".into()),
            "accept",
            FlowOutcome::Failed("the vault is down".into()),
        ),
        (FlowStatus::Expired, "accept", FlowOutcome::Expired),
        (FlowStatus::Pending, "decline", FlowOutcome::Decline),
        (FlowStatus::Opened, "cancel", FlowOutcome::Cancel),
    ] {
        let rounds = rounds();
        let params = connect();
        let request =
            UrlRequest::new("Enter your API key.", "https://mcp.example.com/elicit/x").unwrap();
        let first = ask(round::<()>(&rounds, &params)
            .unwrap()
            .answer(Ask::url_flow("api_key", request.clone(), status.clone()))
            .unwrap());
        let answered = retry(&params, &first, json!({ "api_key": { "action": action } }));
        let mut round = round::<()>(&rounds, &answered).unwrap();
        let answer = round
            .answer(Ask::url_flow("api_key", request, status))
            .unwrap();
        assert_eq!(ready(answer), outcome);
    }
}

#[test]
fn a_flow_id_is_per_key_and_a_new_call_starts_a_new_flow() {
    let rounds = rounds();
    let params = connect();
    let mut first = round::<()>(&rounds, &params).unwrap();
    let a = first.flow_id("a").unwrap();
    assert!(a.started);
    assert_eq!(first.flow_id("a").unwrap().id, a.id);
    assert_ne!(first.flow_id("b").unwrap().id, a.id);
    let mut other = round::<()>(&rounds, &params).unwrap();
    assert_ne!(other.flow_id("a").unwrap().id, a.id);
}

/// Hosts show no accept button for a URL request: the note on a URL question asked again says
/// what the user can do there (an unfinished accept is never counted, so no re-ask is spent).
#[test]
fn an_unfinished_step_says_to_finish_the_page_then_retry_or_continue() {
    let rounds = rounds().with_reasks(1);
    let store = MemoryFlowStore::new();
    let params = connect();
    let (_, first) = run(&mut round(&rounds, &params).unwrap(), &store);
    let first = ask(first);
    let accepted = retry(
        &params,
        &first,
        json!({ "api_key": { "action": "accept" } }),
    );
    let again = ask(run(&mut round(&rounds, &accepted).unwrap(), &store).1);
    assert_eq!(
        message_of(&again, "api_key"),
        "Enter your API key. (the page is still open: finish the step there, then retry or \
         continue)"
    );
}
