//! The Redis replay guard against a real Redis. Ignored by default, so `cargo test` passes on a
//! machine without one; run with
//! `REDIS_URL=redis://127.0.0.1:6379/ cargo test -p elicit-core --features redis -- --include-ignored`.
#![cfg(feature = "redis")]

use std::sync::Arc;
use std::time::Duration;

use elicit_core::state::{
    Binding, KeyId, ParamsDigest, RedeemError, RedisReplayGuard, ReplayGuard, StateId, StateKey,
    StateKeys, UnixTime,
};
use serde_json::json;

async fn connection() -> redis::aio::MultiplexedConnection {
    let url = std::env::var("REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379/".into());
    redis::Client::open(url)
        .expect("REDIS_URL is a Redis URL")
        .get_multiplexed_async_connection()
        .await
        .expect("Redis is reachable at REDIS_URL")
}

/// A prefix of its own for every test in every run, so runs never see each other's keys.
fn prefix(test: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("after 1970")
        .as_nanos();
    format!("elicit-test:{}:{nanos}:{test}:", std::process::id())
}

#[tokio::test]
#[ignore = "needs redis-server on 127.0.0.1:6379 (REDIS_URL)"]
async fn a_state_redeems_once_through_redis() {
    let guard = RedisReplayGuard::new(connection().await).with_key_prefix(prefix("redeems_once"));
    let now = UnixTime::now();
    let expires_at = UnixTime::from_secs(now.as_secs() + 60);
    let id = StateId::from_bytes([7; 16]);
    guard
        .redeem(id, "user-8f3a", expires_at, now)
        .await
        .expect("first use");
    assert!(matches!(
        guard.redeem(id, "user-8f3a", expires_at, now).await,
        Err(RedeemError::AlreadyRedeemed)
    ));
    guard
        .redeem(StateId::from_bytes([8; 16]), "user-8f3a", expires_at, now)
        .await
        .expect("another state is unaffected");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[ignore = "needs redis-server on 127.0.0.1:6379 (REDIS_URL)"]
async fn sixty_four_tasks_redeeming_one_state_through_redis_succeed_exactly_once() {
    let keys = Arc::new(StateKeys::single(
        KeyId::new(1),
        StateKey::from_bytes([1; 32]),
    ));
    let params = json!({ "name": "redeem_voucher", "arguments": { "code": "X1" } });
    let binding = Binding {
        principal: "user-8f3a",
        method: "tools/call",
        params_digest: ParamsDigest::of_request_params(&params),
    };
    let now = UnixTime::now();
    let text = Arc::new(
        keys.seal(&"voucher X1", &binding, Duration::from_secs(60), now)
            .expect("seals"),
    );
    let guard: Arc<dyn ReplayGuard> =
        Arc::new(RedisReplayGuard::new(connection().await).with_key_prefix(prefix("sixty_four")));

    let tasks: Vec<_> = (0..64)
        .map(|_| {
            let (keys, guard, text) = (keys.clone(), guard.clone(), text.clone());
            tokio::spawn(async move {
                let opened = keys.open::<String>(&text, &binding, now).expect("opens");
                opened.redeem_once(&guard, binding.principal, now).await
            })
        })
        .collect();
    let mut successes = 0;
    for task in tasks {
        match task.await.expect("no panic") {
            Ok(()) => successes += 1,
            Err(RedeemError::AlreadyRedeemed) => {}
            Err(other) => panic!("unexpected: {other:?}"),
        }
    }
    assert_eq!(successes, 1);
}

#[tokio::test]
#[ignore = "needs redis-server on 127.0.0.1:6379 (REDIS_URL)"]
async fn the_redis_record_expires_with_the_state_plus_the_skew_margin() {
    let prefix = prefix("expiry");
    let guard = RedisReplayGuard::new(connection().await)
        .with_key_prefix(prefix.clone())
        .with_clock_skew_margin(Duration::from_secs(30));
    let now = UnixTime::now();
    let expires_at = UnixTime::from_secs(now.as_secs() + 120);
    let id = StateId::from_bytes([9; 16]);
    guard
        .redeem(id, "user-8f3a", expires_at, now)
        .await
        .expect("first use");

    let mut connection = connection().await;
    let expire_time: i64 = redis::cmd("EXPIRETIME")
        .arg(format!("{prefix}{id}"))
        .query_async(&mut connection)
        .await
        .expect("EXPIRETIME (Redis 7)");
    assert_eq!(
        expire_time,
        i64::try_from(expires_at.as_secs() + 30).expect("fits")
    );
}
