//! [`HttpPrincipal`]: the one function that names who sent an HTTP request.

use std::fmt;
use std::sync::Arc;

use ::rmcp::RoleServer;
use ::rmcp::service::RequestContext;

/// Who sent an HTTP request, named by the server from what its authentication layer left on the
/// request (cargo feature `http` or `page`): the one function a server behind authentication
/// gives, wherever the library needs to know who is asking or answering.
///
/// - [`AskConfig::per_http_user`](super::AskConfig::per_http_user) applies it to each MCP
///   request's HTTP request (which rmcp's streamable HTTP service keeps in the MCP request's
///   extensions as `http::request::Parts`): round state and URL flows are bound to it.
/// - [`SessionBinding::BoundTo`](super::SessionBinding::BoundTo) applies it to every HTTP
///   request `AskingHttpService` serves: each session is bound to the principal of the
///   `initialize` that opened it, and any later request on it (a call, an elicitation answer, a
///   notification, the event stream, `DELETE`) from another principal, or from none, is refused.
///   Answers and notifications carry no MCP request context of their own: only the HTTP
///   request says who sent them, so this is a function of the HTTP request.
///
/// - With the `page` feature it is also the pages' [`Identity`](crate::page::Identity):
///   `Pages::new(flows, principal.clone())`. The pages, mounted beside rmcp's service inside the
///   app's own layers, name whoever opens a page with the same function. A request it names no
///   one for is **refused** (403, the pages' refusal page: "You may not open this page ... The
///   server's sign-in names no one for this request."), not redirected: the function knows no
///   sign-in page. A server that has one gives the pages
///   [`identity_fn`](crate::page::identity_fn) with
///   [`Verdict::sign_in_at`](crate::page::Verdict::sign_in_at) instead.
///
/// Give all three the same value (it is cheap to clone). A name that is empty or only white
/// space counts as none.
///
/// ```
/// use mcp_elicit::rmcp::HttpPrincipal;
///
/// /// What the server's authentication layer (an axum middleware, say) leaves in each HTTP
/// /// request's extensions.
/// #[derive(Clone)]
/// struct Subject(String);
///
/// let principal = HttpPrincipal::new(|request| {
///     request.extensions.get::<Subject>().map(|subject| subject.0.clone())
/// });
///
/// let (mut alice, ()) = http::Request::new(()).into_parts();
/// alice.extensions.insert(Subject("alice".to_owned()));
/// assert_eq!(principal.of(&alice).as_deref(), Some("alice"));
/// let (nobody, ()) = http::Request::new(()).into_parts();
/// assert_eq!(principal.of(&nobody), None);
/// ```
#[derive(Clone)]
pub struct HttpPrincipal(Arc<PrincipalFn>);

type PrincipalFn = dyn Fn(&http::request::Parts) -> Option<String> + Send + Sync;

impl HttpPrincipal {
    /// The principal `name` reads from an HTTP request's parts (its headers, or the extensions
    /// an authentication layer put there); `None` where it names none.
    pub fn new(
        name: impl Fn(&http::request::Parts) -> Option<String> + Send + Sync + 'static,
    ) -> Self {
        Self(Arc::new(name))
    }

    /// Who sent `request`; `None` if the function names no one, or a name that
    /// [names no one](crate::url_mode::Flow::names_no_one) (empty, or only white space).
    pub fn of(&self, request: &http::request::Parts) -> Option<String> {
        (self.0)(request).filter(|name| !crate::url_mode::Flow::names_no_one(name))
    }

    /// Who sent the HTTP request an MCP request came in: `None` if it came in none (rmcp keeps
    /// the HTTP request's parts in the MCP request's extensions over streamable HTTP; another
    /// transport has none) or the function names no one.
    pub(super) fn of_request(&self, request: &RequestContext<RoleServer>) -> Option<String> {
        self.of(request.extensions.get::<http::request::Parts>()?)
    }
}

/// The pages' identity: the principal this function names, or a refusal.
#[cfg(feature = "page")]
impl crate::page::Identity for HttpPrincipal {
    fn identify<'a>(
        &'a self,
        request: &'a http::request::Parts,
    ) -> crate::page::IdentifyFuture<'a> {
        let verdict = match self.of(request) {
            Some(principal) => crate::page::Verdict::signed_in(principal),
            None => crate::page::Verdict::refused(
                "The server's sign-in names no one for this request: sign in to the server, \
                 then open the link from your MCP client again.",
            ),
        };
        Box::pin(std::future::ready(verdict.answer(request)))
    }
}

impl fmt::Debug for HttpPrincipal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("HttpPrincipal(..)")
    }
}
