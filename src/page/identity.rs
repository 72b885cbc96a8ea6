//! Who opened a page: the [`Identity`] check, and [`SingleUser`] for a local stdio server.

use std::future::{Future, ready};
use std::net::SocketAddr;
use std::pin::Pin;

use axum::Router;
use axum::extract::ConnectInfo;
use axum::http::request::Parts;
use axum::response::Response;

use super::respond::refusal;

/// What [`Identity::identify`] returns: the principal, or the response to send instead.
pub type IdentifyFuture<'a> = Pin<Box<dyn Future<Output = Result<String, Response>> + Send + 'a>>;

/// Who opened a page: the check the spec requires before a page shows or accepts anything.
///
/// The pages call it on every request, before anything else; its principal is compared with
/// the flow's, and a mismatch is refused with a page that says why, with nothing stored and the
/// flow left open for its owner. It cannot be skipped: [`Pages`](super::Pages) takes one.
///
/// Its principal must name users the way the server's
/// [`AskConfig`](crate::rmcp::AskConfig) does (`AskConfig::per_user`'s function; `""` for
/// `AskConfig::single_user`): the same person, the same string.
pub trait Identity: Send + Sync + 'static {
    /// The principal of whoever sent `request`, or the response to send instead: a redirect to
    /// sign in, or a refusal.
    fn identify<'a>(&'a self, request: &'a Parts) -> IdentifyFuture<'a>;

    /// Routes of its own, mounted under the pages' base (a sign-in callback), if any.
    fn routes(&self) -> Option<Router> {
        None
    }

    /// How every page names the user [`identify`](Identity::identify) named `principal`, and
    /// where they sign out: shown at the top of each page, so that a browser signed in as
    /// someone else (a session planted in it) says so before the user types anything. By
    /// default the principal itself, and no sign-out.
    fn signed_in(&self, principal: &str) -> SignedIn {
        SignedIn::new(principal)
    }
}

/// Who the pages say is signed in ([`Identity::signed_in`]): a name to show, and the link to
/// the identity's own sign-out page, if it has one.
///
/// ```
/// use mcp_elicit::page::SignedIn;
///
/// let who = SignedIn::new("alice@example.com").with_sign_out("/account/sign-out");
/// assert_eq!(who.name, "alice@example.com");
/// assert_eq!(who.sign_out.as_deref(), Some("/account/sign-out"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SignedIn {
    /// What the pages show: "Signed in as {name}" (escaped).
    pub name: String,
    /// A page of the identity's own where the user signs out (the link every page shows). The
    /// sign-out itself must be a POST with CSRF protection on that page, never this link: any
    /// site can make a browser follow a link.
    pub sign_out: Option<String>,
}

impl SignedIn {
    /// `name`, without a sign-out.
    #[must_use]
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            sign_out: None,
        }
    }

    /// With the link to the identity's sign-out page.
    #[must_use]
    pub fn with_sign_out(mut self, url: impl Into<String>) -> Self {
        self.sign_out = Some(url.into());
        self
    }
}

/// The identity check of a local server with one user (stdio): the pages are served on
/// loopback only ([`Pages::bind_loopback`](super::Pages::bind_loopback)), and every request
/// from loopback is that user's (principal `""`, as `AskConfig::single_user` names them).
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
/// person, or that other people's processes share, needs a real sign-in (an OpenID provider).
#[derive(Debug, Clone, Copy, Default)]
pub struct SingleUser;

impl Identity for SingleUser {
    fn identify<'a>(&'a self, request: &'a Parts) -> IdentifyFuture<'a> {
        let from_loopback = request
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map(|ConnectInfo(peer)| peer.ip().is_loopback());
        Box::pin(ready(match from_loopback {
            Some(true) => Ok(String::new()),
            Some(false) => Err(refusal(
                axum::http::StatusCode::FORBIDDEN,
                "This page is for the user of this machine",
                "It is served on this machine only (loopback), and this request came from \
                 elsewhere.",
            )),
            // Mounted without the peer's address: it cannot tell, so it refuses.
            None => Err(refusal(
                axum::http::StatusCode::INTERNAL_SERVER_ERROR,
                "This page cannot check who opened it",
                "The server serves its single-user pages without the connection's address: \
                 serve them with `Pages::serve`, which binds loopback and keeps it.",
            )),
        }))
    }

    /// "this machine's user": the only user there is, with no sign-in to leave.
    fn signed_in(&self, _: &str) -> SignedIn {
        SignedIn::new("this machine's user")
    }
}
