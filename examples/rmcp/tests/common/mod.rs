//! What the `asker_*` tests share: `ops_server.rs` itself (included, not copied), a client that
//! answers from a script and records what it was asked, the connection between the two (its
//! server half tee'd, so a test reads the bytes the server wrote), and `on_both_revisions!`.
//!
//! Each test asserts what the tool returned (text and `isError`) and what the client was asked
//! (how often, with which message and schema). The server's side of the connection is tee'd,
//! so the wire cases read the bytes the server wrote, with no SDK parsing in between. Each test
//! binary uses a part of this module.

#![allow(dead_code)]

use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use mcp_elicit::Revision;
use mcp_elicit::client::Scripted;
use mcp_elicit::mrtr::Rounds;
use mcp_elicit::page::{Pages, SingleUser};
use mcp_elicit::rmcp::{AskConfig, AskingService, Connected, TestKit};
use mcp_elicit::state::{MemoryReplayGuard, UnixTime};
use mcp_elicit::url_mode::{Flow, FlowId, Flows, MemoryFlowStore};
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, ClientConfig, ClientRequest,
    ElicitRequestParams, ElicitResult, ElicitationAction, ErrorCode, Implementation,
    InputRequiredResult, InputResponses, ProgressNotificationParam, ProtocolVersion,
    RequestMetaObject, ServerResult,
};
use rmcp::service::{
    ClientLifecycleMode, ClientServiceExt, NotificationContext, PeerRequestOptions, RequestContext,
    RequestHandle, RunningService, ServiceError,
};
use rmcp::{ClientHandler, ErrorData, RoleClient, ServerHandler, ServiceExt};
use serde_json::{Value, json};
use tokio::io::AsyncWrite;

#[macro_use]
mod revisions;

#[allow(dead_code)] // its `main`, which serves stdio
#[path = "../../ops_server.rs"]
pub mod ops_server;

pub use ops_server::Ops;

// -------------------------------------------------------------------------------------- the server

/// The base of the pages' URLs in these tests. Nothing serves it: a test that finishes a page
/// does it in the flows' store, as the page would ([`finish_flow`]).
pub const BASE: &str = "http://localhost:8719/elicit/";
pub const DEPLOY_MESSAGE: &str =
    "Where should `billing-api` be deployed? Production serves customer traffic.";
pub const DROP_MESSAGE: &str =
    "Permanently drop table `users` and every row in it? This cannot be undone.";
pub const DEPLOYED: &str = "Deployed `billing-api` to Staging with 2 replicas.";

/// A GitHub OAuth app for the tests: never contacted, since no test here goes to GitHub.
pub fn github_app() -> ops_server::GithubApp {
    ops_server::GithubApp::at_github("Iv1.0123456789abcdef".into(), "app-secret".into())
}

/// `ops_server`'s server as `ops_server::ops_server` sets it up with `app`, asking as `asking`
/// says, and its pages: the GitHub page's flows under [`BASE`] in `store`, its tokens in `vault`.
pub fn ops_and_pages(
    asking: AskConfig,
    store: &MemoryFlowStore,
    vault: &ops_server::Vault,
    app: ops_server::GithubApp,
) -> (Ops, Pages) {
    let flows = Flows::new(store.clone(), BASE).expect("a valid base");
    let pages = Pages::new(flows, SingleUser::named("me").unwrap()).expect("the OS has randomness");
    let (mut ops, pages) =
        ops_server::ops_server(pages, Some(app), vault.clone()).expect("the server is set up");
    ops.asking = asking.with_pages(&pages);
    (ops, pages)
}

/// [`ops_and_pages`] with [`github_app`], its pages never served.
pub fn ops_in(asking: AskConfig, store: &MemoryFlowStore, vault: &ops_server::Vault) -> Ops {
    ops_and_pages(asking, store, vault, github_app()).0
}

/// [`ops_in`] a store and a vault of its own.
pub fn ops_with(asking: AskConfig) -> Ops {
    ops_in(
        asking,
        &MemoryFlowStore::new(),
        &ops_server::Vault::default(),
    )
}

/// `ops_server`'s server for one user, as its `main` sets it up.
pub fn ops() -> Ops {
    ops_with(AskConfig::single_user("me").expect("the OS has randomness"))
}

