//! [`OidcSignIn`]: the pages sign the browser in with the server's OpenID provider.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::http::StatusCode;
use axum::http::header::{self, HeaderMap, HeaderValue};
use axum::http::request::Parts;
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::get;
use openidconnect::core::{CoreClient, CoreProviderMetadata, CoreResponseType};
use openidconnect::{
    AuthenticationFlow, AuthorizationCode, ClientId, ClientSecret, CsrfToken, EndpointMaybeSet,
    EndpointNotSet, EndpointSet, IssuerUrl, Nonce, PkceCodeChallenge, PkceCodeVerifier,
    RedirectUrl, Scope, TokenResponse as _,
};
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::identity::{IdentifyFuture, Identity, SignedIn};
use super::respond::{
    Browser, Cookies, OpenSession, SESSION_COOKIE, SignOut, base_path, origin_of, refusal,
    refusal_under,
};
use crate::events::{self, Check};
use crate::state::{Binding, ParamsDigest, StateKeys, UnixTime};
use crate::url_mode::{FlowStore, Flows};

/// A sign-in under way: a sealed cookie holding its `state`, nonce, PKCE verifier, the page to
/// return to and the browser that started it.
const SIGN_IN_COOKIE: &str = "signin";
/// How long a sign-in may take at the provider.
const SIGN_IN_TTL: Duration = Duration::from_secs(10 * 60);

type Client = CoreClient<
    EndpointSet,
    EndpointNotSet,
    EndpointNotSet,
    EndpointNotSet,
    EndpointMaybeSet,
    EndpointMaybeSet,
>;

/// The identity check of a server whose users sign in through an OpenID provider: the pages
/// sign the browser in with the same provider (the authorization code flow with PKCE, `state`
/// and a nonce, done by the `openidconnect` crate) and take the ID token's `sub` as the
/// principal, which the pages compare with the flow's. The spec prefers exactly this: an
/// identity "derived from credentials acquired via MCP authorization".
///
/// So the server's [`AskConfig::per_user`](crate::rmcp::AskConfig::per_user) must name its
/// users by the same `sub`: the subject of the access token its MCP authorization verified.
///
/// The browser's session is a cookie sealed with the pages' keys (AES-256-GCM-SIV), `HttpOnly`,
/// `SameSite=Lax`, for [`with_session_ttl`](OidcSignIn::with_session_ttl) (an hour by default):
/// `__Host-elicit-session` (`Secure`, `Path=/`) over TLS. It holds the principal and the browser
/// it was issued to (the digest of the name the pages' own sealed cookie gives that browser), and
/// counts in that browser only: copied into another browser, it signs no one in. Every page says
/// "Signed in as `<sub>`", with a link to `<base>signout`, whose page signs the browser out with
/// a form (a POST with a CSRF token, from the pages' own origin). Signing out ends the session
/// wherever its cookie is: its id is kept in the flows' store until it would have expired
/// ([`FlowStore::end_session`](crate::url_mode::FlowStore::end_session), as for
/// [`TokenSignIn`](super::TokenSignIn)), and every request checks it there. Register
/// `<base>signin/callback` as the client's redirect URI.
///
/// The OAuth mix-up that [`AuthorizationPage`](super::AuthorizationPage) defends against (RFC 9700
/// §4.4) does not reach the sign-in: it is the pages' one identity, its callback is its own (no
/// authorization page's redirect URI is under `signin/`), its `state` is sealed in a cookie of
/// its own, and the code that comes back is sent to the token endpoint of the one provider it
/// discovered, never to another's; the ID token's issuer, audience and nonce are verified.
#[derive(Clone)]
pub struct OidcSignIn {
    inner: Arc<Inner>,
}

struct Inner {
    issuer: String,
    client: Client,
    http: openidconnect::reqwest::Client,
    keys: StateKeys,
    path: String,
    /// `scheme://host[:port]` of the pages, for the sign-out form's `Origin` check.
    origin: String,
    cookies: Cookies,
    session_ttl: Duration,
    /// The flows' store, which keeps the sessions signed out before they expired.
    store: Arc<dyn FlowStore>,
}

impl fmt::Debug for OidcSignIn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OidcSignIn")
            .field("issuer", &self.inner.issuer)
            .field("client_id", &self.inner.client.client_id().as_str())
            .field("path", &self.inner.path)
            .finish_non_exhaustive()
    }
}

/// Why the sign-in could not be set up.
#[derive(Debug)]
#[non_exhaustive]
pub enum OidcError {
    /// The issuer or the redirect URL is not a URL.
    Url(String),
    /// The provider's discovery document could not be fetched or read.
    Discovery(String),
    /// The HTTP client could not be built.
    Http(String),
    /// No randomness for the keys.
    Keys(crate::state::KeyError),
}

