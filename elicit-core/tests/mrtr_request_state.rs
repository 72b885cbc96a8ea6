//! Multi round-trip requests (2026-07-28), the request state: the handler's typed state travels
//! sealed between rounds; a state that does not open (tampered, another principal, method or
//! call, expired) is invalid params naming the check; a round is redeemed once however many
//! retries race; replicas with the same keys resume each other's rounds.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Barrier};

use elicit_core::mrtr::{Ask, MrtrError, Retry, Rounds};
use elicit_core::state::{
    Binding, KeyId, MemoryReplayGuard, RedeemError, RequestMismatch, StateError, StateKey,
    StateKeys, UnixTime,
};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

mod common;

use common::*;

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Found {
    accounts: Vec<String>,
}

#[test]
fn the_typed_state_travels_sealed_between_rounds() {
    let rounds = rounds();
    let params = call();
    let mut first = round::<Found>(&rounds, &params).unwrap();
    assert!(!first.is_resumed());
    assert_eq!(first.state(), None);
    first.keep(Found {
        accounts: vec!["acme".into(), "acme-eu".into()],
    });
    let result = ask(first.answer(Ask::form::<Window>("window")).unwrap());
    let state = result.request_state().unwrap();
    assert!(
        !state.contains("acme"),
        "the state is sealed, not merely encoded"
    );

    let retried = retry(&params, &result, json!({}));
    let second = round::<Found>(&rounds, &retried).unwrap();
    assert!(second.is_resumed());
    assert_eq!(second.state().unwrap().accounts, ["acme", "acme-eu"]);
}

#[test]
fn a_request_state_that_does_not_open_is_invalid_params_naming_the_check() {
    let rounds = rounds();
    let params = call();
    let result = asked(&rounds, &params, Ask::form::<Window>("window"));
    let retried = retry(&params, &result, json!({}));
    let open = |params: &Value, binding: Binding<'_>, now| {
        let retry = Retry::from_params(params).unwrap();
        rounds
            .round::<()>(retry, binding, now)
            .map(|_| ())
            .unwrap_err()
    };

    let mut tampered = retried.clone();
    let text = tampered["requestState"].as_str().unwrap().to_owned();
    // One character in the middle changed: still base64url, no longer authentic. (The last
    // character also carries padding bits, so changing it can make the text non-canonical.)
    let middle = text.len() / 2;
    let flipped = if &text[middle..=middle] == "A" {
        "B"
    } else {
        "A"
    };
    tampered["requestState"] = json!(format!(
        "{}{flipped}{}",
        &text[..middle],
        &text[middle + 1..]
    ));
    let errors = [
        open(&tampered, binding(&tampered), NOW),
        open(
            &retried,
            Binding {
                principal: "someone-else",
                ..binding(&retried)
            },
            NOW,
        ),
        open(
            &retried,
            Binding {
                method: "prompts/get",
                ..binding(&retried)
            },
            NOW,
        ),
        open(
            &retried,
            binding(&json!({ "name": "deploy", "arguments": { "service": "ledger" } })),
            NOW,
        ),
        open(
            &retried,
            binding(&retried),
            UnixTime::from_secs(NOW.as_secs() + 601),
        ),
    ];
    let expected = [
        StateError::Tampered,
        StateError::WrongPrincipal,
        StateError::WrongRequest(RequestMismatch::Method),
        StateError::WrongRequest(RequestMismatch::Params),
        StateError::Expired {
            expired_at: UnixTime::from_secs(NOW.as_secs() + 600),
        },
    ];
    for (error, expected) in errors.iter().zip(expected) {
        assert!(
            matches!(error, MrtrError::State(e) if *e == expected),
            "{error:?}"
        );
        assert_eq!(error.to_jsonrpc_error().code(), -32602);
        assert_eq!(
            error.to_jsonrpc_error().to_value()["data"],
            json!({ "field": "requestState" })
        );
        assert!(error.to_string().starts_with("requestState "), "{error}");
    }
}

#[test]
fn sixty_four_concurrent_retries_of_one_round_succeed_exactly_once() {
    let rounds = Arc::new(rounds().with_replay_guard(MemoryReplayGuard::new()));
    let params = call();
    let result = asked(&rounds, &params, Ask::form::<Window>("window"));
    let retried = Arc::new(retry(
        &params,
        &result,
        json!({ "window": accept(json!({ "hour": 4 })) }),
    ));
    let barrier = Arc::new(Barrier::new(64));
    let applied = Arc::new(AtomicUsize::new(0));
    let threads: Vec<_> = (0..64)
        .map(|_| {
            let (rounds, retried, barrier, applied) = (
                rounds.clone(),
                retried.clone(),
                barrier.clone(),
                applied.clone(),
            );
            std::thread::spawn(move || {
                let mut round = round::<()>(&rounds, &retried).unwrap();
                barrier.wait();
                round.spend_now()?;
                let window = ready(round.answer(Ask::form::<Window>("window"))?);
                if window.is_accepted() {
                    applied.fetch_add(1, Ordering::SeqCst);
                }
                Ok::<_, MrtrError>(())
            })
        })
        .collect();
    let outcomes: Vec<_> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    assert_eq!(outcomes.iter().filter(|o| o.is_ok()).count(), 1);
    assert!(outcomes.iter().all(|o| o.is_ok()
        || matches!(o, Err(MrtrError::Redeem(RedeemError::AlreadyRedeemed)))));
    assert_eq!(applied.load(Ordering::SeqCst), 1);
}

#[test]
fn two_replicas_built_from_the_same_keys_resume_each_others_rounds() {
    let replica_a = Rounds::new(StateKeys::single(
        KeyId::new(3),
        StateKey::from_bytes([5; 32]),
    ));
    let replica_b = Rounds::new(StateKeys::single(
        KeyId::new(3),
        StateKey::from_bytes([5; 32]),
    ));
    let params = call();
    let asks = || {
        (
            Ask::form::<DeployTarget>("target"),
            Ask::form::<Window>("window"),
        )
    };
    let first = ask(round::<()>(&replica_a, &params)
        .unwrap()
        .answer(asks())
        .unwrap());
    let second_params = retry(
        &params,
        &first,
        json!({ "target": accept(json!({ "env": "staging" })) }),
    );
    let second = ask(round::<()>(&replica_b, &second_params)
        .unwrap()
        .answer(asks())
        .unwrap());
    let third_params = retry(
        &params,
        &second,
        json!({ "window": accept(json!({ "hour": 8 })) }),
    );
    let (target, window) = ready(
        round::<()>(&replica_a, &third_params)
            .unwrap()
            .answer(asks())
            .unwrap(),
    );
    assert!(target.is_accepted() && window.is_accepted());
}