/// [`ops`], asking a question again at most `reasks` times while its answers break its rules.
pub fn reasking(reasks: u32) -> Ops {
    let rounds = Rounds::generate().expect("the OS has randomness");
    let rounds = rounds
        .with_reasks(reasks)
        .with_replay_guard(MemoryReplayGuard::new());
    ops_with(AskConfig::single_user_with("me", rounds).unwrap())
}

/// [`ops`], waiting at most `timeout` for each answer (before 2026-07-28) and for a URL flow's
/// page (on 2026-07-28, each retry that accepts it).
pub fn waiting(timeout: Duration) -> Ops {
    let asking = AskConfig::single_user("me").expect("the OS has randomness");
    ops_with(asking.with_timeout(timeout).with_page_wait(timeout))
}

pub fn deploy() -> Value {
    json!({"service": "billing-api"})
}

pub fn drop_users() -> Value {
    json!({"table": "users"})
}

/// The message of a form asked again: what was wrong, a blank line, the original message.
pub fn reasked(explanation: &str, message: &str) -> String {
    format!("Your last answer could not be used: {explanation}\n\n{message}")
}

/// `deploy`'s result once every answer broke the form's rules, after `tries`.
pub fn rejected_after(tries: &str) -> Returned {
    error(&format!(
        "The answer could not be used after {tries}: Replicas must be at most 10. Nothing was deployed."
    ))
}

pub fn staging() -> ElicitResult {
    accept(json!({"env": "staging", "replicas": 2}))
}

/// The flow of a page's URL: [`BASE`], then exactly a flow id (32 hex digits), nothing else.
pub fn flow_of(url: &str) -> FlowId {
    let id = url
        .strip_prefix(BASE)
        .unwrap_or_else(|| panic!("not under the base: {url}"));
    FlowId::parse(id).unwrap_or_else(|_| panic!("the URL holds more than a flow id: {url}"))
}

/// Finishes the flow of the page at `url` in `store` with `result`, as the page does once its
/// sink has answered: opened by the single user (`"me"`) in a browser, then finished.
pub fn finish_flow(store: &MemoryFlowStore, url: &str, result: Result<Value, String>) {
    let id = flow_of(url);
    let now = UnixTime::now();
    store.open_now(&id, "me", "browser-1", now).unwrap();
    let claim = store
        .claim_now(&id, "me", "browser-1", Flow::DEFAULT_CLAIM_LEASE, now)
        .unwrap();
    store.finish_now(&claim, result, now).unwrap();
}

// -------------------------------------------------------------------------------------- the client

// What the client declares it can be asked: its `capabilities` (2025-11-25), or each request's
// `_meta` (2026-07-28).

pub fn headless() -> Value {
    json!({})
}

pub fn form_only() -> Value {
    json!({"elicitation": {"form": {}}})
}

pub fn form_and_url() -> Value {
    json!({"elicitation": {"form": {}, "url": {}}})
}

pub fn accept(content: Value) -> ElicitResult {
    ElicitResult::new(ElicitationAction::Accept).with_content(content)
}

pub fn accept_url() -> ElicitResult {
    ElicitResult::new(ElicitationAction::Accept)
}

pub fn decline() -> ElicitResult {
    ElicitResult::new(ElicitationAction::Decline)
}

pub fn cancel() -> ElicitResult {
    ElicitResult::new(ElicitationAction::Cancel)
}

/// What the user does on a page before the client answers its URL request (given the URL).
type OnPage = Arc<dyn Fn(String) -> Pin<Box<dyn Future<Output = ()> + Send>> + Send + Sync>;

/// A client that answers from a script (in order, then the last answer from then on), after
/// `delay`, and records every request it was shown and every progress notification it got
/// (through rmcp's `on_progress`).
#[derive(Clone)]
pub struct Client {
    capabilities: Value,
    /// Its `clientInfo.name`.
    name: String,
    /// What `initialize` asks for (a 2026-07-28 session discovers instead).
    version: ProtocolVersion,
    answers: Vec<ElicitResult>,
    delay: Duration,
    seen: Arc<Mutex<Vec<ElicitRequestParams>>>,
    progress: Arc<Mutex<Vec<ProgressNotificationParam>>>,
    on_page: Option<OnPage>,
}

impl Client {
    pub fn declaring(capabilities: Value) -> Self {
        Self {
            capabilities,
            name: "asker-test".to_owned(),
            version: ProtocolVersion::V_2025_11_25,
            answers: Vec::new(),
            delay: Duration::ZERO,
            seen: Arc::default(),
            progress: Arc::default(),
            on_page: None,
        }
    }