impl fmt::Display for OidcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OidcError::Url(why) => write!(f, "the OpenID sign-in's URL: {why}"),
            OidcError::Discovery(why) => write!(f, "the OpenID provider's discovery: {why}"),
            OidcError::Http(why) => write!(f, "the OpenID sign-in's HTTP client: {why}"),
            OidcError::Keys(error) => fmt::Display::fmt(error, f),
        }
    }
}

impl std::error::Error for OidcError {}

impl OidcSignIn {
    /// Discovers the provider at `issuer` and signs browsers in as the client `client_id` (with
    /// `client_secret`, for a confidential client), returning to `<flows' base>signin/callback`.
    /// The cookies are sealed with keys made now: a fleet shares its own
    /// ([`with_keys`](OidcSignIn::with_keys)).
    ///
    /// # Errors
    /// [`OidcError`]: a bad URL, a provider that cannot be discovered.
    pub async fn discover(
        issuer: &str,
        client_id: impl Into<String>,
        client_secret: Option<String>,
        flows: &Flows,
    ) -> Result<Self, OidcError> {
        // No redirects: the client must not be led to fetch what the provider's documents do not
        // name (the `openidconnect` crate's own advice, against SSRF).
        let http = openidconnect::reqwest::ClientBuilder::new()
            .redirect(openidconnect::reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| OidcError::Http(e.to_string()))?;
        let issuer_url =
            IssuerUrl::new(issuer.to_owned()).map_err(|e| OidcError::Url(e.to_string()))?;
        let metadata = CoreProviderMetadata::discover_async(issuer_url, &http)
            .await
            .map_err(|e| OidcError::Discovery(error_chain(&e)))?;
        let base = flows.base().as_str();
        let redirect = RedirectUrl::new(format!("{base}signin/callback"))
            .map_err(|e| OidcError::Url(e.to_string()))?;
        let client = CoreClient::from_provider_metadata(
            metadata,
            ClientId::new(client_id.into()),
            client_secret.map(ClientSecret::new),
        )
        .set_redirect_uri(redirect);
        let path = base_path(flows);
        Ok(Self {
            inner: Arc::new(Inner {
                issuer: issuer.to_owned(),
                client,
                http,
                keys: StateKeys::generate().map_err(OidcError::Keys)?,
                path,
                origin: origin_of(flows),
                cookies: Cookies::of(flows),
                session_ttl: Duration::from_secs(60 * 60),
                store: Arc::clone(flows.store()),
            }),
        })
    }

    /// Seal the cookies with `keys`: the same on every replica that serves the pages.
    #[must_use]
    pub fn with_keys(self, keys: StateKeys) -> Self {
        self.rebuild(|inner| inner.keys = keys)
    }

    /// Keep a browser signed in for `ttl` (default an hour).
    #[must_use]
    pub fn with_session_ttl(self, ttl: Duration) -> Self {
        self.rebuild(|inner| inner.session_ttl = ttl)
    }

    fn rebuild(self, change: impl FnOnce(&mut Inner)) -> Self {
        let inner = Arc::try_unwrap(self.inner).unwrap_or_else(|shared| Inner {
            issuer: shared.issuer.clone(),
            client: shared.client.clone(),
            http: shared.http.clone(),
            keys: shared.keys.clone(),
            path: shared.path.clone(),
            origin: shared.origin.clone(),
            cookies: shared.cookies.clone(),
            session_ttl: shared.session_ttl,
            store: Arc::clone(&shared.store),
        });
        let mut inner = inner;
        change(&mut inner);
        Self {
            inner: Arc::new(inner),
        }
    }
}

/// What the sign-in cookie seals.
#[derive(Serialize, Deserialize)]
struct SignIn {
    /// The `state` sent to the provider.
    s: String,
    /// The nonce the ID token must carry.
    n: String,
    /// The PKCE verifier.
    v: String,
    /// The page to return to.
    r: String,
    /// The browser that started it ([`Browser`]'s digest).
    b: String,
}

/// What the session cookie ([`SESSION_COOKIE`]: `__Host-elicit-session` over TLS) seals.
#[derive(Serialize, Deserialize)]
struct Session {
    /// The principal (the ID token's `sub`).
    p: String,
    /// The browser it was issued to ([`Browser`]'s digest).
    b: String,
}

