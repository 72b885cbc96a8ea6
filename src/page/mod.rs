// A check that fails answers with the page that says why: its `Err` is that response, as an
// axum rejection is. Refusals are the rare path; boxing each would only add an allocation.
#![allow(clippy::result_large_err)]

// The layers, bottom first: each module imports only from the ones above its line here
// (`tests/layers.rs`).
// The HTML, escaped; why the pages could not be set up; a posted form, read into buffers wiped
// on drop.
mod error;
mod html;
mod posted;
// The refusal pages, and what is read of a request (cookies, the origin).
mod respond;
// Who opened a page; a secret the user types.
mod identity;
mod secret;
// A secret page declared as a type (`#[derive(Elicit)]`).
mod secret_form;
// The kinds that talk to a provider: a third-party authorization, an OpenID sign-in.
#[cfg(feature = "oauth")]
mod authorization;
#[cfg(feature = "oidc")]
mod oidc;
// The sign-in of a server with its own accounts and tokens.
mod token;

use std::collections::HashMap;
use std::fmt;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;

use axum::Router;
use axum::extract::{DefaultBodyLimit, Path, State};
use axum::http::header::{self, HeaderValue};
use axum::http::{Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde::{Deserialize, Serialize};
use serde_json::json;

#[cfg(feature = "oauth")]
pub use authorization::{AuthorizationPage, Token, TokenSink};
/// An HTTP request's method, URI, headers and extensions (axum's `http::request::Parts`): what
/// an identity reads.
pub use axum::http::request::Parts;
pub use error::PageError;
pub use identity::{
    IdentifyFuture, Identity, IdentityFn, SignedIn, SingleUser, Verdict, identity_fn,
};
#[cfg(feature = "oidc")]
pub use oidc::{OidcError, OidcSignIn};
/// What the user types on a page: zeroized on drop, never `Debug`-printed (`secrecy`'s); read it
/// with [`ExposeSecret::expose_secret`].
pub use secrecy::{ExposeSecret, SecretString};
pub use secret::{SecretEnding, SecretPage, SecretSink, Secrets, SinkError, SinkFuture};
pub use secret_form::{SecretForm, SecretFormSink};
pub use token::TokenSignIn;

/// Helpers for derived pages; reached through `mcp_elicit::__private`. Not public API.
#[doc(hidden)]
pub use secret_form::__private;

use respond::{
    Browser, Cookies, Place, base_path, flow_refusal, html_body, origin_of, refusal, same_origin,
    unavailable,
};

use crate::events::{self, Check, Principal, ShortFlow};
use crate::state::{Binding, ParamsDigest, StateKeys, UnixTime};
use crate::url_mode::{Claim, Flow, FlowError, FlowId, FlowStatus, Flows};

/// The cookie that names a browser to the pages ([`Cookies`]: `__Host-elicit-browser` over TLS):
/// a random name sealed with the pages' keys, so that only a name these pages issued is taken.
/// A flow is bound to the first browser that opens it (the name's digest, not the cookie, is
/// stored).
const BROWSER_COOKIE: &str = "browser";

/// How long a browser's sealed name is good for, beyond the flows' own TTL: it is sealed anew
/// (the same name) on a page shown less than a flow's TTL before it runs out, so a flow never
/// outlives the name of the browser that opened it.
const BROWSER_TTL: std::time::Duration = std::time::Duration::from_secs(7 * 24 * 60 * 60);

/// The most a page's form may post: some secrets and the token, far below axum's default.
const MAX_BODY_BYTES: usize = 64 * 1024;

/// What a page does, by its name.
enum Kind {
    /// A secret the user types.
    Secret(SecretPage, Arc<dyn SecretSink>),
    /// A third-party authorization.
    #[cfg(feature = "oauth")]
    Authorization(Arc<AuthorizationPage>, Arc<dyn TokenSink>),
}

/// The pages that finish URL flows ([`Asker::url_flow`](crate::rmcp::Asker::url_flow)),
/// served by the library: an axum [`Router`].
///
/// Every request is checked, in this order, before anything is shown or accepted:
/// 0. it names the flows' base's authority (`host[:port]`) as its `Host` (or HTTP/2
///    `:authority`): anything else is refused (421) before anything else is read. This is the
///    router's own check, so it holds however the router is served (by [`serve`](Pages::serve),
///    on a listener the server binds itself, behind a proxy): a page on another site that
///    rebinds its name to the pages' address (DNS rebinding) names its own host, and is
///    refused. A proxy in front must pass the browser's `Host` on (nginx:
///    `proxy_set_header Host $host;`);
/// 1. the flow id in the path is a flow id (anything else: not found, and the store is not
///    asked);
/// 2. the [`Identity`] names who sent it, and the flow must be theirs (else refused, nothing
///    stored, the flow left open for its owner);
/// 3. the browser, by the name its cookie holds, sealed with the pages' keys (a name they did not
///    issue is ignored, and a GET names the browser anew): the first to open a flow binds it,
///    and every other is refused;
/// 4. on a submission, the `Origin` (or, when it is absent or `null`, `Sec-Fetch-Site`) must be
///    the pages' own, and the CSRF token must be the one this page gave this browser for this
///    flow;
/// 5. the flow finishes once: a replayed submission is refused.
///
/// Every response carries `Content-Security-Policy: default-src 'none'; style-src 'self';
/// form-action 'self'; frame-ancestors 'none'; base-uri 'none'` (an authorization page's
/// `form-action` also names its provider's origin), `Cache-Control: no-store`,
/// `Referrer-Policy: no-referrer`, `X-Content-Type-Options: nosniff` and `X-Frame-Options:
/// DENY`. The pages are plain HTML forms: they work with JavaScript off. Every page says who it
/// is signed in as ([`SignedIn`]), so a browser signed in as someone else shows it.
///
/// The cookies are `__Host-elicit-<what>` (`Secure`, `Path=/`) when the flows' base is `https`,
/// and `elicit-<what>-<port>` under the base's path on plain http (loopback): see the `page`
/// guide's "The pages' cookies".
pub struct Pages {
    flows: Flows,
    identity: Arc<dyn Identity>,
    keys: Arc<StateKeys>,
    kinds: HashMap<String, Kind>,
    /// `scheme://host[:port]` of the pages, for the `Origin` check.
    origin: String,
    /// The pages' path, from the base URL: `/elicit/`.
    path: String,
    listener: Option<tokio::net::TcpListener>,
    /// How long a submission's claim holds, and so the longest a sink may take.
    claim_lease: std::time::Duration,
}

impl fmt::Debug for Pages {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Pages")
            .field("flows", &self.flows)
            .field("pages", &self.kinds.keys().collect::<Vec<_>>())
            .field("origin", &self.origin)
            .finish_non_exhaustive()
    }
}

