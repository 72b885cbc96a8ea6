//! Sessions bound to the principal that opened them ([`SessionBinding`]), and the session
//! manager that forgets a binding when rmcp closes its session.

use std::collections::HashMap;
use std::convert::Infallible;
use std::future::Future;
use std::sync::{Arc, Mutex, PoisonError};

use ::rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use ::rmcp::transport::streamable_http_server::session::{EventStore, ServerSseMessage};
use ::rmcp::transport::streamable_http_server::{RestoreOutcome, SessionId, SessionManager};
use bytes::Bytes;
use futures_core::Stream;
use http::{Response, StatusCode, header};
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};

use super::principal::HttpPrincipal;

/// The header that names a session (MCP's streamable HTTP transport, before 2026-07-28).
const SESSION_ID: &str = "mcp-session-id";

/// What each streamable HTTP session of an `AskingHttpService` is bound to. Chosen at
/// construction: a server over HTTP says which it is.
///
/// MCP's security rules: a server "MUST NOT use sessions for authentication", and must bind
/// elicitation requests "to the client and user identity", never to a session id alone. Before
/// 2026-07-28 an elicitation answer is a JSON-RPC response posted to the session that asked:
/// whoever holds the `Mcp-Session-Id` could post it, unless the session is bound to who opened
/// it.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum SessionBinding {
    /// Each session is bound to the principal that `HttpPrincipal` names for the `initialize`
    /// request that opened it. Every HTTP request is refused before it reaches rmcp:
    ///
    /// - **`403 Forbidden`** when the function names no principal for it (any request,
    ///   `initialize` included): the endpoint serves only authenticated principals.
    /// - **`404 Not Found`** (`Not Found: Session not found`, rmcp's own answer to an unknown
    ///   session) when it carries an `Mcp-Session-Id` that is not a session this service
    ///   opened for that same principal: a call, an elicitation answer, a notification, the
    ///   `GET` event stream, `DELETE`. The transport's rule for a session the server does not
    ///   know; another principal's session is one it does not know *for this principal*, and
    ///   the same answer as a made-up id tells no one which ids are live. A client that gets
    ///   it starts a new session, as the transport says.
    ///
    /// A binding lives as long as its session: it is forgotten when rmcp closes the session
    /// (a `DELETE`, or the session's end: rmcp closes every session whose worker stops, after
    /// its keep-alive or on shutdown), through whichever `SessionManager` the service was
    /// given. So the bindings are never more than the manager's sessions. A session restored
    /// from rmcp's `session_store` on another replica has no binding there and is refused
    /// (`404`: the client starts a new one); route each session to its replica (sticky
    /// sessions), as a pending question needs anyway.
    ///
    /// On 2026-07-28 (stateless, no session) nothing is bound here: each round's state is
    /// sealed to the principal of the call that asked ([`AskConfig::per_http_user`] with the
    /// same `HttpPrincipal`), and a request that names no principal is refused (`403`).
    ///
    /// [`AskConfig::per_http_user`]: super::AskConfig::per_http_user
    BoundTo(HttpPrincipal),
    /// Sessions bind nothing: any request that carries a session's id acts on it, whoever sent
    /// it. Only for a server without authentication that one user reaches (a local server on
    /// loopback, a conformance suite), whose [`AskConfig`](super::AskConfig) is
    /// [`single_user`](super::AskConfig::single_user): every request is that user's. Not for a
    /// server several people reach: one of them could answer another's question. So an
    /// `AskConfig` that names its users per request
    /// ([`per_http_user`](super::AskConfig::per_http_user), [`per_user`](super::AskConfig::per_user))
    /// asks nothing on a request this service serves unbound: the call is refused (`-32603`,
    /// naming `SessionBinding::BoundTo`, and an `error` log line), before any question goes out.
    Unbound,
}

/// The principal each live session was opened by.
pub(super) struct Bindings {
    principal: HttpPrincipal,
    owners: Mutex<HashMap<SessionId, String>>,
}

/// What [`Bindings::admit`] lets through.
pub(super) enum Admitted {
    /// A request without a session: if it opens one (`initialize`), bind it to this principal.
    MayOpen(String),
    /// A request on a session its principal opened.
    OnItsSession,
}

impl Bindings {
    pub(super) fn new(principal: HttpPrincipal) -> Self {
        Self {
            principal,
            owners: Mutex::default(),
        }
    }

