//! What the library logs through `tracing`, read by a real subscriber: `tracing-subscriber`'s
//! `fmt` layer, as a server would install it, writing into a buffer this test reads. Each test
//! runs one part of the security tests again (the pages' refusals, a session used by another
//! principal, a URL flow from beginning to end, a replayed round), seeded with values no log
//! may hold (the secret typed, whole flow ids, the pages' paths, CSRF tokens, cookies, a
//! `requestState`, a session id), and checks both ways: the events that must be there are,
//! with the check that refused and the principals, and none of the seeds is anywhere in the log.
//!
//! `cargo test -p elicit-examples --features logs --test logs`

use std::io::Write;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use http_body_util::BodyExt;
use mcp_elicit::client::{Incoming, Scripted, Step};
use mcp_elicit::mrtr::Rounds;
use mcp_elicit::page::{Pages, Secrets, SinkError};
use mcp_elicit::rmcp::{
    AskConfig, Asker, AskingHttpService, Connected, SessionBinding, TestKit, ToolResponse, respond,
};
use mcp_elicit::state::MemoryReplayGuard;
use mcp_elicit::url_mode::{Flows, MemoryFlowStore};
use mcp_elicit::{Elicit, Elicitation, Revision};
use rmcp::transport::StreamableHttpServerConfig;
use rmcp::{ServerHandler, tool, tool_handler, tool_router};
use secrecy::ExposeSecret;
use serde_json::{Value, json};
use tower::ServiceExt;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::{Layer, filter::Targets};

#[macro_use]
#[path = "common/servers.rs"]
mod servers;
#[path = "common/page_site.rs"]
mod page_site;

use page_site::{BASE, HeaderUser, ORIGIN, api_key_page, csrf, get, post, send};
use servers::{Subject, subject};

// ------------------------------------------------------------------------- the subscriber

/// Everything the subscriber wrote, for every test of this binary (they share the process's one
/// global subscriber).
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The subscriber a server would set: `fmt`, every level of the library's own targets (rmcp's
/// are rmcp's), installed once for the process.
fn captured() -> &'static Captured {
    static CAPTURED: OnceLock<Captured> = OnceLock::new();
    CAPTURED.get_or_init(|| {
        let captured = Captured::default();
        let writer = captured.clone();
        let layer = tracing_subscriber::fmt::layer()
            .with_ansi(false)
            .with_writer(move || writer.clone())
            .with_filter(Targets::new().with_target("mcp_elicit", tracing::Level::TRACE));
        tracing::subscriber::set_global_default(tracing_subscriber::registry().with(layer))
            .expect("the only subscriber of this test binary");
        captured
    })
}

impl Captured {
    fn text(&self) -> String {
        String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
    }

    /// The flow of `flow_field` (`flow=<its first 8 characters>`) was opened, then completed.
    fn assert_opened_and_completed(&self, flow_field: &str) {
        self.assert_has(&["INFO", "mcp_elicit::flow", "opened", flow_field]);
        let completed = [
            "INFO",
            "mcp_elicit::flow",
            "finished: completed",
            flow_field,
        ];
        self.assert_has(&completed);
    }

    /// `correlation=<id>`, the field of the first of `lines` (`what` they are, for a failure)
    /// that carries a correlation id.
    fn correlation_field(&self, lines: &[String], what: &str) -> String {
        let correlation = lines
            .iter()
            .find_map(|line| {
                let at = line.find("correlation=")? + "correlation=".len();
                Some(line[at..at + 8].to_owned())
            })
            .unwrap_or_else(|| panic!("no {what} in\n{}", self.text()));
        format!("correlation={correlation}")
    }

    /// The lines that hold every one of `parts`.
    fn lines_with(&self, parts: &[&str]) -> Vec<String> {
        self.text()
            .lines()
            .filter(|line| parts.iter().all(|part| line.contains(part)))
            .map(str::to_owned)
            .collect()
    }

    /// One line at least holds every one of `parts`.
    fn assert_has(&self, parts: &[&str]) {
        assert!(
            !self.lines_with(parts).is_empty(),
            "no log line with {parts:?} in\n{}",
            self.text()
        );
    }

    /// No line holds any of `seeds`.
    fn assert_never(&self, seeds: &[&str]) {
        let text = self.text();
        for seed in seeds {
            assert!(!seed.is_empty());
            assert!(
                !text.contains(seed),
                "the log holds {seed:?}:\n{}",
                text.lines()
                    .filter(|line| line.contains(seed))
                    .collect::<Vec<_>>()
                    .join("\n")
            );
        }
    }
}