impl Pages {
    /// The pages of `flows`, checking who opens them with `identity`, for a server that serves
    /// them itself: mount [`router`](Pages::router) in its app (beside rmcp's streamable HTTP
    /// service), under `flows`' base path. Every request must name the base's `host[:port]`,
    /// however the router is served (check 0 above). The CSRF tokens are sealed with keys made
    /// now: a fleet of replicas shares its own ([`with_keys`](Pages::with_keys)).
    ///
    /// # Errors
    /// [`PageError::Keys`] if the operating system has no randomness to give.
    pub fn new(flows: Flows, identity: impl Identity) -> Result<Self, PageError> {
        let origin = origin_of(&flows);
        let path = base_path(&flows);
        Ok(Self {
            flows,
            identity: Arc::new(identity),
            keys: Arc::new(StateKeys::generate().map_err(PageError::Keys)?),
            kinds: HashMap::new(),
            origin,
            path,
            listener: None,
            claim_lease: Flow::DEFAULT_CLAIM_LEASE,
        })
    }

    /// The pages of a local server with one user (stdio), `user` as the server names them (the
    /// name given to [`AskConfig::single_user`](crate::rmcp::AskConfig::single_user)):
    /// [`bind_loopback_with`](Pages::bind_loopback_with) with [`SingleUser::named`]`(user)`.
    ///
    /// # Errors
    /// [`PageError::EmptyPrincipal`] if `user` is empty or only white space (nothing is bound
    /// then); [`PageError::Io`] if no loopback port can be bound; [`PageError::Keys`].
    pub async fn bind_loopback(user: impl Into<String>) -> Result<Self, PageError> {
        Self::bind_loopback_with(SingleUser::named(user)?).await
    }

    /// The pages of a local server (stdio), on a listener bound now to `127.0.0.1` on a port the
    /// system picks, under `http://localhost:<port>/elicit/`; flows in memory
    /// ([`Flows::single_user`]); `identity` checks who opens them ([`SingleUser`], a
    /// [`TokenSignIn`], the server's own: [`identity_fn`]), and every request must name
    /// `localhost:<port>` as its `Host`. Serve them with [`serve`](Pages::serve) or
    /// [`serve_with`](Pages::serve_with).
    ///
    /// # Errors
    /// [`PageError::Io`] if no loopback port can be bound; [`PageError::Keys`].
    pub async fn bind_loopback_with(identity: impl Identity) -> Result<Self, PageError> {
        Self::bind_loopback_on(0, identity).await
    }

    /// [`bind_loopback_with`](Pages::bind_loopback_with) on `port` (`0`: one the system picks):
    /// for pages whose URLs must be known before the server starts, such as an authorization
    /// page's callback, which a provider wants registered.
    ///
    /// # Errors
    /// [`PageError::Io`] if the port cannot be bound (taken, or not allowed); [`PageError::Keys`].
    pub async fn bind_loopback_on(port: u16, identity: impl Identity) -> Result<Self, PageError> {
        let listener = tokio::net::TcpListener::bind((Ipv4Addr::LOCALHOST, port))
            .await
            .map_err(PageError::Io)?;
        let port = listener.local_addr().map_err(PageError::Io)?.port();
        let flows = Flows::single_user(&format!("http://localhost:{port}/elicit/"))
            .map_err(PageError::Flows)?;
        let mut pages = Self::new(flows, identity)?;
        pages.listener = Some(listener);
        Ok(pages)
    }

    /// Serve `page`, whose secrets go to `sink`; its receipts `R` are kept as JSON, and the
    /// tool reads them with [`Asker::url_flow::<R>`](crate::rmcp::Asker::url_flow).
    #[must_use]
    pub fn secret<R>(mut self, page: SecretPage, sink: impl SecretSink<R>) -> Self
    where
        R: Serialize + Send + 'static,
    {
        self.kinds.insert(
            page.name().to_owned(),
            Kind::Secret(page, Arc::new(secret::Serialized::new(sink))),
        );
        self
    }

