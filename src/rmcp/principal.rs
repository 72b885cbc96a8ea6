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
/// Give both the same value (it is cheap to clone). An empty name counts as none: `""` is the
/// single user of a stdio server, never a principal over HTTP.
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

    /// Who sent `request`; `None` if the function names no one, or an empty name.
    pub fn of(&self, request: &http::request::Parts) -> Option<String> {
        (self.0)(request).filter(|name| !name.is_empty())
    }

    /// Who sent the HTTP request an MCP request came in: `None` if it came in none (rmcp keeps
    /// the HTTP request's parts in the MCP request's extensions over streamable HTTP; another
    /// transport has none) or the function names no one.
    pub(super) fn of_request(&self, request: &RequestContext<RoleServer>) -> Option<String> {
        self.of(request.extensions.get::<http::request::Parts>()?)
    }
}

impl fmt::Debug for HttpPrincipal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("HttpPrincipal(..)")
    }
}