    /// Before answering a URL request, the user does `on_page` with its URL (finishes the page,
    /// say, with [`finish_flow`], or through the pages' router).
    pub fn on_page<F, Done>(mut self, on_page: F) -> Self
    where
        F: Fn(String) -> Done + Send + Sync + 'static,
        Done: Future<Output = ()> + Send + 'static,
    {
        self.on_page = Some(Arc::new(move |url| Box::pin(on_page(url))));
        self
    }

    /// The client sends `name` as its `clientInfo.name` ("asker-test" by default).
    pub fn named(mut self, name: &str) -> Self {
        self.name = name.to_owned();
        self
    }

    pub fn answering(mut self, answers: impl IntoIterator<Item = ElicitResult>) -> Self {
        self.answers = answers.into_iter().collect();
        self
    }

    pub fn after(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }
}

impl ClientHandler for Client {
    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        if let (Some(on_page), ElicitRequestParams::UrlElicitationParams { url, .. }) =
            (&self.on_page, &request)
        {
            on_page(url.clone()).await;
        }
        let asked = {
            let mut seen = self.seen.lock().unwrap();
            seen.push(request);
            seen.len()
        };
        tokio::time::sleep(self.delay).await;
        let script = &self.answers;
        script
            .get(asked.min(script.len()).saturating_sub(1))
            .cloned()
            .ok_or_else(|| ErrorData::internal_error("the test gave no answer", None))
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.progress.lock().unwrap().push(params);
    }

    fn get_info(&self) -> ClientConfig {
        let capabilities = serde_json::from_value(self.capabilities.clone()).unwrap();
        let mut info = ClientConfig::new(capabilities, Implementation::new(self.name.clone(), "0"));
        info.protocol_version = self.version.clone();
        info
    }
}

// ---------------------------------------------------------------------------------- the connection

/// The server's half of the connection, copying everything the server writes into `wire`.
pub struct Tee<W> {
    inner: W,
    wire: Arc<Mutex<Vec<u8>>>,
}

impl<W> Tee<W> {
    pub fn new(inner: W, wire: Arc<Mutex<Vec<u8>>>) -> Self {
        Self { inner, wire }
    }
}

impl<W: AsyncWrite + Unpin> AsyncWrite for Tee<W> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let written = Pin::new(&mut self.inner).poll_write(cx, buf);
        if let Poll::Ready(Ok(n)) = written {
            self.wire.lock().unwrap().extend_from_slice(&buf[..n]);
        }
        written
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// A client connected to a server (served through [`AskingService`]) on `revision`.
pub struct Session {
    revision: Revision,
    pub client: RunningService<RoleClient, Client>,
    seen: Arc<Mutex<Vec<ElicitRequestParams>>>,
    progress: Arc<Mutex<Vec<ProgressNotificationParam>>>,
    wire: Arc<Mutex<Vec<u8>>>,
}

/// What a tool returned: its text and `isError`.
pub type Returned = (String, bool);

pub fn ok(text: &str) -> Returned {
    (text.to_owned(), false)
}

pub fn error(text: &str) -> Returned {
    (text.to_owned(), true)
}

pub fn returned(result: &CallToolResult) -> Returned {
    let texts: Vec<&str> = result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.as_str()))
        .collect();
    (texts.join("\n"), result.is_error == Some(true))
}

pub async fn connect(revision: Revision, server: impl ServerHandler, client: Client) -> Session {
    connect_served(revision, server, client, true).await
}

/// [`connect`], the server served through `AskingService` or (`wrapped: false`) as it is.
pub async fn connect_served(
    revision: Revision,
    server: impl ServerHandler,
    client: Client,
    wrapped: bool,
) -> Session {
    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    let (read, write) = tokio::io::split(server_io);
    let wire = Arc::new(Mutex::new(Vec::new()));
    let tee = Tee {
        inner: write,
        wire: Arc::clone(&wire),
    };
    tokio::spawn(async move {
        if wrapped {
            if let Ok(running) = AskingService(server).serve((read, tee)).await {
                let _ = running.waiting().await;
            }
        } else if let Ok(running) = server.serve((read, tee)).await {
            let _ = running.waiting().await;
        }
    });
    let lifecycle = match revision {
        Revision::V2025_11_25 => ClientLifecycleMode::Initialize,
        Revision::V2025_06_18 => ClientLifecycleMode::Initialize,
        Revision::V2026_07_28 => ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        },
        other => panic!("no test on {other}"),
    };
    let mut client = client;
    if revision == Revision::V2025_06_18 {
        client.version = ProtocolVersion::V_2025_06_18;
    }
    let seen = Arc::clone(&client.seen);
    let progress = Arc::clone(&client.progress);
    let client = client
        .serve_with_lifecycle(client_io, lifecycle)
        .await
        .expect("the client connects");
    let negotiated = client
        .peer_info()
        .expect("a server")
        .protocol_version
        .clone();
    assert_eq!(negotiated.as_str(), revision.to_string());
    Session {
        revision,
        client,
        seen,
        progress,
        wire,
    }
}

