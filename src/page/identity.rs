//! Who opened a page: the [`Identity`] check, a server's own sign-in as one closure
//! ([`identity_fn`], answering a [`Verdict`]), and [`SingleUser`] for a local stdio server.

use std::future::{Future, IntoFuture, Ready, ready};
use std::net::SocketAddr;
use std::pin::Pin;

use axum::Router;
use axum::extract::ConnectInfo;
use axum::http::StatusCode;
use axum::http::request::Parts;
use axum::response::{IntoResponse, Redirect, Response};

use super::respond::refusal;
use crate::url_mode::Flow;

/// What [`Identity::identify`] returns: who is signed in, or the response to send instead.
pub type IdentifyFuture<'a> = Pin<Box<dyn Future<Output = Result<SignedIn, Response>> + Send + 'a>>;

/// Who opened a page: the check the spec requires before a page shows or accepts anything.
///
/// The pages call it on every request, before anything else; its principal is compared with
/// the flow's, and a mismatch is refused with a page that says why, with nothing stored and the
/// flow left open for its owner. It cannot be skipped: [`Pages`](super::Pages) takes one.
///
/// A server never needs to implement it: its own sign-in is one closure ([`identity_fn`]), and
/// [`SingleUser`], [`TokenSignIn`](super::TokenSignIn), `OidcSignIn` (cargo feature `oidc`) and
/// `rmcp::HttpPrincipal` are ready-made ones.
///
/// Its principal must name users the way the server's
/// [`AskConfig`](crate::rmcp::AskConfig) does (`AskConfig::per_http_user`'s function, or the
/// name given to `AskConfig::single_user`): the same person, the same string.
pub trait Identity: Send + Sync + 'static {
    /// Who sent `request` (the principal, and how the pages show them), or the response to
    /// send instead: a redirect to sign in, or a refusal. [`Verdict::answer`] makes either from
    /// a verdict, with the pages' own wording.
    fn identify<'a>(&'a self, request: &'a Parts) -> IdentifyFuture<'a>;

    /// Routes of its own (a sign-in form, a callback, a sign-out page), if any: nested under the
    /// pages' base path, so a route `/signin` is served at `<base>signin`.
    fn routes(&self) -> Option<Router> {
        None
    }
}

/// What a server's sign-in says of an HTTP request ([`identity_fn`]): signed in, not signed in
/// (and where to sign in), or refused (and why). The pages act on it with their own pages and
/// wording: a server never writes a response.
///
/// It is its own ready future ([`IntoFuture`]), so a sync closure returns it as is and an async
/// one returns a future of it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Verdict {
    /// Signed in: the principal, and how every page shows them.
    SignedIn(SignedIn),
    /// Not signed in: the pages redirect (303) to `at`, adding `next=<the page's path>` to its
    /// query, so the sign-in can send the user back.
    SignIn {
        /// The server's sign-in page.
        at: String,
    },
    /// Refused: the pages answer 403 with their refusal page, "You may not open this page", and
    /// `why` below it (escaped).
    Refused {
        /// Why, in words the user can act on.
        why: String,
    },
}

impl Verdict {
    /// Signed in as `principal`, shown by that name, with no sign-out link.
    #[must_use]
    pub fn signed_in(principal: impl Into<String>) -> Self {
        Self::SignedIn(SignedIn::new(principal))
    }

    /// Not signed in: send the user to `at` to sign in.
    #[must_use]
    pub fn sign_in_at(at: impl Into<String>) -> Self {
        Self::SignIn { at: at.into() }
    }

    /// Refused, saying `why`.
    #[must_use]
    pub fn refused(why: impl Into<String>) -> Self {
        Self::Refused { why: why.into() }
    }

    /// What the pages do with this verdict for `request`: who is signed in, or the redirect or
    /// refusal to send. For an [`Identity`] written by hand.
    ///
    /// A signed-in verdict with an empty principal names no one: it is refused.
    ///
    /// # Errors
    /// The response to send: a redirect to sign in, or the pages' refusal page.
    pub fn answer(self, request: &Parts) -> Result<SignedIn, Response> {
        match self {
            Verdict::SignedIn(who) if !Flow::names_no_one(&who.principal) => Ok(who),
            Verdict::SignedIn(_) => Err(named_no_one()),
            Verdict::SignIn { at } => Err(Redirect::to(&sign_in_url(&at, request)).into_response()),
            Verdict::Refused { why } => Err(refusal(
                StatusCode::FORBIDDEN,
                "You may not open this page",
                &why,
            )),
        }
    }
}