    /// Serve the page of the type `T` ([`SecretForm`], derived), whose secrets are read as a `T`
    /// and go to `sink`, which returns `T`'s [`Receipt`](SecretForm::Receipt): what
    /// [`Asker::url_page::<T>`](crate::rmcp::Asker::url_page) reads, typed. The principal
    /// comes owned, so the closure needs no annotation but the type it takes.
    ///
    /// ```no_run
    /// use mcp_elicit::Elicit;
    /// use mcp_elicit::page::{ExposeSecret, Pages, SecretEnding, SecretString, SinkError};
    /// use serde::{Deserialize, Serialize};
    ///
    /// /// What the tool reads: never the key.
    /// #[derive(Serialize, Deserialize)]
    /// struct KeyEnding {
    ///     ending: String,
    /// }
    ///
    /// /// Your Example Co. API key
    /// #[derive(Elicit)]
    /// #[elicit(
    ///     mode = "url",
    ///     message = "Enter your Example Co. API key on our page, never in the chat.",
    ///     receipt = KeyEnding
    /// )]
    /// struct ApiKey {
    ///     #[elicit(title = "API key", min_length = 20)]
    ///     key: SecretString,
    /// }
    ///
    /// # async fn start() -> Result<(), mcp_elicit::page::PageError> {
    /// let pages = Pages::bind_loopback("me").await?.secret_form(|user, typed: ApiKey| {
    ///     let key = typed.key.expose_secret();
    ///     if !key.starts_with("ex_") {
    ///         return Err(SinkError::retry("Example Co. refused that key."));
    ///     }
    ///     # let _: String = user;
    ///     // vault.store(&user, typed.key)?;
    ///     let ending = SecretEnding::of(&typed.key).to_string();
    ///     Ok(KeyEnding { ending })
    /// });
    /// # Ok(())
    /// # }
    /// ```
    #[must_use]
    pub fn secret_form<T: SecretForm + 'static>(self, sink: impl SecretFormSink<T>) -> Self {
        self.secret(T::secret_page().clone(), secret_form::Typed::new(sink))
    }

    /// Serve `page`, whose tokens go to `sink`; its provider redirects back to the page's own
    /// [`redirect_uri`](AuthorizationPage::redirect_uri), `<flows' base>authorized/<name>`.
    /// Its receipts `R` are kept as JSON, and the tool reads them with
    /// [`Asker::url_flow::<R>`](crate::rmcp::Asker::url_flow).
    #[cfg(feature = "oauth")]
    #[must_use]
    pub fn authorization<R>(mut self, page: AuthorizationPage, sink: impl TokenSink<R>) -> Self
    where
        R: Serialize + Send + 'static,
    {
        self.kinds.insert(
            page.name().to_owned(),
            Kind::Authorization(
                Arc::new(page),
                Arc::new(authorization::SerializedToken::new(sink)),
            ),
        );
        self
    }

    /// Seal the CSRF tokens and the browsers' cookies with `keys`: the same on every replica that
    /// serves the pages (a browser named by one replica is then known to all).
    #[must_use]
    pub fn with_keys(mut self, keys: StateKeys) -> Self {
        self.keys = Arc::new(keys);
        self
    }

    /// Flows live `ttl` from when they are asked, and the pages' CSRF tokens as long from when
    /// they are shown (default [`Flow::DEFAULT_TTL`]): what [`Flows::with_ttl`] sets for pages
    /// made by [`new`](Pages::new), for pages made by [`bind_loopback`](Pages::bind_loopback).
    /// Set it before giving [`flows`](Pages::flows) to the server's `AskConfig`, whose asker
    /// stamps each flow's expiry.
    #[must_use]
    pub fn with_flow_ttl(mut self, ttl: std::time::Duration) -> Self {
        self.flows = self.flows.with_ttl(ttl);
        self
    }

    /// How long a submission's claim on its flow holds (default
    /// [`Flow::DEFAULT_CLAIM_LEASE`], 60 s), and so the longest a sink may take: a sink is given
    /// up (its future dropped) one second before its claim runs out, the flow fails with "did
    /// not finish saving this in time", and the page says so. The claim is stamped in the
    /// store's whole seconds, so a sink gets between `lease - 2 s` and `lease - 1 s`. While the
    /// claim holds no other submission of the same form, on any replica, reaches a sink; set
    /// it above your sink's own timeouts (a vault's write, an OAuth code exchange).
    ///
    /// # Errors
    /// [`PageError::ClaimLease`] for a lease under two seconds (flows count whole seconds, and
    /// the page keeps the last one to record how the sink ended).
    pub fn with_claim_lease(mut self, lease: std::time::Duration) -> Result<Self, PageError> {
        if lease < 2 * FINISH_RESERVE {
            return Err(PageError::ClaimLease { lease });
        }
        self.claim_lease = lease;
        Ok(self)
    }

    /// The flows these pages finish. The server's `AskConfig` takes them from the pages
    /// ([`AskConfig::with_pages`](crate::rmcp::AskConfig::with_pages)).
    #[must_use]
    pub fn flows(&self) -> &Flows {
        &self.flows
    }

    /// The pages as a router with the paths of the flows' base (`/elicit/{flow}` and its style
    /// sheet), and the identity's own routes nested under it ([`Identity::routes`]).
    pub fn router(self) -> Router {
        self.split().0
    }

    fn split(self) -> (Router, Option<tokio::net::TcpListener>) {
        let identity_routes = self.identity.routes();
        let path = self.path.clone();
        let host = HostCheck::of(&self.flows);
        let cookies = Cookies::of(&self.flows);
        let browser_digest = ParamsDigest::of(&json!(self.path));
        let place = Arc::new(Place {
            path: self.path.clone(),
            origin: self.origin.clone(),
            cookies: cookies.clone(),
            keys: Arc::clone(&self.keys),
            flows: self.flows.clone(),
        });
        let shared = Arc::new(Shared {
            place,
            cookies,
            browser_digest,
            flows: self.flows,
            identity: self.identity,
            keys: self.keys,
            kinds: self.kinds,
            host,
            origin: self.origin,
            path: self.path,
            claim_lease: self.claim_lease,
        });
        let router = Router::new()
            .route(&format!("{path}style.css"), get(style))
            .route(&format!("{path}{{flow}}"), get(show).post(submit));
        #[cfg(feature = "oauth")]
        let router = router.route(
            &format!("{path}{}/{{page}}", authorization::REDIRECT_SEGMENT),
            get(authorized),
        );
        let mut router = router.with_state(shared.clone());
        if let Some(routes) = identity_routes {
            // Under the pages' base: `/signin` is served at `<base>signin`.
            router = match path.trim_end_matches('/') {
                "" => router.merge(routes),
                base => router.nest(base, routes),
            };
        }
        let router = router
            .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
            .layer(axum::middleware::from_fn_with_state(
                Arc::clone(&shared),
                browser,
            ))
            .layer(axum::middleware::map_request_with_state(shared, check_host))
            .layer(axum::middleware::map_response(secure));
        (router, self.listener)
    }

    /// Serve pages bound by [`bind_loopback`](Pages::bind_loopback) until the process ends:
    /// spawn it beside the stdio server.
    ///
    /// # Errors
    /// [`PageError::NotBound`] for pages made by [`new`](Pages::new); [`PageError::Io`] if the
    /// listener fails.
    pub async fn serve(self) -> Result<(), PageError> {
        self.serve_with(|router| router).await
    }

    /// [`serve`](Pages::serve), through the app's own layers: `layers` wraps the pages' router
    /// (`|router| router.layer(auth_layer)`), so what the app's middleware puts in a request's
    /// extensions (a session, a user) is there for the identity. The pages' own checks (the
    /// `Host`, the browser, the identity) still run on every request, inside those layers.
    ///
    /// ```no_run
    /// use mcp_elicit::page::{Pages, SingleUser};
    ///
    /// # async fn start() -> Result<(), mcp_elicit::page::PageError> {
    /// let pages = Pages::bind_loopback_with(SingleUser::named("me")?).await?;
    /// tokio::spawn(pages.serve_with(|router| router /* .layer(your_auth_layer) */));
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    /// As [`serve`](Pages::serve).
    pub async fn serve_with(self, layers: impl FnOnce(Router) -> Router) -> Result<(), PageError> {
        let (router, listener) = self.split();
        let router = layers(router);
        let listener = listener.ok_or(PageError::NotBound)?;
        axum::serve(
            listener,
            router.into_make_service_with_connect_info::<SocketAddr>(),
        )
        .await
        .map_err(PageError::Io)
    }
}

