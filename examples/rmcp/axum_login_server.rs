//! A streamable HTTP MCP server whose users sign in with `axum-login`: its login page signs a
//! browser in, and its MCP clients send a bearer token of the same account. Its tool takes the
//! user's API key on the server's own page (URL mode), so the key never passes through the MCP
//! client or its model.
//!
//! ```sh
//! ACCOUNTS=$'alice:a long passphrase of hers:alice-mcp-token-0123456789\nbob:and another of his:bob-mcp-token-9876543210' \
//!     cargo run -p elicit-examples --features axum-login --example axum_login_server
//! ```
//!
//! - **One function names the user** ([`signed_in`]): the account of the request's bearer token
//!   (what an MCP client sends), else the `AuthSession` that axum-login's layer puts in every
//!   request's extensions (what a browser has). `HttpPrincipal` reads it for the MCP requests
//!   (`AskConfig::per_http_user`) and binds each MCP session to it (`SessionBinding::BoundTo`);
//!   the pages' `identity_fn` reads it too, and sends whoever is not signed in to `/login` (303,
//!   `next=` the page) rather than refusing them.
//! - **The MCP endpoint takes `Authorization: Bearer <token>`** ([`bearer`], a middleware on
//!   `/mcp` only): the token's account goes in the request's extensions; a token of no account
//!   is refused (401, `WWW-Authenticate: Bearer`). An MCP client carries no browser cookie, and
//!   a browser following a link sends no `Authorization`: each side signs in its own way, and
//!   both name the same account. A request naming no one is refused (403) before it reaches rmcp.
//! - **The layers wrap everything**: axum-login's (with `tower-sessions`' memory store) wraps
//!   the MCP endpoint, the pages and the login page, so all of them see the same session.
//! - **Accounts**: a small in-memory list (`ACCOUNTS`, `name:password:token` lines; the token
//!   after the last `:`), each typed password compared with the account's by `subtle` (constant
//!   time for equal lengths: a length that differs answers sooner), a wrong name compared against
//!   a dummy so that it takes as long, and a bearer token compared with every account's.
//!   axum-login's own example hashes passwords with `password-auth` (Argon2): do that, or ask
//!   your user database, in production.
//! - Served on `http://localhost:<PORT>` (`PORT`, 3000 unless set): the session cookie is not
//!   `Secure` here; behind TLS, set it (`with_secure(true)`) and give the pages their `https`
//!   base.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::{Form, Query, Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::get;
use axum_login::tower_sessions::cookie::SameSite;
use axum_login::tower_sessions::{MemoryStore, SessionManagerLayer};
use axum_login::{AuthManagerLayerBuilder, AuthUser, AuthnBackend, UserId};
use mcp_elicit::Elicit;
use mcp_elicit::mrtr::Rounds;
use mcp_elicit::page::{
    ExposeSecret, Pages, Parts, SecretEnding, SecretString, SignedIn, SinkError, Verdict,
    identity_fn,
};
use mcp_elicit::rmcp::{
    AskConfig, Asker, AskingHttpService, AskingServer, HttpPrincipal, SessionBinding, ToolResponse,
    respond,
};
use mcp_elicit::state::MemoryReplayGuard;
use mcp_elicit::url_mode::{FlowOutcome, Flows, MemoryFlowStore};
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{ServerHandler, tool, tool_handler, tool_router};
use serde::Deserialize;
use subtle::ConstantTimeEq;

/// Your Example Co. API key
#[derive(Elicit)]
#[elicit(
    mode = "url",
    message = "Enter your Example Co. API key on our page, never in the chat.",
    receipt = SecretEnding
)]
pub struct ApiKey {
    /// Settings → API keys on example.com
    #[elicit(title = "API key", min_length = 20, max_length = 200)]
    key: SecretString,
}

/// A signed-in user, as axum-login keeps them: the name is the principal.
#[derive(Clone)]
pub struct User {
    name: String,
    /// Drawn when the account list is read: axum-login keeps it in the session and signs the
    /// session out when it changes (a real server: the password hash, so that a new password
    /// signs every old session out).
    session_key: [u8; 32],
}

impl std::fmt::Debug for User {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("User")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl AuthUser for User {
    type Id = String;

    fn id(&self) -> String {
        self.name.clone()
    }

