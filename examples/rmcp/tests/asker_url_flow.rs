//! `Asker::url_flow`: a URL question that starts a flow the library keeps, and what the tool
//! reads of it. The page's part is played by the flow store directly here (the page itself has
//! its own tests): what is checked is the tool's side and the wire.
//!
//! - The URL is the pages' base and the flow's id, nothing else.
//! - An accept is never read as done: the tool gets the step's outcome.
//! - 2025-11-25: when the page finishes, `notifications/elicitation/complete` names the
//!   request's `elicitationId` and goes to the client that asked, and to no other.
//! - 2025-11-25: a flow lives as long as the call that waits for it: a call the client cancels,
//!   or that returns without the step, abandons its flow, and the page (the library's router,
//!   here) refuses it and stores nothing.
//! - 2026-07-28: the URL is the same in every round; an unfinished step is asked again with a
//!   note, within the re-ask bound; a round that ends keeps the flow for the retry.
//!
//! `cargo test -p elicit-examples --features oauth --test asker_url_flow`

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use mcp_elicit::Revision;
use mcp_elicit::page::{IdentifyFuture, Identity, Pages, SecretPage, Secrets};
use mcp_elicit::rmcp::{AskConfig, Asker, AskingServer, ToolResponse, respond};
use mcp_elicit::schema::{Property, StringSchema};
use mcp_elicit::state::UnixTime;
use mcp_elicit::url_mode::{FlowId, FlowOutcome, FlowStatus, Flows, MemoryFlowStore};
use rmcp::model::{
    CallToolRequest, CallToolResult, ClientConfig, ClientRequest, ContentBlock,
    ElicitRequestParams, ElicitResult, ElicitationAction, Implementation, ProtocolVersion,
};
use rmcp::service::{
    ClientLifecycleMode, ClientServiceExt, PeerRequestOptions, RequestContext, RunningService,
};
use rmcp::{
    ClientHandler, ErrorData, RoleClient, ServerHandler, ServiceExt, tool, tool_handler,
    tool_router,
};
use serde_json::{Value, json};
use tower::ServiceExt as _;

#[macro_use]
mod common;

use common::{BASE, Tee, finish_flow, flow_of, returned, within_a_while};

#[derive(Clone)]
struct Keys {
    asking: AskConfig,
}

impl AskingServer for Keys {
    fn asking(&self) -> &AskConfig {
        &self.asking
    }
}

#[tool_router]
impl Keys {
    #[tool(description = "Connect the user's Example Co. API key.")]
    async fn connect_api_key(&self, mut asker: Asker) -> ToolResponse {
        respond(async {
            let text = match asker
                .url_flow("api_key", "Enter your Example Co. API key on our page.")
                .await?
            {
                FlowOutcome::Completed(receipt) => format!("connected: {receipt}"),
                FlowOutcome::Failed(why) => format!("failed: {why}"),
                other => format!("not connected: {other:?}"),
            };
            Ok(CallToolResult::success(vec![ContentBlock::text(text)]))
        })
        .await
    }
}

#[tool_handler(name = "keys")]
impl ServerHandler for Keys {}

/// What the user does with each URL request: how they answer it, and whether the page is
/// finished (by the store, as the page would) before they answer.
#[derive(Clone, Copy, PartialEq)]
enum User {
    /// Agree to open the page, and finish the step there.
    OpenAndFinish,
    /// Agree to open the page, and fail there.
    OpenAndFail,
    /// Agree to open the page, and never finish.
    OpenOnly,
    /// Agree the first time without finishing; finish before the second.
    FinishSecondTime,
    Decline,
}

#[derive(Clone)]
struct Client {
    store: MemoryFlowStore,
    user: User,
    seen: Arc<Mutex<Vec<(String, String, String)>>>,
    notes: Arc<Mutex<Vec<Value>>>,
}

impl Client {
    fn new(store: &MemoryFlowStore, user: User) -> Self {
        Self {
            store: store.clone(),
            user,
            seen: Arc::default(),
            notes: Arc::default(),
        }
    }

    fn finish(&self, url: &str, result: Result<Value, String>) {
        finish_flow(&self.store, url, result);
    }
}

