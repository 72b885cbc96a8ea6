//! Request state: seal, then open, a typed state whose JSON is 1 KiB.
//!
//! - `elicit`: `StateKeys::seal` + `StateKeys::open` (AES-256-GCM-SIV: encrypted and
//!   authenticated, bound to principal, method and params digest, with a TTL and a state id for
//!   single use);
//! - `rmcp`: `RequestStateCodec::seal_json` + `open_json` (HMAC-SHA256: authenticated, readable
//!   by the client) on the same value.
//!
//! Run: `cargo bench --bench request_state`.

mod common;

use std::time::Duration;

use common::{Counting, case, compare, keep};
use mcp_elicit::state::{Binding, KeyId, ParamsDigest, StateKey, StateKeys, UnixTime};
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
}
