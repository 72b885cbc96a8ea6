//! npm's `oidc-provider`, run by `oidc/provider.mjs` on loopback.

use std::{
    env, fs,
    io::{BufRead, BufReader},
    path::{Path, PathBuf},
    process::{Command, Stdio},
    thread,
    time::Duration,
};

use openidconnect::IssuerUrl;
use serde_json::{Value, json};
use tempfile::TempDir;

use crate::{
    browser::Browser,
    error::{Error, Result},
    http::LoopbackHttp,
    processes::ChildGuard,
};

/// How long node may take to start the provider and answer its discovery document.
const START_TIMEOUT: Duration = Duration::from_secs(30);

/// An account at the test provider. The provider (`oidc/provider.mjs`) holds the same list;
/// `tests/smoke_oidc.rs` signs in as each, so the two cannot drift apart unnoticed.
#[derive(Clone, Copy, Debug)]
pub struct Account {
    /// What the user types in the sign-in form's `username` field.
    pub username: &'static str,
    /// What the user types in its `password` field.
    pub password: &'static str,
    /// The ID token's `sub`: what a relying party compares. Not the username, on purpose.
    pub sub: &'static str,
}

/// `alice` / `alice-password`, subject `sub-alice`.
pub const ALICE: Account = Account {
    username: "alice",
    password: "alice-password",
    sub: "sub-alice",
};

/// `bob` / `bob-password`, subject `sub-bob`.
pub const BOB: Account = Account {
    username: "bob",
    password: "bob-password",
    sub: "sub-bob",
};

/// At the provider's sign-in form: waits up to `wait` for it, types `username` and `password`
/// and presses "Sign in".
pub async fn type_credentials(
    browser: &Browser,
    username: &str,
    password: &str,
    wait: Duration,
) -> Result<()> {
    browser
        .wait_for_text("Sign in to the test provider", wait)
        .await?;
    browser.fill("username", username).await?;
    browser.fill("password", password).await?;
    browser.press("Sign in").await
}

/// A client registered at the provider when it starts: oidc-provider client metadata.
#[derive(Clone, Debug)]
pub struct OidcClient {
    metadata: serde_json::Map<String, Value>,
}

impl OidcClient {
    /// A confidential web client (`client_secret_basic`) for the authorization-code grant,
    /// with one redirect URI. The provider requires PKCE (S256) of every client.
    pub fn confidential(client_id: &str, client_secret: &str, redirect_uri: &str) -> Self {
        let Value::Object(metadata) = json!({
            "client_id": client_id,
            "client_secret": client_secret,
            "redirect_uris": [redirect_uri],
            "grant_types": ["authorization_code"],
            "response_types": ["code"],
            "token_endpoint_auth_method": "client_secret_basic",
        }) else {
            unreachable!("an object literal");
        };
        Self { metadata }
    }

    /// Another redirect URI.
    pub fn redirect_uri(mut self, redirect_uri: &str) -> Self {
        if let Some(Value::Array(uris)) = self.metadata.get_mut("redirect_uris") {
            uris.push(redirect_uri.into());
        }
        self
    }

    /// Sets any other client metadata field, e.g. `("client_name", "Example MCP server")`, or
    /// `("grant_types", ["authorization_code", "refresh_token"])` for a third party that hands
    /// out refresh tokens.
    pub fn with(mut self, field: &str, value: impl Into<Value>) -> Self {
        self.metadata.insert(field.to_owned(), value.into());
        self
    }
}

/// How to start an [`OidcProvider`].
#[derive(Clone, Debug)]
pub struct OidcProviderBuilder {
    clients: Vec<OidcClient>,
    issuer_host: String,
}

impl OidcProviderBuilder {
    /// Registers `client`.
    pub fn client(mut self, client: OidcClient) -> Self {
        self.clients.push(client);
        self
    }

    /// The issuer's host name: `localhost` (the default) or `127.0.0.1`.
    ///
    /// The provider listens on 127.0.0.1 either way. Under `localhost` it is another *site* than
    /// pages served on 127.0.0.1, as a real provider is: the redirect back from it is a
    /// cross-site navigation, which is what decides whether `SameSite=Strict` cookies are sent.
    pub fn issuer_host(mut self, host: &str) -> Self {
        self.issuer_host = host.to_owned();
        self
    }

    /// Starts the provider and waits until its discovery document answers.
    pub async fn start(self) -> Result<OidcProvider> {
        OidcProvider::start_with(self).await
    }
}