impl ClientHandler for Client {
    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let ElicitRequestParams::UrlElicitationParams {
            message,
            url,
            elicitation_id,
            ..
        } = request
        else {
            panic!("a URL request was expected");
        };
        let asked = {
            let mut seen = self.seen.lock().unwrap();
            seen.push((message, url.clone(), elicitation_id));
            seen.len()
        };
        match (self.user, asked) {
            (User::Decline, _) => return Ok(ElicitResult::new(ElicitationAction::Decline)),
            (User::OpenAndFinish, _) | (User::FinishSecondTime, 2..) => {
                self.finish(&url, Ok(json!({ "ending": "4f2a" })))
            }
            (User::OpenAndFail, _) => self.finish(&url, Err("the key was refused".into())),
            _ => {}
        }
        Ok(ElicitResult::new(ElicitationAction::Accept))
    }

    async fn on_custom_notification(
        &self,
        notification: rmcp::model::CustomNotification,
        _context: rmcp::service::NotificationContext<RoleClient>,
    ) {
        self.notes.lock().unwrap().push(json!({
            "method": notification.method,
            "params": notification.params,
        }));
    }

    fn get_info(&self) -> ClientConfig {
        let capabilities = serde_json::from_value(json!({ "elicitation": { "url": {} } })).unwrap();
        let mut info = ClientConfig::new(capabilities, Implementation::new("flow-test", "0"));
        info.protocol_version = ProtocolVersion::V_2025_11_25;
        info
    }
}

struct Session {
    client: RunningService<RoleClient, Client>,
    handler: Client,
    wire: Arc<Mutex<Vec<u8>>>,
}

impl Session {
    async fn call(&self) -> (String, bool) {
        let params = rmcp::model::CallToolRequestParams::new("connect_api_key");
        returned(&within_a_while(self.client.call_tool(params)).await.unwrap())
    }

    fn seen(&self) -> Vec<(String, String, String)> {
        self.handler.seen.lock().unwrap().clone()
    }

    fn notes(&self) -> Vec<Value> {
        self.handler.notes.lock().unwrap().clone()
    }

    fn wire(&self) -> String {
        String::from_utf8_lossy(&self.wire.lock().unwrap()).into_owned()
    }
}

fn server(store: &MemoryFlowStore, timeout: Duration) -> Keys {
    let flows = Flows::new(store.clone(), BASE).unwrap();
    Keys {
        asking: AskConfig::single_user()
            .unwrap()
            .with_flows(flows)
            .with_timeout(timeout),
    }
}

async fn connect(revision: Revision, server: Keys, client: Client) -> Session {
    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    let (read, write) = tokio::io::split(server_io);
    let wire = Arc::new(Mutex::new(Vec::new()));
    let tee = Tee::new(write, Arc::clone(&wire));
    tokio::spawn(async move {
        if let Ok(running) = mcp_elicit::rmcp::AskingService(server)
            .serve((read, tee))
            .await
        {
            let _ = running.waiting().await;
        }
    });
    let lifecycle = match revision {
        Revision::V2025_11_25 => ClientLifecycleMode::Initialize,
        _ => ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        },
    };
    let handler = client.clone();
    let client = client
        .serve_with_lifecycle(client_io, lifecycle)
        .await
        .unwrap();
    Session {
        client,
        handler,
        wire,
    }
}

/// The status of the flow whose page is at `url`.
fn status(store: &MemoryFlowStore, url: &str) -> FlowStatus {
    store
        .get_now(&flow_of(url), UnixTime::now())
        .unwrap()
        .status()
        .clone()
}

/// The single user (`""`, as `AskConfig::single_user` names them) is whoever opens a page.
struct TheSingleUser;

impl Identity for TheSingleUser {
    fn identify<'a>(&'a self, _request: &'a axum::http::request::Parts) -> IdentifyFuture<'a> {
        Box::pin(async { Ok(String::new()) })
    }
}

/// The API-key page as the library serves it, over `store`; what its sink stored.
fn api_key_pages(store: &MemoryFlowStore) -> (axum::Router, Arc<Mutex<Vec<String>>>) {
    let stored = Arc::<Mutex<Vec<String>>>::default();
    let sink = {
        let stored = Arc::clone(&stored);
        move |_: &str, mut secrets: Secrets| -> Result<Value, String> {
            let key = secrets.take("key").ok_or("no key")?;
            stored
                .lock()
                .unwrap()
                .push(secrecy::ExposeSecret::expose_secret(&key).to_owned());
            Ok(json!({ "stored": true }))
        }
    };
    let page = SecretPage::new(
        "api_key",
        "Your Example Co. API key",
        vec![Property::new("key", StringSchema::new().min_length(20)).title("API key")],
    )
    .unwrap();
    let flows = Flows::new(store.clone(), BASE).unwrap();
    let router = Pages::new(flows, TheSingleUser)
        .unwrap()
        .secret(page, sink)
        .router();
    (router, stored)
}

