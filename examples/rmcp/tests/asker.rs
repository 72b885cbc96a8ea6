//! The [`Asker`] between a real rmcp server and a real rmcp client, in one process, on both
//! revisions that ask: 2025-11-25 (`elicitation/create` through the peer) and 2026-07-28
//! (input-required results, which rmcp's client answers through the same `ClientHandler` and
//! retries).
//!
//! Each test asserts what the tool returned (text and `isError`) and what the client was asked
//! (how often, with which message and schema). The server's side of the connection is tee'd, so
//! the wire cases read the bytes the server wrote, with no SDK parsing in between.
//!
//! The 2026-07-28 security cases send their retries by hand: rmcp's client only ever retries
//! with the `requestState` it was sent, for the call it made.
//!
//! `cargo test -p elicit-examples --features rmcp --test asker`

use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use mcp_elicit::client::{Scripted, Step as KitStep};
use mcp_elicit::mrtr::Rounds;
use mcp_elicit::rmcp::{AnsweringClient, Connected, TestKit};
use mcp_elicit::rmcp::{
    AskConfig, Asker, AskingServer, AskingService, PromptResponse, ToolResponse, respond,
    respond_prompt,
};
use mcp_elicit::state::{KeyId, MemoryReplayGuard, StateKey, StateKeys};
use mcp_elicit::{Elicit, Elicitation, Mode, Revision, UrlOutcome, url_mode::ElicitUrl};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, ClientConfig, ClientRequest,
    ContentBlock, ElicitRequestParams, ElicitResult, ElicitationAction, ErrorCode, Implementation,
    InputRequiredResult, InputResponses, ProtocolVersion, RequestMetaObject, ServerResult,
};
use rmcp::model::{CallToolResponse, GetPromptRequestParams, PromptMessage, Role};
use rmcp::service::{
    ClientLifecycleMode, ClientServiceExt, PeerRequestOptions, RequestContext, RunningService,
    ServiceError,
};
use rmcp::{
    ClientHandler, ErrorData, RoleClient, RoleServer, ServerHandler, ServiceExt, prompt,
    prompt_handler, prompt_router, schemars, tool, tool_handler, tool_router,
};
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::io::AsyncWrite;

// -------------------------------------------------------------------------------------- the server

/// Where to deploy; production serves customer traffic.
#[derive(Elicit, Debug)]
struct DeployTarget {
    #[elicit(title = "Environment", default = Env::Staging)]
    env: Env,
    #[elicit(title = "Replicas", minimum = 1, maximum = 10, default = 2)]
    replicas: u8,
    #[elicit(title = "Change ticket", min_length = 4, max_length = 32)]
    change_ticket: Option<String>,
}

#[derive(Elicit, Debug, Clone, Copy, PartialEq)]
#[elicit(rename_all = "lowercase")]
enum Env {
    Staging,
    #[elicit(dangerous)]
    Production,
}

/// Permanently drop this table?
#[derive(Elicit, Debug)]
#[elicit(consent)]
struct DropTable {
    #[elicit(title = "Drop it permanently", consent)]
    confirm: bool,
}

/// Connect your GitHub account on our page.
#[derive(Elicit)]
#[elicit(mode = "url", message = "Connect your GitHub account on our page.")]
struct ConnectGithub;

#[derive(Deserialize, schemars::JsonSchema)]
struct Service {
    service: String,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct Tables {
    /// The tables to drop.
    tables: Vec<String>,
    /// Whether each consent is asked under its own name.
    named: bool,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct Table {
    table: String,
}

/// A server like `ops_server`, whose tools can be told to re-ask another number of times or to
/// wait less for an answer.
#[derive(Clone)]
struct Ops {
    asking: AskConfig,
    reasks: Option<u32>,
    timeout: Option<Duration>,
    /// Where `drop_table` spends its consent, once.
    redeemed: Arc<MemoryReplayGuard>,
}

impl AskingServer for Ops {
    fn asking(&self) -> &AskConfig {
        &self.asking
    }
}

impl Ops {
    fn new() -> Self {
        Self::with(AskConfig::single_user().expect("the OS has randomness"))
    }

    fn with(asking: AskConfig) -> Self {
        Self {
            asking,
            reasks: None,
            timeout: None,
            redeemed: Arc::new(MemoryReplayGuard::new()),
        }
    }

    fn reasking(mut self, reasks: u32) -> Self {
        self.reasks = Some(reasks);
        self
    }

    fn waiting(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    fn set_up(&self, asker: &mut Asker, hint: String) {
        asker.set_hint(hint);
        if let Some(reasks) = self.reasks {
            asker.set_reasks(reasks);
        }
        if let Some(timeout) = self.timeout {
            asker.set_timeout(timeout);
        }
    }
}

fn done(text: String) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(text)])
}

fn failed(text: String) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(text)])
}

#[tool_router]
impl Ops {
    #[tool(description = "Deploy a service; asks where to.")]
    async fn deploy(
        &self,
        mut asker: Asker,
        Parameters(args): Parameters<Service>,
    ) -> ToolResponse {
        let service = args.service;
        self.set_up(&mut asker, "Nothing was deployed.".into());
        respond(async {
            let form = DeployTarget::form_request()
                .with_message(format!("Where should `{service}` be deployed?"))?;
            Ok(match asker.form_request(form).await? {
                Elicitation::Accept(t) => done(format!(
                    "Deployed `{service}` to {:?} with {} replicas.",
                    t.env, t.replicas
                )),
                Elicitation::Decline => done("You declined: nothing was deployed.".into()),
                Elicitation::Cancel => done("You dismissed the question.".into()),
                Elicitation::NoReply => failed("No answer arrived: nothing was deployed.".into()),
            })
        })
        .await
    }

