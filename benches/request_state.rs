//! Request state: seal, then open, a typed state whose JSON is 1 KiB.
//!
//! - `elicit`: `StateKeys::seal` + `StateKeys::open` (AES-256-GCM-SIV: encrypted and
//!   authenticated, bound to principal, method and params digest, with a TTL and a state id for
//!   single use);
//! - `rmcp`: `RequestStateCodec::seal_json` + `open_json` (HMAC-SHA256: authenticated, readable
//!   by the client) on the same value.
//!
//! And single use: what spending a round's state costs (`Round::spend`, one guard write per
//! resumed round) in a `MemoryReplayGuard` that is empty, that holds a million unexpired ids,
//! and that is full of expired ones; and, built with the `redis-bench` feature and run with
//! `REDIS_URL` set, in a `RedisReplayGuard` (one `SET NX EXAT` round trip over loopback).
//!
//! Run: `cargo bench -p elicit-benches --bench request_state` (for Redis:
//! `REDIS_URL=redis://127.0.0.1:6379/ cargo bench -p elicit-benches --features redis-bench --bench request_state`).

mod common;

use std::time::Duration;

use common::{Counting, case, compare, keep};
use mcp_elicit::state::{
    Binding, KeyId, MemoryReplayGuard, ParamsDigest, StateId, StateKey, StateKeys, UnixTime,
};
use rmcp::model::RequestStateCodec;
use serde::{Deserialize, Serialize};

#[global_allocator]
static ALLOC: Counting = Counting;

/// What a multi-round tool carries between rounds.
#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct DeployState {
    round: u32,
    environment: String,
    services: Vec<String>,
    approved_by: Option<String>,
}

fn state() -> DeployState {
    let mut s = DeployState {
        round: 2,
        environment: "production".to_owned(),
        services: Vec::new(),
        approved_by: Some("user-8f3a".to_owned()),
    };
    let mut i = 0;
    while serde_json::to_vec(&s).unwrap().len() < 1024 {
        s.services.push(format!("service-{i:04}-eu-west"));
        i += 1;
    }
    s
}

fn main() {
    let value = state();
    let json_len = serde_json::to_vec(&value).unwrap().len();
    assert!((1024..1100).contains(&json_len), "{json_len}");

    let keys = StateKeys::single(KeyId::new(1), StateKey::from_bytes([7; 32]));
    let digest = ParamsDigest::of(&serde_json::json!({"name": "deploy", "arguments": {}}));
    let binding = Binding {
        principal: "user-8f3a",
        method: "tools/call",
        params_digest: digest,
    };
    let now = UnixTime::from_secs(1_800_000_000);
    let ttl = Duration::from_secs(600);
    let codec = RequestStateCodec::try_new(vec![7u8; 32]).expect("key");

    let sealed = keys.seal(&value, &binding, ttl, now).unwrap();
    assert_eq!(
        keys.open::<DeployState>(&sealed, &binding, now)
            .unwrap()
            .value(),
        &value
    );
    let token = codec.seal_json(&value).unwrap();
    assert_eq!(codec.open_json::<DeployState>(&token).unwrap(), value);
    println!(
        "state JSON {json_len} bytes; elicit's requestState {} chars, rmcp's {} chars",
        sealed.len(),
        token.len()
    );

    compare(
        "request state: seal + open of a 1 KiB typed state",
        vec![
            case("elicit seal + open", || {
                let text = keys.seal(&value, &binding, ttl, now).unwrap();
                keep(keys.open::<DeployState>(&text, &binding, now).unwrap());
            }),
            case("rmcp seal_json + open_json", || {
                let text = codec.seal_json(&value).unwrap();
                keep(codec.open_json::<DeployState>(&text).unwrap());
            }),
        ],
    );
    compare(
        "request state: seal only",
        vec![
            case("elicit seal", || {
                keep(keys.seal(&value, &binding, ttl, now).unwrap())
            }),
            case("rmcp seal_json", || keep(codec.seal_json(&value).unwrap())),
        ],
    );
    compare(
        "request state: open only",
        vec![
            case("elicit open", || {
                keep(keys.open::<DeployState>(&sealed, &binding, now).unwrap())
            }),
            case("rmcp open_json", || {
                keep(codec.open_json::<DeployState>(&token).unwrap())
            }),
        ],
    );

    single_use(now);
}

