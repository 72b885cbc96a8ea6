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

    fn get_info(&self) -> ClientConfig {
        let capabilities =
            serde_json::from_value(json!({ "elicitation": { "form": {} } })).unwrap();
        let mut info = ClientConfig::new(capabilities, Implementation::new("link-test", "1.0.0"));
        info.protocol_version = self.version.clone();
        info
    }
}

fn link_server(store: &MemoryFlowStore, link_form: mcp_elicit::rmcp::LinkForm) -> Keys {
    use mcp_elicit::hosts::{Checked, Host, HostTable};
    let mut keys = server(store, Duration::from_secs(2));
    let row = Host::new("the link test", "link-test", "*")
        .unwrap()
        .checked(Checked::InCi {
            version: "1.0.0".into(),
        });
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
    let store = MemoryFlowStore::new();
    let client = LinkClient {
        store: store.clone(),
        version,
        at_once,
        seen: Arc::default(),
    };
    let seen = Arc::clone(&client.seen);
    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    let keys = link_server(&store, link_form);
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