impl Inner {
    fn binding<'a>(&self, what: &'a str) -> Binding<'a> {
        Binding {
            principal: "",
            method: what,
            params_digest: ParamsDigest::of(&json!(self.client.client_id().as_str())),
        }
    }

    fn cookie(&self, what: &str, value: String, max_age: Duration) -> HeaderValue {
        self.cookies
            .set(what, value, Some(max_age))
            .unwrap_or_else(|| HeaderValue::from_static(""))
    }

    /// `browser`'s session: one this sign-in sealed for that browser, and no other, that was
    /// not signed out (anywhere: the flows' store keeps the sessions signed out until they
    /// would have expired). A store that cannot say is a session not taken.
    async fn session(&self, headers: &HeaderMap, browser: &Browser) -> Option<OpenSession> {
        let binding = self.binding("elicit/session");
        let now = UnixTime::now();
        let opened = self
            .cookies
            .values(headers, SESSION_COOKIE)
            .iter()
            .filter_map(|sealed| self.keys.open::<Session>(sealed, &binding, now).ok())
            .find(|opened| opened.value().b == browser.digest)?;
        OpenSession::unless_signed_out(opened, |session| session.p, self.store.as_ref(), now).await
    }

    /// The sign-out's form and its post, for this sign-in's session.
    fn sign_out(&self) -> SignOut<'_> {
        SignOut {
            path: &self.path,
            origin: &self.origin,
            keys: &self.keys,
            cookies: &self.cookies,
            method: "elicit/sign-out",
            params_digest: ParamsDigest::of(&json!(self.client.client_id().as_str())),
            ttl: self.session_ttl,
            store: self.store.as_ref(),
        }
    }

    /// Send the browser to the provider, remembering (sealed in a cookie) how to come back.
    fn sign_in(&self, return_to: &str, browser: &Browser) -> Response {
        let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
        let (url, state, nonce) = self
            .client
            .authorize_url(
                AuthenticationFlow::<CoreResponseType>::AuthorizationCode,
                CsrfToken::new_random,
                Nonce::new_random,
            )
            .add_scope(Scope::new("openid".to_owned()))
            .set_pkce_challenge(challenge)
            .url();
        let pending = SignIn {
            s: state.secret().clone(),
            n: nonce.secret().clone(),
            v: verifier.secret().clone(),
            r: return_to.to_owned(),
            b: browser.digest.clone(),
        };
        let sealed = match self.keys.seal(
            &pending,
            &self.binding("elicit/sign-in"),
            SIGN_IN_TTL,
            UnixTime::now(),
        ) {
            Ok(sealed) => sealed,
            Err(error) => return unavailable(&self.path, &error.to_string()),
        };
        let mut response = Redirect::to(url.as_str()).into_response();
        response.headers_mut().append(
            header::SET_COOKIE,
            self.cookie(SIGN_IN_COOKIE, sealed, SIGN_IN_TTL),
        );
        response
    }
}

impl Identity for OidcSignIn {
    fn identify<'a>(&'a self, request: &'a Parts) -> IdentifyFuture<'a> {
        let inner = &self.inner;
        Box::pin(async move {
            // The pages name every browser before this runs; a request without a name is a POST
            // from a browser that never opened a page.
            let Some(browser) = request.extensions.get::<Browser>() else {
                return Err(refusal(
                    StatusCode::FORBIDDEN,
                    "This browser did not open the page",
                    "Open the link your MCP client gave you in this browser first.",
                ));
            };
            if let Some(current) = inner.session(&request.headers, browser).await {
                return Ok(SignedIn::new(current.principal)
                    .with_sign_out(format!("{}signout", inner.path)));
            }
            // Only a page of ours is returned to after signing in.
            let path = request.uri.path();
            let return_to = if path.starts_with(&inner.path) && !path.contains("//") {
                path
            } else {
                inner.path.as_str()
            };
            Err(inner.sign_in(return_to, browser))
        })
    }

    fn routes(&self) -> Option<Router> {
        Some(
            Router::new()
                .route("/signin/callback", get(callback))
                .route("/signout", get(sign_out_page).post(sign_out))
                .with_state(Arc::clone(&self.inner)),
        )
    }
}

/// The provider's answer.
#[derive(Deserialize)]
struct Callback {
    code: Option<String>,
    state: Option<String>,
    error: Option<String>,
}