/// A fresh id each call, as each sealed state has; each `series` its own ids.
fn fresh_ids(series: u8) -> impl FnMut() -> StateId {
    let mut n = u128::from(series) << 120;
    move || {
        n += 1;
        StateId::from_bytes(n.to_be_bytes())
    }
}

/// A guard of at most `max` ids holding `len` of 1,000 principals, expiring at `expiry`.
fn holding(max: usize, len: u32, expiry: UnixTime, now: UnixTime) -> MemoryReplayGuard {
    let guard = MemoryReplayGuard::with_max_entries(max).with_max_per_principal(usize::MAX);
    let mut id = fresh_ids(0);
    let principals: Vec<String> = (0..1000).map(|n| format!("user-{n:04}")).collect();
    for n in 0..len {
        let principal = &principals[n as usize % principals.len()];
        guard.redeem_now(id(), principal, expiry, now).unwrap();
    }
    guard
}

fn single_use(now: UnixTime) {
    let expires = UnixTime::from_secs(now.as_secs() + 600);
    // Room for every call the harness makes (a few million), from one principal.
    let empty = MemoryReplayGuard::with_max_entries(1 << 23).with_max_per_principal(usize::MAX);
    let million = holding(1 << 23, 1_000_000, expires, now);
    // A million ids that expired a second ago: each redemption evicts a few.
    let later = UnixTime::from_secs(expires.as_secs() + 1);
    let stale = holding(1 << 23, 1_000_000, expires, now);
    // A guard full of a million unexpired ids: each redemption is refused. Before eviction by
    // expiry order, each one scanned all of them first (issue 25: about 2 ms under the mutex).
    let full = holding(1_000_000, 1_000_000, expires, now);
    let (mut a, mut b, mut c, mut f) = (fresh_ids(1), fresh_ids(2), fresh_ids(3), fresh_ids(4));
    let far = UnixTime::from_secs(later.as_secs() + 600);
    compare(
        "single use: one redemption in the in-memory guard",
        vec![
            case("empty guard", || {
                empty.redeem_now(a(), "user-8f3a", expires, now).unwrap()
            }),
            case("1M unexpired ids", || {
                million.redeem_now(b(), "user-8f3a", expires, now).unwrap()
            }),
            case("1M expired ids", || {
                stale.redeem_now(c(), "user-8f3a", far, later).unwrap()
            }),
            case("full: 1M unexpired ids, refused", || {
                keep(full.redeem_now(f(), "user-8f3a", expires, now).unwrap_err())
            }),
        ],
    );

    redis_single_use(&empty, expires, now);
}

/// Without the `redis-bench` feature, no Redis case (the feature keeps redis out of the README's
/// `cargo test --workspace`).
#[cfg(not(feature = "redis-bench"))]
fn redis_single_use(_: &MemoryReplayGuard, _: UnixTime, _: UnixTime) {
    println!("(built without the `redis-bench` feature: no Redis case)");
}

#[cfg(feature = "redis-bench")]
fn redis_single_use(empty: &MemoryReplayGuard, expires: UnixTime, now: UnixTime) {
    use mcp_elicit::state::{RedisReplayGuard, ReplayGuard};

    let Ok(url) = std::env::var("REDIS_URL") else {
        println!("(REDIS_URL is not set: no Redis case)");
        return;
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let connection = runtime.block_on(async {
        redis::Client::open(url)
            .unwrap()
            .get_multiplexed_async_connection()
            .await
            .unwrap()
    });
    let redis = RedisReplayGuard::new(connection).with_key_prefix("elicit-bench:");
    let (mut d, mut e) = (fresh_ids(5), fresh_ids(6));
    compare(
        "single use: one redemption, in memory against Redis over loopback",
        vec![
            case("memory", || {
                empty.redeem_now(e(), "user-8f3a", expires, now).unwrap()
            }),
            case("redis SET NX EXAT", || {
                let now = UnixTime::now();
                let expires = UnixTime::from_secs(now.as_secs() + 60);
                runtime
                    .block_on(redis.redeem(d(), "user-8f3a", expires, now))
                    .unwrap()
            }),
        ],
    );
}
