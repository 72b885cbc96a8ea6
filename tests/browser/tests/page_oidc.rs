//! The library's pages against a real OpenID provider, in a real browser: the pages sign the
//! browser in with the provider (`OidcSignIn`), take an API key (`SecretPage`), and connect a
//! third party (`AuthorizationPage`; the same provider plays "Example Git" as a second client).
//!
//! The flows are begun by a real MCP tool: an rmcp server using `AskConfig::per_user` and
//! `Asker::url_flow` (the principal `sub-alice`, as its MCP authorization would name her),
//! talking to an rmcp client over an in-process connection. The client agrees to open the page
//! and hands its URL to the test, which opens it in Chromium; what the tool returns is checked.
//! The tests where the tool's side is not the point begin their flow in the store directly.
//!
//! Everything the test can see is kept and searched for the key and the token: every byte of
//! JSON-RPC between client and server, every URL asked of the pages and every response header
//! and body they sent, the URLs the browser ends on, the provider's log, and every `tracing`
//! event and span of the test's thread at every level (the library logs nothing itself; rmcp,
//! hyper and reqwest log through `tracing`).
//!
//! Ignored unless asked for: they need chromium, chromedriver and the provider's node_modules,
//! which `.ci/run` installs before it runs them with `--include-ignored`.

use std::{
    fmt::{self, Write as _},
    sync::{
        Arc, Mutex,
        atomic::{AtomicU64, Ordering},
    },
    time::Duration,
};

use axum::{
    body::Body,
    extract::{Request, State},
    middleware::Next,
    response::Response,
};
use elicit_browser_tests::{
    ALICE, Account, BOB, Browser, BrowserOptions, Chromedriver, LoopbackHttp, OidcClient,
    OidcProvider, Site, Tee,
};
use mcp_elicit::{
    mrtr::Rounds,
    page::{AuthorizationPage, OidcSignIn, Pages, SecretPage, Secrets, SinkError, Token},
    rmcp::{AskConfig, Asker, AskingServer, AskingService, ToolResponse, respond},
    schema::{Property, StringSchema},
    state::{ParamsDigest, UnixTime},
    url_mode::{Flow, FlowId, FlowOutcome, FlowStatus, Flows, MemoryFlowStore},
};
use rmcp::{
    ClientHandler, ErrorData, RoleClient, ServerHandler, ServiceExt,
    model::{
        CallToolRequestParams, CallToolResult, ClientConfig, ContentBlock, CustomNotification,
        ElicitRequestParams, ElicitResult, ElicitationAction, Implementation, ProtocolVersion,
    },
    service::{
        ClientLifecycleMode, ClientServiceExt, NotificationContext, RequestContext, RunningService,
    },
    tool, tool_handler, tool_router,
};
use secrecy::ExposeSecret;
use serde_json::{Value, json};
use tokio::sync::mpsc;

type TestResult = Result<(), Box<dyn std::error::Error>>;
type AnyResult<T> = Result<T, Box<dyn std::error::Error>>;

const WAIT: Duration = Duration::from_secs(10);

/// The pages' sign-in client at the provider.
const PAGES_CLIENT: &str = "elicit-pages";
const PAGES_SECRET: &str = "elicit-pages-client-secret";
const PAGES_NAME: &str = "Ops server";
/// The third party's client: the same provider, registered again under another name.
const GIT_CLIENT: &str = "example-git";
const GIT_SECRET: &str = "example-git-client-secret";
const GIT_NAME: &str = "Example Git";

/// Alice's API key: long and unlike anything else, so a search for it finds only it.
const KEY: &str = "sk-live-alice-7Qm2xVt9Lp4Rw8Zk";
/// What bob types when he tries.
const BOB_KEY: &str = "sk-live-bob-3Hn6Yc1Jd5Fg0Ps";

// ------------------------------------------------------------------------------- the MCP server

/// The tools of a server whose users sign in through the provider: each asks for a page.
#[derive(Clone)]
struct Tools {
    asking: AskConfig,
}

impl AskingServer for Tools {
    fn asking(&self) -> &AskConfig {
        &self.asking
    }
}

#[tool_router]
impl Tools {
    #[tool(description = "Connect the user's Example Co. API key (typed on our page).")]
    async fn connect_api_key(&self, mut asker: Asker) -> ToolResponse {
        respond(async {
            let outcome = asker
                .url_flow::<serde_json::Value>(
                    "api_key",
                    "Enter your Example Co. API key on our page.",
                )
                .await?;
            Ok(CallToolResult::success(vec![ContentBlock::text(
                described(outcome),
            )]))
        })
        .await
    }

    #[tool(description = "Connect the user's Example Git account.")]
    async fn connect_git(&self, mut asker: Asker) -> ToolResponse {
        respond(async {
            let outcome = asker
                .url_flow::<serde_json::Value>("git", "Connect Example Git on our page.")
                .await?;
            Ok(CallToolResult::success(vec![ContentBlock::text(
                described(outcome),
            )]))
        })
        .await
    }
}

#[tool_handler(name = "page-oidc-test")]
impl ServerHandler for Tools {}

/// What the tool says of the step: exactly what the sink handed back, or why it failed.
fn described(outcome: FlowOutcome) -> String {
    match outcome {
        FlowOutcome::Completed(value) => format!("completed: {value}"),
        FlowOutcome::Failed(why) => format!("failed: {why}"),
        other => format!("not finished: {other:?}"),
    }
}

// ------------------------------------------------------------------------------- the MCP client

/// A client that agrees to open every page, and hands its URL to the test (the user's browser).
#[derive(Clone)]
struct Client {
    urls: mpsc::UnboundedSender<(String, String)>,
    notes: Arc<Mutex<Vec<Value>>>,
}

