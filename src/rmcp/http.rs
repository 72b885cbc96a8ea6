//! [`AskingHttpService`]: rmcp's streamable HTTP service, serving a server that asks.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use ::rmcp::ServerHandler;
use ::rmcp::transport::streamable_http_server::SessionManager;
use ::rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use ::rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use bytes::Bytes;
use futures_core::Stream;
use http::{HeaderValue, Request, Response, header};
use http_body::{Body, Frame};
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use serde_json::Value;

use super::config::ServedUnbound;
use super::convert;
use super::handler::AskingHandler;
use super::session::{Admitted, BindingSessionManager, Bindings, SessionBinding};

/// The response every streamable HTTP service gives: rmcp's.
pub type HttpResponse = Response<BoxBody<Bytes, Infallible>>;

#[cfg_attr(not(doctest), doc = include_str!("../guide/http.md"))]
pub struct AskingHttpService<S, M = LocalSessionManager> {
    inner: StreamableHttpService<AskingHandler<S>, BindingSessionManager<M>>,
    /// The same session manager rmcp's service has: the bindings, and whether a session lives.
    sessions: Arc<BindingSessionManager<M>>,
}

impl<S, M> Clone for AskingHttpService<S, M> {
    fn clone(&self) -> Self {
        Self {
            inner: self.inner.clone(),
            sessions: Arc::clone(&self.sessions),
        }
    }
}

impl<S> AskingHttpService<S>
where
    S: ServerHandler + Send + 'static,
{
    /// Serves the servers `service_factory` makes (one per session, or per request when
    /// stateless) with `config`, its sessions kept in this process by rmcp's
    /// `LocalSessionManager`, as `StreamableHttpService::new` would, each session bound as
    /// `binding` says: [`SessionBinding::BoundTo`] the principal that opened it, or
    /// [`SessionBinding::Unbound`] for a server without authentication that one user reaches.
    pub fn new(
        service_factory: impl Fn() -> Result<S, std::io::Error> + Send + Sync + 'static,
        binding: SessionBinding,
        config: StreamableHttpServerConfig,
    ) -> Self {
        Self::with_session_manager(service_factory, Arc::default(), binding, config)
    }
}

impl<S, M> AskingHttpService<S, M>
where
    S: ServerHandler + Send + 'static,
    M: SessionManager,
{
    /// As [`new`](AskingHttpService::new), with rmcp's `session_manager` (a session store that
    /// restores sessions on another replica, say). The bindings hold with any session manager:
    /// each is forgotten when rmcp closes its session through it.
    pub fn with_session_manager(
        service_factory: impl Fn() -> Result<S, std::io::Error> + Send + Sync + 'static,
        session_manager: Arc<M>,
        binding: SessionBinding,
        config: StreamableHttpServerConfig,
    ) -> Self {
        let bindings = match binding {
            SessionBinding::BoundTo(principal) => Some(Arc::new(Bindings::new(principal))),
            SessionBinding::Unbound => None,
        };
        let sessions = Arc::new(BindingSessionManager {
            inner: session_manager,
            bindings,
        });
        Self {
            inner: StreamableHttpService::new(
                move || service_factory().map(AskingHandler),
                Arc::clone(&sessions),
                config,
            ),
            sessions,
        }
    }

    /// How many sessions are bound now (`0` with [`SessionBinding::Unbound`]): one per live
    /// session this service opened, each forgotten when rmcp closes its session. For a gauge.
    pub fn bound_sessions(&self) -> usize {
        self.sessions
            .bindings
            .as_ref()
            .map_or(0, |bindings| bindings.len())
    }
}

impl<B, S, M> tower_service::Service<Request<B>> for AskingHttpService<S, M>
where
    B: Body + Send + 'static,
    B::Error: std::fmt::Display,
    B::Data: Send + 'static,
    S: ServerHandler + Send + 'static,
    M: SessionManager,
{
    type Response = HttpResponse;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<HttpResponse, Infallible>> + Send>>;

    fn poll_ready(&mut self, context: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        tower_service::Service::<Request<B>>::poll_ready(&mut self.inner, context)
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let Some(bindings) = &self.sessions.bindings else {
            // Marked, so that an `AskConfig` naming users per request refuses to ask here.
            let mut request = request;
            request.extensions_mut().insert(ServedUnbound);
            let response = self.inner.call(request);
            return Box::pin(
                async move { Ok(without_empty_elicitation_ids(response.await?).await) },
            );
        };
        // Who sent it, and whether the session it names is theirs: before rmcp reads a byte of
        // the body, so that a refused request acts on nothing.
        let (parts, body) = request.into_parts();
        let opener = match bindings.admit(&parts) {
            Ok(Admitted::MayOpen(principal)) => Some(principal),
            Ok(Admitted::OnItsSession) => None,
            Err(refused) => return Box::pin(std::future::ready(Ok(refused.into_response()))),
        };
        let response = self.inner.call(Request::from_parts(parts, body));
        let sessions = Arc::clone(&self.sessions);
        Box::pin(async move {
            let response = response.await?;
            if let (Some(principal), Some(bindings)) = (opener, &sessions.bindings) {
                bindings
                    .bind_opened(&response, principal, sessions.inner.as_ref())
                    .await;
            }
            Ok(without_empty_elicitation_ids(response).await)
        })
    }
}