    fn session_auth_hash(&self) -> &[u8] {
        &self.session_key
    }
}

/// An account: its user, the password its browser signs in with, the token its MCP client
/// sends.
struct Account {
    user: User,
    password: SecretString,
    token: SecretString,
}

/// The accounts, and axum-login's backend over them.
#[derive(Clone)]
pub struct Accounts(Arc<HashMap<String, Account>>);

impl Accounts {
    /// Reads `name:password:token` lines (blank lines and `#` comments skipped; the password may
    /// hold `:`, the token may not).
    ///
    /// # Errors
    /// A line without two `:`, an empty name, password or token, a name or a token given twice,
    /// by its line number; no account at all; no randomness for the session keys.
    pub fn from_lines(lines: &str) -> Result<Self, String> {
        let mut accounts = HashMap::new();
        for (number, line) in lines.lines().enumerate().map(|(at, line)| (at + 1, line)) {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let Some(((name, password), token)) = line
                .rsplit_once(':')
                .and_then(|(rest, token)| Some((rest.split_once(':')?, token)))
            else {
                return Err(format!("ACCOUNTS line {number}: not `name:password:token`"));
            };
            if name.is_empty() || password.is_empty() || token.is_empty() {
                return Err(format!(
                    "ACCOUNTS line {number}: the name, the password and the token must not be empty"
                ));
            }
            let token = SecretString::from(token.to_owned());
            if Self::find_token(accounts.values(), token.expose_secret()).is_some() {
                return Err(format!(
                    "ACCOUNTS line {number}: this token is another account's"
                ));
            }
            let mut session_key = [0; 32];
            getrandom::fill(&mut session_key)
                .map_err(|error| format!("no randomness for the session keys: {error}"))?;
            let user = User {
                name: name.to_owned(),
                session_key,
            };
            let password = SecretString::from(password.to_owned());
            let account = Account {
                user,
                password,
                token,
            };
            if accounts.insert(name.to_owned(), account).is_some() {
                return Err(format!("ACCOUNTS line {number}: `{name}` is given twice"));
            }
        }
        if accounts.is_empty() {
            return Err("ACCOUNTS names no account: give `name:password:token` lines".to_owned());
        }
        Ok(Self(Arc::new(accounts)))
    }

    /// The user whose MCP token `token` is.
    fn by_token(&self, token: &str) -> Option<User> {
        Self::find_token(self.0.values(), token)
    }

    /// Compares `token` with every account's, each in constant time (for equal lengths), and
    /// never stops at the first that matches.
    fn find_token<'a>(accounts: impl Iterator<Item = &'a Account>, token: &str) -> Option<User> {
        let mut found = None;
        for account in accounts {
            let own = account.token.expose_secret().as_bytes();
            if bool::from(own.ct_eq(token.as_bytes())) {
                found = Some(account.user.clone());
            }
        }
        found
    }
}

/// What the login form posts.
#[derive(Deserialize)]
pub struct Credentials {
    name: String,
    password: String,
    #[serde(default)]
    next: String,
}

impl AuthnBackend for Accounts {
    type User = User;
    type Credentials = Credentials;
    type Error = std::convert::Infallible;

    async fn authenticate(&self, typed: Credentials) -> Result<Option<User>, Self::Error> {
        // An unknown name is compared against a dummy, so that it takes as long as a known one.
        let dummy = SecretString::from(String::from("\0 no account has this password \0"));
        let (user, password) = match self.0.get(&typed.name) {
            Some(account) => (Some(&account.user), &account.password),
            None => (None, &dummy),
        };
        let matches: bool = password
            .expose_secret()
            .as_bytes()
            .ct_eq(typed.password.as_bytes())
            .into();
        Ok(user.filter(|_| matches).cloned())
    }

    async fn get_user(&self, name: &UserId<Self>) -> Result<Option<User>, Self::Error> {
        Ok(self.0.get(name).map(|account| account.user.clone()))
    }
}

/// axum-login's session, in each request's extensions.
type AuthSession = axum_login::AuthSession<Accounts>;

/// Who signed this request in: the one function the MCP requests, the sessions and the pages
/// name their user by. A bearer token's account ([`bearer`]), else the browser's session.
pub fn signed_in(request: &Parts) -> Option<User> {
    let by_token = request.extensions.get::<User>().cloned();
    by_token.or_else(|| request.extensions.get::<AuthSession>()?.user.clone())
}