/// With `LOGS_PRINT` set, the log so far on stdout: what the guide shows (`--nocapture`).
fn print_for_the_guide(log: &Captured) {
    if std::env::var_os("LOGS_PRINT").is_some() {
        println!("{}", log.text());
    }
}

// ----------------------------------------------------------------------------- the pages

/// What the user types: never in a log.
const SECRET: &str = "sk-live-LOGSEED-7c1e5b2a9d0f4e3c";

/// Every check of the pages that refuses, once each, around one flow its owner finishes: each
/// refusal is a warning naming its check (and, for another user, the principal the flow is for
/// and the one seen); the flow's opening and finish are logged; and neither the secret, the
/// flow's id, its path, its token nor the browser's cookie is anywhere in the log.
#[tokio::test]
async fn a_page_refusal_is_a_warning_naming_the_check_and_no_secret_reaches_the_log() {
    let log = captured();
    let store = MemoryFlowStore::new();
    let flows = Flows::new(store.clone(), BASE).unwrap();
    let stored = Arc::new(Mutex::new(Vec::new()));
    let sink = {
        let stored = Arc::clone(&stored);
        move |_, mut secrets: Secrets| -> Result<Value, SinkError> {
            let key = secrets.take("key").ok_or("no key")?;
            stored.lock().unwrap().push(key.expose_secret().to_owned());
            Ok(json!({ "saved": true }))
        }
    };
    let router = Pages::new(flows, HeaderUser)
        .unwrap()
        .secret(api_key_page(), sink)
        .router();
    let (alice, mallory) = ("alice-logs-4d1f", "mallory-logs-8e2a");
    let id = page_site::begin(&store, "api_key", alice);
    let (flow_id, short) = (id.to_string(), id.to_string()[..8].to_owned());

    // Host: a page on another site rebinding its name to the pages' address.
    let mut rebound = get(&flow_id, alice, None);
    rebound.headers_mut().insert(
        header::HOST,
        header::HeaderValue::from_static("evil.example:8719"),
    );
    assert_eq!(
        send(&router, rebound).await.status,
        StatusCode::MISDIRECTED_REQUEST
    );
    // Identity: another user.
    assert_eq!(
        send(&router, get(&flow_id, mallory, None)).await.status,
        StatusCode::FORBIDDEN
    );
    // Identity: no one (the sign-in redirect).
    let nobody = Request::get(format!("/elicit/{flow_id}"))
        .body(Body::empty())
        .unwrap();
    assert!(send(&router, nobody).await.status.is_redirection());
    // The owner opens the page in her browser.
    let page = send(&router, get(&flow_id, alice, None)).await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.body);
    let (cookie, token) = (page.cookie.clone().unwrap(), page.token());
    let key = [("_csrf", token.as_str()), ("key", SECRET)];
    // Origin: the form posted from another site.
    let cross = post(&flow_id, alice, Some(&cookie), "https://evil.example", &key);
    assert_eq!(send(&router, cross).await.status, StatusCode::FORBIDDEN);
    // CSRF: the form with another token.
    let forged = [("_csrf", "forged-token-LOGSEED"), ("key", SECRET)];
    let forged = post(&flow_id, alice, Some(&cookie), ORIGIN, &forged);
    assert_eq!(send(&router, forged).await.status, StatusCode::FORBIDDEN);
    // Browser: posted from a browser the pages never named.
    let elsewhere = post(&flow_id, alice, None, ORIGIN, &key);
    assert_eq!(send(&router, elsewhere).await.status, StatusCode::FORBIDDEN);
    // The owner's own form: stored once; sent again, refused.
    let done = send(&router, post(&flow_id, alice, Some(&cookie), ORIGIN, &key)).await;
    assert_eq!(done.status, StatusCode::OK, "{}", done.body);
    let again = send(&router, post(&flow_id, alice, Some(&cookie), ORIGIN, &key)).await;
    assert_ne!(again.status, StatusCode::OK);
    assert_eq!(*stored.lock().unwrap(), [SECRET]);

    let flow_field = format!("flow={short}");
    log.assert_has(&["WARN", "mcp_elicit::page", "check=\"host\""]);
    log.assert_has(&[
        "WARN",
        "check=\"identity\"",
        &flow_field,
        &format!("expected={alice}"),
        &format!("seen={mallory}"),
    ]);
    log.assert_has(&["INFO", "mcp_elicit::page", "sign-in required"]);
    log.assert_has(&["WARN", "check=\"origin\"", &flow_field]);
    log.assert_has(&[
        "WARN",
        "check=\"csrf\"",
        &flow_field,
        &format!("seen={alice}"),
    ]);
    log.assert_has(&["WARN", "check=\"browser\"", &flow_field]);
    log.assert_has(&["WARN", "check=\"flow\"", &flow_field, "finished"]);
    log.assert_opened_and_completed(&flow_field);
    log.assert_never(&[
        SECRET,
        &flow_id,
        &format!("/elicit/{flow_id}"),
        &token,
        "forged-token-LOGSEED",
        &cookie,
        cookie.split_once('=').unwrap().1,
    ]);
}