impl ClientHandler for Client {
    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let ElicitRequestParams::UrlElicitationParams {
            url,
            elicitation_id,
            ..
        } = request
        else {
            panic!("only URL questions are asked here: {request:?}");
        };
        let _ = self.urls.send((url, elicitation_id));
        Ok(ElicitResult::new(ElicitationAction::Accept))
    }

    async fn on_custom_notification(
        &self,
        notification: CustomNotification,
        _context: NotificationContext<RoleClient>,
    ) {
        self.notes.lock().unwrap().push(json!({
            "method": notification.method,
            "params": notification.params,
        }));
    }

    fn get_info(&self) -> ClientConfig {
        let capabilities = serde_json::from_value(json!({ "elicitation": { "url": {} } }))
            .expect("valid capabilities");
        let mut info = ClientConfig::new(capabilities, Implementation::new("page-oidc-test", "0"));
        info.protocol_version = ProtocolVersion::V_2025_11_25;
        info
    }
}

/// A client connected to the server on 2025-11-25, with both directions of the wire kept.
struct Session {
    client: RunningService<RoleClient, Client>,
    urls: mpsc::UnboundedReceiver<(String, String)>,
    notes: Arc<Mutex<Vec<Value>>>,
    to_client: Arc<Mutex<Vec<u8>>>,
    to_server: Arc<Mutex<Vec<u8>>>,
}

/// A tool call under way: the page's URL the client was given, and the call's end.
struct Call {
    url: String,
    elicitation_id: String,
    result: tokio::task::JoinHandle<Result<CallToolResult, rmcp::ServiceError>>,
}

impl Session {
    /// Connects a client to the server whose every request is `principal`'s (as its MCP
    /// authorization would say), asking with `flows`.
    async fn connect(flows: &Flows, principal: &'static str) -> AnyResult<Self> {
        let rounds = Rounds::generate()?;
        let asking = AskConfig::per_user(rounds, move |_request| Some(principal.to_owned()))
            .with_flows(flows.clone())
            .with_timeout(Duration::from_secs(120));
        let (server_io, client_io) = tokio::io::duplex(1 << 16);
        let (server_read, server_write) = tokio::io::split(server_io);
        let (client_read, client_write) = tokio::io::split(client_io);
        let to_client = Arc::new(Mutex::new(Vec::new()));
        let to_server = Arc::new(Mutex::new(Vec::new()));
        let server_write = Tee::new(server_write, Arc::clone(&to_client));
        let client_write = Tee::new(client_write, Arc::clone(&to_server));
        tokio::spawn(async move {
            if let Ok(running) = AskingService(Tools { asking })
                .serve((server_read, server_write))
                .await
            {
                let _ = running.waiting().await;
            }
        });
        let (tx, urls) = mpsc::unbounded_channel();
        let notes = Arc::new(Mutex::new(Vec::new()));
        let client = Client {
            urls: tx,
            notes: Arc::clone(&notes),
        };
        let client = client
            .serve_with_lifecycle((client_read, client_write), ClientLifecycleMode::Initialize)
            .await?;
        Ok(Self {
            client,
            urls,
            notes,
            to_client,
            to_server,
        })
    }

    /// Calls `tool`, and waits until the client is sent to its page.
    async fn call(&mut self, tool: &'static str) -> AnyResult<Call> {
        let peer = self.client.peer().clone();
        let result =
            tokio::spawn(async move { peer.call_tool(CallToolRequestParams::new(tool)).await });
        let (url, elicitation_id) = tokio::time::timeout(WAIT, self.urls.recv())
            .await?
            .ok_or("the client stopped")?;
        Ok(Call {
            url,
            elicitation_id,
            result,
        })
    }

    /// Every byte of JSON-RPC, both ways.
    fn wire(&self) -> String {
        let mut wire = String::from_utf8_lossy(&self.to_client.lock().unwrap()).into_owned();
        wire.push_str(&String::from_utf8_lossy(&self.to_server.lock().unwrap()));
        wire
    }

    fn notes(&self) -> Vec<Value> {
        self.notes.lock().unwrap().clone()
    }
}

impl Call {
    /// What the tool returned: its text and `isError`.
    async fn returned(self) -> AnyResult<(String, bool)> {
        let result = tokio::time::timeout(WAIT, self.result).await???;
        let text = result
            .content
            .iter()
            .filter_map(|c| c.as_text().map(|t| t.text.clone()))
            .collect::<Vec<_>>()
            .join("\n");
        Ok((text, result.is_error == Some(true)))
    }
}

// ---------------------------------------------------------------------------------- the logs

/// Every `tracing` event and span, at every level, as text: what the server logs. Set as the
/// thread's default, it sees everything the test's runtime runs (one thread: `#[tokio::test]`).
#[derive(Clone, Default)]
struct Logs {
    text: Arc<Mutex<String>>,
    spans: Arc<AtomicU64>,
}

/// Writes a record's fields as `name=value `.
struct Fields<'a>(&'a mut String);

impl tracing::field::Visit for Fields<'_> {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn fmt::Debug) {
        let _ = write!(self.0, "{}={value:?} ", field.name());
    }
}

impl Logs {
    fn text(&self) -> String {
        self.text.lock().unwrap().clone()
    }
}

impl tracing::Subscriber for Logs {
    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        true
    }

    fn new_span(&self, span: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        let mut text = self.text.lock().unwrap();
        let _ = write!(text, "span {} ", span.metadata().name());
        span.record(&mut Fields(&mut text));
        text.push('\n');
        tracing::span::Id::from_u64(self.spans.fetch_add(1, Ordering::Relaxed) + 1)
    }

    fn record(&self, _: &tracing::span::Id, values: &tracing::span::Record<'_>) {
        let mut text = self.text.lock().unwrap();
        values.record(&mut Fields(&mut text));
        text.push('\n');
    }

    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}

    fn event(&self, event: &tracing::Event<'_>) {
        let mut text = self.text.lock().unwrap();
        let metadata = event.metadata();
        let _ = write!(text, "{} {} ", metadata.level(), metadata.target());
        event.record(&mut Fields(&mut text));
        text.push('\n');
    }

    fn enter(&self, _: &tracing::span::Id) {}

    fn exit(&self, _: &tracing::span::Id) {}
}

