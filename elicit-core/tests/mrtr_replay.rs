//! Multi round-trip requests (2026-07-28) against a client that replays: with a replay guard
//! (`Rounds::with_replay_guard`) every round's state is spent by the run that resumes it, so no
//! earlier state is accepted twice. The re-ask bound and "a decline is final" hold, a consent
//! from one round is acted on once, and a run reads no answer that no spent state asked.
//! Without a guard the same replays go through: the promise is the guard's.

use std::future::{Future, pending};
use std::pin::Pin;

use elicit_core::Elicitation;
use elicit_core::mrtr::{Answer, Ask, InputRequiredResult, MrtrError, Round, Rounds};
use elicit_core::state::{
    MemoryReplayGuard, RedeemError, RedeemFuture, ReplayGuard, StateId, UnixTime,
};
use serde_json::{Value, json};

mod common;

use common::*;

fn guarded() -> Rounds {
    rounds().with_replay_guard(MemoryReplayGuard::new())
}

/// A run on `params` with its state spent first, as every handler with a guard runs.
fn spent<'r>(rounds: &'r Rounds, params: &'r Value) -> Result<Round<'r, ()>, MrtrError> {
    let mut round = round::<()>(rounds, params)?;
    round.spend_now()?;
    Ok(round)
}

fn is_replay<T>(run: Result<T, MrtrError>) -> bool {
    matches!(run, Err(MrtrError::Redeem(RedeemError::AlreadyRedeemed)))
}

fn bad_hour() -> Value {
    json!({ "window": accept(json!({ "hour": 24 })) })
}

/// Round 1 asks for the window; the client answers it badly once: round 2 asks again.
fn asked_again(rounds: &Rounds, params: &Value) -> (InputRequiredResult, InputRequiredResult) {
    let first = asked(rounds, params, Ask::form::<Window>("window"));
    let retried = retry(params, &first, bad_hour());
    let mut round = spent(rounds, &retried).unwrap();
    let again = ask(round.answer(Ask::form::<Window>("window")).unwrap());
    (first, again)
}

#[test]
fn with_a_guard_replaying_an_earlier_round_cannot_reset_the_reask_bound() {
    let rounds = guarded().with_reasks(1);
    let params = call();
    let (first, again) = asked_again(&rounds, &params);

    // Round 1's state again, with another bad answer: refused, not a fresh re-ask.
    for _ in 0..3 {
        let replayed = retry(&params, &first, bad_hour());
        assert!(is_replay(spent(&rounds, &replayed)));
    }
    // The latest state: the re-ask is spent, and the question rejected.
    let retried = retry(&params, &again, bad_hour());
    let mut round = spent(&rounds, &retried).unwrap();
    let answer = round.answer(Ask::form::<Window>("window")).unwrap();
    assert!(matches!(answer, Answer::Rejected(_)), "{answer:?}");
}

#[test]
fn without_a_guard_an_earlier_round_resumes_as_often_as_it_is_sent() {
    // What the guard is for: the same replay, on rounds with no guard, asks again every time.
    let rounds = rounds().with_reasks(1);
    let params = call();
    let (first, _again) = asked_again(&rounds, &params);
    for _ in 0..3 {
        let replayed = retry(&params, &first, bad_hour());
        let mut round = spent(&rounds, &replayed).unwrap();
        let answer = round.answer(Ask::form::<Window>("window")).unwrap();
        assert!(matches!(answer, Answer::Ask(_)), "{answer:?}");
    }
}

/// A handler that asks for the target, then (whatever the answer) for the window: the target's
/// answer travels in round 2's state.
fn target_then_window(
    round: &mut Round<'_, ()>,
) -> Answer<(Elicitation<DeployTarget>, Elicitation<Window>)> {
    let target = match round.answer(Ask::form::<DeployTarget>("target")).unwrap() {
        Answer::Ready(target) => target,
        Answer::Ask(result) => return Answer::Ask(result),
        Answer::Rejected(rejected) => return Answer::Rejected(rejected),
    };
    match round.answer(Ask::form::<Window>("window")).unwrap() {
        Answer::Ready(window) => Answer::Ready((target, window)),
        Answer::Ask(result) => Answer::Ask(result),
        Answer::Rejected(rejected) => Answer::Rejected(rejected),
    }
}

#[test]
fn with_a_guard_a_decline_stays_final_against_replay() {
    let rounds = guarded();
    let params = call();
    let first = ask(target_then_window(&mut spent(&rounds, &params).unwrap()));

    // The user declines the target; the handler goes on to ask the window.
    let declined = retry(
        &params,
        &first,
        json!({ "target": { "action": "decline" } }),
    );
    let second = ask(target_then_window(&mut spent(&rounds, &declined).unwrap()));
    assert_eq!(keys_of(&second), ["window"]);

    // Round 1's state again, now with an accept: refused, the decline stands.
    let forged = retry(
        &params,
        &first,
        json!({ "target": accept(json!({ "env": "production", "ticket": "CHG-1" })) }),
    );
    assert!(is_replay(spent(&rounds, &forged)));
    let finished = retry(
        &params,
        &second,
        json!({ "window": accept(json!({ "hour": 3 })) }),
    );
    let (target, _) = ready(target_then_window(&mut spent(&rounds, &finished).unwrap()));
    assert_eq!(target, Elicitation::Decline);
}