/// The MCP endpoint's own sign-in: `Authorization: Bearer <token>` puts the token's account in
/// the request's extensions, for [`signed_in`]. A token of no account is refused (401); with no
/// `Authorization` the request goes on as it is (a browser's session may name its user).
async fn bearer(State(accounts): State<Accounts>, mut request: Request, next: Next) -> Response {
    if let Some(authorization) = request.headers().get(header::AUTHORIZATION) {
        let token = authorization
            .to_str()
            .ok()
            .and_then(|value| value.strip_prefix("Bearer "));
        let Some(user) = token.and_then(|token| accounts.by_token(token)) else {
            let challenge = [(header::WWW_AUTHENTICATE, "Bearer error=\"invalid_token\"")];
            return (StatusCode::UNAUTHORIZED, challenge).into_response();
        };
        request.extensions_mut().insert(user);
    }
    next.run(request).await
}

/// The server's secret store: here the process's memory; in production, its vault.
pub type Vault = Arc<Mutex<HashMap<String, SecretString>>>;

/// The MCP server: one tool, which sends the signed-in user to the API key page.
#[derive(Clone)]
pub struct Keys {
    asking: AskConfig,
}

impl AskingServer for Keys {
    fn asking(&self) -> &AskConfig {
        &self.asking
    }
}

#[tool_router]
impl Keys {
    #[tool(description = "Connect the user's Example Co. API key (typed on our page, never here).")]
    async fn connect_api_key(&self, mut asker: Asker) -> ToolResponse {
        respond(async {
            let text = match asker.url_page::<ApiKey>().await? {
                FlowOutcome::Completed(ending) => format!("Connected the key ending {ending}."),
                FlowOutcome::Failed(why) => format!("Not connected: {why}"),
                _ => "No key was connected: the page was declined, or not finished.".to_owned(),
            };
            Ok(CallToolResult::success(vec![ContentBlock::text(text)]))
        })
        .await
    }
}

#[tool_handler(name = "axum-login-example")]
impl ServerHandler for Keys {}

/// Keeps the key for `user`; what the tool reads back is only its last four characters.
fn keep(vault: &Vault, user: String, typed: ApiKey) -> Result<SecretEnding, SinkError> {
    let ending = SecretEnding::of(&typed.key);
    vault
        .lock()
        .map_err(|_| "the vault is unavailable")?
        .insert(user, typed.key);
    Ok(ending)
}

/// The whole app for the server at `origin` (`http://localhost:3000`, say): the MCP endpoint at
/// `/mcp` (behind [`bearer`]), the pages under `/elicit/`, the login page at `/login`, all inside
/// axum-login's layers. Also its flows (a test makes one for a user, as the tool does).
///
/// # Errors
/// `origin` is no base for the pages; no randomness for the keys.
pub fn app(
    accounts: Accounts,
    origin: &str,
    vault: Vault,
) -> Result<(Router, Flows), Box<dyn std::error::Error>> {
    let principal = HttpPrincipal::new(|request| signed_in(request).map(|user| user.name));
    let flows = Flows::new(MemoryFlowStore::new(), format!("{origin}/elicit/"))?;
    let pages = Pages::new(
        flows.clone(),
        identity_fn(|request: &Parts| match signed_in(request) {
            Some(user) => Verdict::SignedIn(SignedIn::new(user.name).with_sign_out("/logout")),
            None => Verdict::sign_in_at("/login"),
        }),
    )?
    .secret_form(move |user, typed: ApiKey| keep(&vault, user, typed));
    let rounds = Rounds::generate()?.with_replay_guard(MemoryReplayGuard::new());
    let keys = Keys {
        asking: AskConfig::per_http_user(rounds, principal.clone()).with_pages(&pages),
    };
    let mcp = AskingHttpService::new(
        move || Ok(keys.clone()),
        SessionBinding::BoundTo(principal),
        Default::default(),
    );
    let mcp = Router::new()
        .fallback_service(mcp)
        .layer(middleware::from_fn_with_state(accounts.clone(), bearer));
    // The session cookie: `HttpOnly` (tower-sessions' default), `SameSite=Lax`, and `Secure`
    // only behind TLS.
    let sessions = SessionManagerLayer::new(MemoryStore::default())
        .with_name("axum-login-example")
        .with_same_site(SameSite::Lax)
        .with_secure(origin.starts_with("https://"));
    let auth = AuthManagerLayerBuilder::new(accounts, sessions).build();
    let origin = origin.to_owned();
    let logins = Router::new()
        .route("/login", get(login_page).post(log_in))
        .route("/logout", get(logout_page).post(log_out))
        .layer(middleware::from_fn(move |request, next| {
            same_origin(origin.clone(), request, next)
        }));
    let app = Router::new()
        .nest_service("/mcp", mcp)
        .merge(pages.router())
        .merge(logins)
        .layer(auth);
    Ok((app, flows))
}

