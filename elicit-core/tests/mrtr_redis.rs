//! Multi round-trip rounds across a fleet: single use through a shared Redis replay guard.
//!
//! Ignored by default; run against a real Redis (6.2 or later):
//! `REDIS_URL=redis://127.0.0.1:6399/ cargo test -p elicit-core --features redis --test mrtr_redis -- --ignored`.
//! A run without `REDIS_URL` fails loudly.
#![cfg(feature = "redis")]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use elicit_core::mrtr::{Answer, Ask, InputRequiredResult, Retry, Rounds};
use elicit_core::state::{
    Binding, KeyId, ParamsDigest, RedeemError, RedisReplayGuard, StateKey, StateKeys, UnixTime,
};
use elicit_core::{
    Elicitation, FormRequest,
    schema::{Property, RequestedSchema, StringSchema},
};
use serde_json::{Value, json};
use tokio::sync::Barrier;

/// A key prefix of its own for every test in every run, so runs never see each other's keys.
fn prefix(test: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("after 1970")
        .as_nanos();
    format!("elicit-test:mrtr:{}:{nanos}:{test}:", std::process::id())
}

/// A guard on its own connection, as each replica would have.
async fn guard(prefix: &str) -> RedisReplayGuard {
    let url = std::env::var("REDIS_URL").unwrap_or_else(|_| {
        panic!("REDIS_URL is not set: point it at a redis-server, e.g. redis://127.0.0.1:6399/")
    });
    let connection = redis::Client::open(url)
        .expect("REDIS_URL is a Redis URL")
        .get_multiplexed_async_connection()
        .await
        .expect("Redis is reachable at REDIS_URL");
    RedisReplayGuard::new(connection).with_key_prefix(prefix)
}

/// A replica: its own `StateKeys`, built from the key material every replica is given.
fn replica() -> Rounds {
    Rounds::new(StateKeys::single(
        KeyId::new(7),
        StateKey::from_bytes([0x5a; 32]),
    ))
}

fn voucher() -> Ask<Elicitation<serde_json::Map<String, Value>>> {
    let schema = RequestedSchema::new(vec![Property::new("email", StringSchema::new())]).unwrap();
    Ask::form_request(
        "send_to",
        FormRequest::new("Where should the voucher go?", schema).unwrap(),
    )
}

fn params() -> Value {
    json!({
        "name": "redeem_voucher",
        "arguments": { "code": "X1" },
        "_meta": { "io.modelcontextprotocol/clientCapabilities": { "elicitation": {} } },
    })
}

fn binding(params: &Value) -> Binding<'_> {
    Binding {
        principal: "user-8f3a",
        method: "tools/call",
        params_digest: ParamsDigest::of_request_params(params),
    }
}

fn first_round(rounds: &Rounds) -> InputRequiredResult {
    let params = params();
    let mut round = rounds
        .round::<()>(
            Retry::from_params(&params).unwrap(),
            binding(&params),
            UnixTime::now(),
        )
        .unwrap();
    match round.answer(voucher()).unwrap() {
        Answer::Ask(result) => result,
        other => panic!("round 1 asks, got {other:?}"),
    }
}

fn answered(result: &InputRequiredResult) -> Value {
    let mut retry = params();
    retry["inputResponses"] =
        json!({ "send_to": { "action": "accept", "content": { "email": "a@example.com" } } });
    retry["requestState"] = json!(result.request_state().unwrap());
    retry
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[ignore = "needs redis-server: set REDIS_URL"]
async fn sixty_four_tasks_redeeming_one_round_through_redis_succeed_exactly_once() {
    let rounds = Arc::new(replica());
    let retry = Arc::new(answered(&first_round(&rounds)));
    let guard = Arc::new(guard(&prefix("sixty_four")).await);
    let barrier = Arc::new(Barrier::new(64));
    let applied = Arc::new(AtomicUsize::new(0));
    let tasks: Vec<_> = (0..64)
        .map(|_| {
            let (rounds, retry, guard, barrier, applied) = (
                rounds.clone(),
                retry.clone(),
                guard.clone(),
                barrier.clone(),
                applied.clone(),
            );
            tokio::spawn(async move {
                let outcome = {
                    let mut round = rounds
                        .round::<()>(
                            Retry::from_params(&retry).unwrap(),
                            binding(&retry),
                            UnixTime::now(),
                        )
                        .unwrap();
                    let Answer::Ready(Elicitation::Accept(_)) = round.answer(voucher()).unwrap()
                    else {
                        panic!("answered")
                    };
                    barrier.wait().await;
                    round.redeem_once(&*guard).await
                };
                if outcome.is_ok() {
                    applied.fetch_add(1, Ordering::SeqCst);
                }
                outcome
            })
        })
        .collect();
    let mut outcomes = Vec::new();
    for task in tasks {
        outcomes.push(task.await.expect("task ran"));
    }
    assert_eq!(
        outcomes.iter().filter(|o| o.is_ok()).count(),
        1,
        "{outcomes:?}"
    );
    assert!(
        outcomes
            .iter()
            .all(|o| o.is_ok() || matches!(o, Err(RedeemError::AlreadyRedeemed)))
    );
    assert_eq!(applied.load(Ordering::SeqCst), 1);
}

#[tokio::test]
#[ignore = "needs redis-server: set REDIS_URL"]
async fn two_replicas_with_a_shared_redis_guard_resume_each_others_rounds_once() {
    // Two server instances: nothing shared but the key material and Redis.
    let (replica_a, replica_b) = (replica(), replica());
    let shared = prefix("two_replicas");
    let (guard_a, guard_b) = (guard(&shared).await, guard(&shared).await);

    // A asks; B receives the retry, reads the answer, redeems and acts.
    let retry = answered(&first_round(&replica_a));
    let mut on_b = replica_b
        .round::<()>(
            Retry::from_params(&retry).unwrap(),
            binding(&retry),
            UnixTime::now(),
        )
        .unwrap();
    let Answer::Ready(Elicitation::Accept(content)) = on_b.answer(voucher()).unwrap() else {
        panic!("B reads A's round")
    };
    assert_eq!(content["email"], "a@example.com");
    on_b.redeem_once(&guard_b)
        .await
        .expect("first redemption, on B");

    // The same retry replayed to A: it opens there too, but the shared guard refuses it.
    let mut on_a = replica_a
        .round::<()>(
            Retry::from_params(&retry).unwrap(),
            binding(&retry),
            UnixTime::now(),
        )
        .unwrap();
    assert!(matches!(on_a.answer(voucher()).unwrap(), Answer::Ready(_)));
    assert!(matches!(
        on_a.redeem_once(&guard_a).await,
        Err(RedeemError::AlreadyRedeemed)
    ));
}