/// What every handler shares.
struct Shared {
    /// Where the pages are, for the identity's own routes ([`Place`]).
    place: Arc<Place>,
    cookies: Cookies,
    /// What a browser's cookie is bound to besides its purpose: the pages' path (hashed once).
    browser_digest: ParamsDigest,
    flows: Flows,
    identity: Arc<dyn Identity>,
    keys: Arc<StateKeys>,
    kinds: HashMap<String, Kind>,
    origin: String,
    path: String,
    host: HostCheck,
    claim_lease: std::time::Duration,
}

/// The claims of a CSRF token, sealed (AES-256-GCM-SIV) and bound to the principal and flow.
#[derive(Serialize, Deserialize)]
struct CsrfClaims {
    /// The flow.
    f: String,
    /// The browser's digest.
    b: String,
}

/// The headers of every response.
async fn secure(mut response: Response) -> Response {
    let headers = response.headers_mut();
    // A page whose form goes on to a provider set its own (`form_action`); every other, this.
    if !headers.contains_key(header::CONTENT_SECURITY_POLICY) {
        headers.insert(header::CONTENT_SECURITY_POLICY, csp(None));
    }
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    response
}

/// The pages' Content-Security-Policy: nothing but their own style sheet, no frame, forms to
/// themselves only, and (`provider`) to the origin a form's redirect continues to. Chromium holds
/// the redirects that follow a form's submission to `form-action` too, so a form that sends the
/// browser on to a provider must name the provider's origin.
fn csp(provider: Option<&str>) -> HeaderValue {
    let policy = format!(
        "default-src 'none'; style-src 'self'; form-action 'self'{}; frame-ancestors 'none'; \
         base-uri 'none'",
        provider
            .map(|origin| format!(" {origin}"))
            .unwrap_or_default()
    );
    HeaderValue::from_str(&policy).unwrap_or_else(|_| {
        HeaderValue::from_static(
            "default-src 'none'; style-src 'self'; form-action 'self'; frame-ancestors 'none'; \
             base-uri 'none'",
        )
    })
}

/// The authority every request to the pages must name: the flows' base URL's (`host[:port]`).
///
/// A browser names the host it looked up in `Host` (or, over HTTP/2, `:authority`), whatever
/// address the name resolved to. A page on another site that rebinds its own name to the
/// pages' address (DNS rebinding: `127.0.0.1` for a stdio server's pages, a private address for
/// an intranet's) has its requests name that other site, and they are refused. The check is the
/// router's own, so it holds however the router is served: [`Pages::serve`], a listener the
/// server binds itself, or behind a proxy that passes the browser's `Host` on.
struct HostCheck {
    /// The base's host, as its URL writes it (an IPv6 literal in brackets).
    host: String,
    /// The base's port, the scheme's default when it names none.
    port: u16,
    /// The default port of the base's scheme: a request that names no port names it.
    default_port: u16,
}

impl HostCheck {
    fn of(flows: &Flows) -> Self {
        let base = flows.base();
        let default = if base.scheme() == "https" { 443 } else { 80 };
        Self {
            host: base.host().to_owned(),
            port: base.port().unwrap_or(default),
            default_port: default,
        }
    }

    /// Whether `request` names the pages' authority: its URI's authority when it has one (the
    /// absolute form, HTTP/2's `:authority`, which HTTP/1.1 says wins over `Host`), else its
    /// `Host`, read by `http`'s own authority parser. Host names compare without case; an
    /// absent port is the scheme's default.
    fn admits(&self, request: &axum::extract::Request) -> bool {
        let named = match request.uri().authority() {
            Some(authority) => Some(authority.clone()),
            None => request
                .headers()
                .get(header::HOST)
                .and_then(|host| axum::http::uri::Authority::try_from(host.as_bytes()).ok()),
        };
        named.is_some_and(|named| {
            named.host().eq_ignore_ascii_case(&self.host)
                && named.port_u16().unwrap_or(self.default_port) == self.port
        })
    }
}

/// Every request names the pages' own host ([`HostCheck`]), or is refused before anything else
/// is read of it.
async fn check_host(
    State(shared): State<Arc<Shared>>,
    request: axum::extract::Request,
) -> Result<axum::extract::Request, Response> {
    if shared.host.admits(&request) {
        Ok(request)
    } else {
        events::page_refused(
            Check::Host,
            None,
            None,
            None,
            "the request named another host than the pages'",
        );
        Err(refusal(
            StatusCode::MISDIRECTED_REQUEST,
            "This page is not served under that name",
            "The request named another host than the one the server sent you to.",
        ))
    }
}

/// The browser's sealed name, opened before any handler runs ([`Browser`], in the request's
/// extensions), and every page of the request told who is signed in ([`html::scope`]). A GET
/// from a browser without a name these pages sealed (none, or one they never issued) is given a
/// new one; a name that would run out before a flow opened now is sealed anew.
async fn browser(
    State(shared): State<Arc<Shared>>,
    mut request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    request.extensions_mut().insert(Arc::clone(&shared.place));
    let now = UnixTime::now();
    let binding = shared.browser_binding();
    let opened = shared
        .cookies
        .values(request.headers(), BROWSER_COOKIE)
        .iter()
        .find_map(|sealed| shared.keys.open::<BrowserName>(sealed, &binding, now).ok());
    let (name, seal) = match opened {
        Some(opened) => {
            let runs_out = opened.expires_at().as_secs();
            let name = opened.into_value().n;
            let renew = runs_out < now.as_secs().saturating_add(shared.flows.ttl().as_secs());
            (Some(name), renew)
        }
        None if request.method() == Method::GET || request.method() == Method::HEAD => {
            match random_token() {
                Ok(name) => (Some(name), true),
                Err(error) => return unavailable(&error),
            }
        }
        None => (None, false),
    };
    let Some(name) = name else {
        return html::scope(next.run(request)).await;
    };
    // Sealed before the request is served, so that nothing is done for a browser that would not
    // be told its name.
    let cookie = if seal {
        let sealed = shared.keys.seal(
            &BrowserName { n: name.clone() },
            &binding,
            BROWSER_TTL.saturating_add(shared.flows.ttl()),
            now,
        );
        match sealed
            .ok()
            .and_then(|sealed| shared.cookies.set(BROWSER_COOKIE, sealed, None))
        {
            Some(cookie) => Some(cookie),
            None => return unavailable(&"the browser's cookie could not be sealed"),
        }
    } else {
        None
    };
    request.extensions_mut().insert(Browser {
        digest: browser_digest(&name),
    });
    let mut response = html::scope(next.run(request)).await;
    if let Some(cookie) = cookie {
        response.headers_mut().append(header::SET_COOKIE, cookie);
    }
    response
}