// ------------------------------------------------------------------------------ the pages' site

/// What the pages were asked and answered: the method and URL, the status, every header and the
/// body. What a browser (or anyone watching its traffic) saw of them.
#[derive(Clone, Debug)]
struct Exchange {
    method: String,
    uri: String,
    /// The request's `Origin` and `Sec-Fetch-Site`, as the browser sent them.
    origin: Option<String>,
    fetch_site: Option<String>,
    status: u16,
    headers: String,
    body: String,
}

type Exchanges = Arc<Mutex<Vec<Exchange>>>;

/// Keeps every exchange with the pages.
async fn record(State(log): State<Exchanges>, request: Request, next: Next) -> Response {
    let method = request.method().to_string();
    let uri = request.uri().to_string();
    let (origin, fetch_site) = {
        let header = |name: &str| {
            request
                .headers()
                .get(name)
                .map(|value| String::from_utf8_lossy(value.as_bytes()).into_owned())
        };
        (header("origin"), header("sec-fetch-site"))
    };
    let response = next.run(request).await;
    let (parts, body) = response.into_parts();
    let bytes = axum::body::to_bytes(body, 1 << 20)
        .await
        .unwrap_or_default();
    let headers = parts
        .headers
        .iter()
        .map(|(name, value)| format!("{name}: {}\n", String::from_utf8_lossy(value.as_bytes())))
        .collect();
    log.lock().unwrap().push(Exchange {
        method,
        uri,
        origin,
        fetch_site,
        status: parts.status.as_u16(),
        headers,
        body: String::from_utf8_lossy(&bytes).into_owned(),
    });
    Response::from_parts(parts, Body::from(bytes))
}

/// What reached the sinks: (principal, secret).
type Kept = Arc<Mutex<Vec<(String, String)>>>;

/// The provider, the pages served on 127.0.0.1 with the provider's sign-in, the flows, what the
/// sinks kept, and chromedriver.
struct World {
    provider: OidcProvider,
    site: Site,
    base: String,
    store: MemoryFlowStore,
    flows: Flows,
    keys: Kept,
    tokens: Kept,
    exchanges: Exchanges,
    driver: Chromedriver,
    logs: Logs,
    _logging: tracing::subscriber::DefaultGuard,
}

fn api_key_page() -> AnyResult<SecretPage> {
    Ok(SecretPage::new(
        "api_key",
        "Your Example Co. API key",
        vec![
            Property::new("key", StringSchema::new().min_length(20).max_length(200))
                .title("API key"),
        ],
    )?)
}

impl World {
    async fn start() -> AnyResult<Self> {
        let logs = Logs::default();
        let logging = tracing::subscriber::set_default(logs.clone());
        // Bound first: the provider needs both redirect URIs when it starts.
        let listener = Site::bind().await?;
        let base = format!("http://{}/elicit/", listener.local_addr()?);
        let provider = OidcProvider::builder()
            .client(
                OidcClient::confidential(
                    PAGES_CLIENT,
                    PAGES_SECRET,
                    &format!("{base}signin/callback"),
                )
                .with("client_name", PAGES_NAME),
            )
            .client(
                OidcClient::confidential(GIT_CLIENT, GIT_SECRET, &format!("{base}authorized/git"))
                    .with("client_name", GIT_NAME),
            )
            .start()
            .await?;
        let discovery: Value = serde_json::from_slice(
            LoopbackHttp::new()
                .get(&format!(
                    "{}/.well-known/openid-configuration",
                    provider.issuer()
                ))
                .await?
                .body(),
        )?;

        let store = MemoryFlowStore::new();
        let flows = Flows::new(store.clone(), &base)?;
        let sign_in = OidcSignIn::discover(
            provider.issuer(),
            PAGES_CLIENT,
            Some(PAGES_SECRET.to_owned()),
            &flows,
        )
        .await?;
        let git = AuthorizationPage::new(
            "git",
            GIT_NAME,
            discovery["authorization_endpoint"]
                .as_str()
                .ok_or("no authorization endpoint")?,
            discovery["token_endpoint"]
                .as_str()
                .ok_or("no token endpoint")?,
            GIT_CLIENT,
            Some(GIT_SECRET.to_owned()),
            &flows,
        )?
        .scope("openid");
        // oidc-provider names itself in its answers (RFC 9207), and its metadata says so.
        assert_eq!(
            discovery["authorization_response_iss_parameter_supported"],
            true
        );
        let git = git.issuer(discovery["issuer"].as_str().ok_or("no issuer")?);

        let keys = Kept::default();
        let tokens = Kept::default();
        let key_sink = {
            let keys = Arc::clone(&keys);
            move |principal: String, mut typed: Secrets| -> Result<Value, SinkError> {
                let key = typed.take("key").ok_or("no key was typed")?;
                let key = key.expose_secret().to_owned();
                let ending = key[key.len() - 4..].to_owned();
                keys.lock().unwrap().push((principal.to_owned(), key));
                Ok(json!({ "ending": ending }))
            }
        };
        let token_sink = {
            let tokens = Arc::clone(&tokens);
            move |principal: String, token: Token| -> Result<Value, SinkError> {
                let access = token.access_token.expose_secret().to_owned();
                tokens.lock().unwrap().push((principal.to_owned(), access));
                Ok(json!({ "connected": GIT_NAME }))
            }
        };
        let exchanges = Exchanges::default();
        let router = Pages::new(flows.clone(), sign_in)?
            .secret(api_key_page()?, key_sink)
            .authorization(git, token_sink)
            .router()
            .layer(axum::middleware::from_fn_with_state(
                Arc::clone(&exchanges),
                record,
            ));
        let site = Site::serve_on(listener, router)?;
        let driver = Chromedriver::start().await?;
        Ok(Self {
            provider,
            site,
            base,
            store,
            flows,
            keys,
            tokens,
            exchanges,
            driver,
            logs,
            _logging: logging,
        })
    }