#[test]
fn with_a_guard_an_answer_from_an_earlier_round_is_acted_on_once() {
    let rounds = guarded();
    let params = call();
    let target = json!({ "target": accept(json!({ "env": "production", "ticket": "CHG-1" })) });
    let window = json!({ "window": accept(json!({ "hour": 3 })) });
    let first = ask(target_then_window(&mut spent(&rounds, &params).unwrap()));
    let answered = retry(&params, &first, target.clone());
    let second = ask(target_then_window(&mut spent(&rounds, &answered).unwrap()));
    let done = retry(&params, &second, window.clone());
    assert!(
        ready(target_then_window(&mut spent(&rounds, &done).unwrap()))
            .0
            .is_accepted()
    );

    // Round 1's retry byte for byte, to get a fresh round 2 and act a second time: refused.
    assert!(is_replay(spent(&rounds, &answered)));
    // And the last round's retry again.
    assert!(is_replay(spent(&rounds, &done)));
}

/// A first request that answers before it is asked, to a question that opts in.
fn answered_up_front(rounds: &Rounds) -> Result<Answer<Elicitation<Window>>, MrtrError> {
    let mut params = call();
    params["inputResponses"] = json!({ "window": accept(json!({ "hour": 3 })) });
    let mut round = spent(rounds, &params)?;
    round.answer(Ask::form::<Window>("window").answerable_before_asked())
}

#[test]
fn with_a_guard_an_ask_that_reads_answers_before_they_are_asked_is_refused() {
    // Such an answer comes from no state: nothing can spend it (the same request can come
    // again, or with other keys beside it). So the server's opt-in is refused, naming the key.
    let error = answered_up_front(&guarded()).unwrap_err();
    let MrtrError::BeforeAskedWithReplayGuard { key } = &error else {
        panic!("{error:?}")
    };
    assert_eq!(key, "window");
    assert_eq!(error.to_jsonrpc_error().code(), -32603);
    assert!(
        error.to_string().contains("answerable_before_asked"),
        "{error}"
    );
    // Refused whether or not the client sent an answer: a configuration error shows at once.
    let guarded = guarded();
    let params = call();
    let asked = spent(&guarded, &params)
        .unwrap()
        .answer(Ask::form::<Window>("window").answerable_before_asked());
    assert!(matches!(
        asked,
        Err(MrtrError::BeforeAskedWithReplayGuard { .. })
    ));
    // Without a guard there is no single use: the same request reads it every time.
    let unguarded = rounds();
    for _ in 0..3 {
        assert!(ready(answered_up_front(&unguarded).unwrap()).is_accepted());
    }
}

#[test]
fn a_resumed_round_reads_nothing_until_its_state_is_spent() {
    let rounds = guarded();
    let params = call();
    let first = asked(&rounds, &params, Ask::form::<Window>("window"));
    let retried = retry(
        &params,
        &first,
        json!({ "window": accept(json!({ "hour": 3 })) }),
    );
    let mut round = round::<()>(&rounds, &retried).unwrap();
    assert!(round.is_resumed());
    let error = round.answer(Ask::form::<Window>("window")).unwrap_err();
    assert!(matches!(error, MrtrError::Unspent), "{error:?}");
    assert_eq!(error.to_jsonrpc_error().code(), -32603);
    assert!(error.to_string().contains("Round::spend"), "{error}");
    assert!(matches!(round.checkpoint(), Err(MrtrError::Unspent)));
    assert!(round.state().is_none());

    round.spend_now().expect("first use");
    round
        .spend_now()
        .expect("spending twice in one run is a no-op");
    assert!(ready(round.answer(Ask::form::<Window>("window")).unwrap()).is_accepted());
}

#[test]
fn a_first_request_and_unguarded_rounds_have_nothing_to_spend() {
    let params = call();
    let guarded = guarded();
    let mut first = round::<()>(&guarded, &params).unwrap();
    assert!(!first.is_resumed());
    assert!(matches!(
        first.answer(Ask::form::<Window>("window")).unwrap(),
        Answer::Ask(_)
    ));

    let unguarded = rounds();
    let result = asked(&unguarded, &params, Ask::form::<Window>("window"));
    let retried = retry(
        &params,
        &result,
        json!({ "window": accept(json!({ "hour": 3 })) }),
    );
    let mut round = round::<()>(&unguarded, &retried).unwrap();
    assert!(ready(round.answer(Ask::form::<Window>("window")).unwrap()).is_accepted());
}

/// A guard that never answers, as a network guard that has to wait.
struct Waits;

impl ReplayGuard for Waits {
    fn redeem(&self, _: StateId, _: &str, _: UnixTime, _: UnixTime) -> RedeemFuture<'_> {
        Box::pin(pending()) as Pin<Box<dyn Future<Output = _> + Send>>
    }
}

#[test]
fn spending_without_waiting_refuses_a_guard_that_has_to_wait() {
    let rounds = rounds().with_replay_guard(Waits);
    let params = call();
    let first = asked(&rounds, &params, Ask::form::<Window>("window"));
    let retried = retry(
        &params,
        &first,
        json!({ "window": accept(json!({ "hour": 3 })) }),
    );
    let mut round = round::<()>(&rounds, &retried).unwrap();
    assert!(matches!(round.spend_now(), Err(MrtrError::Unspent)));
    assert!(matches!(
        round.answer(Ask::form::<Window>("window")),
        Err(MrtrError::Unspent)
    ));
}
