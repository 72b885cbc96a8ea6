//! Multi round-trip rounds across a fleet: single use through a shared Redis replay guard.
//!
//! Ignored by default; run against a real Redis (6.2 or later):
//! `REDIS_URL=redis://127.0.0.1:6399/ cargo test -p elicit-core --features redis --test mrtr_redis -- --ignored`.
//! A run without `REDIS_URL` fails loudly.
#![cfg(feature = "redis")]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use elicit_core::mrtr::{Answer, Ask, InputRequiredResult, MrtrError, Retry, Rounds};
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

/// Tries `retry` on `rounds`: spends its state, then reads the answer.
async fn resume(
    rounds: &Rounds,
    retry: &Value,
) -> Result<Elicitation<serde_json::Map<String, Value>>, MrtrError> {
    let mut round = rounds.round::<()>(
        Retry::from_params(retry).unwrap(),
        binding(retry),
        UnixTime::now(),
    )?;
    round.spend().await?;
    match round.answer(voucher())? {
        Answer::Ready(outcome) => Ok(outcome),
        other => panic!("the retry is answered, got {other:?}"),
    }
}

fn replayed<T: std::fmt::Debug>(outcome: &Result<T, MrtrError>) -> bool {
    matches!(
        outcome,
        Err(MrtrError::Redeem(RedeemError::AlreadyRedeemed))
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[ignore = "needs redis-server: set REDIS_URL"]
async fn sixty_four_tasks_resuming_one_round_through_redis_succeed_exactly_once() {
    let guard = guard(&prefix("sixty_four")).await;
    let rounds = Arc::new(replica().with_replay_guard(guard));
    let retry = Arc::new(answered(&first_round(&rounds)));
    let barrier = Arc::new(Barrier::new(64));
    let applied = Arc::new(AtomicUsize::new(0));
    let tasks: Vec<_> = (0..64)
        .map(|_| {
            let (rounds, retry, barrier, applied) = (
                rounds.clone(),
                retry.clone(),
                barrier.clone(),
                applied.clone(),
            );
            tokio::spawn(async move {
                barrier.wait().await;
                let outcome = resume(&rounds, &retry).await;
                if matches!(outcome, Ok(Elicitation::Accept(_))) {
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
    assert!(outcomes.iter().all(|o| o.is_ok() || replayed(o)));
    assert_eq!(applied.load(Ordering::SeqCst), 1);
}

#[tokio::test]
#[ignore = "needs redis-server: set REDIS_URL"]
async fn two_replicas_with_a_shared_redis_guard_resume_each_others_rounds_once() {
    // Two server instances: nothing shared but the key material and Redis.
    let shared = prefix("two_replicas");
    let replica_a = replica().with_replay_guard(guard(&shared).await);
    let replica_b = replica().with_replay_guard(guard(&shared).await);

    // A asks; B receives the retry, spends its state, reads the answer and acts.
    let retry = answered(&first_round(&replica_a));
    let Ok(Elicitation::Accept(content)) = resume(&replica_b, &retry).await else {
        panic!("B reads A's round")
    };
    assert_eq!(content["email"], "a@example.com");

    // The same retry replayed to A: it opens there too, but the shared guard refuses it.
    let again = resume(&replica_a, &retry).await;
    assert!(replayed(&again), "{again:?}");
}