/// What a browser's cookie seals: its random name (256 bits, as 64 hex digits).
#[derive(Serialize, Deserialize)]
struct BrowserName {
    n: String,
}

async fn style() -> Response {
    (
        [(header::CONTENT_TYPE, "text/css; charset=utf-8")],
        html::STYLE,
    )
        .into_response()
}

/// Who asks, in which browser, for which flow: established before anything is shown.
struct Visit {
    id: FlowId,
    principal: String,
    /// The browser's digest ([`Browser`]).
    browser: String,
}

impl Shared {
    /// Steps 1–3 of the checks ([`Pages`]): the flow id, the identity, the browser.
    async fn visit(&self, flow: &str, parts: &Parts) -> Result<Visit, Response> {
        let Ok(id) = FlowId::parse(flow) else {
            events::page_refused(Check::Flow, None, None, None, "not a flow id");
            return Err(flow_refusal(&FlowError::Unknown));
        };
        let principal = self.identify(parts).await?;
        let Some(Browser { digest: browser }) = parts.extensions.get::<Browser>().cloned() else {
            events::page_refused(
                Check::Browser,
                Some(&id),
                None,
                Some(&principal),
                "this browser was never named by the pages",
            );
            return Err(refusal(
                StatusCode::FORBIDDEN,
                "This browser did not open the page",
                "Open the link your MCP client gave you in this browser first.",
            ));
        };
        Ok(Visit {
            id,
            principal,
            browser,
        })
    }

    /// The identity's principal for `parts`; from now on every page of this request says who is
    /// signed in.
    async fn identify(&self, parts: &Parts) -> Result<String, Response> {
        let who = match self.identity.identify(parts).await {
            Ok(who) => who,
            Err(refused) => {
                if refused.status().is_redirection() {
                    tracing::info!(target: events::PAGE, "sign-in required: sent to sign in");
                } else {
                    events::page_refused(
                        Check::Identity,
                        None,
                        None,
                        None,
                        "the identity named no one",
                    );
                }
                return Err(refused);
            }
        };
        // An empty principal is no one, whichever identity said it (a hand-written one, a
        // provider's claim): never a user whose flows could be opened.
        if Flow::names_no_one(&who.principal) {
            events::page_refused(
                Check::Identity,
                None,
                None,
                None,
                "the identity named an empty principal",
            );
            return Err(identity::named_no_one());
        }
        html::signed_in(&who.name, who.sign_out.as_deref());
        Ok(who.principal)
    }

    fn browser_binding(&self) -> Binding<'static> {
        Binding {
            principal: "",
            method: "elicit/browser",
            params_digest: self.browser_digest,
        }
    }

    fn page_of(&self, flow: &Flow) -> Result<&Kind, Response> {
        self.kinds.get(flow.page()).ok_or_else(|| {
            refusal(
                StatusCode::INTERNAL_SERVER_ERROR,
                "This page is not served here",
                "The server asked for a page it does not serve. Tell its operator.",
            )
        })
    }

    fn csrf_binding<'a>(&self, principal: &'a str, id: &FlowId) -> Binding<'a> {
        Binding {
            principal,
            method: "elicit/page",
            params_digest: ParamsDigest::of(&json!(id.to_string())),
        }
    }

    fn token(&self, visit: &Visit) -> Result<String, Response> {
        let claims = CsrfClaims {
            f: visit.id.to_string(),
            b: visit.browser.clone(),
        };
        self.keys
            .seal(
                &claims,
                &self.csrf_binding(&visit.principal, &visit.id),
                self.flows.ttl(),
                UnixTime::now(),
            )
            .map_err(|e| unavailable(&e))
    }

    fn form(
        &self,
        visit: &Visit,
        flow: &Flow,
        errors: &[(String, secret::Refused)],
    ) -> Result<String, Response> {
        self.form_noting(visit, flow, errors, None)
    }

    /// The page's form, with `notice` (a sink's [`SinkError::retry`] message, escaped) above
    /// it.
    fn form_noting(
        &self,
        visit: &Visit,
        flow: &Flow,
        errors: &[(String, secret::Refused)],
        notice: Option<&str>,
    ) -> Result<String, Response> {
        let kind = self.page_of(flow)?;
        let token = self.token(visit)?;
        let mut message = if flow.message().is_empty() {
            String::new()
        } else {
            format!(
                "<p class=\"message\">{}</p>\n",
                html::escape(flow.message())
            )
        };
        if let Some(notice) = notice {
            message.push_str(&format!(
                "<p class=\"error\" role=\"alert\">{}</p>\n",
                html::escape(notice)
            ));
        }
        let (title, fields, button) = match kind {
            Kind::Secret(page, _) => (
                page.title().to_owned(),
                page.render_fields(errors),
                "Save".to_owned(),
            ),
            #[cfg(feature = "oauth")]
            Kind::Authorization(page, _) => (
                format!("Connect {}", page.provider()),
                format!(
                    "<p>You will sign in at {provider} and allow this server to act for you \
                     there. {provider} gives the server a token: your MCP client and its model \
                     never see it.</p>\n",
                    provider = html::escape(page.provider())
                ),
                format!("Continue to {}", page.provider()),
            ),
        };
        let body = format!(
            "{message}<form method=\"post\" action=\"{action}\" autocomplete=\"off\">\n\
             <input type=\"hidden\" name=\"{csrf}\" value=\"{token}\">\n{fields}\
             <button type=\"submit\">{button}</button>\n</form>",
            action = html::escape(&format!("{}{}", self.path, visit.id)),
            csrf = secret::CSRF_FIELD,
            token = html::escape(&token),
            button = html::escape(&button),
        );
        Ok(html::page(&self.path, "form", &title, &body))
    }
}

async fn show(
    State(shared): State<Arc<Shared>>,
    Path(flow): Path<String>,
    parts: Parts,
) -> Response {
    let visit = match shared.visit(&flow, &parts).await {
        Ok(visit) => visit,
        Err(refused) => return refused,
    };
    let opened = shared
        .flows
        .store()
        .open(&visit.id, &visit.principal, &visit.browser, UnixTime::now())
        .await;
    let flow = match opened {
        Ok(flow) => flow,
        Err(error) => return refused_flow(&shared, &error, &visit).await,
    };
    tracing::info!(
        target: events::FLOW,
        flow = %ShortFlow(&visit.id),
        page = flow.page(),
        principal = %Principal(Some(&visit.principal)),
        "opened"
    );
    let html = match shared.form(&visit, &flow, &[]) {
        Ok(html) => html,
        Err(refused) => return refused,
    };
    #[cfg_attr(not(feature = "oauth"), allow(unused_mut))]
    let mut response = html_body(html).into_response();
    #[cfg(feature = "oauth")]
    if let Ok(Kind::Authorization(page, _)) = shared.page_of(&flow) {
        // Its form's redirect goes on to the provider.
        response.headers_mut().insert(
            header::CONTENT_SECURITY_POLICY,
            csp(page.origin().as_deref()),
        );
    }
    response
}