/// `answer`, or a failed test if it never comes (a server that stopped answering).
pub async fn within_a_while<T>(answer: impl Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(10), answer)
        .await
        .expect("an answer within 10 s")
}

pub fn arguments(arguments: Value) -> rmcp::model::JsonObject {
    match arguments {
        Value::Object(arguments) => arguments,
        other => panic!("arguments must be an object: {other}"),
    }
}

impl Session {
    /// Call `tool` as rmcp's client does (on 2026-07-28 it answers each input-required result
    /// through its `ClientHandler` and retries). A JSON-RPC error fails the test: a tool that
    /// asks ends with a result the model can read.
    pub async fn call(&self, tool: &'static str, args: Value) -> Returned {
        let params = CallToolRequestParams::new(tool).with_arguments(arguments(args));
        let result = within_a_while(self.client.call_tool(params))
            .await
            .unwrap_or_else(|e| panic!("`{tool}` ended in an error, not a tool result: {e}"));
        self.assert_asked_the_revisions_way();
        returned(&result)
    }

    /// Every progress notification the client received, in order.
    pub fn progress(&self) -> Vec<ProgressNotificationParam> {
        self.progress.lock().unwrap().clone()
    }

    /// Start a `tools/call` with `options` (a timeout, whether progress resets it): the
    /// handle, to await or cancel. rmcp's client sets a `_meta.progressToken` of its own on
    /// every request: the handle's `progress_token`.
    pub async fn start(
        &self,
        tool: &'static str,
        args: Value,
        options: PeerRequestOptions,
    ) -> RequestHandle<RoleClient> {
        let params = CallToolRequestParams::new(tool).with_arguments(arguments(args));
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
        let sent = self.client.send_request_with_option(request, options);
        sent.await.expect("sent")
    }

    /// What the client was asked, in order.
    pub fn asked(&self) -> Vec<ElicitRequestParams> {
        self.seen.lock().unwrap().clone()
    }

    /// The message of each form the client was asked.
    pub fn messages(&self) -> Vec<String> {
        self.asked().iter().map(|p| form(p).0).collect()
    }

    /// Every JSON-RPC message the server wrote, as written.
    pub fn wire(&self) -> Vec<String> {
        let wire = self.wire.lock().unwrap();
        String::from_utf8_lossy(&wire)
            .lines()
            .map(str::to_owned)
            .collect()
    }

    /// The lines of the wire that carry a question: `elicitation/create` requests before
    /// 2026-07-28, input-required results on it.
    pub fn questions_on_the_wire(&self) -> Vec<String> {
        let legacy = self.revision != Revision::V2026_07_28;
        self.wire()
            .into_iter()
            .filter(|line| {
                let message: Value = serde_json::from_str(line).expect("the server writes JSON");
                if legacy {
                    message["method"] == "elicitation/create"
                } else {
                    message["result"]["resultType"] == "input_required"
                }
            })
            .collect()
    }

    /// Every question the client saw travelled the way its revision asks, one message each.
    pub fn assert_asked_the_revisions_way(&self) {
        assert_eq!(
            self.questions_on_the_wire().len(),
            self.asked().len(),
            "on {}, each question is its own {}",
            self.revision,
            if self.revision != Revision::V2026_07_28 {
                "elicitation/create request"
            } else {
                "input-required result"
            }
        );
    }