    #[tool(description = "Drop a table; asks for consent first.")]
    async fn drop_table(
        &self,
        mut asker: Asker,
        Parameters(args): Parameters<Table>,
    ) -> ToolResponse {
        let table = args.table;
        self.set_up(&mut asker, format!("`{table}` was not dropped."));
        respond(async {
            let form = DropTable::form_request()
                .with_message(format!("Permanently drop table `{table}`?"))?;
            Ok(match asker.consent_request(form).await? {
                Elicitation::Accept(_consent) => {
                    asker.redeem_once(&*self.redeemed).await?;
                    done(format!("Dropped table `{table}`."))
                }
                Elicitation::Decline => done(format!("You declined: `{table}` was not dropped.")),
                Elicitation::Cancel => done("You dismissed the question.".into()),
                Elicitation::NoReply => failed("No answer arrived.".into()),
            })
        })
        .await
    }

    #[tool(description = "Drop several tables; asks for consent for each.")]
    async fn drop_tables(
        &self,
        mut asker: Asker,
        Parameters(args): Parameters<Tables>,
    ) -> ToolResponse {
        respond(async {
            let mut dropped = Vec::new();
            for table in args.tables {
                let form = DropTable::form_request()
                    .with_message(format!("Permanently drop table `{table}`?"))?;
                let form = if args.named {
                    form.with_name(format!("drop-{table}"))
                } else {
                    form
                };
                if asker.consent_request(form).await?.is_accepted() {
                    dropped.push(table);
                }
            }
            Ok(done(format!("Dropped {}.", dropped.join(", "))))
        })
        .await
    }

    #[tool(description = "Connect GitHub through our page (URL mode).")]
    async fn connect_github(&self, mut asker: Asker) -> ToolResponse {
        self.set_up(&mut asker, "Connect it in the settings instead.".into());
        respond(async {
            Ok(match asker.url(ConnectGithub::url_request(PAGE)?).await? {
                UrlOutcome::Accept => done("Finish on the page that opened.".into()),
                UrlOutcome::Decline => done("You declined: GitHub was not connected.".into()),
                UrlOutcome::Cancel => done("You dismissed the request.".into()),
                UrlOutcome::NoReply => failed("No answer arrived.".into()),
            })
        })
        .await
    }
}

#[prompt_router]
impl Ops {
    #[prompt(description = "A deploy plan; asks where to deploy.")]
    async fn deploy_plan(&self, mut asker: Asker) -> PromptResponse {
        respond_prompt(async {
            let plan = match asker.form::<DeployTarget>().await? {
                Elicitation::Accept(t) => {
                    format!("Plan: {:?} with {} replicas.", t.env, t.replicas)
                }
                _ => "Plan: nothing to deploy.".to_owned(),
            };
            Ok(vec![PromptMessage::new_text(Role::User, plan)])
        })
        .await
    }
}

#[tool_handler]
#[prompt_handler]
impl ServerHandler for Ops {}

const PAGE: &str = "https://ops.example.com/connect/github?flow=7f3a";
const DEPLOY_MESSAGE: &str = "Where should `billing-api` be deployed?";
const DROP_MESSAGE: &str = "Permanently drop table `users`?";

fn deploy() -> Value {
    json!({"service": "billing-api"})
}

fn drop_users() -> Value {
    json!({"table": "users"})
}

/// The message of a form asked again: what was wrong, a blank line, the original message.
fn reasked(explanation: &str, message: &str) -> String {
    format!("Your last answer could not be used: {explanation}\n\n{message}")
}

// -------------------------------------------------------------------------------------- the client

// What the client declares it can be asked: its `capabilities` (2025-11-25), or each request's
// `_meta` (2026-07-28).

fn headless() -> Value {
    json!({})
}

fn form_only() -> Value {
    json!({"elicitation": {"form": {}}})
}

fn form_and_url() -> Value {
    json!({"elicitation": {"form": {}, "url": {}}})
}

fn accept(content: Value) -> ElicitResult {
    ElicitResult::new(ElicitationAction::Accept).with_content(content)
}

fn accept_url() -> ElicitResult {
    ElicitResult::new(ElicitationAction::Accept)
}

fn decline() -> ElicitResult {
    ElicitResult::new(ElicitationAction::Decline)
}

fn cancel() -> ElicitResult {
    ElicitResult::new(ElicitationAction::Cancel)
}

/// A client that answers from a script (in order, then the last answer from then on), after
/// `delay`, and records every request it was shown.
#[derive(Clone)]
struct Client {
    capabilities: Value,
    answers: Vec<ElicitResult>,
    delay: Duration,
    seen: Arc<Mutex<Vec<ElicitRequestParams>>>,
}

impl Client {
    fn declaring(capabilities: Value) -> Self {
        Self {
            capabilities,
            answers: Vec::new(),
            delay: Duration::ZERO,
            seen: Arc::default(),
        }
    }

    fn answering(mut self, answers: impl IntoIterator<Item = ElicitResult>) -> Self {
        self.answers = answers.into_iter().collect();
        self
    }