    /// Whether `request` may go on to rmcp; why not if not.
    pub(super) fn admit(&self, request: &http::request::Parts) -> Result<Admitted, Refused> {
        let Some(principal) = self.principal.of(request) else {
            tracing::warn!(
                target: crate::events::SESSION,
                check = "identity",
                "HTTP request refused: it names no principal"
            );
            return Err(Refused::NoPrincipal);
        };
        let Some(session) = request.headers.get(SESSION_ID) else {
            return Ok(Admitted::MayOpen(principal));
        };
        // A header that is not text is no session this service opened.
        let owned = session.to_str().is_ok_and(|session| {
            self.lock()
                .get(session)
                .is_some_and(|owner| *owner == principal)
        });
        if owned {
            Ok(Admitted::OnItsSession)
        } else {
            // Who the session is for, read again on this refusal only; never the session's id:
            // it is what a client presents to be on the session.
            let owner = session
                .to_str()
                .ok()
                .and_then(|session| self.lock().get(session).cloned());
            tracing::warn!(
                target: crate::events::SESSION,
                check = "identity",
                expected = %crate::events::Principal(owner.as_deref()),
                seen = %crate::events::Principal(Some(&principal)),
                "HTTP request refused: its session is not its principal's (or not known here)"
            );
            Err(Refused::NotTheirSession)
        }
    }

    /// Binds the session `response` opened (if it opened one) to `principal`, unless the
    /// session has already ended (its close came before this binding, which would then
    /// never be forgotten).
    pub(super) async fn bind_opened<B, M: SessionManager>(
        &self,
        response: &Response<B>,
        principal: String,
        manager: &M,
    ) {
        if !response.status().is_success() {
            return;
        }
        let Some(session) = response
            .headers()
            .get(SESSION_ID)
            .and_then(|session| session.to_str().ok())
        else {
            return;
        };
        let session = SessionId::from(session);
        self.lock().insert(Arc::clone(&session), principal);
        if !matches!(manager.has_session(&session).await, Ok(true)) {
            self.forget(&session);
        }
    }

    fn forget(&self, session: &str) {
        self.lock().remove(session);
    }

    pub(super) fn len(&self) -> usize {
        self.lock().len()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<SessionId, String>> {
        // Every change is one insert or remove: a panic elsewhere leaves the map whole.
        self.owners.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Why [`Bindings::admit`] refused a request.
pub(super) enum Refused {
    /// The function named no principal for it.
    NoPrincipal,
    /// It names a session this service did not open for its principal.
    NotTheirSession,
}

impl Refused {
    /// The refusal, as rmcp's service writes its own (a status and a line of text).
    pub(super) fn into_response(self) -> Response<BoxBody<Bytes, Infallible>> {
        let (status, message) = match self {
            Self::NoPrincipal => (
                StatusCode::FORBIDDEN,
                "Forbidden: this MCP endpoint serves authenticated principals only, and the \
                 request names none",
            ),
            // rmcp's own answer to a session it does not know, word for word.
            Self::NotTheirSession => (StatusCode::NOT_FOUND, "Not Found: Session not found"),
        };
        let mut response = Response::new(Full::new(Bytes::from_static(message.as_bytes())).boxed());
        *response.status_mut() = status;
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            http::HeaderValue::from_static("text/plain; charset=utf-8"),
        );
        response
    }
}

/// rmcp's session manager `M`, which forgets a session's binding when rmcp closes the session:
/// the bindings live exactly as long as the sessions, whatever `M` is.
pub(super) struct BindingSessionManager<M> {
    pub(super) inner: Arc<M>,
    pub(super) bindings: Option<Arc<Bindings>>,
}

impl<M: SessionManager> SessionManager for BindingSessionManager<M> {
    type Error = M::Error;
    type Transport = M::Transport;

    fn create_session(
        &self,
    ) -> impl Future<Output = Result<(SessionId, Self::Transport), Self::Error>> + Send {
        self.inner.create_session()
    }

    fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> impl Future<Output = Result<ServerJsonRpcMessage, Self::Error>> + Send {
        self.inner.initialize_session(id, message)
    }

    fn has_session(
        &self,
        id: &SessionId,
    ) -> impl Future<Output = Result<bool, Self::Error>> + Send {
        self.inner.has_session(id)
    }

    /// Closes the session, then forgets its binding (even if closing failed: a request on a
    /// session without a binding is refused, so forgetting fails closed).
    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        let closed = self.inner.close_session(id).await;
        if let Some(bindings) = &self.bindings {
            bindings.forget(id);
        }
        closed
    }

    fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> impl Future<
        Output = Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error>,
    > + Send {
        self.inner.create_stream(id, message)
    }

    fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.accept_message(id, message)
    }

    fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> impl Future<
        Output = Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error>,
    > + Send {
        self.inner.create_standalone_stream(id)
    }

    fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> impl Future<
        Output = Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error>,
    > + Send {
        self.inner.resume(id, last_event_id)
    }

    fn restore_session(
        &self,
        id: SessionId,
    ) -> impl Future<Output = Result<RestoreOutcome<Self::Transport>, Self::Error>> + Send {
        self.inner.restore_session(id)
    }

    fn event_store(&self) -> Option<Arc<dyn EventStore>> {
        self.inner.event_store()
    }
}