/// `at` with `next=<the request's path and query>` added to its query.
fn sign_in_url(at: &str, request: &Parts) -> String {
    let back = request
        .uri
        .path_and_query()
        .map_or("/", |path| path.as_str());
    let back = percent_encoding::utf8_percent_encode(back, percent_encoding::NON_ALPHANUMERIC);
    let joint = if at.contains('?') { '&' } else { '?' };
    format!("{at}{joint}next={back}")
}

impl IntoFuture for Verdict {
    type Output = Verdict;
    type IntoFuture = Ready<Verdict>;

    fn into_future(self) -> Self::IntoFuture {
        ready(self)
    }
}

/// The pages' identity from a server's own sign-in: `verdict` reads the HTTP request (its
/// headers, cookies, and what the app's own axum layers left in its extensions: an
/// `axum-login` `AuthSession`, a `tower-sessions` `Session`, a middleware's user) and says who
/// it is ([`Verdict`]). Sync or async: an async one takes what it needs from the request before
/// its `async move` block.
///
/// ```
/// use mcp_elicit::page::{Parts, Verdict, identity_fn};
///
/// /// What the app's authentication middleware leaves in each request's extensions.
/// #[derive(Clone)]
/// struct User(String);
///
/// // Sync.
/// let identity = identity_fn(|request: &Parts| match request.extensions.get::<User>() {
///     Some(User(name)) => Verdict::signed_in(name),
///     None => Verdict::sign_in_at("/login"),
/// });
/// // Async.
/// let identity = identity_fn(|request: &Parts| {
///     let user = request.extensions.get::<User>().cloned();
///     async move {
///         match user {
///             Some(User(name)) => Verdict::signed_in(name),
///             None => Verdict::refused("Sign in to the app first."),
///         }
///     }
/// });
/// # let _ = identity;
/// ```
pub fn identity_fn<F, V>(verdict: F) -> IdentityFn<F>
where
    F: Fn(&Parts) -> V + Send + Sync + 'static,
    V: IntoFuture<Output = Verdict>,
    V::IntoFuture: Send + 'static,
{
    IdentityFn(verdict)
}

/// A server's own sign-in as the pages' [`Identity`]: made by [`identity_fn`].
#[derive(Clone)]
pub struct IdentityFn<F>(F);

impl<F> std::fmt::Debug for IdentityFn<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("IdentityFn(..)")
    }
}

impl<F, V> Identity for IdentityFn<F>
where
    F: Fn(&Parts) -> V + Send + Sync + 'static,
    V: IntoFuture<Output = Verdict>,
    V::IntoFuture: Send + 'static,
{
    fn identify<'a>(&'a self, request: &'a Parts) -> IdentifyFuture<'a> {
        let verdict = (self.0)(request).into_future();
        Box::pin(async move { verdict.await.answer(request) })
    }
}

/// Who is signed in ([`Verdict::SignedIn`], [`Identity::identify`]): the principal the pages
/// compare with the flow's, a name to show, and the link to the sign-in's own sign-out page, if
/// it has one.
///
/// ```
/// use mcp_elicit::page::SignedIn;
///
/// let who = SignedIn::new("u-1042")
///     .with_name("alice@example.com")
///     .with_sign_out("/account/sign-out");
/// assert_eq!(who.principal, "u-1042");
/// assert_eq!(who.name, "alice@example.com");
/// assert_eq!(who.sign_out.as_deref(), Some("/account/sign-out"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SignedIn {
    /// The principal: compared with the flow's (the name the server's `AskConfig` gives).
    pub principal: String,
    /// What the pages show: "Signed in as {name}" (escaped).
    pub name: String,
    /// A page of the identity's own where the user signs out (the link every page shows). The
    /// sign-out itself must be a POST with CSRF protection on that page, never this link: any
    /// site can make a browser follow a link.
    pub sign_out: Option<String>,
}

