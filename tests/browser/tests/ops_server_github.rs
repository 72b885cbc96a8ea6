//! `ops_server`'s `connect_github` in a real browser, from the tool call to GitHub's token in
//! the server's vault: the server is `examples/rmcp/ops_server.rs` itself (included, not
//! copied), set up by its own `ops_server` function with its pages on `Pages::bind_loopback`
//! as its `main` does; its client is rmcp's own; the user is a headless Chromium; and GitHub is
//! played by the test OpenID provider (npm's oidc-provider, on `127.0.0.1`: another site than
//! the pages on `localhost`, as github.com is), whose endpoints and client credentials go where
//! GitHub's would.
//!
//! On both revisions: the client is asked to open the server's page (its base and a flow id);
//! the user opens it, continues to the provider, signs in there, allows the server's app, and is
//! sent back to the page, which exchanges the code and keeps the token in the vault; the tool
//! then says GitHub is connected. On 2025-11-25 the client accepts first and the tool waits for
//! the page (and the completion notification arrives); on 2026-07-28 it accepts after the page,
//! and the retry reads it. The token is in the vault, and in no byte of JSON-RPC either way, no
//! notification, no tool result and no URL the browser was on.
//!
//! Ignored unless asked for: they need chromium, chromedriver and the provider's node_modules
//! (`.ci/run` installs them).
//! `cargo test -p elicit-browser-tests --features browser --test ops_server_github -- --include-ignored`

use std::{
    error::Error,
    sync::{Arc, Mutex},
    time::Duration,
};

use elicit_browser_tests::{
    ALICE, AbortOnDrop, Asked, Browser, Chromedriver, LoopbackHttp, OidcClient, OidcProvider, Tee,
    UrlHost, type_credentials,
};
use mcp_elicit::{
    Revision,
    page::{AuthorizationPage, Pages},
    rmcp::AskingService,
    url_mode::FlowId,
};
use rmcp::{
    RoleClient, ServiceExt,
    model::{CallToolRequestParams, CallToolResult, ProtocolVersion},
    service::{ClientLifecycleMode, ClientServiceExt, RunningService, ServiceError},
};
use secrecy::ExposeSecret;
use serde_json::{Value, json};
use tokio::{sync::mpsc, task::JoinHandle};

#[allow(dead_code)] // its `main`, which serves stdio
#[path = "../../../examples/rmcp/ops_server.rs"]
mod ops_server;

use ops_server::{CONNECT_GITHUB, GithubApp, Vault, ops_server};

type TestResult<T = ()> = Result<T, Box<dyn Error>>;

/// How long the user, the page, the provider or the tool may take for one step.
const WAIT: Duration = Duration::from_secs(15);

/// The server's OAuth app at the provider ("GitHub").
const APP: &str = "ops-server";
const APP_SECRET: &str = "ops-server-client-secret";
const APP_NAME: &str = "Ops server";

// ------------------------------------------------------------------------------- the client

// ------------------------------------------------------------------------------- the server

/// `ops_server` as its `main` runs it, "GitHub" being the provider, with rmcp's client on the
/// other end of its byte stream.
struct World {
    provider: OidcProvider,
    base: String,
    client: Arc<RunningService<RoleClient, UrlHost>>,
    asked: mpsc::UnboundedReceiver<Asked>,
    notifications: Arc<Mutex<Vec<Value>>>,
    vault: Vault,
    /// Every byte the server wrote, and every byte the client wrote.
    received: Arc<Mutex<Vec<u8>>>,
    sent: Arc<Mutex<Vec<u8>>>,
    _pages: AbortOnDrop,
    _server: AbortOnDrop,
}