/// Refuses a `POST` to the login pages from another origin (a page elsewhere signing a browser
/// in as the attacker's account, or out): a browser sends `Origin` with every form it posts.
async fn same_origin(origin: String, request: Request, next: Next) -> Response {
    let from = request
        .headers()
        .get(header::ORIGIN)
        .map(|from| from.as_bytes());
    if request.method() == axum::http::Method::POST && from != Some(origin.as_bytes()) {
        return (
            StatusCode::FORBIDDEN,
            page(
                "Refused",
                "<p>This form is taken only from this site's own pages.</p>",
            ),
        )
            .into_response();
    }
    next.run(request).await
}

/// Where to go after signing in: a path on this site, never another site (`//evil`, `/\evil`).
fn local(next: &str) -> &str {
    // Printable ASCII only, no `\` and no `//`: a browser reads `/\evil.example`, and `/<tab>/evil.example`
    // with the tab dropped, as `//evil.example`, another site.
    let on_this_site = next.starts_with('/')
        && !next.contains("//")
        && next
            .bytes()
            .all(|byte| byte.is_ascii_graphic() && byte != b'\\');
    if on_this_site { next } else { "/" }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

fn page(title: &str, body: &str) -> Html<String> {
    Html(format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{title}</title>\
         </head><body><h1>{title}</h1>{body}</body></html>"
    ))
}

#[derive(Deserialize)]
struct LoginQuery {
    #[serde(default)]
    next: String,
}

fn login_form(next: &str, problem: &str) -> Html<String> {
    page(
        "Sign in",
        &format!(
            "{problem}<form method=\"post\" action=\"/login\">\
             <input type=\"hidden\" name=\"next\" value=\"{}\">\
             <label>Name <input name=\"name\" autocomplete=\"username\" required></label>\
             <label>Password <input name=\"password\" type=\"password\" \
             autocomplete=\"current-password\" required></label>\
             <button>Sign in</button></form>",
            escape(next)
        ),
    )
}

async fn login_page(Query(LoginQuery { next }): Query<LoginQuery>) -> Html<String> {
    login_form(&next, "")
}

async fn log_in(mut session: AuthSession, Form(typed): Form<Credentials>) -> Response {
    let next = local(&typed.next).to_owned();
    let user = match session.authenticate(typed).await {
        Ok(Some(user)) => user,
        Ok(None) => {
            let problem = "<p role=\"alert\">That name and password do not match an account.</p>";
            return (StatusCode::UNAUTHORIZED, login_form(&next, problem)).into_response();
        }
        Err(_) => return StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    };
    // `login` cycles the session's id, so an id planted before the sign-in is worth nothing.
    match session.login(&user).await {
        Ok(()) => Redirect::to(&next).into_response(),
        Err(_) => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    }
}

async fn logout_page() -> Html<String> {
    page(
        "Sign out",
        "<form method=\"post\" action=\"/logout\"><button>Sign out</button></form>",
    )
}

async fn log_out(mut session: AuthSession) -> Response {
    match session.logout().await {
        Ok(_) => Redirect::to("/login").into_response(),
        Err(_) => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let port: u16 = match std::env::var("PORT") {
        Ok(port) => port
            .parse()
            .map_err(|_| format!("PORT={port}: not a port number"))?,
        Err(_) => 3000,
    };
    let accounts = std::env::var("ACCOUNTS")
        .map_err(|_| "ACCOUNTS is not set: give `name:password:token` lines, one per account")?;
    let accounts = Accounts::from_lines(&accounts)?;
    let origin = format!("http://localhost:{port}");
    let (app, _flows) = app(accounts, &origin, Vault::default())?;
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    eprintln!("sign in on {origin}/login; MCP on {origin}/mcp");
    axum::serve(listener, app).await?;
    Ok(())
}