/// npm's `oidc-provider` running on 127.0.0.1, with the accounts [`ALICE`] and [`BOB`], a real
/// sign-in form that checks their passwords, and a consent page (Allow / Deny).
///
/// Its sign-in page: fields `username` and `password`, button "Sign in", the text "Sign in to
/// the test provider"; a wrong password shows "Wrong username or password." Its consent page:
/// "Authorize" and the client's `client_name` (else its id), "Signed in as" and the username,
/// buttons "Allow" and "Deny" (Deny ends in `error=access_denied` at the redirect URI).
///
/// Dropping it stops node (SIGTERM).
pub struct OidcProvider {
    issuer: String,
    log: PathBuf,
    // The guard before the directory: node stops before its log is removed.
    child: ChildGuard,
    _dir: TempDir,
}

impl OidcProvider {
    /// `OidcProvider::builder().client(…).start()`.
    pub fn builder() -> OidcProviderBuilder {
        OidcProviderBuilder {
            clients: Vec::new(),
            issuer_host: "localhost".to_owned(),
        }
    }

    /// Starts a provider with these clients and the default issuer host.
    pub async fn start(clients: impl IntoIterator<Item = OidcClient>) -> Result<Self> {
        let mut builder = Self::builder();
        builder.clients.extend(clients);
        builder.start().await
    }

    async fn start_with(options: OidcProviderBuilder) -> Result<Self> {
        let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("oidc");
        if !folder
            .join("node_modules/oidc-provider/package.json")
            .is_file()
        {
            return Err(Error::new(format!(
                "oidc-provider is not installed: run `npm ci` in {} (.ci/run does)",
                folder.display()
            )));
        }
        let node = env::var_os("NODE").unwrap_or_else(|| "node".into());
        let clients = Value::Array(
            options
                .clients
                .into_iter()
                .map(|c| Value::Object(c.metadata))
                .collect(),
        );
        let dir = tempfile::Builder::new()
            .prefix("elicit-oidc-")
            .tempdir()
            .map_err(Error::context("a temporary directory for the provider"))?;
        let log = dir.path().join("provider.log");
        let log_file = fs::File::create(&log).map_err(Error::context(log.display()))?;

        let mut child = Command::new(&node)
            .current_dir(&folder)
            .args(["provider.mjs", "--port", "0", "--issuer-host"])
            .arg(&options.issuer_host)
            .env("OIDC_CLIENTS", clients.to_string())
            // The provider stops when its stdin closes: so it dies with this process even if
            // no destructor runs.
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(log_file)
            .spawn()
            .map_err(|e| {
                Error::new(format!(
                    "starting {} provider.mjs: {e} (set $NODE to a Node.js 20.19 or later)",
                    node.to_string_lossy()
                ))
            })?;
        let stdout = child.stdout.take().expect("stdout is piped");
        let mut child = ChildGuard::new(child, Duration::from_secs(3));

        let (issuer_tx, issuer_rx) = tokio::sync::oneshot::channel();
        thread::spawn(move || {
            let mut issuer_tx = Some(issuer_tx);
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Some(issuer) = line.strip_prefix("oidc-provider ready: ")
                    && let Some(tx) = issuer_tx.take()
                {
                    let _ = tx.send(issuer.trim().to_owned());
                }
            }
        });
        let issuer = match tokio::time::timeout(START_TIMEOUT, issuer_rx).await {
            Ok(Ok(issuer)) => issuer,
            outcome => {
                let why = if outcome.is_err() {
                    format!("was not ready within {START_TIMEOUT:?}")
                } else {
                    format!("exited ({:?}) before it was ready", child.exited())
                };
                return Err(Error::new(format!(
                    "the OpenID provider {why}; its log:\n{}",
                    fs::read_to_string(&log).unwrap_or_default()
                )));
            }
        };
        let discovery = format!("{issuer}/.well-known/openid-configuration");
        LoopbackHttp::new()
            .wait_until_ready(&discovery, START_TIMEOUT, |body| {
                serde_json::from_slice::<Value>(body)
                    .is_ok_and(|doc| doc["issuer"].as_str() == Some(issuer.as_str()))
            })
            .await?;
        Ok(Self {
            issuer,
            log,
            child,
            _dir: dir,
        })
    }

    /// The issuer, `http://localhost:PORT` by default (no trailing slash).
    pub fn issuer(&self) -> &str {
        &self.issuer
    }

    /// The issuer as `openidconnect` takes it.
    pub fn issuer_url(&self) -> IssuerUrl {
        IssuerUrl::new(self.issuer.clone()).expect("the provider prints a valid URL")
    }

    /// What the provider wrote on stderr so far (its warnings and server errors).
    pub fn log(&self) -> String {
        fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Whether node is still running.
    pub fn is_running(&mut self) -> bool {
        self.child.exited().is_none()
    }
}
