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
//! - 2025-11-25: the completion goes out as soon as the page finishes, before the client's
//!   accept (the MCP Inspector waits for it before it accepts).
//! - 2026-07-28: the URL is the same in every round; a retry that accepts waits for the page,
//!   then asks again with a note if it is still open, never counted as a bad answer; a round
//!   that asks again keeps the flow for the retry; a decline, a cancel or a final result
//!   abandons it, and its page says why.
//! - Both: a page finished before the client declines is read as finished.
//!
//! `cargo test -p elicit-examples --features oauth --test asker_url_flow`

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use mcp_elicit::Revision;
use mcp_elicit::page::{IdentifyFuture, Identity, Pages, SecretPage, Secrets, SinkError};
use mcp_elicit::rmcp::{AskConfig, Asker, AskingServer, ToolResponse, respond};
use mcp_elicit::schema::{Property, StringSchema};
use mcp_elicit::state::UnixTime;
use mcp_elicit::url_mode::{
    Abandonment, FlowId, FlowOutcome, FlowStatus, FlowStore, Flows, MemoryFlowStore,
};
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
    /// On a retry, return an `isError` result before asking again (an upstream that went
    /// down): a final result while the flow is open.
    give_up_on_retry: bool,
    /// A bound on the whole handler (a server's own request timeout): past it the handler's
    /// future, and the asker in it, is dropped, wherever it was.
    handler_bound: Option<Duration>,
}

impl AskingServer for Keys {
    fn asking(&self) -> &AskConfig {
        &self.asking
    }
}

#[tool_router]
impl Keys {
    #[tool(description = "Connect the user's Example Co. API key.")]
    async fn connect_api_key(&self, asker: Asker) -> ToolResponse {
        let Some(bound) = self.handler_bound else {
            return self.connect(asker).await;
        };
        match tokio::time::timeout(bound, self.connect(asker)).await {
            Ok(response) => response,
            Err(_) => {
                respond(async {
                    Ok(CallToolResult::error(vec![ContentBlock::text(
                        "Timed out: nothing was connected.",
                    )]))
                })
                .await
            }
        }
    }

    #[tool(description = "Connect the key, giving up on the page after a moment.")]
    async fn connect_or_move_on(&self, mut asker: Asker) -> ToolResponse {
        respond(async {
            let waited = tokio::time::timeout(
                Duration::from_millis(300),
                asker.url_flow::<serde_json::Value>("api_key", "Enter your key."),
            )
            .await;
            // The first round asks (its input-required result goes out as usual); the retry waits.
            let waited = match waited {
                Ok(outcome) => outcome.map(|_| true)?,
                Err(_) => false,
            };
            // The handler gave up on the page and goes on: its round must be there to go on with.
            let round = asker.round().await?.is_some();
            Ok(CallToolResult::success(vec![ContentBlock::text(format!(
                "waited: {waited}, round: {round}"
            ))]))
        })
        .await
    }

    #[tool(description = "Connect the key, its receipt read typed.")]
    async fn connect_typed(&self, mut asker: Asker) -> ToolResponse {
        respond(async {
            let text = match asker
                .url_flow::<KeyEnding>("api_key", "Enter your key.")
                .await?
            {
                FlowOutcome::Completed(key) => format!("connected the key ending {}", key.ending),
                _ => "not connected".to_owned(),
            };
            Ok(CallToolResult::success(vec![ContentBlock::text(text)]))
        })
        .await
    }

    #[tool(description = "Connect the key, its receipt read as a type it is not.")]
    async fn connect_mistyped(&self, mut asker: Asker) -> ToolResponse {
        respond(async {
            let outcome = asker
                .url_flow::<Scopes>("api_key", "Enter your key.")
                .await?;
            Ok(CallToolResult::success(vec![ContentBlock::text(format!(
                "{outcome:?}"
            ))]))
        })
        .await
    }
}