    /// A flow begun as a tool would begin it, for `principal` on `page`: its URL.
    fn begin(&self, page: &str, principal: &str) -> AnyResult<String> {
        let id = FlowId::random()?;
        let now = UnixTime::now();
        let call = ParamsDigest::of(&json!({ "name": "a tool" }));
        let flow = Flow::new(id, page, principal, call, "Finish this on our page.")
            .expiring(now, self.flows.ttl())?;
        self.store.begin_now(flow, now)?;
        Ok(self.flows.url_of(&id)?.to_string())
    }

    fn status(&self, url: &str) -> AnyResult<FlowStatus> {
        let id = FlowId::parse(url.strip_prefix(&self.base).ok_or("not a page's URL")?)?;
        Ok(self.store.get_now(&id, UnixTime::now())?.status().clone())
    }

    fn keys(&self) -> Vec<(String, String)> {
        self.keys.lock().unwrap().clone()
    }

    /// The name of the pages' cookie `what` here: plain http, so `elicit-<what>-<port>`.
    fn cookie(&self, what: &str) -> String {
        format!("elicit-{what}-{}", self.site.addr().port())
    }

    fn tokens(&self) -> Vec<(String, String)> {
        self.tokens.lock().unwrap().clone()
    }

    fn exchanges(&self) -> Vec<Exchange> {
        self.exchanges.lock().unwrap().clone()
    }

    /// The last exchange whose URL starts with `path`.
    fn last(&self, path: &str) -> AnyResult<Exchange> {
        Ok(self
            .exchanges()
            .into_iter()
            .rev()
            .find(|e| e.uri.starts_with(path))
            .ok_or_else(|| format!("nothing was asked of {path}"))?)
    }

    /// Asserts that `secret` is nowhere the test can see: not in any URL asked of the pages,
    /// nor any header or body they sent, nor where `browsers` are now, nor the provider's log,
    /// nor the server's logs, nor (if there is one) the JSON-RPC between client and server, nor
    /// the flows' store.
    async fn assert_nowhere(
        &self,
        secret: &str,
        session: Option<&Session>,
        browsers: &[&Browser],
    ) -> TestResult {
        assert!(secret.len() >= 16, "a secret worth searching for");
        for exchange in self.exchanges() {
            assert!(
                !format!("{} {}", exchange.uri, exchange.headers).contains(secret)
                    && !exchange.body.contains(secret),
                "the secret is in the pages' {} {} ({}):\n{}{}",
                exchange.method,
                exchange.uri,
                exchange.status,
                exchange.headers,
                exchange.body
            );
        }
        for browser in browsers {
            assert!(!browser.current_url().await?.contains(secret));
        }
        assert!(
            !self.provider.log().contains(secret),
            "{}",
            self.provider.log()
        );
        let logs = self.logs.text();
        assert!(!logs.contains(secret), "{logs}");
        if let Some(session) = session {
            assert!(logs.contains("rmcp::"), "rmcp's logs are captured: {logs}");
            assert!(!session.wire().contains(secret), "{}", session.wire());
        }
        for exchange in self.exchanges() {
            if let Some(id) = exchange
                .uri
                .strip_prefix("/elicit/")
                .and_then(|id| FlowId::parse(id).ok())
                && let Ok(flow) = self.store.get_now(&id, UnixTime::now())
            {
                assert!(!format!("{flow:?}").contains(secret), "{flow:?}");
            }
        }
        Ok(())
    }
}

// ------------------------------------------------------------------------- what the user does

/// At the provider's sign-in form: types the username and password and presses "Sign in".
async fn type_credentials(browser: &Browser, username: &str, password: &str) -> TestResult {
    Ok(elicit_browser_tests::type_credentials(browser, username, password, WAIT).await?)
}