// --------------------------------------------------------------- a URL flow, end to end

key_server!(Keys, |asker| asker
    .url_flow::<Value>("api_key", "Enter your Example Co. API key."));

impl Keys {
    /// The server on `revision`, asking with `asking`, its questions answered by `user`.
    async fn answered_by(
        asking: AskConfig,
        revision: Revision,
        user: &Arc<Scripted>,
    ) -> Connected<Scripted> {
        TestKit::new(revision)
            .connect(Keys { asking }, Arc::clone(user))
            .await
            .unwrap()
    }
}

/// 2025-11-25, through the test kit, its page served on a loopback listener and driven over
/// real HTTP by reqwest: the call's span (tool, revision, client), the ask, the flow begun,
/// opened and finished, the answer and its time; a declined page abandoned. No secret, flow
/// id or path in the log.
#[tokio::test]
async fn a_url_flows_life_reads_in_the_log_under_its_call() {
    let log = captured();
    let pages = Pages::bind_loopback("me")
        .await
        .unwrap()
        .secret(api_key_page(), |_, _: Secrets| Ok(json!({ "saved": true })));
    let asking = AskConfig::single_user("me").unwrap().with_pages(&pages);
    tokio::spawn(pages.serve());

    let user = Arc::new(Scripted::new().when_url(Step::OpenPage));
    let kit = Keys::answered_by(asking.clone(), Revision::V2025_11_25, &user).await;
    let browser = async {
        let url = loop {
            if let Some((_, Incoming::Url(asked))) = user.seen().into_iter().next() {
                break asked.url().to_string();
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        };
        let origin = url.split('/').take(3).collect::<Vec<_>>().join("/");
        let client = reqwest::Client::builder()
            .cookie_store(true)
            .build()
            .unwrap();
        let page = client.get(&url).send().await.unwrap();
        assert_eq!(page.status(), 200);
        let body = page.text().await.unwrap();
        let token = csrf(&body);
        let done = client
            .post(&url)
            .header("origin", &origin)
            .form(&[("_csrf", token.as_str()), ("key", SECRET)])
            .send()
            .await
            .unwrap();
        assert_eq!(done.status(), 200);
        (url, token)
    };
    let (called, (url, token)) = tokio::join!(kit.call("connect_api_key", json!({})), browser);
    assert_eq!(called.unwrap().text(), r#"connected: {"saved":true}"#);

    let declines = Arc::new(Scripted::new().when_url(Step::Decline));
    let kit = Keys::answered_by(asking, Revision::V2025_11_25, &declines).await;
    let declined = kit.call("connect_api_key", json!({})).await.unwrap();
    assert_eq!(declined.text(), "not connected: Decline");

    print_for_the_guide(log);
    let id = url.rsplit('/').next().unwrap().to_owned();
    let flow_field = format!("flow={}", &id[..8]);
    let call = "elicit{method=\"tools/call\" tool=\"connect_api_key\" revision=\"2025-11-25\"";
    log.assert_has(&[
        "INFO",
        call,
        "mcp_elicit::ask",
        "ask",
        "key=\"api_key\"",
        "mode=\"url\"",
    ]);
    log.assert_has(&["INFO", call, "mcp_elicit::flow", "begun", &flow_field]);
    log.assert_opened_and_completed(&flow_field);
    log.assert_has(&[
        "INFO",
        call,
        "answered",
        "outcome=\"accepted\"",
        "elapsed_ms=",
    ]);
    log.assert_has(&["INFO", call, "answered", "outcome=\"declined\""]);
    log.assert_has(&["INFO", call, "mcp_elicit::flow", "abandoned"]);
    let path = url
        .split_once("//")
        .unwrap()
        .1
        .split_once('/')
        .unwrap()
        .1
        .to_owned();
    log.assert_never(&[SECRET, &id, &path, &token]);
}

/// 2026-07-28: a flow that expired while its page was open, then accepted. The client did
/// accept (`outcome="accepted"`, as the metrics count it), and the event says what became of
/// the flow beside it: `flow_status="expired"`, under the same call as the flow's own `expired`.
#[tokio::test]
async fn an_accept_of_an_expired_flow_reads_as_expired_in_the_log() {
    let log = captured();
    let flows = Flows::single_user(BASE)
        .unwrap()
        .with_ttl(Duration::from_secs(1));
    let asking = AskConfig::single_user("me").unwrap().with_flows(flows);
    // The user opens the page (accepts) and never saves it: the retry waits, then the flow is
    // over (the wait ends at its expiry).
    let user = Arc::new(Scripted::new().when_url(Step::OpenPage));
    let kit = Keys::answered_by(asking, Revision::V2026_07_28, &user).await;
    let called = kit.call("connect_api_key", json!({})).await.unwrap();
    assert_eq!(called.text(), "not connected: Expired");

    print_for_the_guide(log);
    let Some((_, Incoming::Url(asked))) = user.seen().into_iter().next() else {
        panic!("no page asked: {:?}", user.seen());
    };
    let url = asked.url().to_string();
    let id = url.rsplit('/').next().unwrap();
    let expired = log.lines_with(&["mcp_elicit::flow", "expired", &format!("flow={}", &id[..8])]);
    let field = log.correlation_field(&expired, "an expired flow under a call");
    log.assert_has(&[
        "INFO",
        "revision=\"2026-07-28\"",
        &field,
        "answered",
        "outcome=\"accepted\" flow_status=\"expired\"",
    ]);
}

/// 2026-07-28: a retry over the flow's bound of waiters (here a store that lets none wait) does
/// not wait: it is asked again at once, and a warning says why, naming the bound and the flow by
/// its first eight characters only.
#[tokio::test]
async fn a_retry_over_the_flows_bound_of_waiters_is_a_warning_without_the_flow_id() {
    let log = captured();
    let store = MemoryFlowStore::new().with_max_waiters_per_flow(0);
    let flows = Flows::new(store, BASE).unwrap();
    let asking = AskConfig::single_user("me")
        .unwrap()
        .with_flows(flows)
        .with_page_wait(Duration::from_secs(30));
    let user = Arc::new(Scripted::new().when_url(Step::OpenPage));
    let kit = TestKit::new(Revision::V2026_07_28)
        .with_max_rounds(3)
        .connect(Keys { asking }, Arc::clone(&user))
        .await
        .unwrap();
    let started = std::time::Instant::now();
    assert!(kit.call("connect_api_key", json!({})).await.is_err());
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "no retry waited: {:?}",
        started.elapsed()
    );
    let Some((_, Incoming::Url(asked))) = user.seen().into_iter().next() else {
        panic!("no page asked: {:?}", user.seen());
    };
    let url = asked.url().to_string();
    let id = url.rsplit('/').next().unwrap().to_owned();
    log.assert_has(&[
        "WARN",
        "mcp_elicit::flow",
        "not waiting for the page",
        "max=0",
        "page=\"api_key\"",
        &format!("flow={}", &id[..8]),
    ]);
    log.assert_never(&[&id]);
}

// ------------------------------------------------ streamable HTTP: sessions and rounds

/// Drop the table? This cannot be undone.
#[derive(Elicit)]
#[elicit(consent)]
struct DropIt {
    #[elicit(title = "Drop it", consent)]
    confirm: bool,
}

asking_server!(Tables);

#[tool_router]
impl Tables {
    #[tool(description = "Drop the scratch table, with the user's consent.")]
    async fn drop_table(&self, mut asker: Asker) -> ToolResponse {
        respond(async {
            Ok(match asker.consent::<DropIt>().await? {
                Elicitation::Accept(_) => "dropped".to_owned(),
                _ => "not dropped".to_owned(),
            })
        })
        .await
    }
}

#[tool_handler]
impl ServerHandler for Tables {}

fn http_request(
    message: &Value,
    revision: &str,
    who: Option<&str>,
    session: Option<&str>,
) -> http::Request<http_body_util::Full<bytes::Bytes>> {
    let mut request = http::Request::post("/")
        .header("host", "localhost")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", revision);
    if let Some(session) = session {
        request = request.header("mcp-session-id", session);
    }
    if let Some(method) = message["method"].as_str() {
        request = request.header("mcp-method", method);
    }
    if let Some(name) = message["params"]["name"].as_str() {
        request = request.header("mcp-name", name);
    }
    let mut request = request
        .body(http_body_util::Full::new(bytes::Bytes::from(
            serde_json::to_vec(message).unwrap(),
        )))
        .unwrap();
    if let Some(who) = who {
        request.extensions_mut().insert(Subject(who.to_owned()));
    }
    request
}

/// The JSON-RPC response in a body (an event stream's `data:` line, or the JSON itself).
fn response_in(body: &str) -> Value {
    body.lines()
        .filter_map(|line| line.strip_prefix("data: "))
        .chain(std::iter::once(body))
        .find_map(|data| {
            serde_json::from_str::<Value>(data)
                .ok()
                .filter(|m| m.get("id").is_some())
        })
        .unwrap_or_else(|| panic!("no response in {body}"))
}

/// A 2025-11-25 session opened by alice, then used by bob: refused as a security warning naming
/// both principals, never the session's id.
#[tokio::test]
async fn a_session_used_by_another_principal_is_a_warning_naming_both() {
    let log = captured();
    // Bob's principal as his layer names it: a server's own text, which could hold anything.
    // U+2028 is a new line to many log viewers and JSON readers; U+202E reverses what follows.
    let (alice, bob) = (
        "alice-session-3c9e",
        "bob\u{1b}[31m-session\nWARN forged\u{2028}INFO forged\u{202e}ecila",
    );
    let principal = subject();
    let server = Tables {
        asking: AskConfig::per_http_user(Rounds::generate().unwrap(), principal.clone()),
    };
    let service = AskingHttpService::new(
        move || Ok(server.clone()),
        SessionBinding::BoundTo(principal),
        StreamableHttpServerConfig::default(),
    );
    let initialize = json!({
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {"elicitation": {"form": {}}},
            "clientInfo": {"name": "Claude Code\u{1b}[31m\nforged line", "version": "1"},
        },
    });
    let opened = service
        .clone()
        .oneshot(http_request(&initialize, "2025-11-25", Some(alice), None))
        .await
        .unwrap();
    assert_eq!(opened.status(), StatusCode::OK);
    let session = opened.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned();
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
    let refused = service
        .clone()
        .oneshot(http_request(&ping, "2025-11-25", Some(bob), Some(&session)))
        .await
        .unwrap();
    assert_eq!(refused.status(), StatusCode::NOT_FOUND);
    let nobody = service
        .oneshot(http_request(&ping, "2025-11-25", None, Some(&session)))
        .await
        .unwrap();
    assert_eq!(nobody.status(), StatusCode::FORBIDDEN);

    log.assert_has(&[
        "WARN",
        "mcp_elicit::session",
        "check=\"identity\"",
        &format!("expected={alice}"),
        // Escaped: no line of its own, no terminal control.
        r"seen=bob\u{1b}[31m-session\nWARN forged\u{2028}INFO forged\u{202e}ecila",
    ]);
    log.assert_has(&["WARN", "mcp_elicit::session", "names no principal"]);
    log.assert_never(&[
        &session,
        bob,
        "\u{1b}[31m",
        "\nWARN forged",
        "\u{2028}",
        "\u{202e}",
    ]);
}