impl SignedIn {
    /// `principal`, shown by that name, without a sign-out.
    #[must_use]
    pub fn new(principal: impl Into<String>) -> Self {
        let principal = principal.into();
        Self {
            name: principal.clone(),
            principal,
            sign_out: None,
        }
    }

    /// Shown as `name` (a display name, an email) rather than the principal.
    #[must_use]
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// With the link to the identity's sign-out page.
    #[must_use]
    pub fn with_sign_out(mut self, url: impl Into<String>) -> Self {
        self.sign_out = Some(url.into());
        self
    }
}

/// The identity check of a local server with one user (stdio), named by the server
/// ([`SingleUser::named`], the same name as `AskConfig::single_user`'s): the pages are served
/// on loopback only ([`Pages::bind_loopback`](super::Pages::bind_loopback)), and every request
/// from loopback is that user's.
///
/// # Threat model
/// Who can reach the page is anyone who can open a connection to `127.0.0.1` on this machine:
/// the user, and any other local process or account. What stops the rest:
///
/// - **Not reachable off the machine**: the listener binds loopback only, and a request that
///   did not come over loopback is refused.
/// - **Not reachable by a web page through the user's browser by another name**: the `Host`
///   must be the pages' own `localhost:<port>` (DNS rebinding is refused, by the router itself,
///   however it is served), and a form posted
///   from any other origin is refused (CSRF: the token and the `Origin` check).
/// - **The first browser binds the flow**: the first browser to open a flow's URL is the only
///   one that may see or submit it; a second browser, or another program with its own cookie
///   jar, is refused. A link copied out of the client after the user opened it is useless.
///
/// What it does not stop: a local process that opens the URL **before** the user does (it must
/// learn the flow id first, which travels only to the MCP client), or malware running as the
/// user, which can read the browser's cookies anyway. A server whose users are more than one
/// person, or that other people's processes share, needs a real sign-in
/// ([`TokenSignIn`](super::TokenSignIn), an OpenID provider, or its own: [`identity_fn`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SingleUser {
    name: String,
}

/// The pages' refusal of a request whose identity named no one.
pub(super) fn named_no_one() -> Response {
    refusal(
        StatusCode::FORBIDDEN,
        "You may not open this page",
        "The server's sign-in named no one for this request.",
    )
}

impl SingleUser {
    /// The one user, as the server names them: the principal its flows are kept under, the
    /// same name as [`AskConfig::single_user`](crate::rmcp::AskConfig::single_user)'s. Pages
    /// show "this machine's user".
    ///
    /// # Errors
    /// [`PageError::EmptyPrincipal`](super::PageError::EmptyPrincipal) if `name` is empty or
    /// only white space: it would name no one.
    pub fn named(name: impl Into<String>) -> Result<Self, super::PageError> {
        let name = name.into();
        if Flow::names_no_one(&name) {
            return Err(super::PageError::EmptyPrincipal);
        }
        Ok(Self { name })
    }

    /// The user's name.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }
}

impl Identity for SingleUser {
    fn identify<'a>(&'a self, request: &'a Parts) -> IdentifyFuture<'a> {
        let from_loopback = request
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map(|ConnectInfo(peer)| peer.ip().is_loopback());
        Box::pin(ready(match from_loopback {
            Some(true) => {
                Verdict::SignedIn(SignedIn::new(self.name.clone()).with_name("this machine's user"))
                    .answer(request)
            }
            Some(false) => Err(refusal(
                StatusCode::FORBIDDEN,
                "This page is for the user of this machine",
                "It is served on this machine only (loopback), and this request came from \
                 elsewhere.",
            )),
            // Mounted without the peer's address: it cannot tell, so it refuses.
            None => Err(refusal(
                StatusCode::INTERNAL_SERVER_ERROR,
                "This page cannot check who opened it",
                "The server serves its single-user pages without the connection's address: \
                 serve them with `Pages::serve`, which binds loopback and keeps it.",
            )),
        }))
    }
}