impl World {
    async fn start(revision: Revision) -> TestResult<Self> {
        // Bound first: the provider needs the pages' callback when it starts.
        let pages = Pages::bind_loopback("me").await?;
        let base = pages.flows().base().to_string();
        let provider = OidcProvider::builder()
            .issuer_host("127.0.0.1")
            .client(
                OidcClient::confidential(
                    APP,
                    APP_SECRET,
                    &AuthorizationPage::redirect_uri_for("github", pages.flows()),
                )
                .with("client_name", APP_NAME),
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
        let endpoint = |name: &str| {
            discovery[name]
                .as_str()
                .map(str::to_owned)
                .ok_or_else(|| format!("no {name} in the provider's discovery"))
        };
        let github = GithubApp {
            authorize_url: endpoint("authorization_endpoint")?,
            token_url: endpoint("token_endpoint")?,
            client_id: APP.into(),
            client_secret: APP_SECRET.into(),
            // oidc-provider names itself in its answers (RFC 9207), and says so.
            issuer: (discovery["authorization_response_iss_parameter_supported"] == true)
                .then(|| endpoint("issuer"))
                .transpose()?,
        };
        let vault = Vault::default();
        let (ops, pages) = ops_server(pages, Some(github), vault.clone())?;
        let pages = AbortOnDrop(tokio::spawn(async move {
            let _ = pages.serve().await;
        }));

        let (server_io, client_io) = tokio::io::duplex(1 << 16);
        let received = Arc::new(Mutex::new(Vec::new()));
        let sent = Arc::new(Mutex::new(Vec::new()));
        let (read, write) = tokio::io::split(server_io);
        let write = Tee::new(write, Arc::clone(&received));
        let server = AbortOnDrop(tokio::spawn(async move {
            if let Ok(running) = AskingService(ops).serve((read, write)).await {
                let _ = running.waiting().await;
            }
        }));
        let (host, asked) = UrlHost::new("ops-github");
        let notifications = host.notifications();
        let lifecycle = match revision {
            Revision::V2025_11_25 => ClientLifecycleMode::Initialize,
            _ => ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        };
        let (read, write) = tokio::io::split(client_io);
        let write = Tee::new(write, Arc::clone(&sent));
        let client = Arc::new(host.serve_with_lifecycle((read, write), lifecycle).await?);
        Ok(Self {
            provider,
            base,
            client,
            asked,
            notifications,
            vault,
            received,
            sent,
            _pages: pages,
            _server: server,
        })
    }

    /// Calls `connect_github`; it ends when the tool does ([`World::result`]).
    fn call(&self) -> JoinHandle<Result<CallToolResult, ServiceError>> {
        let client = Arc::clone(&self.client);
        tokio::spawn(async move {
            client
                .call_tool(CallToolRequestParams::new("connect_github"))
                .await
        })
    }

    async fn next_ask(&mut self) -> TestResult<Asked> {
        Ok(tokio::time::timeout(WAIT, self.asked.recv())
            .await
            .map_err(|_| format!("no URL request within {WAIT:?}"))?
            .ok_or("the client is gone")?)
    }

    async fn result(
        &self,
        call: JoinHandle<Result<CallToolResult, ServiceError>>,
    ) -> TestResult<(String, bool)> {
        let result = tokio::time::timeout(WAIT, call)
            .await
            .map_err(|_| format!("the tool did not finish within {WAIT:?}"))???;
        let text: Vec<&str> = result
            .content
            .iter()
            .filter_map(|content| content.as_text().map(|text| text.text.as_str()))
            .collect();
        Ok((text.join("\n"), result.is_error == Some(true)))
    }

    fn notifications(&self) -> Vec<Value> {
        self.notifications.lock().unwrap().clone()
    }

    /// The token the vault holds for the single user (`"me"`), if any.
    fn token(&self) -> Option<String> {
        let vault = self.vault.lock().unwrap();
        assert!(
            vault.keys().all(|user| user == "me"),
            "only the single user"
        );
        vault
            .get("me")
            .map(|token| token.expose_secret().to_owned())
    }

    /// Every byte of JSON-RPC, both ways, and every notification.
    fn mcp_messages(&self) -> String {
        let wire = |bytes: &Arc<Mutex<Vec<u8>>>| {
            String::from_utf8_lossy(&bytes.lock().unwrap()).into_owned()
        };
        format!(
            "{}\n{}\n{}",
            wire(&self.received),
            wire(&self.sent),
            Value::Array(self.notifications())
        )
    }
}

/// The whole path on `revision`, in `browser`.
async fn github_is_connected_through_the_page(revision: Revision, browser: &Browser) -> TestResult {
    let mut world = World::start(revision).await?;
    let call = world.call();
    let asked = world.next_ask().await?;
    assert_eq!(asked.message, CONNECT_GITHUB);
    let url = asked.url.clone();
    let id = url
        .strip_prefix(&world.base)
        .ok_or_else(|| format!("not the server's page: {url}"))?
        .to_owned();
    assert_eq!(id.len(), 32, "{url}");
    FlowId::parse(&id).map_err(|_| format!("the URL holds more than a flow id: {url}"))?;
    let asked = match revision {
        Revision::V2025_11_25 => {
            assert_eq!(asked.elicitation_id, id, "the elicitationId is the flow id");
            asked.accept();
            None
        }
        _ => {
            assert_eq!(asked.elicitation_id, "", "2026-07-28 has no elicitationId");
            Some(asked)
        }
    };

    // The server's page, then the provider: sign in, allow the server's app.
    browser.goto(&url).await?;
    let page = browser.wait_for_text("Connect GitHub", WAIT).await?;
    assert!(page.contains(CONNECT_GITHUB), "{page}");
    browser.press("Continue to GitHub").await?;
    type_credentials(browser, ALICE.username, ALICE.password, WAIT).await?;
    assert!(
        browser
            .current_url()
            .await?
            .starts_with(world.provider.issuer()),
        "at the provider"
    );
    let consent = browser
        .wait_for_text(&format!("Authorize {APP_NAME}"), WAIT)
        .await?;
    assert!(consent.contains("Signed in as alice"), "{consent}");
    assert!(
        consent.contains("asks for: repo"),
        "the setup's scope: {consent}"
    );
    browser.press("Allow").await?;
    let saved = browser.wait_for_text("Saved", WAIT).await?;
    assert!(saved.contains("The server has it now."), "{saved}");
    let back_at = browser.current_url().await?;
    assert!(
        back_at.starts_with(&format!("{}authorized/github?", world.base)),
        "{back_at}"
    );
    if let Some(asked) = asked {
        asked.accept();
    }

    let (text, is_error) = world.result(call).await?;
    // What the sink's receipt says: the scope the provider granted, never the token.
    assert_eq!(
        (text.as_str(), is_error),
        ("GitHub is connected (scopes: repo).", false)
    );
    let token = world.token().ok_or("no token in the vault")?;
    assert!(token.len() >= 16, "a token worth searching for: {token:?}");
    match revision {
        Revision::V2025_11_25 => {
            let complete = json!({
                "method": "notifications/elicitation/complete",
                "params": { "elicitationId": id },
            });
            let deadline = tokio::time::Instant::now() + WAIT;
            while world.notifications().is_empty() && tokio::time::Instant::now() < deadline {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            assert_eq!(world.notifications(), [complete]);
        }
        _ => assert_eq!(world.notifications(), Vec::<Value>::new()),
    }

    // The token is the server's alone.
    let messages = world.mcp_messages();
    assert!(messages.contains("\"jsonrpc\""), "{messages}");
    assert!(
        !messages.contains(&token),
        "the token went over MCP: {messages}"
    );
    assert!(!text.contains(&token));
    assert!(!back_at.contains(&token) && !browser.current_url().await?.contains(&token));
    assert!(!browser.html().await?.contains(&token));
    Ok(())
}

#[tokio::test]
#[ignore = "needs chromium, chromedriver and the provider's node_modules: .ci/run installs them"]
async fn on_2025_11_25_the_user_allows_the_app_and_github_is_connected() -> TestResult {
    let driver = Chromedriver::start().await?;
    let browser = driver.browser().await?;
    github_is_connected_through_the_page(Revision::V2025_11_25, &browser).await?;
    browser.close().await?;
    Ok(())
}

#[tokio::test]
#[ignore = "needs chromium, chromedriver and the provider's node_modules: .ci/run installs them"]
async fn on_2026_07_28_the_user_allows_the_app_then_accepts_and_github_is_connected() -> TestResult
{
    let driver = Chromedriver::start().await?;
    let browser = driver.browser().await?;
    github_is_connected_through_the_page(Revision::V2026_07_28, &browser).await?;
    browser.close().await?;
    Ok(())
}