async fn submit(
    State(shared): State<Arc<Shared>>,
    Path(flow): Path<String>,
    parts: Parts,
    body: axum::body::Body,
) -> Response {
    if let Err(refused) = same_origin(&parts, &shared.origin) {
        let id = FlowId::parse(&flow).ok();
        events::page_refused(
            Check::Origin,
            id.as_ref(),
            None,
            None,
            "a form posted from another site",
        );
        return refused;
    }
    let visit = match shared.visit(&flow, &parts).await {
        Ok(visit) => visit,
        Err(refused) => return refused,
    };
    // What the user typed, from the body on, only ever in buffers wiped on drop.
    let submitted = match posted::read_body(body, MAX_BODY_BYTES)
        .await
        .and_then(|body| posted::fields(&body))
    {
        Ok(submitted) => submitted,
        Err(posted::NotRead::TooLong) => {
            return refusal(
                StatusCode::PAYLOAD_TOO_LARGE,
                "The form is too long",
                "The page's form takes far less than was sent.",
            );
        }
        Err(_) => {
            return refusal(
                StatusCode::BAD_REQUEST,
                "The form could not be read",
                "The page's form was not sent as a form.",
            );
        }
    };
    // The token this page gave this browser for this flow and this user, and no other.
    let token = submitted
        .iter()
        .find(|(name, _)| name == secret::CSRF_FIELD)
        .map(|(_, token)| token.as_str());
    let claims = token.and_then(|token| {
        shared
            .keys
            .open::<CsrfClaims>(
                token,
                &shared.csrf_binding(&visit.principal, &visit.id),
                UnixTime::now(),
            )
            .ok()
    });
    let browser = visit.browser.clone();
    let valid = claims.is_some_and(|claims| {
        let claims = claims.into_value();
        claims.f == visit.id.to_string() && claims.b == browser
    });
    if !valid {
        // A token lives as long as a flow, from when the page was shown: a form saved after
        // its flow expired (or was abandoned) carries a dead token too. Its owner is told why
        // the step is over, by the rules a store opens a flow by (`Flow::opened`: the owner
        // first, then the status), not that the form was forged; anyone else learns nothing.
        let now = UnixTime::now();
        if let Ok(flow) = shared.flows.store().get(&visit.id, now).await
            && let Err(over @ (FlowError::Expired | FlowError::Abandoned(_))) =
                flow.opened(&visit.principal, &browser, now)
        {
            return refused_flow(&shared, &over, &visit).await;
        }
        events::page_refused(
            Check::Csrf,
            Some(&visit.id),
            None,
            Some(&visit.principal),
            "the form's token is not this page's, browser's and user's",
        );
        return refusal(
            StatusCode::FORBIDDEN,
            "This form was not sent from its page",
            "The form's token does not match this page, this browser and this user.",
        );
    }
    // Still open, by this user, in this browser.
    let flow = match shared
        .flows
        .store()
        .open(&visit.id, &visit.principal, &browser, UnixTime::now())
        .await
    {
        Ok(flow) => flow,
        Err(error) => return refused_flow(&shared, &error, &visit).await,
    };
    let (page, sink) = match shared.page_of(&flow) {
        Ok(Kind::Secret(page, sink)) => (page, sink),
        #[cfg(feature = "oauth")]
        Ok(Kind::Authorization(page, _)) => {
            return to_provider(&shared, &visit, &browser, page);
        }
        Err(refused) => return refused,
    };
    let secrets = match page.read(submitted) {
        Ok(secrets) => secrets,
        Err(errors) => {
            return match shared.form(&visit, &flow, &errors) {
                Ok(html) => (StatusCode::UNPROCESSABLE_ENTITY, html_body(html)).into_response(),
                Err(refused) => refused,
            };
        }
    };
    finish(&shared, &visit.id, &visit.principal, &browser, async {
        sink.store(visit.principal.clone(), secrets).await
    })
    .await
}

/// Hands a flow's result to its sink (`store`) and finishes the flow with what the sink says:
/// only under the flow's claim ([`FlowStore::claim`](crate::url_mode::FlowStore::claim)), which
/// one submission wins on whichever replica it arrives, so a sink sees a flow's secret once.
///
/// The sink's deadline is the claim's own end ([`Claim::until`], as the store wrote it), less
/// [`FINISH_RESERVE`]: one instant on one clock, so no second submission can claim the flow
/// while this sink still runs. Past the deadline the sink is given up and the flow fails, under
/// the claim (which only the claim may do: a finish after it ran out is refused).
async fn finish(
    shared: &Shared,
    id: &FlowId,
    principal: &str,
    browser: &str,
    store: impl std::future::Future<Output = Result<serde_json::Value, SinkError>>,
) -> Response {
    let claim = match shared
        .flows
        .store()
        .claim(id, principal, browser, shared.claim_lease, UnixTime::now())
        .await
    {
        Ok(claim) => claim,
        Err(error) => {
            events::page_refused(
                Check::Flow,
                Some(id),
                None,
                Some(principal),
                &error.to_string(),
            );
            return flow_refusal(&error);
        }
    };
    let Ok(stored) = tokio::time::timeout_at(sink_deadline(&claim), store).await else {
        return too_slow(shared, &claim).await;
    };
    let stored = match stored {
        Err(error) if error.is_retry() && claim.number() <= SinkError::MAX_RETRIES => {
            return ask_again(shared, &claim, principal, browser, &error).await;
        }
        stored => stored.map_err(SinkError::into_message),
    };
    let sink_took_it = stored.is_ok();
    let finished = shared
        .flows
        .store()
        .finish(&claim, stored, UnixTime::now())
        .await;
    match finished {
        Ok(flow) => {
            let how = match flow.status() {
                FlowStatus::Completed(_) => "finished: completed",
                _ => "finished: failed",
            };
            tracing::info!(target: events::FLOW, flow = %ShortFlow(id), page = flow.page(), "{how}");
            finished_page(shared, &flow)
        }
        // The call was given up while the sink stored: the refusal's "nothing was stored" would
        // be untrue.
        Err(FlowError::Abandoned(why)) if sink_took_it => {
            let body = "<p>The request for this page ended while this was being saved: the \
                        server may keep it, but the tool that asked will not read it. Go back \
                        to your MCP client and ask again.</p>";
            (
                StatusCode::GONE,
                html_body(html::page(
                    &shared.path,
                    "refused",
                    respond::abandoned_heading(why),
                    body,
                )),
            )
                .into_response()
        }
        Err(error) => flow_refusal(&error),
    }
}