    /// Send one `tools/call` by hand (2026-07-28): `principal` rides in the request's `_meta`
    /// (where the test's per-user server looks for it), and `retry` is the `inputResponses`
    /// and `requestState` of a retry.
    pub async fn send(
        &self,
        tool: &'static str,
        args: Value,
        principal: Option<&str>,
        retry: Option<(InputResponses, String)>,
    ) -> Result<ServerResult, ErrorData> {
        let mut params = CallToolRequestParams::new(tool).with_arguments(arguments(args));
        if let Some((responses, state)) = retry {
            params = params.with_input_responses(responses);
            params.request_state = Some(state);
        }
        let mut meta = RequestMetaObject::new();
        if let Some(principal) = principal {
            meta.insert(PRINCIPAL.to_owned(), Value::from(principal));
        }
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
        let options = PeerRequestOptions::no_options().with_meta(meta);
        let sent = self.client.send_request_with_option(request, options).await;
        match within_a_while(sent.expect("sent").await_response()).await {
            Ok(result) => Ok(result),
            Err(ServiceError::McpError(error)) => Err(error),
            Err(other) => panic!("`{tool}` failed in transport: {other}"),
        }
    }

    /// The first round of a call sent by hand: its input-required result.
    pub async fn first_round(&self, tool: &'static str, args: Value, who: Option<&str>) -> Asked {
        match self.send(tool, args, who, None).await {
            Ok(ServerResult::InputRequiredResult(result)) => Asked(result),
            other => panic!("expected an input-required result, got {other:?}"),
        }
    }
}

/// An input-required result a test answers by hand.
pub struct Asked(InputRequiredResult);

impl From<InputRequiredResult> for Asked {
    fn from(result: InputRequiredResult) -> Self {
        Self(result)
    }
}

impl Asked {
    /// A retry answering every question with `answer`, under the state as it was sent.
    pub fn answered(&self, answer: &ElicitResult) -> (InputResponses, String) {
        self.answered_under(answer, self.state())
    }

    pub fn answered_under(&self, answer: &ElicitResult, state: String) -> (InputResponses, String) {
        let questions = self.0.input_requests.as_ref().expect("a question");
        let answer = serde_json::to_value(answer).unwrap();
        let responses: InputResponses = questions
            .keys()
            .map(|key| (key.clone(), answer.clone()))
            .collect();
        (responses, state)
    }

    pub fn state(&self) -> String {
        self.0.request_state.clone().expect("a requestState")
    }
}

pub fn completed(result: Result<ServerResult, ErrorData>) -> Returned {
    match result {
        Ok(ServerResult::CallToolResult(result)) => returned(&result),
        other => panic!("expected a tool result, got {other:?}"),
    }
}

pub fn refused(result: Result<ServerResult, ErrorData>) -> ErrorCode {
    match result {
        Err(error) => error.code,
        Ok(other) => panic!("expected a JSON-RPC error, got {other:?}"),
    }
}

/// A form request's message and `requestedSchema` (as JSON).
pub fn form(params: &ElicitRequestParams) -> (String, Value) {
    match params {
        ElicitRequestParams::FormElicitationParams {
            message,
            requested_schema,
            ..
        } => (
            message.clone(),
            serde_json::to_value(requested_schema).unwrap(),
        ),
        other => panic!("expected a form, got {other:?}"),
    }
}

/// A URL request's message, URL and `elicitationId` (rmcp's `""` when absent).
pub fn url(params: &ElicitRequestParams) -> (String, String, String) {
    match params {
        ElicitRequestParams::UrlElicitationParams {
            message,
            url,
            elicitation_id,
            ..
        } => (message.clone(), url.clone(), elicitation_id.clone()),
        other => panic!("expected a URL request, got {other:?}"),
    }
}

/// Where the request-state tests' per-user server reads who is asking (a real one reads its
/// authentication).
pub const PRINCIPAL: &str = "test/principal";

/// `server` on 2026-07-28, for a test that sends its calls by hand.
pub async fn on_2026_07_28(server: impl ServerHandler) -> Session {
    connect(
        Revision::V2026_07_28,
        server,
        Client::declaring(form_only()),
    )
    .await
}

// ------------------------------------------------------------ the test kit: a scripted user

/// `server` (served through `AskingService` by the kit) and an `AnsweringClient` of `user`, in
/// process.
pub async fn kit(revision: Revision, server: Ops, user: &Arc<Scripted>) -> Connected<Scripted> {
    TestKit::new(revision)
        .connect(server, Arc::clone(user))
        .await
        .expect("the client connects")
}

pub async fn call_deploy(kit: &Connected<Scripted>) -> Returned {
    let called = kit.call("deploy", deploy()).await.expect("a tool result");
    (called.text().to_owned(), called.is_error())
}
