//! Multi round-trip requests (2026-07-28), a complete tool call: a deploy tool that runs from
//! the top on every round asks where and when in one round, deploys exactly once, and refuses
//! the same retry replayed or presented by someone else.

use std::sync::atomic::{AtomicUsize, Ordering};

use elicit_core::Elicitation;
use elicit_core::mrtr::{Answer, Ask, InputRequiredResult, MrtrError, Retry, Rounds};
use elicit_core::state::{Binding, MemoryReplayGuard, ParamsDigest};
use serde_json::{Value, json};

mod common;

use common::*;

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
    // Single use: of any number of presentations of this state, one gets past here.
    round.spend_now().map_err(error)?;

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
    deployed.fetch_add(1, Ordering::SeqCst);
    Ok(ToolResponse::Complete(format!(
        "Deploying to {:?} at {:02}:00 UTC.",
        target.env, window.hour
    )))
}

#[test]
fn a_complete_two_round_tool_call() {
    let rounds = rounds().with_replay_guard(MemoryReplayGuard::new());
    let deployed = AtomicUsize::new(0);
    let params = call();

    // Round 1: both questions, one round, nothing deployed.
    let ToolResponse::InputRequired(result) =
        deploy_tool(&rounds, &deployed, PRINCIPAL, &params).unwrap()
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
        deploy_tool(&rounds, &deployed, PRINCIPAL, &retried).unwrap()
    else {
        panic!("round 2 completes")
    };
    assert_eq!(text, "Deploying to Production at 22:00 UTC.");
    assert_eq!(deployed.load(Ordering::SeqCst), 1);

    // The same retry replayed: refused, nothing deployed twice.
    let replay = deploy_tool(&rounds, &deployed, PRINCIPAL, &retried).unwrap_err();
    assert_eq!(replay["code"], -32602);
    // Someone else presenting it: refused before anything is read.
    let stolen = deploy_tool(&rounds, &deployed, "user-0000", &retried).unwrap_err();
    assert_eq!(
        stolen["message"],
        "requestState was issued to a different principal"
    );
    assert_eq!(deployed.load(Ordering::SeqCst), 1);

    // A decline completes without deploying, and is not asked again.
    let ToolResponse::InputRequired(result) =
        deploy_tool(&rounds, &deployed, PRINCIPAL, &params).unwrap()
    else {
        panic!("a new call asks again")
    };
    let declined = retry(
        &params,
        &result,
        json!({ "target": { "action": "decline" }, "window": { "action": "decline" } }),
    );
    let ToolResponse::Complete(text) =
        deploy_tool(&rounds, &deployed, PRINCIPAL, &declined).unwrap()
    else {
        panic!("a decline is final")
    };
    assert_eq!(text, "Nothing was deployed.");
}