/// The sink asked the user to try again ([`SinkError::retry`]): the claim is released (the flow
/// stays open, and nobody waiting is woken), and the page is shown again with the sink's
/// message. Nothing is stored.
async fn ask_again(
    shared: &Shared,
    claim: &Claim,
    principal: &str,
    browser: &str,
    error: &SinkError,
) -> Response {
    let flow = match shared.flows.store().release(claim, UnixTime::now()).await {
        Ok(flow) => flow,
        Err(error) => return flow_refusal(&error),
    };
    tracing::info!(
        target: events::FLOW,
        flow = %ShortFlow(&claim.id()),
        page = flow.page(),
        submission = claim.number(),
        "the sink asked again"
    );
    let visit = Visit {
        id: claim.id(),
        principal: principal.to_owned(),
        browser: browser.to_owned(),
    };
    match shared.form_noting(&visit, &flow, &[], Some(error.message())) {
        Ok(html) => {
            #[cfg_attr(not(feature = "oauth"), allow(unused_mut))]
            let mut response = (StatusCode::UNPROCESSABLE_ENTITY, html_body(html)).into_response();
            #[cfg(feature = "oauth")]
            if let Ok(Kind::Authorization(page, _)) = shared.page_of(&flow) {
                response.headers_mut().insert(
                    header::CONTENT_SECURITY_POLICY,
                    csp(page.origin().as_deref()),
                );
            }
            response
        }
        Err(refused) => refused,
    }
}

/// How long before its claim runs out a sink is given up: time to record its end under the
/// claim, and room for replicas' clocks that differ by less (NTP keeps them within
/// milliseconds). The claim lease is at least twice this ([`Pages::with_claim_lease`]).
const FINISH_RESERVE: std::time::Duration = std::time::Duration::from_secs(1);

/// The instant, on this replica's clocks, [`FINISH_RESERVE`] before `claim` runs out: the
/// claim's end as the store wrote it (whole seconds of the wall clock its `now` was read from),
/// taken to tokio's clock, which the sink's timeout runs on.
fn sink_deadline(claim: &Claim) -> tokio::time::Instant {
    let until = std::time::UNIX_EPOCH + std::time::Duration::from_secs(claim.until().as_secs());
    let left = until
        .duration_since(std::time::SystemTime::now())
        .unwrap_or_default();
    tokio::time::Instant::now() + left.saturating_sub(FINISH_RESERVE)
}

/// The sink did not finish within the claim: the flow fails (the tool reads why), and the user is
/// told that the server may have kept part of what they sent, and to ask again.
async fn too_slow(shared: &Shared, claim: &Claim) -> Response {
    let why = "The server did not finish saving this in time.".to_owned();
    tracing::warn!(
        target: events::FLOW,
        flow = %ShortFlow(&claim.id()),
        "finished: failed, the sink did not finish within the claim"
    );
    // Whatever the store says, the page tells the user the same: nothing more is read from it.
    let _ = shared
        .flows
        .store()
        .finish(claim, Err(why.clone()), UnixTime::now())
        .await;
    let body = format!(
        "<p>{} It may have kept part of it, but the tool that asked will not use it. Go back \
         to your MCP client and ask again.</p>",
        html::escape(&why)
    );
    (
        StatusCode::GATEWAY_TIMEOUT,
        html_body(html::page(
            &shared.path,
            "refused",
            "Not saved in time",
            &body,
        )),
    )
        .into_response()
}

fn finished_page(shared: &Shared, flow: &Flow) -> Response {
    let (class, heading, text) = match flow.status() {
        FlowStatus::Completed(_) => (
            "done",
            "Saved",
            "The server has it now. You can close this tab and go back to your MCP client."
                .to_owned(),
        ),
        FlowStatus::Failed(why) => (
            "refused",
            "Not saved",
            format!("{why} Go back to your MCP client and ask again."),
        ),
        // Not what `finish` returns (an abandoned flow refuses to finish), but legible if asked.
        FlowStatus::Abandoned(why) => (
            "refused",
            "Not saved",
            respond::sentence(&FlowError::Abandoned(*why).to_string()),
        ),
        _ => (
            "refused",
            "Not saved",
            "The step did not finish.".to_owned(),
        ),
    };
    let body = format!("<p>{}</p>", html::escape(&text));
    html_body(html::page(&shared.path, class, heading, &body)).into_response()
}

/// The sealed cookie of a third-party authorization under way ([`Cookies`]).
#[cfg(feature = "oauth")]
const AUTHORIZATION_COOKIE: &str = "authorization";

/// What the authorization cookie seals: the flow, the browser, and what comes back from the
/// provider.
#[cfg(feature = "oauth")]
#[derive(Serialize, Deserialize)]
struct Authorizing {
    f: String,
    b: String,
    #[serde(flatten)]
    pending: authorization::Pending,
}

#[cfg(feature = "oauth")]
impl Shared {
    fn authorization_binding<'a>(&self, principal: &'a str) -> Binding<'a> {
        Binding {
            principal,
            method: "elicit/authorize",
            params_digest: ParamsDigest::of(&json!(self.path)),
        }
    }
}

/// The user chose to continue: to the provider, with PKCE and a `state` that come back sealed in
/// a cookie bound to this user, flow and browser.
#[cfg(feature = "oauth")]
fn to_provider(
    shared: &Shared,
    visit: &Visit,
    browser: &str,
    page: &AuthorizationPage,
) -> Response {
    let (url, pending) = page.start();
    let claims = Authorizing {
        f: visit.id.to_string(),
        b: browser.to_owned(),
        pending,
    };
    let sealed = match shared.keys.seal(
        &claims,
        &shared.authorization_binding(&visit.principal),
        shared.flows.ttl(),
        UnixTime::now(),
    ) {
        Ok(sealed) => sealed,
        Err(error) => return unavailable(&error),
    };
    let mut response = axum::response::Redirect::to(&url).into_response();
    if let Some(cookie) = shared
        .cookies
        .set(AUTHORIZATION_COOKIE, sealed, Some(shared.flows.ttl()))
    {
        response.headers_mut().append(header::SET_COOKIE, cookie);
    }
    response
}