/// 2026-07-28 over streamable HTTP, a replay guard on: the first round and its retry share one
/// correlation id in the log; the same retry sent again is a replay (a warning); the state
/// presented by another principal does not open (a warning). No `requestState` in the log, and
/// a client's name reaches it only as its bounded label.
#[tokio::test]
async fn a_calls_rounds_share_a_correlation_id_and_a_replay_is_a_warning() {
    let log = captured();
    let principal = subject();
    let rounds = Rounds::generate()
        .unwrap()
        .with_replay_guard(MemoryReplayGuard::new());
    let server = Tables {
        asking: AskConfig::per_http_user(rounds, principal.clone())
            .with_client_names(mcp_elicit::observe::ClientNames::new(["claude-code"])),
    };
    let config = StreamableHttpServerConfig::default().with_legacy_session_mode(false);
    let service = AskingHttpService::new(
        move || Ok(server.clone()),
        SessionBinding::BoundTo(principal),
        config,
    );
    let call = |params: Value| {
        let mut params = params;
        params["name"] = json!("drop_table");
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
            "io.modelcontextprotocol/clientInfo": {"name": "Evil\u{1b}[2J\nclient", "version": "1"},
        });
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
    };
    let post = |message: Value, who: &'static str| {
        let service = service.clone();
        async move {
            let response = service
                .oneshot(http_request(&message, "2026-07-28", Some(who), None))
                .await
                .unwrap();
            let body = response.into_body().collect().await.unwrap().to_bytes();
            response_in(std::str::from_utf8(&body).unwrap())
        }
    };
    let alice = "alice-rounds-6f0d";
    let first = post(call(json!({"arguments": {}})), alice).await;
    let result = &first["result"];
    assert_eq!(result["resultType"], "input_required", "{first}");
    let state = result["requestState"].as_str().unwrap().to_owned();
    let responses: serde_json::Map<String, Value> = result["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .map(|key| {
            (
                key.clone(),
                json!({"action": "accept", "content": {"confirm": true}}),
            )
        })
        .collect();
    let retry = call(json!({
        "arguments": {}, "inputResponses": responses, "requestState": state,
    }));
    // A person reads the form before ticking it (on the real clock: the state seals the wall
    // clock's time, and a consent sooner than a person's is not taken).
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    let as_bob = post(retry.clone(), "bob-rounds-1e4c").await;
    assert_eq!(as_bob["error"]["code"], -32602, "{as_bob}");
    let done = post(retry.clone(), alice).await;
    assert_eq!(done["result"]["content"][0]["text"], "dropped", "{done}");
    let replayed = post(retry, alice).await;
    assert_eq!(replayed["error"]["code"], -32602, "{replayed}");

    // The first round's correlation id, and the answer under the same one.
    let asked = log.lines_with(&[
        "revision=\"2026-07-28\"",
        "input required",
        "client=\"other\"",
    ]);
    let field = log.correlation_field(&asked, "a first round");
    log.assert_has(&["INFO", &field, "answered", "outcome=\"accepted\""]);
    log.assert_has(&["WARN", "mcp_elicit::state", "check=\"replay\"", &field]);
    log.assert_has(&[
        "WARN",
        "mcp_elicit::state",
        "check=\"state\"",
        "request state refused",
    ]);
    print_for_the_guide(log);
    log.assert_never(&[
        &state,
        &state[..40],
        "Evil",
        "\u{1b}[2J",
        "Claude Code\u{1b}",
    ]);
}