/// Opens `url` in a browser not yet signed in: the pages send it to the provider, where
/// `account` signs in through the real form and allows the pages' client. Returns the text of
/// the page the browser is sent back to.
async fn open_signing_in(
    world: &World,
    browser: &Browser,
    url: &str,
    account: Account,
) -> AnyResult<String> {
    browser.goto(url).await?;
    assert!(
        browser
            .current_url()
            .await?
            .starts_with(world.provider.issuer()),
        "the pages sent the browser to the provider"
    );
    type_credentials(browser, account.username, account.password).await?;
    let consent = browser
        .wait_for_text(&format!("Authorize {PAGES_NAME}"), WAIT)
        .await?;
    assert!(
        consent.contains(&format!("Signed in as {}", account.username)),
        "{consent}"
    );
    browser.press("Allow").await?;
    // Back at the pages, on the page the link named.
    let deadline = tokio::time::Instant::now() + WAIT;
    while browser.current_url().await? != url {
        assert!(
            tokio::time::Instant::now() < deadline,
            "not back at {url}: at {}, which says\n{}",
            browser.current_url().await?,
            browser.text().await?
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    Ok(browser.text().await?)
}

/// The CSRF token in the form the browser shows.
async fn form_token(browser: &Browser) -> AnyResult<String> {
    let html = browser.html().await?;
    let at = html
        .find(r#"name="_csrf" value=""#)
        .ok_or("no token in the form")?;
    let rest = &html[at + r#"name="_csrf" value=""#.len()..];
    Ok(rest[..rest.find('"').ok_or("an unterminated token")?].to_owned())
}

/// Posts a form to `action` from the page the browser shows (so from its origin, with its
/// cookies): a form made in the page and submitted, as a script on the page could.
async fn post_from_page(browser: &Browser, action: &str, fields: &[(&str, &str)]) -> TestResult {
    let fields: Vec<Value> = fields
        .iter()
        .map(|(name, value)| json!([name, value]))
        .collect();
    browser
        .webdriver()
        .execute(
            "const [action, fields] = arguments;
             const form = document.createElement('form');
             form.method = 'post';
             form.action = action;
             for (const [name, value] of fields) {
               const input = document.createElement('input');
               input.type = 'hidden';
               input.name = name;
               input.value = value;
               form.appendChild(input);
             }
             document.body.appendChild(form);
             form.submit();",
            vec![json!(action), Value::Array(fields)],
        )
        .await?;
    Ok(())
}

// -------------------------------------------------------------------------------------- tests

#[tokio::test]
#[ignore = "needs chromium, chromedriver and the provider's node_modules: .ci/run installs them"]
async fn alice_signs_in_at_the_provider_types_her_key_and_the_tool_reads_only_the_receipt()
-> TestResult {
    let world = World::start().await?;
    let mut session = Session::connect(&world.flows, ALICE.sub).await?;
    let call = session.call("connect_api_key").await?;
    assert!(call.url.starts_with(&world.base), "{}", call.url);
    assert_eq!(call.url, format!("{}{}", world.base, call.elicitation_id));

    let alice = world.driver.browser().await?;
    let page = open_signing_in(&world, &alice, &call.url, ALICE).await?;
    assert!(page.contains("Your Example Co. API key"), "{page}");
    assert!(page.contains("Signed in as sub-alice · Sign out"), "{page}");
    assert!(alice.html().await?.contains(r#"type="password""#));
    alice.fill("key", KEY).await?;
    alice.submit().await?;
    alice.wait_for_text("Saved", WAIT).await?;
    // The page's own form, under its `Referrer-Policy: no-referrer`: Chromium sends
    // `Origin: null` (the Fetch standard's rule for that policy) and `Sec-Fetch-Site:
    // same-origin`.
    let post = world.last(call.url.strip_prefix(&world.site.origin()).unwrap_or("?"))?;
    assert_eq!(
        (
            post.method.as_str(),
            post.origin.as_deref(),
            post.fetch_site.as_deref()
        ),
        ("POST", Some("null"), Some("same-origin"))
    );

    let url = call.url.clone();
    let (text, is_error) = call.returned().await?;
    assert_eq!(
        (text.as_str(), is_error),
        (r#"completed: {"ending":"w8Zk"}"#, false)
    );
    assert_eq!(world.keys(), [(ALICE.sub.to_owned(), KEY.to_owned())]);
    assert_eq!(
        world.status(&url)?,
        FlowStatus::Completed(json!({ "ending": "w8Zk" }))
    );
    // 2025-11-25: the client that asked hears that the step is done.
    let id = url.strip_prefix(&world.base).unwrap_or_default();
    let deadline = tokio::time::Instant::now() + WAIT;
    while session.notes().is_empty() && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(
        session.notes(),
        [json!({
            "method": "notifications/elicitation/complete",
            "params": { "elicitationId": id },
        })]
    );
    world.assert_nowhere(KEY, Some(&session), &[&alice]).await?;
    Ok(())
}

#[tokio::test]
#[ignore = "needs chromium, chromedriver and the provider's node_modules: .ci/run installs them"]
async fn bob_signed_in_in_another_browser_is_refused_on_get_and_post_and_alice_still_finishes()
-> TestResult {
    let world = World::start().await?;
    let mut session = Session::connect(&world.flows, ALICE.sub).await?;
    let call = session.call("connect_api_key").await?;

    let alice = world.driver.browser().await?;
    let page = open_signing_in(&world, &alice, &call.url, ALICE).await?;
    assert!(page.contains("Your Example Co. API key"), "{page}");
    let alices_token = form_token(&alice).await?;

    // Bob, signed in as himself in his own browser, opens alice's link: refused on GET.
    let bob = world.driver.browser().await?;
    let refused = open_signing_in(&world, &bob, &call.url, BOB).await?;
    assert!(
        refused.contains("This page is for another user"),
        "{refused}"
    );
    // The refusal says who this browser is signed in as.
    assert!(refused.contains("Signed in as sub-bob"), "{refused}");
    assert!(
        !bob.html().await?.contains("<form method"),
        "no form for bob"
    );
    let id_path = call.url.strip_prefix(&world.site.origin()).unwrap_or("?");
    assert_eq!(world.last(id_path)?.status, 403);

    // A POST from bob's browser (his cookies, the pages' own origin) with alice's token:
    // refused. (The pages named his browser when it first asked for alice's page, and his
    // session is bound to that name.)
    post_from_page(
        &bob,
        &call.url,
        &[("_csrf", &alices_token), ("key", BOB_KEY)],
    )
    .await?;
    bob.wait_for_text("This form was not sent from its page", WAIT)
        .await?;
    let post = world.last(id_path)?;
    assert_eq!((post.method.as_str(), post.status), ("POST", 403));
    // Once it has opened a page of bob's own, it has a token of its own too: neither alice's
    // token nor bob's gets his POST to her flow through.
    let bobs_url = world.begin("api_key", BOB.sub)?;
    bob.goto(&bobs_url).await?;
    bob.wait_for_text("Your Example Co. API key", WAIT).await?;
    let bobs_token = form_token(&bob).await?;
    for token in [alices_token.as_str(), bobs_token.as_str(), ""] {
        post_from_page(&bob, &call.url, &[("_csrf", token), ("key", BOB_KEY)]).await?;
        let refused = bob
            .wait_for_text("This form was not sent from its page", WAIT)
            .await?;
        assert!(refused.contains("Nothing was stored"), "{refused}");
        let post = world.last(id_path)?;
        assert_eq!((post.method.as_str(), post.status), ("POST", 403));
        bob.goto(&bobs_url).await?;
    }

    // Nothing stored, and the flow still open for alice, in her browser.
    assert!(world.keys().is_empty());
    assert_eq!(world.status(&call.url)?, FlowStatus::Opened);
    alice.fill("key", KEY).await?;
    alice.submit().await?;
    alice.wait_for_text("Saved", WAIT).await?;
    let (text, is_error) = call.returned().await?;
    assert_eq!(
        (text.as_str(), is_error),
        (r#"completed: {"ending":"w8Zk"}"#, false)
    );
    assert_eq!(world.keys(), [(ALICE.sub.to_owned(), KEY.to_owned())]);
    world
        .assert_nowhere(KEY, Some(&session), &[&alice, &bob])
        .await?;
    world
        .assert_nowhere(BOB_KEY, Some(&session), &[&alice, &bob])
        .await?;
    Ok(())
}

#[tokio::test]
#[ignore = "needs chromium, chromedriver and the provider's node_modules: .ci/run installs them"]
async fn a_wrong_password_at_the_provider_signs_no_one_in_and_shows_no_page() -> TestResult {
    let world = World::start().await?;
    let url = world.begin("api_key", ALICE.sub)?;
    let browser = world.driver.browser().await?;
    browser.goto(&url).await?;
    for (username, password) in [
        (ALICE.username, "alice-passw0rd"),
        (ALICE.username, BOB.password),
        (ALICE.username, ""),
    ] {
        type_credentials(&browser, username, password).await?;
        browser
            .wait_for_text("Wrong username or password.", WAIT)
            .await?;
        assert!(
            browser
                .current_url()
                .await?
                .starts_with(world.provider.issuer())
        );
    }
    // The pages were asked for the flow once, and sent the browser to sign in; no callback.
    let exchanges: Vec<_> = world
        .exchanges()
        .into_iter()
        .filter(|e| e.uri.starts_with("/elicit/"))
        .collect();
    assert_eq!(exchanges.len(), 1, "{exchanges:#?}");
    assert_eq!(exchanges[0].status, 303, "{exchanges:#?}");
    assert!(!exchanges[0].headers.contains(&world.cookie("session")));
    // Nor does a made-up answer from the provider, in this browser (which holds the sign-in
    // under way) or in another.
    let forged = format!(
        "{}signin/callback?code=forged-code&state=forged-state",
        world.base
    );
    browser.goto(&forged).await?;
    let page = browser
        .wait_for_text("You could not be signed in", WAIT)
        .await?;
    assert!(page.contains("for another sign-in"), "{page}");
    let other = world.driver.browser().await?;
    other.goto(&forged).await?;
    let page = other
        .wait_for_text("You could not be signed in", WAIT)
        .await?;
    assert!(page.contains("started no sign-in"), "{page}");
    // The refusals there are styled like every page: their style sheet is found.
    let missing: Vec<_> = world
        .exchanges()
        .into_iter()
        .filter(|e| e.status == 404)
        .map(|e| e.uri)
        .collect();
    assert!(missing.is_empty(), "not found: {missing:?}");
    for exchange in world.exchanges() {
        assert!(
            !exchange.headers.contains(&world.cookie("session")),
            "no session: {exchange:#?}"
        );
    }
    // Opened again, the link still sends the browser to sign in: no session, no page.
    browser.goto(&url).await?;
    browser
        .wait_for_text("Sign in to the test provider", WAIT)
        .await?;
    assert_eq!(world.status(&url)?, FlowStatus::Pending);
    assert!(world.keys().is_empty());
    Ok(())
}

#[tokio::test]
#[ignore = "needs chromium, chromedriver and the provider's node_modules: .ci/run installs them"]
async fn alice_connects_example_git_and_only_the_token_sink_gets_the_token() -> TestResult {
    let world = World::start().await?;
    let mut session = Session::connect(&world.flows, ALICE.sub).await?;
    let call = session.call("connect_git").await?;

    // With JavaScript off: the pages, the provider's and the redirects between them are plain
    // HTML forms and links.
    let alice = world
        .driver
        .browser_with(BrowserOptions::without_javascript())
        .await?;
    let page = open_signing_in(&world, &alice, &call.url, ALICE).await?;
    assert!(page.contains(&format!("Connect {GIT_NAME}")), "{page}");
    alice.press(&format!("Continue to {GIT_NAME}")).await?;
    // At the provider, signed in there already: only Example Git's consent.
    let consent = alice
        .wait_for_text(&format!("Authorize {GIT_NAME}"), WAIT)
        .await?;
    assert!(consent.contains("Signed in as alice"), "{consent}");
    alice.press("Allow").await?;
    alice.wait_for_text("Saved", WAIT).await?;
    assert!(
        alice
            .current_url()
            .await?
            .starts_with(&format!("{}authorized/git?", world.base))
    );

    let (text, is_error) = call.returned().await?;
    assert_eq!(
        (text.as_str(), is_error),
        (r#"completed: {"connected":"Example Git"}"#, false)
    );
    let tokens = world.tokens();
    let [(principal, token)] = &tokens[..] else {
        panic!("one token: {tokens:?}")
    };
    assert_eq!(principal, ALICE.sub);
    assert!(!token.is_empty());
    // A real token, and alice's: the provider's userinfo says whose it is.
    let userinfo = LoopbackHttp::new()
        .send(
            http::Request::get(format!("{}/me", world.provider.issuer()))
                .header("authorization", format!("Bearer {token}"))
                .body(Vec::new())?,
        )
        .await?;
    assert_eq!(userinfo.status(), 200);
    let userinfo: Value = serde_json::from_slice(userinfo.body())?;
    assert_eq!(userinfo["sub"], ALICE.sub);

    world
        .assert_nowhere(token, Some(&session), &[&alice])
        .await?;
    Ok(())
}

#[tokio::test]
#[ignore = "needs chromium, chromedriver and the provider's node_modules: .ci/run installs them"]
async fn denying_example_git_fails_the_flow_with_a_reason_the_tool_reads() -> TestResult {
    let world = World::start().await?;
    let mut session = Session::connect(&world.flows, ALICE.sub).await?;
    let call = session.call("connect_git").await?;

    let alice = world.driver.browser().await?;
    open_signing_in(&world, &alice, &call.url, ALICE).await?;
    alice.press(&format!("Continue to {GIT_NAME}")).await?;
    alice
        .wait_for_text(&format!("Authorize {GIT_NAME}"), WAIT)
        .await?;
    alice.press("Deny").await?;
    let page = alice.wait_for_text("Not saved", WAIT).await?;
    assert!(
        page.contains("You did not allow this server at Example Git."),
        "{page}"
    );
    let (text, is_error) = call.returned().await?;
    assert_eq!(
        (text.as_str(), is_error),
        (
            "failed: You did not allow this server at Example Git.",
            false
        )
    );
    assert!(world.tokens().is_empty());
    Ok(())
}

#[tokio::test]
#[ignore = "needs chromium, chromedriver and the provider's node_modules: .ci/run installs them"]
async fn a_callback_with_a_wrong_state_or_without_the_authorization_cookie_is_refused() -> TestResult
{
    let world = World::start().await?;
    let url = world.begin("git", ALICE.sub)?;
    let authorized = format!("{}authorized/git", world.base);

    let alice = world.driver.browser().await?;
    open_signing_in(&world, &alice, &url, ALICE).await?;
    alice.press(&format!("Continue to {GIT_NAME}")).await?;
    alice
        .wait_for_text(&format!("Authorize {GIT_NAME}"), WAIT)
        .await?;
    let consent = alice.current_url().await?;

    // The callback with a state this browser was not sent with: refused.
    alice
        .goto(&format!("{authorized}?code=forged-code&state=forged-state"))
        .await?;
    let page = alice.wait_for_text("Not connected", WAIT).await?;
    assert!(page.contains("for another authorization"), "{page}");
    // Nor can a forged denial fail the flow.
    alice
        .goto(&format!(
            "{authorized}?error=access_denied&state=forged-state"
        ))
        .await?;
    let page = alice.wait_for_text("Not connected", WAIT).await?;
    assert!(page.contains("for another authorization"), "{page}");
    assert_eq!(world.status(&url)?, FlowStatus::Opened);

    // The provider's real answer (its code, the real state), to a browser that has lost the
    // authorization cookie: refused.
    alice.goto(&world.site.url("/elicit/style.css")).await?;
    alice
        .webdriver()
        .delete_cookie(&world.cookie("authorization"))
        .await?;
    alice.goto(&consent).await?;
    alice.press("Allow").await?;
    let page = alice.wait_for_text("Not connected", WAIT).await?;
    assert!(page.contains("started no authorization"), "{page}");
    let answer = world.last("/elicit/authorized/git?")?;
    assert!(answer.uri.contains("code="), "{answer:?}");
    assert_eq!(answer.status, 403);

    // The same real answer, replayed in another browser signed in as alice: refused.
    let again = world.driver.browser().await?;
    let elsewhere = open_signing_in(&world, &again, &url, ALICE).await?;
    assert!(
        elsewhere.contains("This page is open in another browser"),
        "{elsewhere}"
    );
    again.goto(&world.site.url(&answer.uri)).await?;
    again.wait_for_text("Not connected", WAIT).await?;

    // Nothing stored; the flow still open, and alice finishes it in her browser.
    assert!(world.tokens().is_empty());
    assert_eq!(world.status(&url)?, FlowStatus::Opened);
    alice.goto(&url).await?;
    alice.press(&format!("Continue to {GIT_NAME}")).await?;
    // Allowed once already: the provider answers at once.
    alice.wait_for_text("Saved", WAIT).await?;
    assert_eq!(world.tokens().len(), 1);
    assert!(matches!(world.status(&url)?, FlowStatus::Completed(_)));
    Ok(())
}

/// The session is bound to the browser it was issued to: alice's session cookie, copied into
/// another browser (which the pages named itself), signs no one in there.
#[tokio::test]
#[ignore = "needs chromium, chromedriver and the provider's node_modules: .ci/run installs them"]
async fn alices_session_copied_into_another_browser_signs_no_one_in() -> TestResult {
    let world = World::start().await?;
    let url = world.begin("api_key", ALICE.sub)?;
    let alice = world.driver.browser().await?;
    let page = open_signing_in(&world, &alice, &url, ALICE).await?;
    assert!(page.contains("Signed in as sub-alice"), "{page}");
    let session = alice
        .cookies()
        .await?
        .into_iter()
        .find(|(name, _)| *name == world.cookie("session"))
        .map(|(_, value)| value)
        .ok_or("alice's browser holds a session")?;

    // Another browser, named by the pages (any page of theirs: here, one that is no flow),
    // given alice's session.
    let other = world.driver.browser().await?;
    other.goto(&format!("{}not-a-flow", world.base)).await?;
    other.wait_for_text("No such page", WAIT).await?;
    assert!(
        other
            .cookies()
            .await?
            .iter()
            .any(|(name, _)| *name == world.cookie("browser")),
        "the pages named the other browser"
    );
    let copied = fantoccini::cookies::Cookie::parse(format!(
        "{}={session}; Path=/elicit/; Domain={}; SameSite=Lax; HttpOnly",
        world.cookie("session"),
        world.site.addr().ip()
    ))?;
    other.webdriver().add_cookie(copied).await?;
    // A page of alice's, in it: sent to sign in, not shown.
    let second = world.begin("api_key", ALICE.sub)?;
    other.goto(&second).await?;
    assert!(
        other
            .current_url()
            .await?
            .starts_with(world.provider.issuer()),
        "not signed in there: at {}, which says\n{}",
        other.current_url().await?,
        other.text().await?
    );
    let asked = world.last(second.strip_prefix(&world.site.origin()).unwrap_or("?"))?;
    assert_eq!(asked.status, 303);
    assert_eq!(world.status(&second)?, FlowStatus::Pending);
    Ok(())
}

/// Every page links to the sign-out page, whose form signs the browser out: a POST with the
/// token that page gave this browser's session, from the pages' own origin. The same POST
/// without the token, or with it from another site, signs no one out.
#[tokio::test]
#[ignore = "needs chromium, chromedriver and the provider's node_modules: .ci/run installs them"]
async fn alice_signs_out_with_the_sign_out_form_and_a_post_without_its_token_does_nothing()
-> TestResult {
    let world = World::start().await?;
    let url = world.begin("api_key", ALICE.sub)?;
    let alice = world.driver.browser().await?;
    open_signing_in(&world, &alice, &url, ALICE).await?;
    let sign_out = format!("{}signout", world.base);
    let has_session = async |browser: &Browser| -> AnyResult<bool> {
        Ok(browser
            .cookies()
            .await?
            .iter()
            .any(|(name, _)| *name == world.cookie("session")))
    };

    // From the page itself, a POST to the sign-out without the form's token: refused.
    post_from_page(&alice, &sign_out, &[]).await?;
    let refused = alice
        .wait_for_text("This form was not sent from its page", WAIT)
        .await?;
    assert!(refused.contains("still signed in"), "{refused}");
    assert!(has_session(&alice).await?);
    alice.goto(&url).await?;
    alice
        .wait_for_text("Your Example Co. API key", WAIT)
        .await?;

    // The page's link, then the sign-out page's button.
    alice.click("p.who a").await?;
    let page = alice
        .wait_for_text("This browser is signed in to these pages as", WAIT)
        .await?;
    assert!(
        page.contains("This browser is signed in to these pages as sub-alice"),
        "{page}"
    );
    assert_eq!(alice.current_url().await?, sign_out);
    // The form's own token, posted from another site (the provider's origin): refused.
    let token = form_token(&alice).await?;
    alice
        .goto(&format!(
            "{}/.well-known/openid-configuration",
            world.provider.issuer()
        ))
        .await?;
    post_from_page(&alice, &sign_out, &[("_csrf", &token)]).await?;
    alice
        .wait_for_text("This form was sent from another site", WAIT)
        .await?;
    assert!(has_session(&alice).await?);
    alice.goto(&sign_out).await?;
    alice.press("Sign out").await?;
    let page = alice.wait_for_text("Signed out", WAIT).await?;
    assert!(page.contains("no longer signed in as sub-alice"), "{page}");
    assert!(!page.contains("Signed in as"), "{page}");
    assert!(!has_session(&alice).await?, "the session cookie is gone");
    assert_eq!(world.last("/elicit/signout")?.status, 200);
    Ok(())
}

/// A sign-in under way is bound to the browser that started it: its cookie, planted in another
/// browser with the provider's answer (as a login CSRF would, to sign the victim in as the
/// attacker), is refused there before the code is exchanged.
#[tokio::test]
#[ignore = "needs chromium, chromedriver and the provider's node_modules: .ci/run installs them"]
async fn a_sign_in_cookie_planted_in_another_browser_with_its_answer_is_refused() -> TestResult {
    let world = World::start().await?;
    let url = world.begin("api_key", BOB.sub)?;
    let bob = world.driver.browser().await?;
    open_signing_in(&world, &bob, &url, BOB).await?;
    // What bob's browser was given when it was sent to sign in, and the provider's answer.
    let sent = world
        .exchanges()
        .into_iter()
        .find(|e| e.status == 303 && e.headers.contains(&world.cookie("signin")))
        .ok_or("the pages set a sign-in cookie")?;
    let prefix = format!("set-cookie: {}=", world.cookie("signin"));
    let sign_in = sent
        .headers
        .lines()
        .find_map(|line| line.strip_prefix(&prefix))
        .and_then(|rest| rest.split(';').next())
        .ok_or("a sign-in cookie's value")?
        .to_owned();
    let answer = world.last("/elicit/signin/callback?")?;
    assert_eq!(answer.status, 303, "bob was signed in: {answer:?}");

    // Alice's browser, named by the pages, given bob's sign-in and sent to its answer.
    let alice = world.driver.browser().await?;
    alice.goto(&format!("{}not-a-flow", world.base)).await?;
    alice.wait_for_text("No such page", WAIT).await?;
    let planted = fantoccini::cookies::Cookie::parse(format!(
        "{}={sign_in}; Path=/elicit/; Domain={}; SameSite=Lax; HttpOnly",
        world.cookie("signin"),
        world.site.addr().ip()
    ))?;
    alice.webdriver().add_cookie(planted).await?;
    alice.goto(&world.site.url(&answer.uri)).await?;
    let page = alice
        .wait_for_text("You could not be signed in", WAIT)
        .await?;
    assert!(page.contains("started in another browser"), "{page}");
    assert!(
        !alice
            .cookies()
            .await?
            .iter()
            .any(|(name, _)| *name == world.cookie("session")),
        "no session in alice's browser"
    );
    Ok(())
}