/// The provider's answer.
#[cfg(feature = "oauth")]
#[derive(Deserialize)]
struct ProviderAnswer {
    code: Option<String>,
    state: Option<String>,
    error: Option<String>,
    /// The provider's issuer identifier (RFC 9207).
    iss: Option<String>,
}

/// Back from the provider, at the redirect URI of the page `at`: the identity again, the same
/// browser, the `state` this browser was sent with, the flow still open and of the page `at`
/// (an answer at another page's redirect URI is refused: mix-up, RFC 9700 §4.4), the answer's
/// `iss` the page's provider's (RFC 9207); then the code is exchanged and the token goes to the
/// sink.
#[cfg(feature = "oauth")]
async fn authorized(
    State(shared): State<Arc<Shared>>,
    Path(at): Path<String>,
    parts: Parts,
) -> Response {
    let principal = match shared.identify(&parts).await {
        Ok(principal) => principal,
        Err(refused) => return refused,
    };
    let refused_by = |check: Check, flow: Option<&FlowId>, expected: Option<&str>, why: &str| {
        events::page_refused(check, flow, expected, Some(&principal), why);
        refusal(StatusCode::FORBIDDEN, "Not connected", why)
    };
    let refused = |why: &str| refused_by(Check::State, None, None, why);
    let Some(Browser { digest: browser }) = parts.extensions.get::<Browser>().cloned() else {
        return refused_by(
            Check::Browser,
            None,
            None,
            "This browser did not open the page.",
        );
    };
    let sealed = shared.cookies.values(&parts.headers, AUTHORIZATION_COOKIE);
    if sealed.is_empty() {
        return refused("This browser started no authorization (or it took too long).");
    }
    let binding = shared.authorization_binding(&principal);
    let now = UnixTime::now();
    let Some(opened) = sealed
        .iter()
        .find_map(|sealed| shared.keys.open::<Authorizing>(sealed, &binding, now).ok())
    else {
        return refused("This authorization was started by another user, or expired.");
    };
    let claims = opened.into_value();
    let Ok(answer) = serde_urlencoded::from_str::<ProviderAnswer>(parts.uri.query().unwrap_or(""))
    else {
        return refused("The provider's answer could not be read.");
    };
    if claims.b != browser {
        return refused_by(
            Check::Browser,
            None,
            None,
            "The provider's answer is for another authorization or browser.",
        );
    }
    if answer.state.as_deref() != Some(claims.pending.state.as_str()) {
        return refused("The provider's answer is for another authorization or browser.");
    }
    let Ok(id) = FlowId::parse(&claims.f) else {
        return flow_refusal(&FlowError::Unknown);
    };
    let flow = match shared
        .flows
        .store()
        .open(&id, &principal, &browser, UnixTime::now())
        .await
    {
        Ok(flow) => flow,
        Err(error) => {
            let visit = Visit {
                id,
                principal: principal.clone(),
                browser: browser.clone(),
            };
            return refused_flow(&shared, &error, &visit).await;
        }
    };
    // The authorization was started on the flow's page: its answer comes back to that page's
    // redirect URI, or it is not that page's provider's (mix-up), and its code goes nowhere.
    if flow.page() != at {
        return refused_by(
            Check::Redirect,
            Some(&id),
            None,
            "The provider's answer came back to another page's address than the page that \
             sent you: it may come from another provider.",
        );
    }
    let Ok(Kind::Authorization(page, sink)) = shared.page_of(&flow) else {
        return refused_by(
            Check::Redirect,
            Some(&id),
            None,
            "This page does not connect a provider.",
        );
    };
    if let Err(why) = page.check_issuer(answer.iss.as_deref()) {
        return refused_by(Check::Issuer, Some(&id), None, why);
    }
    let (page, sink) = (Arc::clone(page), Arc::clone(sink));
    let verifier = claims.pending.verifier;
    let mut response = match (answer.code, answer.error) {
        (Some(code), None) => {
            finish(&shared, &id, &principal, &browser, async {
                let token = page.exchange(code, verifier).await?;
                sink.store(principal.clone(), token).await
            })
            .await
        }
        _ => {
            let provider = page.provider().to_owned();
            finish(&shared, &id, &principal, &browser, async move {
                Err(SinkError::fail(format!(
                    "You did not allow this server at {provider}."
                )))
            })
            .await
        }
    };
    if let Some(cleared) = shared.cookies.clear(AUTHORIZATION_COOKIE) {
        response.headers_mut().append(header::SET_COOKIE, cleared);
    }
    response
}

/// The refusal of a flow the store would not open or finish for `visit`, logged as the check
/// that refused: another user's flow (the identity: the principal it is for, and the one seen),
/// another browser's, or the flow itself (finished, expired, abandoned, claimed, unknown).
async fn refused_flow(shared: &Shared, error: &FlowError, visit: &Visit) -> Response {
    let seen = Some(visit.principal.as_str());
    match error {
        FlowError::WrongUser => {
            // Only on this refusal: the principal the flow is for, read again.
            let owner = shared
                .flows
                .store()
                .get(&visit.id, UnixTime::now())
                .await
                .ok()
                .map(|flow| flow.principal().to_owned());
            events::page_refused(
                Check::Identity,
                Some(&visit.id),
                owner.as_deref(),
                seen,
                "the flow is for another user",
            );
        }
        FlowError::OpenedElsewhere | FlowError::NotOpened => events::page_refused(
            Check::Browser,
            Some(&visit.id),
            None,
            seen,
            &error.to_string(),
        ),
        FlowError::Expired => {
            tracing::info!(target: events::FLOW, flow = %ShortFlow(&visit.id), "expired");
            events::page_refused(Check::Flow, Some(&visit.id), None, seen, "expired");
        }
        _ => events::page_refused(Check::Flow, Some(&visit.id), None, seen, &error.to_string()),
    }
    flow_refusal(error)
}

/// What the flow store keeps of a browser: a digest of its cookie, never the cookie.
fn browser_digest(browser: &str) -> String {
    let digest = ParamsDigest::of(&json!(browser));
    digest
        .as_bytes()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// 256 random bits as 64 lowercase hex digits: a browser's name.
fn random_token() -> Result<String, FlowError> {
    let a = FlowId::random()?;
    let b = FlowId::random()?;
    Ok(format!("{a}{b}"))
}