/// Back from the provider: the `state` must be the one this browser was sent with; the code is
/// exchanged with its PKCE verifier; the ID token's signature, issuer, audience, expiry and
/// nonce are checked; then the browser is signed in as its `sub`.
async fn callback(State(inner): State<Arc<Inner>>, parts: Parts) -> Response {
    let (headers, uri) = (&parts.headers, &parts.uri);
    let refused_by = |check: Check, why: &str| {
        events::page_refused(check, None, None, None, why);
        refusal_under(
            &inner.path,
            StatusCode::FORBIDDEN,
            "You could not be signed in",
            &format!("{why} Open the link from your MCP client again."),
        )
    };
    let refused = |why: &str| refused_by(Check::State, why);
    let sealed = inner.cookies.values(headers, SIGN_IN_COOKIE);
    if sealed.is_empty() {
        return refused("This browser started no sign-in (or it took too long).");
    }
    let (binding, now) = (inner.binding("elicit/sign-in"), UnixTime::now());
    let Some(pending) = sealed
        .iter()
        .find_map(|sealed| inner.keys.open::<SignIn>(sealed, &binding, now).ok())
    else {
        return refused("This browser's sign-in expired or was tampered with.");
    };
    let pending = pending.into_value();
    // A sign-in cookie planted in this browser (with the planter's own code and `state`) was
    // started in another browser.
    let browser = parts.extensions.get::<Browser>();
    if browser.is_none_or(|browser| browser.digest != pending.b) {
        return refused_by(
            Check::Browser,
            "This sign-in was started in another browser.",
        );
    }
    // The query read by the parser axum's own `Query` uses.
    let Ok(answer) = serde_urlencoded::from_str::<Callback>(uri.query().unwrap_or("")) else {
        return refused("The provider's answer could not be read.");
    };
    if answer.error.is_some() {
        return refused("The provider did not sign you in.");
    }
    let (Some(code), Some(state)) = (answer.code, answer.state) else {
        return refused("The provider's answer is incomplete.");
    };
    if state != pending.s {
        return refused("The provider's answer is for another sign-in.");
    }
    let exchange = match inner.client.exchange_code(AuthorizationCode::new(code)) {
        Ok(exchange) => exchange,
        Err(_) => return unavailable(&inner.path, "The provider names no token endpoint."),
    };
    let tokens = match exchange
        .set_pkce_verifier(PkceCodeVerifier::new(pending.v))
        .request_async(&inner.http)
        .await
    {
        Ok(tokens) => tokens,
        Err(_) => return refused_by(Check::Identity, "The provider refused the sign-in."),
    };
    let Some(id_token) = tokens.id_token() else {
        return refused_by(Check::Identity, "The provider sent no ID token.");
    };
    let verifier = inner.client.id_token_verifier();
    let Ok(claims) = id_token.claims(&verifier, &Nonce::new(pending.n)) else {
        return refused_by(Check::Identity, "The provider's ID token did not verify.");
    };
    let session = Session {
        p: claims.subject().as_str().to_owned(),
        b: pending.b,
    };
    let sealed = match inner.keys.seal(
        &session,
        &inner.binding("elicit/session"),
        inner.session_ttl,
        UnixTime::now(),
    ) {
        Ok(sealed) => sealed,
        Err(error) => return unavailable(&inner.path, &error.to_string()),
    };
    let mut response = Redirect::to(&pending.r).into_response();
    let cookies = response.headers_mut();
    cookies.append(
        header::SET_COOKIE,
        inner.cookie(SESSION_COOKIE, sealed, inner.session_ttl),
    );
    cookies.append(
        header::SET_COOKIE,
        inner
            .cookies
            .clear(SIGN_IN_COOKIE)
            .unwrap_or_else(|| HeaderValue::from_static("")),
    );
    response
}

/// The sign-out page every page links to: who is signed in here, and a form that signs them out.
async fn sign_out_page(State(inner): State<Arc<Inner>>, parts: Parts) -> Response {
    let Some(browser) = parts.extensions.get::<Browser>() else {
        return inner.sign_out().page(None);
    };
    let current = inner.session(&parts.headers, browser).await;
    inner
        .sign_out()
        .page(current.map(|current| (current.principal, browser)))
}

/// The sign-out form, posted: the session is ended in the flows' store until it would have
/// expired (so a copy of its cookie, anywhere, opens nothing), its cookie is cleared, and the
/// page says so.
async fn sign_out(
    State(inner): State<Arc<Inner>>,
    parts: Parts,
    body: axum::body::Bytes,
) -> Response {
    let browser = parts.extensions.get::<Browser>();
    let current = match browser {
        Some(browser) => inner.session(&parts.headers, browser).await,
        None => None,
    };
    inner
        .sign_out()
        .post(&parts, &body, current.zip(browser))
        .await
}

/// The sign-in's refusal when the server cannot sign in now, under the pages' base path `base`.
fn unavailable(base: &str, why: &str) -> Response {
    refusal_under(
        base,
        StatusCode::SERVICE_UNAVAILABLE,
        "You could not be signed in",
        why,
    )
}

fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}