/// `request` through `router`: the status and the body.
async fn through(router: &axum::Router, mut request: Request<Body>) -> (StatusCode, String) {
    // As a browser sends it: the pages serve only the host of their base.
    request
        .headers_mut()
        .entry(header::HOST)
        .or_insert(header::HeaderValue::from_static("localhost:8719"));
    let response = router.clone().oneshot(request).await.unwrap();
    let status = response.status();
    let body = axum::body::to_bytes(response.into_body(), 1 << 20)
        .await
        .unwrap();
    (status, String::from_utf8(body.to_vec()).unwrap())
}

on_both_revisions! {
    async fn a_finished_page_is_read_with_its_value(revision) {
        let store = MemoryFlowStore::new();
        let s = connect(revision, server(&store, Duration::from_secs(10)), Client::new(&store, User::OpenAndFinish)).await;
        assert_eq!(s.call().await, (r#"connected: {"ending":"4f2a"}"#.to_owned(), false));
        let [(message, url, _)] = &s.seen()[..] else { panic!("asked {:?}", s.seen()) };
        assert_eq!(message, "Enter your Example Co. API key on our page.");
        flow_of(url);
    }
}

on_both_revisions! {
    async fn a_failed_page_is_a_failure_not_an_acceptance(revision) {
        let store = MemoryFlowStore::new();
        let s = connect(revision, server(&store, Duration::from_secs(10)), Client::new(&store, User::OpenAndFail)).await;
        assert_eq!(s.call().await, ("failed: the key was refused".to_owned(), false));
    }
}

on_both_revisions! {
    async fn a_declined_page_starts_nothing_more(revision) {
        let store = MemoryFlowStore::new();
        let s = connect(revision, server(&store, Duration::from_secs(10)), Client::new(&store, User::Decline)).await;
        assert_eq!(s.call().await, ("not connected: Decline".to_owned(), false));
        assert!(s.notes().is_empty());
    }
}

#[tokio::test]
async fn before_2026_07_28_the_completion_names_the_request_and_goes_only_to_the_client_that_asked()
{
    let store = MemoryFlowStore::new();
    let keys = server(&store, Duration::from_secs(10));
    let asking = connect(
        Revision::V2025_11_25,
        keys.clone(),
        Client::new(&store, User::OpenAndFinish),
    )
    .await;
    let other = connect(
        Revision::V2025_11_25,
        keys,
        Client::new(&store, User::Decline),
    )
    .await;
    assert!(!asking.call().await.1);
    let [(_, url, elicitation_id)] = &asking.seen()[..] else {
        panic!()
    };
    // The elicitationId is the flow's id: the one thing the URL holds.
    assert_eq!(elicitation_id, &flow_of(url).to_string());
    let complete = json!({
        "method": "notifications/elicitation/complete",
        "params": { "elicitationId": elicitation_id },
    });
    within_a_while(async {
        while asking.notes().is_empty() {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
    assert_eq!(asking.notes(), [complete]);
    assert!(
        asking
            .wire()
            .contains(r#""method":"notifications/elicitation/complete""#)
    );
    // The other session, on the same server and store, hears nothing of it.
    assert!(other.notes().is_empty());
    assert!(
        !other.wire().contains("notifications/elicitation/complete"),
        "{}",
        other.wire()
    );
}

#[tokio::test]
async fn before_2026_07_28_a_page_not_finished_while_the_tool_waits_is_not_finished() {
    let store = MemoryFlowStore::new();
    let s = connect(
        Revision::V2025_11_25,
        server(&store, Duration::from_millis(300)),
        Client::new(&store, User::OpenOnly),
    )
    .await;
    assert_eq!(
        s.call().await,
        ("not connected: NotFinished".to_owned(), false)
    );
    assert!(
        s.notes().is_empty(),
        "no completion for a step that did not complete"
    );
    // The tool said "not finished": its page takes nothing afterwards.
    let [(_, url, _)] = &s.seen()[..] else {
        panic!("{:?}", s.seen())
    };
    assert_eq!(status(&store, url), FlowStatus::Abandoned);
}

#[tokio::test]
async fn before_2026_07_28_a_declined_page_is_abandoned() {
    let store = MemoryFlowStore::new();
    let s = connect(
        Revision::V2025_11_25,
        server(&store, Duration::from_secs(10)),
        Client::new(&store, User::Decline),
    )
    .await;
    assert_eq!(s.call().await, ("not connected: Decline".to_owned(), false));
    let [(_, url, _)] = &s.seen()[..] else {
        panic!("{:?}", s.seen())
    };
    assert_eq!(status(&store, url), FlowStatus::Abandoned);
}

/// The bug a newcomer found: the client cancels the call (`notifications/cancelled`, as
/// `terminal_client`'s *Check again* does before it calls again) while the tool waits for the
/// page. The page, already open in the user's browser, must then refuse the secret, with a
/// valid token, and store nothing.
#[tokio::test]
async fn before_2026_07_28_a_call_the_client_cancels_abandons_its_flow_and_the_page_stores_nothing()
{
    let store = MemoryFlowStore::new();
    let (pages, stored) = api_key_pages(&store);
    let s = connect(
        Revision::V2025_11_25,
        server(&store, Duration::from_secs(60)),
        Client::new(&store, User::OpenOnly),
    )
    .await;
    let call = ClientRequest::CallToolRequest(CallToolRequest::new(
        rmcp::model::CallToolRequestParams::new("connect_api_key"),
    ));
    let handle = s
        .client
        .peer()
        .send_cancellable_request(call, PeerRequestOptions::no_options())
        .await
        .unwrap();
    let url = within_a_while(async {
        loop {
            if let [(_, url, _)] = &s.seen()[..] {
                return url.clone();
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
    let id: FlowId = flow_of(&url);
    let path = format!("/elicit/{id}");
    // The user opens the page while the tool waits.
    let response = pages
        .clone()
        .oneshot(
            Request::get(&path)
                .header(header::HOST, "localhost:8719")
                .body(Body::empty())
                .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let cookie = response.headers()[header::SET_COOKIE].to_str().unwrap();
    let cookie = cookie.split(';').next().unwrap().to_owned();
    let body = axum::body::to_bytes(response.into_body(), 1 << 20)
        .await
        .unwrap();
    let body = String::from_utf8(body.to_vec()).unwrap();
    let token = {
        let at = body.find(r#"name="_csrf" value=""#).unwrap() + r#"name="_csrf" value=""#.len();
        body[at..at + body[at..].find('"').unwrap()].to_owned()
    };

    handle.cancel(Some("check again".to_owned())).await.unwrap();
    within_a_while(async {
        while status(&store, &url) != FlowStatus::Abandoned {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;

    let form = serde_urlencoded::to_string([
        ("_csrf", token.as_str()),
        ("key", "sk-live-0123456789abcdef"),
    ])
    .unwrap();
    let post = Request::post(&path)
        .header(header::COOKIE, &cookie)
        .header(header::ORIGIN, "http://localhost:8719")
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(Body::from(form))
        .unwrap();
    let (code, body) = through(&pages, post).await;
    assert_eq!(code, StatusCode::GONE, "{body}");
    assert!(body.contains("was cancelled"), "{body}");
    assert!(!body.contains("Saved"), "{body}");
    assert!(stored.lock().unwrap().is_empty(), "the sink stored nothing");
    assert_eq!(status(&store, &url), FlowStatus::Abandoned);
    // Opening it again says the same.
    let get = Request::get(&path)
        .header(header::COOKIE, &cookie)
        .body(Body::empty())
        .unwrap();
    let (code, body) = through(&pages, get).await;
    assert_eq!(code, StatusCode::GONE, "{body}");
    assert!(body.contains("was cancelled"), "{body}");
    assert!(s.notes().is_empty(), "no completion for a cancelled call");
}

#[tokio::test]
async fn on_2026_07_28_an_unfinished_step_is_asked_again_with_the_same_url() {
    let store = MemoryFlowStore::new();
    let s = connect(
        Revision::V2026_07_28,
        server(&store, Duration::from_secs(10)),
        Client::new(&store, User::FinishSecondTime),
    )
    .await;
    assert_eq!(
        s.call().await,
        (r#"connected: {"ending":"4f2a"}"#.to_owned(), false)
    );
    let [(first, url, id), (again, same_url, _)] = &s.seen()[..] else {
        panic!("{:?}", s.seen())
    };
    assert_eq!(url, same_url);
    assert!(id.is_empty(), "2026-07-28 has no elicitationId");
    assert_eq!(first, "Enter your Example Co. API key on our page.");
    assert!(
        again.starts_with(first) && again.contains("not finished"),
        "{again}"
    );
}

#[tokio::test]
async fn on_2026_07_28_a_step_never_finished_ends_in_an_error_result_after_the_reask() {
    let store = MemoryFlowStore::new();
    let s = connect(
        Revision::V2026_07_28,
        server(&store, Duration::from_secs(10)),
        Client::new(&store, User::OpenOnly),
    )
    .await;
    let (text, is_error) = s.call().await;
    assert!(is_error, "{text}");
    assert!(text.contains("not finished"), "{text}");
    // Asked once, then once more (the default re-ask): never read as done.
    assert_eq!(s.seen().len(), 2);
    // Each round is a call the client retries: none abandons the flow.
    let (_, url, _) = &s.seen()[0];
    assert!(status(&store, url).is_open(), "{:?}", status(&store, url));
}