/// The member rmcp writes into a 2026-07-28 URL request, as serde_json writes it (compactly).
/// Inside a JSON string its quotes would be escaped, so the bytes appear only as a member.
const EMPTY_ELICITATION_ID: &[u8] = br#""elicitationId":"""#;

fn holds_empty_elicitation_id(bytes: &[u8]) -> bool {
    memchr::memmem::find(bytes, EMPTY_ELICITATION_ID).is_some()
}

/// The response, its messages' input-required results without rmcp's `"elicitationId": ""`.
///
/// An event stream is mapped frame by frame (rmcp writes one event per frame), and a JSON body,
/// which rmcp writes whole, is read whole; any other body passes untouched.
async fn without_empty_elicitation_ids(response: HttpResponse) -> HttpResponse {
    let (mut parts, body) = response.into_parts();
    let content_type = parts.headers.get(header::CONTENT_TYPE);
    if content_type.is_some_and(|value| media_type(value) == "text/event-stream") {
        let body = body.map_frame(|frame| match frame.into_data() {
            Ok(data) if holds_empty_elicitation_id(&data) => {
                Frame::data(event_without_empty_elicitation_ids(data))
            }
            Ok(data) => Frame::data(data),
            Err(frame) => frame,
        });
        return Response::from_parts(parts, body.boxed());
    }
    if content_type.is_some_and(|value| media_type(value) == "application/json") {
        // rmcp's JSON body is one buffer in memory: collecting it neither waits nor copies.
        let Ok(collected) = body.collect().await;
        let data = collected.to_bytes();
        if holds_empty_elicitation_id(&data)
            && let Some(fixed) = message_without_empty_elicitation_ids(&data)
        {
            parts.headers.remove(header::CONTENT_LENGTH);
            return Response::from_parts(parts, Full::new(Bytes::from(fixed)).boxed());
        }
        return Response::from_parts(parts, Full::new(data).boxed());
    }
    Response::from_parts(parts, body)
}

fn media_type(value: &HeaderValue) -> &str {
    let value = value.to_str().unwrap_or_default();
    value.split(';').next().unwrap_or_default().trim()
}

/// One server-sent event (as rmcp encodes one), read by the `sse-stream` crate rmcp writes it
/// with, its data fixed, and written again; the same bytes if it is not exactly one event of one
/// JSON-RPC message that needs it.
fn event_without_empty_elicitation_ids(data: Bytes) -> Bytes {
    let mut events = sse_stream::SseStream::new(Full::new(data.clone()));
    // A `Full` body is ready at once: the stream never waits, and a noop waker is never woken.
    let mut context = Context::from_waker(Waker::noop());
    let mut next = || match Pin::new(&mut events).poll_next(&mut context) {
        Poll::Ready(Some(Ok(event))) => Some(event),
        _ => None,
    };
    let (Some(mut event), None) = (next(), next()) else {
        return data;
    };
    let Some(fixed) = event
        .data
        .as_deref()
        .and_then(|message| message_without_empty_elicitation_ids(message.as_bytes()))
    else {
        return data;
    };
    let Ok(fixed) = String::from_utf8(fixed) else {
        return data;
    };
    event.data = Some(fixed);
    Bytes::from(event)
}

/// A JSON-RPC response whose result is input-required, without the empty `elicitationId`s of
/// its URL requests; `None` for any other message, or one without them.
fn message_without_empty_elicitation_ids(message: &[u8]) -> Option<Vec<u8>> {
    let mut message: Value = serde_json::from_slice(message).ok()?;
    let result = message.get_mut("result")?;
    if result.get("resultType").and_then(Value::as_str) != Some("input_required") {
        return None;
    }
    if !convert::without_empty_elicitation_ids(result) {
        return None;
    }
    serde_json::to_vec(&message).ok()
}
