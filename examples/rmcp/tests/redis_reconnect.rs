//! The Redis replay guard over redis's `ConnectionManager`, as a fleet's replicas use it
//! (`fleet_server`): a connection Redis dropped is tried once more. Here and not in elicit-core,
//! whose tests would otherwise build the connection manager into every `cargo test --workspace`.
//! Ignored by default; run with
//! `REDIS_URL=redis://127.0.0.1:6379/ cargo test -p elicit-examples --features fleet --test redis_reconnect -- --include-ignored`.

use mcp_elicit::state::{RedeemError, RedisReplayGuard, ReplayGuard, StateId, UnixTime};

async fn connection() -> redis::aio::MultiplexedConnection {
    let url = std::env::var("REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379/".into());
    redis::Client::open(url)
        .expect("REDIS_URL is a Redis URL")
        .get_multiplexed_async_connection()
        .await
        .expect("Redis is reachable at REDIS_URL")
}

/// A prefix of its own for every run, so runs never see each other's keys.
fn prefix(test: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("after 1970")
        .as_nanos();
    format!("elicit-test:{}:{nanos}:{test}:", std::process::id())
}

/// Redis drops the guard's connection (as a Redis restart does): the redemption after it is sent
/// again, on the connection a `ConnectionManager` makes anew, and goes through, once.
#[tokio::test]
#[ignore = "needs redis-server on 127.0.0.1:6379 (REDIS_URL)"]
async fn a_redemption_after_redis_dropped_the_connection_goes_through_once() {
    let url = std::env::var("REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379/".into());
    let client = redis::Client::open(url).expect("REDIS_URL is a Redis URL");
    let manager = redis::aio::ConnectionManager::new(client)
        .await
        .expect("Redis is reachable at REDIS_URL");
    let mut same = manager.clone();
    let guard = RedisReplayGuard::new(manager).with_key_prefix(prefix("dropped"));
    let id: i64 = redis::cmd("CLIENT")
        .arg("ID")
        .query_async(&mut same)
        .await
        .unwrap();
    let killed: i64 = redis::cmd("CLIENT")
        .arg("KILL")
        .arg("ID")
        .arg(id)
        .query_async(&mut connection().await)
        .await
        .unwrap();
    assert_eq!(killed, 1, "the guard's connection was dropped");
    let now = UnixTime::now();
    let expires_at = UnixTime::from_secs(now.as_secs() + 60);
    let state = StateId::from_bytes([9; 16]);
    guard
        .redeem(state, "user-8f3a", expires_at, now)
        .await
        .expect("sent again on a new connection");
    assert!(matches!(
        guard.redeem(state, "user-8f3a", expires_at, now).await,
        Err(RedeemError::AlreadyRedeemed)
    ));
}
