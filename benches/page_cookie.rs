//! The pages' browser cookie: what checking it costs a page request (issue 34).
//!
//! Before issue 34 the cookie was any 64 lowercase hex digits, taken as they came; now it is the
//! browser's random name sealed with the pages' keys (AES-256-GCM-SIV, `StateKeys`), opened on
//! every request before any handler runs. Two groups:
//!
//! - `browser cookie check`: the check alone, then and now: the 64-hex test, and opening a
//!   cookie sealed as the pages seal it (the same binding and value);
//! - `page GET`: a whole GET of a flow's page through the pages' router (tower's `oneshot`, no
//!   socket), with the cookie the page set on the first GET: run on a commit before the change
//!   and on one after, under callgrind, it gives the instructions per page request each way.
//!
//! Run: `cargo bench -p elicit-benches --features page-bench --bench page_cookie`; for
//! instructions, `BENCH_ONLY="page GET" BENCH_ITERS=2000 valgrind --tool=callgrind <bench binary>`.

mod common;
#[path = "../examples/rmcp/tests/common/through_router.rs"]
mod through_router;

use std::net::SocketAddr;
use std::time::Duration;

use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::{Request, header};
use common::{Counting, case, compare, keep};
use mcp_elicit::page::{Pages, SecretPage, Secrets, SingleUser};
use mcp_elicit::schema::{Property, StringSchema};
use mcp_elicit::state::{Binding, KeyId, ParamsDigest, StateKey, StateKeys, UnixTime};
use mcp_elicit::url_mode::{Flow, FlowId, Flows, MemoryFlowStore};
use serde::Deserialize;
use serde_json::json;
use through_router::through_router;

#[global_allocator]
static ALLOC: Counting = Counting;

/// What the pages seal in a browser's cookie.
#[derive(Deserialize)]
struct BrowserName {
    #[allow(dead_code)]
    n: String,
}

fn main() {
    cookie_check();
    page_get();
}

fn cookie_check() {
    let keys = StateKeys::single(KeyId::new(1), StateKey::from_bytes([7; 32]));
    let binding = Binding {
        principal: "",
        method: "elicit/browser",
        params_digest: ParamsDigest::of(&json!("/elicit/")),
    };
    let now = UnixTime::from_secs(1_800_000_000);
    let name = "ab".repeat(32);
    let sealed = keys
        .seal(
            &json!({ "n": name }),
            &binding,
            Duration::from_secs(7 * 24 * 3600 + 600),
            now,
        )
        .unwrap();
    println!(
        "browser cookie: {} characters sealed, 64 before",
        sealed.len()
    );
    compare(
        "browser cookie check",
        vec![
            case("sealed: open", || {
                keep(keys.open::<BrowserName>(&sealed, &binding, now).unwrap());
            }),
            case("before: 64 hex digits", || {
                let value = std::hint::black_box(name.as_str());
                keep(
                    value.len() == 64
                        && value
                            .bytes()
                            .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')),
                );
            }),
        ],
    );
}

fn page_get() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let store = MemoryFlowStore::new();
    let flows = Flows::new(store.clone(), "http://localhost:8719/elicit/").unwrap();
    let page = SecretPage::new(
        "api_key",
        "Your Example Co. API key",
        vec![Property::new("key", StringSchema::new().min_length(20)).title("API key")],
    )
    .unwrap();
    let router = Pages::new(flows, SingleUser::named("me").unwrap())
        .unwrap()
        .secret(page, |_, _: Secrets| Ok(json!({})))
        .router();
    let id = FlowId::random().unwrap();
    let now = UnixTime::now();
    let flow = Flow::new(
        id,
        "api_key",
        "",
        ParamsDigest::of(&json!({ "name": "connect" })),
        "Enter your key.",
    )
    .expiring(now, Duration::from_secs(3600))
    .unwrap();
    store.begin_now(flow, now).unwrap();
    let path = format!("/elicit/{id}");
    let get = |cookie: Option<&str>| {
        let mut request = Request::get(&path);
        if let Some(cookie) = cookie {
            request = request.header(header::COOKIE, cookie);
        }
        let mut request = request.body(Body::empty()).unwrap();
        request
            .extensions_mut()
            .insert(ConnectInfo(SocketAddr::from(([127, 0, 0, 1], 50_000))));
        runtime.block_on(through_router(&router, request))
    };
    // The first GET names the browser; every GET after it carries the name.
    let (status, cookie, _) = get(None);
    assert_eq!(status, 200);
    let cookie = cookie.expect("the first GET sets the browser cookie");
    let (status, again, _) = get(Some(&cookie));
    assert_eq!(status, 200);
    assert_eq!(again, None, "the cookie is taken as it is");
    compare(
        "page GET",
        vec![case("page GET", || keep(get(Some(&cookie))))],
    );
}