/// Codex (2025-06-18, its row checked in CI) gets the URL step in a link form: the log says so,
/// with the reason, and the question's mode is a form; the page's URL, its path and the flow's
/// id are in the question the person sees, never in the log (at any level the library logs).
#[tokio::test]
async fn a_link_form_is_logged_with_its_reason_and_never_its_url() {
    let log = captured();
    let pages = Pages::bind_loopback("me")
        .await
        .unwrap()
        .secret(api_key_page(), |_, _: Secrets| Ok(json!({ "saved": true })));
    let asking = AskConfig::single_user("me").unwrap().with_pages(&pages);
    tokio::spawn(pages.serve());
    // The person dismisses the form (Codex's esc).
    let user = Arc::new(Scripted::new().otherwise(Step::Cancel));
    let kit = mcp_elicit::rmcp::Profile::Codex
        .kit()
        .connect(Keys { asking }, Arc::clone(&user))
        .await
        .unwrap();
    let called = kit.call("connect_api_key", json!({})).await.unwrap();
    assert_eq!(called.text(), "not connected: Cancel");
    let Some((_, Incoming::Form(form))) = user.seen().into_iter().next() else {
        panic!("a link form: {:?}", user.seen());
    };
    let url = form
        .message()
        .split_whitespace()
        .find(|word| word.starts_with("http://"))
        .unwrap()
        .to_owned();
    let call = "elicit{method=\"tools/call\" tool=\"connect_api_key\" revision=\"2025-06-18\"";
    log.assert_has(&[
        "INFO",
        call,
        "the URL step is asked in a link form",
        "reason=\"revision_lacks_url_mode\"",
    ]);
    log.assert_has(&["INFO", call, "ask", "key=\"api_key\"", "mode=\"form\""]);
    let id = url.rsplit('/').next().unwrap().to_owned();
    log.assert_has(&[
        "INFO",
        call,
        "mcp_elicit::flow",
        "abandoned",
        &format!("flow={}", &id[..8]),
    ]);
    let path = url.split_once("//").unwrap().1.split_once('/').unwrap().1;
    log.assert_never(&[&url, &id, path]);
}