    fn after(mut self, delay: Duration) -> Self {
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

    fn get_info(&self) -> ClientConfig {
        let capabilities = serde_json::from_value(self.capabilities.clone()).unwrap();
        let mut info = ClientConfig::new(capabilities, Implementation::new("asker-test", "0"));
        // What `initialize` asks for; a 2026-07-28 session discovers instead.
        info.protocol_version = ProtocolVersion::V_2025_11_25;
        info
    }
}

// ---------------------------------------------------------------------------------- the connection

/// The server's half of the connection, copying everything the server writes into `wire`.
struct Tee<W> {
    inner: W,
    wire: Arc<Mutex<Vec<u8>>>,
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
struct Session {
    revision: Revision,
    client: RunningService<RoleClient, Client>,
    seen: Arc<Mutex<Vec<ElicitRequestParams>>>,
    wire: Arc<Mutex<Vec<u8>>>,
}

/// What a tool returned: its text and `isError`.
type Returned = (String, bool);

fn ok(text: &str) -> Returned {
    (text.to_owned(), false)
}

fn error(text: &str) -> Returned {
    (text.to_owned(), true)
}

fn returned(result: &CallToolResult) -> Returned {
    let texts: Vec<&str> = result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.as_str()))
        .collect();
    (texts.join("\n"), result.is_error == Some(true))
}

async fn connect(revision: Revision, server: Ops, client: Client) -> Session {
    connect_served(revision, server, client, true).await
}

/// [`connect`], the server served through `AskingService` or (`wrapped: false`) as it is.
async fn connect_served(revision: Revision, server: Ops, client: Client, wrapped: bool) -> Session {
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
        Revision::V2026_07_28 => ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        },
        other => panic!("no test on {other}"),
    };
    let seen = Arc::clone(&client.seen);
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
        wire,
    }
}

/// `answer`, or a failed test if it never comes (a server that stopped answering).
async fn within_a_while<T>(answer: impl Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(10), answer)
        .await
        .expect("an answer within 10 s")
}

fn arguments(arguments: Value) -> rmcp::model::JsonObject {
    match arguments {
        Value::Object(arguments) => arguments,
        other => panic!("arguments must be an object: {other}"),
    }
}

impl Session {
    /// Call `tool` as rmcp's client does (on 2026-07-28 it answers each input-required result
    /// through its `ClientHandler` and retries). A JSON-RPC error fails the test: a tool that
    /// asks ends with a result the model can read.
    async fn call(&self, tool: &'static str, args: Value) -> Returned {
        let params = CallToolRequestParams::new(tool).with_arguments(arguments(args));
        let result = within_a_while(self.client.call_tool(params))
            .await
            .unwrap_or_else(|e| panic!("`{tool}` ended in an error, not a tool result: {e}"));
        self.assert_asked_the_revisions_way();
        returned(&result)
    }

    /// What the client was asked, in order.
    fn asked(&self) -> Vec<ElicitRequestParams> {
        self.seen.lock().unwrap().clone()
    }

    /// The message of each form the client was asked.
    fn messages(&self) -> Vec<String> {
        self.asked().iter().map(|p| form(p).0).collect()
    }

    /// Every JSON-RPC message the server wrote, as written.
    fn wire(&self) -> Vec<String> {
        let wire = self.wire.lock().unwrap();
        String::from_utf8_lossy(&wire)
            .lines()
            .map(str::to_owned)
            .collect()
    }