impl Keys {
    async fn connect(&self, mut asker: Asker) -> ToolResponse {
        respond(async {
            if self.give_up_on_retry && asker.round().await?.is_some_and(|round| round.is_resumed())
            {
                return Ok(CallToolResult::error(vec![ContentBlock::text(
                    "Example Co. is down: nothing was connected.",
                )]));
            }
            let text = match asker
                .url_flow::<serde_json::Value>(
                    "api_key",
                    "Enter your Example Co. API key on our page.",
                )
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

/// The receipt the clients here finish the page with, read as the tool's own type.
#[derive(serde::Deserialize)]
struct KeyEnding {
    ending: String,
}

/// A receipt type the page does not return.
#[derive(Debug, serde::Deserialize)]
#[allow(dead_code, reason = "only read to fail")]
struct Scopes {
    scopes: Vec<String>,
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
    /// Agree at once, and finish the page a moment later, while the call waits (fast-agent on
    /// 2026-07-28, the spec's sequence diagram).
    AcceptThenFinish,
    /// Finish the page, then wait for the completion notification before accepting (the MCP
    /// Inspector on 2025-11-25); accept without it after 5 s.
    FinishThenAwaitCompletion,
    /// Finish the page, then decline in the client.
    FinishThenDecline,
    Decline,
}

#[derive(Clone)]
struct Client {
    store: MemoryFlowStore,
    user: User,
    seen: Arc<Mutex<Vec<(String, String, String)>>>,
    notes: Arc<Mutex<Vec<Value>>>,
    /// Whether the completion had arrived when the client answered, per answer.
    completed_before_answer: Arc<Mutex<Vec<bool>>>,
    /// On the first question, start a task of its own waiting for the flow (another retry of
    /// the same state, sent at once), which holds its place until the flow is over.
    hold_the_only_place: bool,
}

impl Client {
    fn new(store: &MemoryFlowStore, user: User) -> Self {
        Self {
            store: store.clone(),
            user,
            seen: Arc::default(),
            notes: Arc::default(),
            completed_before_answer: Arc::default(),
            hold_the_only_place: false,
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
        if self.hold_the_only_place && asked == 1 {
            let (store, id) = (self.store.clone(), flow_of(&url));
            tokio::spawn(async move { store.finished(&id).await });
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        match (self.user, asked) {
            (User::Decline, _) => return Ok(ElicitResult::new(ElicitationAction::Decline)),
            (User::AcceptThenFinish, _) => {
                let (store, url) = (self.store.clone(), url.clone());
                tokio::spawn(async move {
                    tokio::time::sleep(Duration::from_millis(500)).await;
                    finish_flow(&store, &url, Ok(json!({ "ending": "4f2a" })));
                });
            }
            (User::FinishThenDecline, _) => {
                self.finish(&url, Ok(json!({ "ending": "4f2a" })));
                return Ok(ElicitResult::new(ElicitationAction::Decline));
            }
            (User::FinishThenAwaitCompletion, _) => {
                self.finish(&url, Ok(json!({ "ending": "4f2a" })));
                let waited = tokio::time::timeout(Duration::from_secs(5), async {
                    while self.notes.lock().unwrap().is_empty() {
                        tokio::time::sleep(Duration::from_millis(10)).await;
                    }
                })
                .await;
                self.completed_before_answer
                    .lock()
                    .unwrap()
                    .push(waited.is_ok());
            }
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

/// The server, waiting at most `timeout` for the user and for a page (on 2026-07-28, per
/// retry).
fn server(store: &MemoryFlowStore, timeout: Duration) -> Keys {
    let flows = Flows::new(store.clone(), BASE).unwrap();
    Keys {
        asking: AskConfig::single_user("me")
            .unwrap()
            .with_flows(flows)
            .with_timeout(timeout)
            .with_page_wait(timeout),
        give_up_on_retry: false,
        handler_bound: None,
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

/// The single user (`"me"`, as `AskConfig::single_user("me")` names them) is whoever opens a page.
struct TheSingleUser;

impl Identity for TheSingleUser {
    fn identify<'a>(&'a self, _request: &'a axum::http::request::Parts) -> IdentifyFuture<'a> {
        Box::pin(async { Ok(mcp_elicit::page::SignedIn::new("me")) })
    }
}

/// The API-key page as the library serves it, over `store`; what its sink stored.
fn api_key_pages(store: &MemoryFlowStore) -> (axum::Router, Arc<Mutex<Vec<String>>>) {
    let stored = Arc::<Mutex<Vec<String>>>::default();
    let sink = {
        let stored = Arc::clone(&stored);
        move |_, mut secrets: Secrets| -> Result<Value, SinkError> {
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
    assert_eq!(
        status(&store, url),
        FlowStatus::Abandoned(Abandonment::CallEnded)
    );
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
    assert_eq!(
        status(&store, url),
        FlowStatus::Abandoned(Abandonment::Declined)
    );
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
        while status(&store, &url) != FlowStatus::Abandoned(Abandonment::Cancelled) {
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
    assert_eq!(
        status(&store, &url),
        FlowStatus::Abandoned(Abandonment::Cancelled)
    );
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

/// The page's answer to a GET by its (single) user, through the library's router.
async fn page_says(store: &MemoryFlowStore, url: &str) -> (StatusCode, String) {
    let (pages, _) = api_key_pages(store);
    let path = format!("/elicit/{}", flow_of(url));
    through(&pages, Request::get(&path).body(Body::empty()).unwrap()).await
}

/// Until the flow at `url` is over (what a task spawned as the call ended does), its status.
async fn once_over(store: &MemoryFlowStore, url: &str) -> FlowStatus {
    within_a_while(async {
        loop {
            let now = status(store, url);
            if !now.is_open() {
                return now;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
}

/// The Inspector's way: it holds its accept until `notifications/elicitation/complete`
/// arrives. The page finished before the client answered, so the notification goes out then,
/// and the call finishes with no click.
#[tokio::test]
async fn before_2026_07_28_the_completion_goes_out_when_the_page_finishes_before_the_accept() {
    let store = MemoryFlowStore::new();
    let s = connect(
        Revision::V2025_11_25,
        server(&store, Duration::from_secs(10)),
        Client::new(&store, User::FinishThenAwaitCompletion),
    )
    .await;
    assert_eq!(
        s.call().await,
        (r#"connected: {"ending":"4f2a"}"#.to_owned(), false)
    );
    assert_eq!(
        *s.handler.completed_before_answer.lock().unwrap(),
        [true],
        "the client had the completion before it answered"
    );
    // Once: not again after the accept.
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(s.notes().len(), 1, "{:?}", s.notes());
}

on_both_revisions! {
    /// The page finished, then the client declined: the secret is in the sink already, so the
    /// tool reads what the page did (src/guide/url_mode.md, "A page finished before the client
    /// answered").
    async fn a_page_finished_before_a_decline_is_read_as_finished(revision) {
        let store = MemoryFlowStore::new();
        let s = connect(revision, server(&store, Duration::from_secs(10)), Client::new(&store, User::FinishThenDecline)).await;
        assert_eq!(s.call().await, (r#"connected: {"ending":"4f2a"}"#.to_owned(), false));
        let (_, url, _) = &s.seen()[0];
        assert_eq!(status(&store, url), FlowStatus::Completed(json!({ "ending": "4f2a" })));
    }
}

/// fast-agent's way, and the spec's diagram: the client accepts at once and retries; the user
/// finishes the page while that retry waits. One question, no re-ask, no error.
#[tokio::test]
async fn on_2026_07_28_a_retry_that_accepts_early_waits_for_the_page() {
    let store = MemoryFlowStore::new();
    let s = connect(
        Revision::V2026_07_28,
        server(&store, Duration::from_secs(10)),
        Client::new(&store, User::AcceptThenFinish),
    )
    .await;
    let started = std::time::Instant::now();
    assert_eq!(
        s.call().await,
        (r#"connected: {"ending":"4f2a"}"#.to_owned(), false)
    );
    assert!(started.elapsed() >= Duration::from_millis(500));
    assert_eq!(s.seen().len(), 1, "asked once: {:?}", s.seen());
}

#[tokio::test]
async fn on_2026_07_28_a_page_still_open_at_the_bound_is_asked_again_with_the_same_url() {
    let store = MemoryFlowStore::new();
    let s = connect(
        Revision::V2026_07_28,
        server(&store, Duration::from_millis(300)),
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
        again.starts_with(first) && again.contains("still open"),
        "{again}"
    );
    assert!(!again.contains("then accept"), "{again}");
}

/// A retry over the flow's bound of waiters (another task holds the only place) does not wait
/// for the page: it is asked again at once with the same URL and the note that the page is still
/// open, not counted as a bad answer; the next retry reads the finished page.
#[tokio::test]
async fn on_2026_07_28_a_retry_over_the_flows_bound_of_waiters_is_asked_again_at_once() {
    let store = MemoryFlowStore::new().with_max_waiters_per_flow(1);
    let mut client = Client::new(&store, User::FinishSecondTime);
    client.hold_the_only_place = true;
    let s = connect(
        Revision::V2026_07_28,
        server(&store, Duration::from_secs(20)),
        client,
    )
    .await;
    let started = std::time::Instant::now();
    assert_eq!(
        s.call().await,
        (r#"connected: {"ending":"4f2a"}"#.to_owned(), false)
    );
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "the retry waited: {:?}",
        started.elapsed()
    );
    let [(first, url, _), (again, same_url, _)] = &s.seen()[..] else {
        panic!("{:?}", s.seen())
    };
    assert_eq!(url, same_url);
    assert!(
        again.starts_with(first) && again.contains("still open"),
        "{again}"
    );
}

/// A client that accepts in a loop and never finishes: every retry waits for the page (no
/// spinning), none is a bad answer (no `isError` after the re-ask bound), and the client's own
/// round cap ends it. It never ended the call, so the flow stays open until it expires.
#[tokio::test]
async fn on_2026_07_28_a_client_accepting_in_a_loop_waits_each_round_and_is_never_rejected() {
    let store = MemoryFlowStore::new();
    let s = connect(
        Revision::V2026_07_28,
        server(&store, Duration::from_millis(200)),
        Client::new(&store, User::OpenOnly),
    )
    .await;
    let started = std::time::Instant::now();
    let params = rmcp::model::CallToolRequestParams::new("connect_api_key");
    let ended = within_a_while(s.client.call_tool_with_mrtr_max_rounds(params, 5)).await;
    assert!(
        matches!(
            ended,
            Err(rmcp::ServiceError::InputRequiredRoundsExceeded { max_rounds: 5 })
        ),
        "{ended:?}"
    );
    // Four retries, each waiting 200 ms for the page.
    assert!(
        started.elapsed() >= Duration::from_millis(800),
        "{:?}",
        started.elapsed()
    );
    let seen = s.seen();
    assert_eq!(seen.len(), 5);
    assert!(seen.iter().all(|(_, url, _)| *url == seen[0].1));
    assert!(status(&store, &seen[0].1).is_open());
}

/// The user declines on 2026-07-28: the flow is abandoned, and its page refuses, saying so.
#[tokio::test]
async fn on_2026_07_28_a_declined_flows_page_refuses_and_says_why() {
    let store = MemoryFlowStore::new();
    let s = connect(
        Revision::V2026_07_28,
        server(&store, Duration::from_secs(10)),
        Client::new(&store, User::Decline),
    )
    .await;
    assert_eq!(s.call().await, ("not connected: Decline".to_owned(), false));
    let (_, url, _) = &s.seen()[0];
    assert_eq!(
        status(&store, url),
        FlowStatus::Abandoned(Abandonment::Declined)
    );
    let (code, body) = page_says(&store, url).await;
    assert_eq!(code, StatusCode::GONE, "{body}");
    assert!(body.contains("You declined this request"), "{body}");
}

/// Before 2026-07-28 the same: the page of a declined flow refuses and names why.
#[tokio::test]
async fn before_2026_07_28_a_declined_flows_page_says_why() {
    let store = MemoryFlowStore::new();
    let s = connect(
        Revision::V2025_11_25,
        server(&store, Duration::from_secs(10)),
        Client::new(&store, User::Decline),
    )
    .await;
    assert_eq!(s.call().await, ("not connected: Decline".to_owned(), false));
    let (code, body) = page_says(&store, &s.seen()[0].1).await;
    assert_eq!(code, StatusCode::GONE, "{body}");
    assert!(body.contains("You declined this request"), "{body}");
}

/// On 2026-07-28 the retry's run ends the call with an `isError` result (its upstream went
/// down) while the page is still open: the call is over, so its flow is abandoned and the page
/// refuses, saying the call ended.
#[tokio::test]
async fn on_2026_07_28_a_call_that_ends_abandons_its_flow() {
    let store = MemoryFlowStore::new();
    let mut keys = server(&store, Duration::from_secs(10));
    keys.give_up_on_retry = true;
    let s = connect(
        Revision::V2026_07_28,
        keys,
        Client::new(&store, User::OpenOnly),
    )
    .await;
    assert_eq!(
        s.call().await,
        (
            "Example Co. is down: nothing was connected.".to_owned(),
            true
        )
    );
    let url = s.seen()[0].1.clone();
    assert_eq!(
        once_over(&store, &url).await,
        FlowStatus::Abandoned(Abandonment::CallEnded)
    );
    let (code, body) = page_says(&store, &url).await;
    assert_eq!(code, StatusCode::GONE, "{body}");
    assert!(body.contains("This request has ended"), "{body}");
}

/// The tool reads the page's receipt as its own type, on both revisions; a receipt that is not
/// that type is an error naming the page and the type, not a panic and not a success.
#[tokio::test]
async fn the_tool_reads_the_receipt_as_its_own_type_or_an_error_naming_page_and_type() {
    for revision in [Revision::V2025_11_25, Revision::V2026_07_28] {
        let store = MemoryFlowStore::new();
        let session = connect(
            revision,
            server(&store, Duration::from_secs(10)),
            Client::new(&store, User::OpenAndFinish),
        )
        .await;
        let typed = rmcp::model::CallToolRequestParams::new("connect_typed");
        let (text, is_error) = returned(
            &within_a_while(session.client.call_tool(typed))
                .await
                .unwrap(),
        );
        assert_eq!(
            (text.as_str(), is_error),
            ("connected the key ending 4f2a", false),
            "{revision:?}"
        );
        let mistyped = rmcp::model::CallToolRequestParams::new("connect_mistyped");
        let error = within_a_while(session.client.call_tool(mistyped))
            .await
            .expect_err("an error, not a result");
        let error = error.to_string();
        assert!(error.contains("`api_key`"), "{revision:?}: {error}");
        assert!(error.contains("Scopes"), "{revision:?}: {error}");
    }
}

/// On 2026-07-28 the handler is dropped while its retry waits for the page (the server's own
/// bound on a request, shorter than the page wait): the round put away for the wait still
/// ends the call, so the flow is abandoned and the page refuses, saying the call ended.
#[tokio::test]
async fn on_2026_07_28_a_handler_dropped_while_its_retry_waits_abandons_its_flow() {
    let store = MemoryFlowStore::new();
    let mut keys = server(&store, Duration::from_secs(10));
    keys.handler_bound = Some(Duration::from_millis(300));
    let s = connect(
        Revision::V2026_07_28,
        keys,
        Client::new(&store, User::OpenOnly),
    )
    .await;
    let started = std::time::Instant::now();
    assert_eq!(
        s.call().await,
        ("Timed out: nothing was connected.".to_owned(), true)
    );
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "the page wait was cut short"
    );
    let url = s.seen()[0].1.clone();
    assert_eq!(s.seen().len(), 1, "asked once: {:?}", s.seen());
    assert_eq!(
        once_over(&store, &url).await,
        FlowStatus::Abandoned(Abandonment::CallEnded)
    );
    let (code, body) = page_says(&store, &url).await;
    assert_eq!(code, StatusCode::GONE, "{body}");
    assert!(body.contains("This request has ended"), "{body}");
}

/// On 2026-07-28 a handler that bounds `url_flow` by its own timeout, and goes on once it runs
/// out, finds its round where it was: put away only while the retry waited for the page.
#[tokio::test]
async fn on_2026_07_28_a_handler_that_gives_up_on_the_page_keeps_its_round() {
    let store = MemoryFlowStore::new();
    let s = connect(
        Revision::V2026_07_28,
        server(&store, Duration::from_secs(10)),
        Client::new(&store, User::OpenOnly),
    )
    .await;
    let params = rmcp::model::CallToolRequestParams::new("connect_or_move_on");
    let (text, is_error) = returned(&within_a_while(s.client.call_tool(params)).await.unwrap());
    assert_eq!(
        (text.as_str(), is_error),
        ("waited: false, round: true", false)
    );
}

// ------------------------------------------------------------------ the link form (issue 43)

/// A client that cannot take the URL question (2025-06-18, or form only on 2025-11-25), whose
/// row in the server's table was checked in CI: it is asked the step in a form with no field.
#[derive(Clone)]
struct LinkClient {
    store: MemoryFlowStore,
    version: ProtocolVersion,
    /// Answer at once (a host that approves a form with no field by itself), or after a person's
    /// pace; finish the page only on the second form.
    at_once: bool,
    seen: Arc<Mutex<Vec<(String, usize)>>>,
    /// Every notification of the server's own (`notifications/elicitation/complete`).
    notes: Arc<Mutex<Vec<String>>>,
}

impl ClientHandler for LinkClient {
    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let ElicitRequestParams::FormElicitationParams {
            message,
            requested_schema,
            ..
        } = request
        else {
            panic!("a form was expected: the client cannot take a URL question");
        };
        let asked = {
            let mut seen = self.seen.lock().unwrap();
            seen.push((message.clone(), requested_schema.properties.len()));
            seen.len()
        };
        if !self.at_once {
            tokio::time::sleep(Duration::from_millis(150)).await;
        }
        if asked == 2 {
            let url = message
                .split_whitespace()
                .find(|word| word.starts_with(BASE))
                .expect("the message gives the page's URL");
            finish_flow(&self.store, url, Ok(json!({ "ending": "4f2a" })));
        }
        Ok(ElicitResult::new(ElicitationAction::Accept))
    }

    async fn on_custom_notification(
        &self,
        notification: rmcp::model::CustomNotification,
        _context: rmcp::service::NotificationContext<RoleClient>,
    ) {
        self.notes.lock().unwrap().push(notification.method);
    }

    fn get_info(&self) -> ClientConfig {
        let capabilities =
            serde_json::from_value(json!({ "elicitation": { "form": {} } })).unwrap();
        let mut info = ClientConfig::new(capabilities, Implementation::new("link-test", "1.0.0"));
        info.protocol_version = self.version.clone();
        info
    }
}

fn link_server(
    store: &MemoryFlowStore,
    link_form: mcp_elicit::rmcp::LinkForm,
    checked: mcp_elicit::hosts::Checked,
) -> Keys {
    use mcp_elicit::hosts::{Host, HostTable};
    let mut keys = server(store, Duration::from_secs(2));
    let row = Host::new("the link test", "link-test", "*")
        .unwrap()
        .checked(checked);
    keys.asking = keys
        .asking
        .clone()
        .with_hosts(HostTable::known().with_host(row))
        .with_link_form(link_form)
        .with_page_wait(Duration::from_millis(200))
        .with_too_fast(mcp_elicit::observe::TooFast::new(
            Duration::from_millis(50),
            Duration::ZERO,
        ));
    keys
}

async fn link_call(
    version: ProtocolVersion,
    link_form: mcp_elicit::rmcp::LinkForm,
    at_once: bool,
) -> ((String, bool), Vec<(String, usize)>) {
    let checked = mcp_elicit::hosts::Checked::InCi {
        version: "1.0.0".into(),
    };
    link_call_checked(version, link_form, at_once, checked).await
}

/// [`link_call`] to a server whose row for the client was checked as `checked` says.
async fn link_call_checked(
    version: ProtocolVersion,
    link_form: mcp_elicit::rmcp::LinkForm,
    at_once: bool,
    checked: mcp_elicit::hosts::Checked,
) -> ((String, bool), Vec<(String, usize)>) {
    let store = MemoryFlowStore::new();
    let client = LinkClient {
        store: store.clone(),
        version,
        at_once,
        seen: Arc::default(),
        notes: Arc::default(),
    };
    let seen = Arc::clone(&client.seen);
    let notes = Arc::clone(&client.notes);
    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    let keys = link_server(&store, link_form, checked);
    tokio::spawn(async move {
        if let Ok(running) = mcp_elicit::rmcp::AskingService(keys).serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let running = client.serve(client_io).await.unwrap();
    let params = rmcp::model::CallToolRequestParams::new("connect_api_key");
    let called = within_a_while(running.call_tool(params)).await;
    let returned = match called {
        Ok(result) => returned(&result),
        Err(error) => (error.to_string(), true),
    };
    let seen = seen.lock().unwrap().clone();
    // The host never had a URL question: no completion notification, whatever the page did.
    assert!(
        notes.lock().unwrap().is_empty(),
        "{:?}",
        notes.lock().unwrap()
    );
    (returned, seen)
}

/// 2025-06-18 (no URL mode) and 2025-11-25 declared form only: the step in a form with no
/// field, its message giving the page's URL; the first accept finds the page still open, so the
/// form is asked again saying so; the second reads the finished page. The URL is never in the
/// tool's result. With the link form off, the client cannot be asked, as before.
#[tokio::test]
async fn a_client_that_cannot_take_the_url_question_is_asked_a_link_form() {
    use mcp_elicit::rmcp::LinkForm;
    for version in [ProtocolVersion::V_2025_06_18, ProtocolVersion::V_2025_11_25] {
        let ((text, is_error), seen) =
            link_call(version.clone(), LinkForm::HostsCheckedInCi, false).await;
        assert_eq!(
            (text.as_str(), is_error),
            (r#"connected: {"ending":"4f2a"}"#, false),
            "{version:?}: {seen:?}"
        );
        let [(first, 0), (again, 0)] = &seen[..] else {
            panic!("{version:?}: {seen:?}")
        };
        assert!(first.contains(BASE), "{first}");
        assert!(
            first.starts_with("Enter your Example Co. API key on our page."),
            "{first}"
        );
        assert!(again.contains("not finished"), "{again}");
        assert!(!text.contains(BASE));

        let ((text, is_error), seen) = link_call(version.clone(), LinkForm::Off, false).await;
        assert!(is_error, "{version:?}: {text}");
        assert!(seen.is_empty(), "{version:?}: {seen:?}");
    }
}

/// A link form accepted faster than a person can read it was not read by one: the call ends,
/// saying the host did not show the step, after one form (never a loop).
#[tokio::test]
async fn a_link_form_accepted_at_once_ends_the_call_saying_the_host_did_not_show_it() {
    let ((text, is_error), seen) = link_call(
        ProtocolVersion::V_2025_06_18,
        mcp_elicit::rmcp::LinkForm::HostsCheckedInCi,
        true,
    )
    .await;
    assert!(is_error, "{text}");
    assert!(text.contains("did not show"), "{text}");
    assert_eq!(seen.len(), 1, "{seen:?}");
}

/// A client that declares form mode only, asked by a server whose row for it was checked by
/// hand, not in CI: no link form (a form message owes none of URL mode's duties, so it is on
/// by default only where a run of the host showed it); the client cannot be asked, as before.
#[tokio::test]
async fn a_host_not_checked_in_ci_gets_no_link_form() {
    use mcp_elicit::hosts::Checked;
    let checked = Checked::ByHand {
        version: "1.0.0".into(),
        date: "2026-12-07".into(),
    };
    let ((text, is_error), seen) = link_call_checked(
        ProtocolVersion::V_2025_11_25,
        mcp_elicit::rmcp::LinkForm::HostsCheckedInCi,
        false,
        checked,
    )
    .await;
    assert!(is_error, "{text}");
    assert!(text.contains("elicitation.url"), "{text}");
    assert!(seen.is_empty(), "{seen:?}");
}

/// The link form's text as the hosts' own tests read it on screen: the step's message, then
/// the page's line, then what accept and decline mean; asked again, it begins by saying the
/// step is not finished.
#[tokio::test]
async fn the_link_forms_text_is_the_steps_message_the_page_and_what_accept_means() {
    let (_, seen) = link_call(
        ProtocolVersion::V_2025_06_18,
        mcp_elicit::rmcp::LinkForm::HostsCheckedInCi,
        false,
    )
    .await;
    let [(first, 0), (again, 0)] = &seen[..] else {
        panic!("{seen:?}")
    };
    let url = first
        .split_whitespace()
        .find(|word| word.starts_with(BASE))
        .unwrap();
    assert_eq!(
        first,
        &format!(
            "Enter your Example Co. API key on our page.\n\nOpen this page in your browser and \
             finish there: {url}\n\nThen accept here to say you finished; decline if you will not."
        )
    );
    assert_eq!(again, &format!("The step is not finished yet. {first}"));
}

// ------------------------------------------------------------ the link form on 2026-07-28

/// fast-agent 0.10.48 as the host table knows it (checked in CI; it shows a URL question's link
/// only after the call ends).
const FAST_AGENT: (&str, &str) = ("fast-agent-mcp", "0.10.48");
/// A client no row names: it would be asked the URL question.
const UNKNOWN: (&str, &str) = ("flow-test", "0");
/// The least a person takes to read the link form here: the retries below come later.
const PERSON: Duration = Duration::from_millis(300);

/// A server for 2026-07-28 link forms: the known hosts' table, a page wait of 200 ms, and a
/// person's pace of [`PERSON`].
fn rounds_server(store: &MemoryFlowStore, link_form: mcp_elicit::rmcp::LinkForm) -> Keys {
    let mut keys = server(store, Duration::from_millis(200));
    keys.asking = keys
        .asking
        .clone()
        .with_link_form(link_form)
        .with_too_fast(mcp_elicit::observe::TooFast::new(PERSON, Duration::ZERO));
    keys
}

/// A 2026-07-28 session whose calls are sent by hand ([`send_as`]).
async fn by_hand(store: &MemoryFlowStore, link_form: mcp_elicit::rmcp::LinkForm) -> Session {
    connect(
        Revision::V2026_07_28,
        rounds_server(store, link_form),
        Client::new(store, User::Decline),
    )
    .await
}

/// One `connect_api_key` round sent by hand as the client `who` (its `clientInfo` in the
/// request's `_meta`), declaring form and URL mode; `retry` answers every question of `asked`
/// with `answer`, under its state.
async fn send_as(
    s: &Session,
    who: (&str, &str),
    retry: Option<(&rmcp::model::InputRequiredResult, Value)>,
) -> rmcp::model::ServerResult {
    let mut params = rmcp::model::CallToolRequestParams::new("connect_api_key");
    if let Some((asked, answer)) = retry {
        let responses: rmcp::model::InputResponses = asked
            .input_requests
            .as_ref()
            .unwrap()
            .keys()
            .map(|key| (key.clone(), answer.clone()))
            .collect();
        params = params.with_input_responses(responses);
        params.request_state = asked.request_state.clone();
    }
    let mut meta = rmcp::model::RequestMetaObject::new();
    meta.insert(
        "io.modelcontextprotocol/clientInfo".to_owned(),
        json!({ "name": who.0, "version": who.1 }),
    );
    meta.insert(
        "io.modelcontextprotocol/clientCapabilities".to_owned(),
        json!({ "elicitation": { "form": {}, "url": {} } }),
    );
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
    let options = PeerRequestOptions::no_options().with_meta(meta);
    let sent = s.client.send_request_with_option(request, options).await;
    within_a_while(sent.unwrap().await_response())
        .await
        .unwrap()
}

/// The question of an input-required result: its message and `requestedSchema`, or its URL.
fn asked_in(result: &rmcp::model::ServerResult) -> (&rmcp::model::InputRequiredResult, Value) {
    let rmcp::model::ServerResult::InputRequiredResult(asked) = result else {
        panic!("an input-required result, not {result:?}")
    };
    let requests = serde_json::to_value(asked.input_requests.as_ref().unwrap()).unwrap();
    (asked, requests["api_key"]["params"].clone())
}

/// What the tool returned: its text and `isError`.
fn tool_result(result: &rmcp::model::ServerResult) -> (String, bool) {
    let rmcp::model::ServerResult::CallToolResult(called) = result else {
        panic!("a tool result, not {result:?}")
    };
    returned(called)
}

/// The page's URL in a link form's message.
fn url_in(message: &str) -> String {
    message
        .split_whitespace()
        .find(|word| word.starts_with(BASE))
        .unwrap_or_else(|| panic!("the message gives the page's URL: {message}"))
        .to_owned()
}

fn accept() -> Value {
    json!({ "action": "accept" })
}

/// fast-agent shows a URL question's link only after the call ends: on 2026-07-28 its step goes
/// out in an input-required result as a link form (form mode, no field, the URL only in the
/// message). The choice is sealed in the state: a retry that says it comes from a client that
/// would be asked the URL question is read against the link form it answers, and reads the
/// finished page. The URL is never in the tool's result.
#[tokio::test]
async fn on_2026_07_28_a_host_that_shows_the_link_too_late_gets_a_link_form_sealed_in_the_state() {
    let store = MemoryFlowStore::new();
    let s = by_hand(&store, mcp_elicit::rmcp::LinkForm::HostsCheckedInCi).await;
    let first = send_as(&s, FAST_AGENT, None).await;
    let (asked, params) = asked_in(&first);
    assert_eq!(
        params["requestedSchema"]["properties"],
        json!({}),
        "{params}"
    );
    assert!(params.get("url").is_none(), "{params}");
    assert_ne!(params["mode"], "url", "{params}");
    let message = params["message"].as_str().unwrap();
    assert!(
        message.starts_with("Enter your Example Co. API key on our page.\n\nOpen this page"),
        "{message}"
    );
    let url = url_in(message);
    tokio::time::sleep(PERSON + Duration::from_millis(100)).await;
    finish_flow(&store, &url, Ok(json!({ "ending": "4f2a" })));
    let done = send_as(&s, UNKNOWN, Some((asked, accept()))).await;
    let (text, is_error) = tool_result(&done);
    assert_eq!(
        (text.as_str(), is_error),
        (r#"connected: {"ending":"4f2a"}"#, false)
    );
    assert!(!text.contains(BASE));
}

/// The other way round: a URL question sealed for a client no row names is read as one on a
/// retry that says it is fast-agent (no link form, and no time rule for a URL question's accept).
#[tokio::test]
async fn on_2026_07_28_a_url_question_sealed_in_the_state_stays_one_whoever_retries() {
    let store = MemoryFlowStore::new();
    let s = by_hand(&store, mcp_elicit::rmcp::LinkForm::HostsCheckedInCi).await;
    let first = send_as(&s, UNKNOWN, None).await;
    let (asked, params) = asked_in(&first);
    assert_eq!(params["mode"], "url", "{params}");
    let url = params["url"].as_str().unwrap().to_owned();
    finish_flow(&store, &url, Ok(json!({ "ending": "4f2a" })));
    let done = send_as(&s, FAST_AGENT, Some((asked, accept()))).await;
    assert_eq!(
        tool_result(&done),
        (r#"connected: {"ending":"4f2a"}"#.to_owned(), false)
    );
}

/// Accepted while the page is still open: the retry waits for the page (200 ms here), then
/// the link form is asked again, saying the step is not finished, with the same URL, more times
/// than the re-ask bound allows bad answers (it is not one); then the finished page is read.
#[tokio::test]
async fn on_2026_07_28_a_link_form_accepted_before_the_page_is_finished_is_asked_again() {
    let store = MemoryFlowStore::new();
    let s = by_hand(&store, mcp_elicit::rmcp::LinkForm::HostsCheckedInCi).await;
    let mut round = send_as(&s, FAST_AGENT, None).await;
    let url = url_in(asked_in(&round).1["message"].as_str().unwrap());
    for _ in 0..4 {
        tokio::time::sleep(PERSON + Duration::from_millis(50)).await;
        let started = std::time::Instant::now();
        round = send_as(&s, FAST_AGENT, Some((asked_in(&round).0, accept()))).await;
        assert!(started.elapsed() >= Duration::from_millis(200), "it waited");
        let params = asked_in(&round).1;
        let message = params["message"].as_str().unwrap();
        assert!(
            message.starts_with("The step is not finished yet. Enter your Example Co."),
            "{message}"
        );
        assert_eq!(url_in(message), url);
        assert!(status(&store, &url).is_open());
    }
    tokio::time::sleep(PERSON + Duration::from_millis(50)).await;
    finish_flow(&store, &url, Ok(json!({ "ending": "4f2a" })));
    let done = send_as(&s, FAST_AGENT, Some((asked_in(&round).0, accept()))).await;
    assert_eq!(
        tool_result(&done),
        (r#"connected: {"ending":"4f2a"}"#.to_owned(), false)
    );
}

/// Declined or dismissed: the flow is abandoned, saying which, and the tool reads it so.
#[tokio::test]
async fn on_2026_07_28_a_declined_or_dismissed_link_form_abandons_its_flow() {
    for (action, outcome, why) in [
        ("decline", "Decline", Abandonment::Declined),
        ("cancel", "Cancel", Abandonment::Dismissed),
    ] {
        let store = MemoryFlowStore::new();
        let s = by_hand(&store, mcp_elicit::rmcp::LinkForm::HostsCheckedInCi).await;
        let first = send_as(&s, FAST_AGENT, None).await;
        let (asked, params) = asked_in(&first);
        let url = url_in(params["message"].as_str().unwrap());
        let done = send_as(&s, FAST_AGENT, Some((asked, json!({ "action": action })))).await;
        assert_eq!(
            tool_result(&done),
            (format!("not connected: {outcome}"), false)
        );
        assert_eq!(status(&store, &url), FlowStatus::Abandoned(why));
    }
}

/// Accepted sooner after the round that asked it than a person can read it (timed against the
/// asking time sealed in the state): the host did not show it. The call ends at once, saying
/// so (no wait for the page, no form asked again), and the flow is abandoned.
#[tokio::test]
async fn on_2026_07_28_a_link_form_accepted_too_fast_ends_the_call_saying_the_host_did_not_show_it()
{
    let store = MemoryFlowStore::new();
    let s = by_hand(&store, mcp_elicit::rmcp::LinkForm::HostsCheckedInCi).await;
    let first = send_as(&s, FAST_AGENT, None).await;
    let (asked, params) = asked_in(&first);
    let url = url_in(params["message"].as_str().unwrap());
    let started = std::time::Instant::now();
    let done = send_as(&s, FAST_AGENT, Some((asked, accept()))).await;
    assert!(started.elapsed() < Duration::from_millis(200), "no wait");
    let (text, is_error) = tool_result(&done);
    assert!(is_error, "{text}");
    assert!(text.contains("the host did not show it"), "{text}");
    assert!(!text.contains(BASE), "{text}");
    assert_eq!(
        status(&store, &url),
        FlowStatus::Abandoned(Abandonment::CallEnded)
    );
}

/// With the link form off, fast-agent is asked the URL question on 2026-07-28, as before.
#[tokio::test]
async fn on_2026_07_28_with_the_link_form_off_fast_agent_gets_the_url_question() {
    let store = MemoryFlowStore::new();
    let s = by_hand(&store, mcp_elicit::rmcp::LinkForm::Off).await;
    let first = send_as(&s, FAST_AGENT, None).await;
    assert_eq!(asked_in(&first).1["mode"], "url");
}

// ------------------------------------------------------------ the link form in Codex's kit

/// Codex 0.171.0 as the test kit plays it (`Profile::Codex`: 2025-06-18, form and URL declared,
/// `http` links declined; its row checked in CI): its URL step comes as a link form, which it
/// draws (no field); the person opens the page from the message, finishes there, and answers
/// "I finished" (an accept with `{}`): the tool reads the receipt. No URL question is ever sent,
/// and no completion notification (Codex never had a URL question).
#[tokio::test(start_paused = true)]
async fn codex_gets_the_url_step_in_a_link_form_and_connects_the_key() {
    use mcp_elicit::client::{FnAnswerer, Incoming};
    use mcp_elicit::rmcp::Profile;
    let store = MemoryFlowStore::new();
    let finishing = store.clone();
    let user = Arc::new(FnAnswerer::new(move |_, asked: &Incoming| {
        let Incoming::Form(form) = asked else {
            panic!("Codex is asked no URL question: {asked:?}");
        };
        assert!(form.schema().properties().is_empty(), "{form:?}");
        finish_flow(
            &finishing,
            &url_in(form.message()),
            Ok(json!({ "ending": "4f2a" })),
        );
        Some(json!({ "action": "accept", "content": {} }))
    }));
    let connected = Profile::Codex
        .kit()
        .connect(server(&store, Duration::from_secs(10)), Arc::clone(&user))
        .await
        .unwrap();
    let called = connected.call("connect_api_key", json!({})).await.unwrap();
    assert_eq!(called.text(), r#"connected: {"ending":"4f2a"}"#);
    assert!(!called.is_error());
}