    /// The lines of the wire that carry a question: `elicitation/create` requests on
    /// 2025-11-25, input-required results on 2026-07-28.
    fn questions_on_the_wire(&self) -> Vec<String> {
        let legacy = self.revision == Revision::V2025_11_25;
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
    fn assert_asked_the_revisions_way(&self) {
        assert_eq!(
            self.questions_on_the_wire().len(),
            self.asked().len(),
            "on {}, each question is its own {}",
            self.revision,
            if self.revision == Revision::V2025_11_25 {
                "elicitation/create request"
            } else {
                "input-required result"
            }
        );
    }

    /// Send one `tools/call` by hand (2026-07-28): `principal` rides in the request's `_meta`
    /// (where the test's per-user server looks for it), and `retry` is the `inputResponses`
    /// and `requestState` of a retry.
    async fn send(
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
    async fn first_round(&self, tool: &'static str, args: Value, who: Option<&str>) -> Asked {
        match self.send(tool, args, who, None).await {
            Ok(ServerResult::InputRequiredResult(result)) => Asked(result),
            other => panic!("expected an input-required result, got {other:?}"),
        }
    }
}

/// An input-required result a test answers by hand.
struct Asked(InputRequiredResult);

impl Asked {
    /// A retry answering every question with `answer`, under the state as it was sent.
    fn answered(&self, answer: &ElicitResult) -> (InputResponses, String) {
        self.answered_under(answer, self.state())
    }

    fn answered_under(&self, answer: &ElicitResult, state: String) -> (InputResponses, String) {
        let questions = self.0.input_requests.as_ref().expect("a question");
        let answer = serde_json::to_value(answer).unwrap();
        let responses: InputResponses = questions
            .keys()
            .map(|key| (key.clone(), answer.clone()))
            .collect();
        (responses, state)
    }

    fn state(&self) -> String {
        self.0.request_state.clone().expect("a requestState")
    }
}

fn completed(result: Result<ServerResult, ErrorData>) -> Returned {
    match result {
        Ok(ServerResult::CallToolResult(result)) => returned(&result),
        other => panic!("expected a tool result, got {other:?}"),
    }
}

fn refused(result: Result<ServerResult, ErrorData>) -> ErrorCode {
    match result {
        Err(error) => error.code,
        Ok(other) => panic!("expected a JSON-RPC error, got {other:?}"),
    }
}

/// A form request's message and `requestedSchema` (as JSON).
fn form(params: &ElicitRequestParams) -> (String, Value) {
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
fn url(params: &ElicitRequestParams) -> (String, String, String) {
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

/// A test per revision, in a module named after the rule: `rule::on_2025_11_25` and
/// `rule::on_2026_07_28`.
macro_rules! on_both_revisions {
    ($(#[$attr:meta])* async fn $rule:ident($revision:ident) $body:block) => {
        mod $rule {
            use super::*;

            async fn $rule($revision: Revision) $body

            $(#[$attr])*
            #[tokio::test]
            async fn on_2025_11_25() {
                $rule(Revision::V2025_11_25).await
            }

            $(#[$attr])*
            #[tokio::test]
            async fn on_2026_07_28() {
                $rule(Revision::V2026_07_28).await
            }
        }
    };
}

// ----------------------------------------------------------------------------------- final answers

on_both_revisions! {
    async fn an_accepted_form_is_read_once_as_asked(revision) {
        let client = Client::declaring(form_only())
            .answering([accept(json!({"env": "production", "replicas": 3}))]);
        let s = connect(revision, Ops::new(), client).await;
        let result = s.call("deploy", deploy()).await;
        assert_eq!(result, ok("Deployed `billing-api` to Production with 3 replicas."));
        let [asked] = &s.asked()[..] else { panic!("asked {:?}", s.asked()) };
        let (message, schema) = form(asked);
        assert_eq!(message, DEPLOY_MESSAGE);
        assert_eq!(schema["required"], json!(["env", "replicas"]));
        assert_eq!(schema["properties"]["env"]["default"], "staging");
        let replicas = &schema["properties"]["replicas"];
        assert_eq!((&replicas["minimum"], &replicas["maximum"]), (&json!(1), &json!(10)));
    }
}

on_both_revisions! {
    async fn a_decline_is_final_and_never_asked_again(revision) {
        let client = Client::declaring(form_only()).answering([decline()]);
        let s = connect(revision, Ops::new(), client).await;
        assert_eq!(s.call("deploy", deploy()).await, ok("You declined: nothing was deployed."));
        assert_eq!(s.messages(), [DEPLOY_MESSAGE]);
    }
}

on_both_revisions! {
    async fn a_cancel_is_final_and_never_asked_again(revision) {
        let client = Client::declaring(form_only()).answering([cancel()]);
        let s = connect(revision, Ops::new(), client).await;
        assert_eq!(s.call("deploy", deploy()).await, ok("You dismissed the question."));
        assert_eq!(s.messages(), [DEPLOY_MESSAGE]);
    }
}

// ---------------------------------------------------------------------------------------- no reply

/// 2025-11-25 only: on 2026-07-28 the server does not wait, the client retries when it has
/// the answer.
#[tokio::test]
async fn an_answer_too_late_is_no_reply_on_2025_11_25() {
    let client = Client::declaring(form_only())
        .answering([accept(json!({"env": "staging", "replicas": 2}))])
        .after(Duration::from_secs(5));
    let server = Ops::new().waiting(Duration::from_millis(100));
    let s = connect(Revision::V2025_11_25, server, client).await;
    let result = s.call("deploy", deploy()).await;
    assert_eq!(result, error("No answer arrived: nothing was deployed."));
    assert_eq!(s.messages(), [DEPLOY_MESSAGE], "asked once, not again");
}

// --------------------------------------------------------------------------------------- re-asking

on_both_revisions! {
    async fn an_invalid_answer_is_asked_again_saying_what_was_wrong(revision) {
        let client = Client::declaring(form_only()).answering([
            accept(json!({"env": "staging", "replicas": 11})),
            accept(json!({"env": "staging", "replicas": 4})),
        ]);
        let s = connect(revision, Ops::new(), client).await;
        let result = s.call("deploy", deploy()).await;
        assert_eq!(result, ok("Deployed `billing-api` to Staging with 4 replicas."));
        let again = reasked("Replicas must be at most 10.", DEPLOY_MESSAGE);
        assert_eq!(s.messages(), [DEPLOY_MESSAGE, &again]);
        let asked = s.asked();
        assert_eq!(form(&asked[1]).1, form(&asked[0]).1, "the same form, asked again");
    }
}

/// Calls `deploy` with a client whose every answer breaks the form's rules; returns the result
/// and the messages asked.
async fn always_invalid(revision: Revision, server: Ops) -> (Returned, Vec<String>) {
    let client = Client::declaring(form_only())
        .answering([accept(json!({"env": "staging", "replicas": 99}))]);
    let s = connect(revision, server, client).await;
    (s.call("deploy", deploy()).await, s.messages())
}

fn rejected_after(tries: &str) -> Returned {
    error(&format!(
        "The answer could not be used after {tries}: Replicas must be at most 10. Nothing was deployed."
    ))
}

on_both_revisions! {
    async fn invalid_answers_are_asked_twice_then_rejected_as_a_tool_error(revision) {
        let (result, messages) = always_invalid(revision, Ops::new()).await;
        assert_eq!(result, rejected_after("2 tries"));
        let again = reasked("Replicas must be at most 10.", DEPLOY_MESSAGE);
        assert_eq!(messages, [DEPLOY_MESSAGE, &again]);
    }
}

on_both_revisions! {
    async fn with_no_reasks_an_invalid_answer_is_rejected_at_once(revision) {
        let (result, messages) = always_invalid(revision, Ops::new().reasking(0)).await;
        assert_eq!(result, rejected_after("1 try"));
        assert_eq!(messages, [DEPLOY_MESSAGE]);
    }
}

on_both_revisions! {
    async fn with_two_reasks_an_invalid_answer_is_asked_three_times(revision) {
        let (result, messages) = always_invalid(revision, Ops::new().reasking(2)).await;
        assert_eq!(result, rejected_after("3 tries"));
        let again = reasked("Replicas must be at most 10.", DEPLOY_MESSAGE);
        assert_eq!(messages, [DEPLOY_MESSAGE, &again, &again]);
    }
}

// ---------------------------------------------------------------------------------------- headless

/// Where `revision` declares a capability: the initialize handshake, or each request's `_meta`.
fn capability(revision: Revision, mode: &str) -> String {
    match revision {
        Revision::V2025_11_25 => format!("`capabilities.elicitation.{mode}` is missing"),
        _ => format!(
            "`_meta[\"io.modelcontextprotocol/clientCapabilities\"].elicitation.{mode}` is missing"
        ),
    }
}

on_both_revisions! {
    async fn a_client_without_elicitation_is_told_what_is_missing(revision) {
        let s = connect(revision, Ops::new(), Client::declaring(headless())).await;
        let (text, is_error) = s.call("deploy", deploy()).await;
        assert!(is_error, "{text}");
        assert!(text.contains(&capability(revision, "form")), "{text}");
        assert!(text.ends_with(". Nothing was deployed."), "{text}");
        assert!(s.asked().is_empty());
    }
}

on_both_revisions! {
    async fn a_form_only_client_is_not_sent_to_a_page(revision) {
        let s = connect(revision, Ops::new(), Client::declaring(form_only())).await;
        let (text, is_error) = s.call("connect_github", json!({})).await;
        assert!(is_error, "{text}");
        assert!(text.contains(&capability(revision, "url")), "{text}");
        assert!(text.ends_with(". Connect it in the settings instead."), "{text}");
        assert!(s.asked().is_empty());
    }
}

// ----------------------------------------------------------------------------------------- consent

on_both_revisions! {
    async fn a_ticked_consent_is_consent(revision) {
        let client = Client::declaring(form_only()).answering([accept(json!({"confirm": true}))]);
        let s = connect(revision, Ops::new(), client).await;
        assert_eq!(s.call("drop_table", drop_users()).await, ok("Dropped table `users`."));
        let [asked] = &s.asked()[..] else { panic!("asked {:?}", s.asked()) };
        let (message, schema) = form(asked);
        assert_eq!(message, DROP_MESSAGE);
        assert_eq!(schema["properties"]["confirm"]["type"], "boolean");
        assert_ne!(schema["properties"]["confirm"]["default"], true, "never ticked for the user");
    }
}

on_both_revisions! {
    async fn an_unticked_consent_is_a_decline_asked_once(revision) {
        let client = Client::declaring(form_only()).answering([accept(json!({"confirm": false}))]);
        let s = connect(revision, Ops::new(), client).await;
        let result = s.call("drop_table", drop_users()).await;
        assert_eq!(result, ok("You declined: `users` was not dropped."));
        assert_eq!(s.messages(), [DROP_MESSAGE]);
    }
}

// --------------------------------------------------------------------------------------------- URL

on_both_revisions! {
    async fn an_accepted_page_is_accepted(revision) {
        let client = Client::declaring(form_and_url()).answering([accept_url()]);
        let s = connect(revision, Ops::new(), client).await;
        assert_eq!(s.call("connect_github", json!({})).await, ok("Finish on the page that opened."));
        let [asked] = &s.asked()[..] else { panic!("asked {:?}", s.asked()) };
        let (message, page, elicitation_id) = url(asked);
        assert_eq!((message.as_str(), page.as_str()), ("Connect your GitHub account on our page.", PAGE));
        // 2026-07-28 has no elicitationId: rmcp's client reads the absent member as "".
        assert_eq!(elicitation_id.is_empty(), revision == Revision::V2026_07_28);
    }
}

on_both_revisions! {
    async fn a_declined_page_is_declined(revision) {
        let client = Client::declaring(form_and_url()).answering([decline()]);
        let s = connect(revision, Ops::new(), client).await;
        let result = s.call("connect_github", json!({})).await;
        assert_eq!(result, ok("You declined: GitHub was not connected."));
        assert_eq!(s.asked().len(), 1);
    }
}

on_both_revisions! {
    async fn the_url_request_on_the_wire_has_an_elicitation_id_only_before_2026_07_28(revision) {
        let client = Client::declaring(form_and_url()).answering([decline()]);
        let s = connect(revision, Ops::new(), client).await;
        s.call("connect_github", json!({})).await;
        let [line] = &s.questions_on_the_wire()[..] else { panic!("{:?}", s.wire()) };
        assert!(line.contains(r#""mode":"url""#), "{line}");
        if revision == Revision::V2025_11_25 {
            assert!(!line.contains(r#""elicitationId":"""#), "an empty id: {line}");
            assert!(line.contains(r#""elicitationId":""#), "no id: {line}");
        } else {
            assert!(!line.contains("elicitationId"), "2026-07-28 removed it: {line}");
        }
    }
}

// ------------------------------------------------------------------------------------- field order

on_both_revisions! {
    async fn a_form_reaches_the_client_in_struct_order(revision) {
        let client = Client::declaring(form_only()).answering([decline()]);
        let s = connect(revision, Ops::new(), client).await;
        s.call("deploy", deploy()).await;
        let [line] = &s.questions_on_the_wire()[..] else { panic!("{:?}", s.wire()) };
        let properties = &line[line.find(r#""properties":"#).expect("a schema")..];
        let at = |field: &str| properties.find(&format!(r#""{field}":{{"#)).expect(field);
        // Alphabetical would be change_ticket, env, replicas.
        assert!(at("env") < at("replicas") && at("replicas") < at("change_ticket"), "{line}");
    }
}

// ----------------------------------------------------------------------------- 2026-07-28 security

/// Where the test's per-user server reads who is asking (a real one reads its authentication).
const PRINCIPAL: &str = "test/principal";

fn per_user() -> Ops {
    let key = StateKey::generate().expect("the OS has randomness");
    let rounds = Rounds::new(StateKeys::single(KeyId::new(1), key));
    Ops::with(AskConfig::per_user(rounds, |request| {
        let principal = request.meta.get(PRINCIPAL)?;
        principal.as_str().map(str::to_owned)
    }))
}

async fn on_2026_07_28(server: Ops) -> Session {
    connect(
        Revision::V2026_07_28,
        server,
        Client::declaring(form_only()),
    )
    .await
}

fn staging() -> ElicitResult {
    accept(json!({"env": "staging", "replicas": 2}))
}

const DEPLOYED: &str = "Deployed `billing-api` to Staging with 2 replicas.";

/// `state` with one character in its middle changed.
fn tampered(state: &str) -> String {
    let mut bytes = state.as_bytes().to_vec();
    let middle = bytes.len() / 2;
    bytes[middle] = if bytes[middle] == b'A' { b'B' } else { b'A' };
    String::from_utf8(bytes).unwrap()
}

#[tokio::test]
async fn a_tampered_request_state_is_invalid_params() {
    let s = on_2026_07_28(Ops::new()).await;
    let asked = s.first_round("deploy", deploy(), None).await;
    let forged = asked.answered_under(&staging(), tampered(&asked.state()));
    let result = s.send("deploy", deploy(), None, Some(forged)).await;
    assert_eq!(refused(result), ErrorCode::INVALID_PARAMS);
    // The state as it was sent opens: what was refused is the change.
    let retry = s.send("deploy", deploy(), None, Some(asked.answered(&staging())));
    assert_eq!(completed(retry.await), ok(DEPLOYED));
}

#[tokio::test]
async fn a_request_state_is_bound_to_the_calls_arguments() {
    let s = on_2026_07_28(Ops::new()).await;
    let asked = s.first_round("deploy", deploy(), None).await;
    let other = json!({"service": "payments"});
    let result = s.send("deploy", other, None, Some(asked.answered(&staging())));
    assert_eq!(refused(result.await), ErrorCode::INVALID_PARAMS);
    let retry = s.send("deploy", deploy(), None, Some(asked.answered(&staging())));
    assert_eq!(completed(retry.await), ok(DEPLOYED));
}

#[tokio::test]
async fn a_request_state_opens_only_for_the_principal_it_was_sealed_for() {
    let s = on_2026_07_28(per_user()).await;
    let asked = s.first_round("deploy", deploy(), Some("alice")).await;
    let mallory = s.send(
        "deploy",
        deploy(),
        Some("mallory"),
        Some(asked.answered(&staging())),
    );
    assert_eq!(refused(mallory.await), ErrorCode::INVALID_PARAMS);
    let alice = s.send(
        "deploy",
        deploy(),
        Some("alice"),
        Some(asked.answered(&staging())),
    );
    assert_eq!(completed(alice.await), ok(DEPLOYED));
}

#[tokio::test]
async fn a_per_user_server_refuses_a_request_with_no_principal() {
    let s = on_2026_07_28(per_user()).await;
    let result = s.send("deploy", deploy(), None, None).await;
    assert_eq!(refused(result), ErrorCode::INVALID_REQUEST);
}

// ------------------------------------------------------------------------ one question per key

fn yes() -> ElicitResult {
    accept(json!({"confirm": true}))
}

on_both_revisions! {
    async fn one_consent_per_table_each_under_its_own_name(revision) {
        let client = Client::declaring(form_only()).answering([yes(), yes()]);
        let s = connect(revision, Ops::new(), client).await;
        let tables = json!({"tables": ["staging_tmp", "customers"], "named": true});
        assert_eq!(s.call("drop_tables", tables).await, ok("Dropped staging_tmp, customers."));
        assert_eq!(
            s.messages(),
            ["Permanently drop table `staging_tmp`?", "Permanently drop table `customers`?"]
        );
    }
}

on_both_revisions! {
    async fn a_second_question_under_one_name_is_refused(revision) {
        // On 2026-07-28 the second consent would otherwise read the first one's yes.
        let client = Client::declaring(form_only()).answering([yes(), yes()]);
        let s = connect(revision, Ops::new(), client).await;
        let tables = json!({"tables": ["staging_tmp", "customers"], "named": false});
        let params = CallToolRequestParams::new("drop_tables").with_arguments(arguments(tables));
        let error = match within_a_while(s.client.call_tool(params)).await {
            Err(ServiceError::McpError(error)) => error,
            other => panic!("expected a JSON-RPC error, got {other:?}"),
        };
        assert_eq!(error.code, ErrorCode::INTERNAL_ERROR);
        assert!(error.message.contains("`DropTable` is asked twice in one call"), "{}", error.message);
        assert_eq!(s.messages(), ["Permanently drop table `staging_tmp`?"]);
    }
}

#[tokio::test]
async fn a_consent_is_spent_once() {
    let s = on_2026_07_28(Ops::new()).await;
    let asked = s.first_round("drop_table", drop_users(), None).await;
    let first = s.send(
        "drop_table",
        drop_users(),
        None,
        Some(asked.answered(&yes())),
    );
    assert_eq!(completed(first.await), ok("Dropped table `users`."));
    let replayed = s.send(
        "drop_table",
        drop_users(),
        None,
        Some(asked.answered(&yes())),
    );
    assert_eq!(refused(replayed.await), ErrorCode::INVALID_PARAMS);
}

#[tokio::test]
async fn unwrapped_an_asker_before_parameters_binds_the_arguments() {
    // Served as it is, not through `AskingService`, and promising the asker comes first: the
    // asker reads the arguments itself.
    let asking = AskConfig::single_user()
        .unwrap()
        .with_asker_before_parameters();
    let client = Client::declaring(form_only());
    let s = connect_served(Revision::V2026_07_28, Ops::with(asking), client, false).await;
    let asked = s.first_round("deploy", deploy(), None).await;
    let other = json!({"service": "payments"});
    let result = s.send("deploy", other, None, Some(asked.answered(&staging())));
    assert_eq!(refused(result.await), ErrorCode::INVALID_PARAMS);
    let retry = s.send("deploy", deploy(), None, Some(asked.answered(&staging())));
    assert_eq!(completed(retry.await), ok(DEPLOYED));
}

// ------------------------------------------------------------------------------------ #[prompt]

on_both_revisions! {
    async fn a_prompt_asks_like_a_tool(revision) {
        let client = Client::declaring(form_only()).answering([staging()]);
        let s = connect(revision, Ops::new(), client).await;
        let prompt = within_a_while(s.client.get_prompt(GetPromptRequestParams::new("deploy_plan")))
            .await
            .expect("the prompt completes");
        let text = serde_json::to_value(&prompt.messages).unwrap()[0]["content"]["text"].clone();
        assert_eq!(text, "Plan: Staging with 2 replicas.");
        assert_eq!(s.asked().len(), 1);
    }
}

#[tokio::test]
async fn unwrapped_a_prompt_that_asks_on_2026_07_28_is_refused_naming_asking_service() {
    let client = Client::declaring(form_only()).answering([staging()]);
    let s = connect_served(Revision::V2026_07_28, Ops::new(), client, false).await;
    let refused = within_a_while(
        s.client
            .get_prompt(GetPromptRequestParams::new("deploy_plan")),
    )
    .await;
    let Err(ServiceError::McpError(error)) = refused else {
        panic!("expected a JSON-RPC error, got {refused:?}")
    };
    assert_eq!(error.code, ErrorCode::INTERNAL_ERROR);
    assert!(error.message.contains("AskingService"), "{}", error.message);
    assert!(s.asked().is_empty(), "nothing was asked");
}

#[tokio::test]
async fn unwrapped_without_the_promise_a_tool_that_asks_is_refused() {
    let client = Client::declaring(form_only()).answering([staging()]);
    let s = connect_served(Revision::V2026_07_28, Ops::new(), client, false).await;
    let result = s.send("deploy", deploy(), None, None).await;
    let Err(error) = result else {
        panic!("expected a JSON-RPC error, got {result:?}")
    };
    assert_eq!(error.code, ErrorCode::INTERNAL_ERROR);
    assert!(error.message.contains("AskingService"), "{}", error.message);
    assert!(
        error.message.contains("with_asker_before_parameters"),
        "{}",
        error.message
    );
    assert!(s.asked().is_empty(), "nothing was asked");
}

/// Only a 2026-07-28 round is bound to the arguments; before it nothing is sealed.
#[tokio::test]
async fn unwrapped_on_2025_11_25_a_tool_asks_without_the_promise() {
    let client = Client::declaring(form_only()).answering([staging()]);
    let s = connect_served(Revision::V2025_11_25, Ops::new(), client, false).await;
    assert_eq!(s.call("deploy", deploy()).await, ok(DEPLOYED));
}

// ------------------------------------------------------------ the test kit: a scripted user

/// `server` (served through `AskingService` by the kit) and an `AnsweringClient` of `user`, in
/// process.
async fn kit(revision: Revision, server: Ops, user: &Arc<Scripted>) -> Connected<Scripted> {
    TestKit::new(revision)
        .connect(server, Arc::clone(user))
        .await
        .expect("the client connects")
}

async fn call_deploy(kit: &Connected<Scripted>) -> Returned {
    let called = kit.call("deploy", deploy()).await.expect("a tool result");
    (called.text().to_owned(), called.is_error())
}

on_both_revisions! {
    async fn a_scripted_user_answers_through_the_answering_client(revision) {
        let user = Arc::new(Scripted::new().when_field("replicas", KitStep::accept(
            json!({"env": "staging", "replicas": 2}),
        )));
        let client = kit(revision, Ops::new(), &user).await;
        assert_eq!(call_deploy(&client).await, ok(DEPLOYED));
        let seen = user.seen();
        let [(_, asked)] = &seen[..] else { panic!("asked {} times", seen.len()) };
        assert_eq!(asked.message(), DEPLOY_MESSAGE);
    }
}

on_both_revisions! {
    async fn a_scripted_decline_and_a_scripted_invalid_answer(revision) {
        let user = Arc::new(Scripted::new().then(KitStep::Decline));
        let client = kit(revision, Ops::new(), &user).await;
        assert_eq!(call_deploy(&client).await, ok("You declined: nothing was deployed."));

        let invalid = KitStep::accept(json!({"env": "staging", "replicas": 99}));
        let user = Arc::new(Scripted::new().when_field("replicas", invalid));
        let client = kit(revision, Ops::new(), &user).await;
        assert_eq!(call_deploy(&client).await, rejected_after("2 tries"));
        assert_eq!(user.seen().len(), 2, "asked once, and once again");
    }
}

on_both_revisions! {
    async fn a_scripted_user_who_cannot_be_asked_is_never_asked(revision) {
        let user = Arc::new(Scripted::new().answering(&[]));
        let client = kit(revision, Ops::new(), &user).await;
        let returned = call_deploy(&client).await;
        assert!(returned.1, "an isError result: {returned:?}");
        assert!(returned.0.contains("elicitation.form"), "{}", returned.0);
        assert!(user.seen().is_empty());
    }
}

/// 2025-11-25: a user who says nothing is no reply once the server stops waiting.
#[tokio::test]
async fn a_silent_scripted_user_is_no_reply() {
    let user = Arc::new(Scripted::new().otherwise(KitStep::Silence));
    let server = Ops::new().waiting(Duration::from_millis(100));
    let client = kit(Revision::V2025_11_25, server, &user).await;
    assert_eq!(
        call_deploy(&client).await,
        error("No answer arrived: nothing was deployed.")
    );
    assert_eq!(user.seen().len(), 1);
}

/// A user still thinking when the server gives up (its timeout cancels the request): the client
/// stops waiting for the answerer, whose future is dropped, so a terminal would not go on
/// asking a question nobody waits for.
#[tokio::test]
async fn a_request_the_server_withdraws_is_no_longer_asked() {
    /// Never answers; says when its answer is no longer awaited.
    struct Thinking(Arc<std::sync::atomic::AtomicBool>);
    struct Dropped(Arc<std::sync::atomic::AtomicBool>);
    impl Drop for Dropped {
        fn drop(&mut self) {
            self.0.store(true, std::sync::atomic::Ordering::SeqCst);
        }
    }
    impl mcp_elicit::client::Answerer for Thinking {
        fn modes(&self) -> &[Mode] {
            &[Mode::Form]
        }
        fn answer(
            &self,
            _server: &str,
            _request: &mcp_elicit::client::Incoming,
        ) -> impl Future<Output = Option<Value>> + Send {
            let dropped = Dropped(Arc::clone(&self.0));
            async move {
                let _dropped = dropped;
                std::future::pending::<Option<Value>>().await
            }
        }
    }
    let dropped = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let user = Arc::new(Thinking(Arc::clone(&dropped)));
    let server = Ops::new().waiting(Duration::from_millis(100));
    let kit = TestKit::new(Revision::V2025_11_25).connect(server, user);
    let client = kit.await.expect("connected");
    let called = client.call("deploy", deploy()).await.expect("a result");
    assert_eq!(called.text(), "No answer arrived: nothing was deployed.");
    within_a_while(async {
        while !dropped.load(std::sync::atomic::Ordering::SeqCst) {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
}

/// A server that asks for a page whatever the client declared (rmcp's `Peer::create_elicitation`
/// sends what it is given), and says how the client answered.
struct Careless;

impl ServerHandler for Careless {
    async fn call_tool(
        &self,
        _request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let page = ElicitRequestParams::UrlElicitationParams {
            meta: None,
            message: "Open our page.".into(),
            url: PAGE.into(),
            elicitation_id: "page-1".into(),
        };
        let text = match context.peer.create_elicitation(page).await {
            Ok(result) => format!("answered: {:?}", result.action),
            Err(ServiceError::McpError(error)) => {
                format!("refused: {} {}", error.code.0, error.message)
            }
            Err(other) => format!("failed: {other}"),
        };
        Ok(done(text).into())
    }
}

/// 2025-11-25: a request in a mode the client did not declare is refused with -32602 (the
/// spec's error for it), and the user is never shown it.
#[tokio::test]
async fn a_mode_the_scripted_user_did_not_declare_is_refused_unseen() {
    for modes in [&[Mode::Form][..], &[]] {
        let user = Arc::new(Scripted::new().answering(modes).otherwise(KitStep::Decline));
        let (server_io, client_io) = tokio::io::duplex(1 << 16);
        tokio::spawn(async move {
            if let Ok(running) = Careless.serve(server_io).await {
                let _ = running.waiting().await;
            }
        });
        let client = AnsweringClient::new(Arc::clone(&user))
            .connect(client_io, Revision::V2025_11_25)
            .await
            .expect("the client connects");
        let result = within_a_while(client.call_tool(CallToolRequestParams::new("open_page")))
            .await
            .expect("a tool result");
        let (text, _) = returned(&result);
        assert!(text.starts_with("refused: -32602 "), "{modes:?}: {text}");
        assert!(text.contains("`elicitation.url`"), "{modes:?}: {text}");
        assert!(user.seen().is_empty(), "{modes:?}: shown {:?}", user.seen());
    }
}
