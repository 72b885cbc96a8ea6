//! [`AnsweringClient`]: an rmcp client whose elicitations an [`Answerer`] answers.

use std::future::{Future, poll_fn};
use std::pin::pin;
use std::sync::Arc;
use std::task::Poll;

use ::rmcp::model::{
    ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult, Implementation,
    ProtocolVersion,
};
use ::rmcp::service::{
    ClientInitializeError, ClientLifecycleMode, ClientServiceExt, RequestContext, RunningService,
};
use ::rmcp::transport::IntoTransport;
use ::rmcp::{ClientHandler, ErrorData, RoleClient};
use serde_json::{Map, Value, json};

use super::convert::{protocol_version, revision};
use crate::client::{Answerer, Incoming, read_request};
use crate::{Mode, Revision};

/// An rmcp client that answers the server's elicitations through an [`Answerer`]: it declares
/// the modes the answerer can answer, reads each `elicitation/create` with [`read_request`] (a
/// request a host cannot show is refused, `-32602`; so is one in a mode it did not declare,
/// which the answerer never sees), and sends the answerer's `ElicitResult`. On 2026-07-28,
/// rmcp's own client drives the rounds of a call (`call_tool` answers each input-required result
/// through this handler and retries), so the same answerer answers both revisions.
///
/// With a [`Scripted`](crate::client::Scripted) user it is the client of the test kit,
/// [`TestKit`](super::TestKit): connected to a server in process, it calls a tool for a test
/// to assert on the result and on [`Scripted::seen`](crate::client::Scripted::seen).
///
/// An answerer that gives no answer (`None`) gets no response sent: before 2026-07-28 the
/// server's own timeout decides; on 2026-07-28 rmcp's client never retries the call, which
/// never ends.
pub struct AnsweringClient<A> {
    answerer: Arc<A>,
    name: String,
    server_label: Option<String>,
    protocol_version: Option<ProtocolVersion>,
}

impl<A> AnsweringClient<A> {
    /// A client named `elicit-client` whose elicitations `answerer` answers. Keep a clone of the
    /// `Arc` to look at the answerer (what a scripted user saw) while the client runs.
    pub fn new(answerer: Arc<A>) -> Self {
        Self {
            answerer,
            name: "elicit-client".to_owned(),
            server_label: None,
            protocol_version: None,
        }
    }

    /// The protocol version an `initialize` asks for (rmcp's default otherwise); a 2026-07-28
    /// session is opened by rmcp's discovery instead.
    #[must_use]
    pub fn with_protocol_version(mut self, version: ProtocolVersion) -> Self {
        self.protocol_version = Some(version);
        self
    }

    /// The name the answerer shows for the server that asks: the host's own (the command it
    /// started, the address it connected to), instead of the one the server gives itself, which
    /// is whatever the server likes.
    #[must_use]
    pub fn with_server_label(mut self, label: impl Into<String>) -> Self {
        self.server_label = Some(label.into());
        self
    }

    /// The name the client gives the server.
    #[must_use]
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }
}

impl<A: Answerer + 'static> AnsweringClient<A> {
    /// Open a session with the server at the other end of `transport` on `revision`, as a
    /// client of that revision does: `initialize`, asking for its protocol version, on
    /// 2025-06-18 and 2025-11-25; `server/discover` on 2026-07-28, whose calls rmcp's client then
    /// drives round by round through this handler ([`RunningService::call_tool`]).
    ///
    /// # Errors
    /// rmcp's, if the session does not open. The version the server agreed on is in
    /// `peer_info()`: check it if the test or host needs exactly `revision`.
    pub async fn connect<T, E, Args>(
        self,
        transport: T,
        revision: Revision,
    ) -> Result<RunningService<RoleClient, Self>, ClientInitializeError>
    where
        T: IntoTransport<RoleClient, E, Args>,
        E: std::error::Error + Send + Sync + 'static,
    {
        let version = protocol_version(revision);
        if revision.has_per_request_capabilities() {
            let preferred_versions = vec![version];
            let lifecycle = ClientLifecycleMode::Discover { preferred_versions };
            self.serve_with_lifecycle(transport, lifecycle).await
        } else {
            let client = self.with_protocol_version(version);
            client
                .serve_with_lifecycle(transport, ClientLifecycleMode::Initialize)
                .await
        }
    }
}

impl<A: Answerer + 'static> ClientHandler for AnsweringClient<A> {
    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let peer = context.peer.peer_info();
        let revision = peer
            .as_ref()
            .and_then(|info| revision(&info.protocol_version))
            .unwrap_or(Revision::LATEST);
        let server = self.server_label.clone().unwrap_or_else(|| {
            peer.and_then(|info| info.server_info.as_ref().map(|server| server.name.clone()))
                .unwrap_or_default()
        });
        let mut params = serde_json::to_value(&request)
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        // rmcp's type always has an `elicitationId`, `""` where the request had none.
        if let Some(params) = params.as_object_mut()
            && params.get("elicitationId").and_then(Value::as_str) == Some("")
        {
            params.remove("elicitationId");
        }
        let incoming = read_request(&params, revision)
            .map_err(|e| ErrorData::invalid_params(e.to_string(), None))?;
        // A server must not ask in a mode the client did not declare; a client sent one anyway
        // answers -32602 (2025-11-25, elicitation: error handling), and its user never sees it.
        let (mode, name) = match &incoming {
            Incoming::Form(_) => (Mode::Form, "form"),
            Incoming::Url(_) => (Mode::Url, "url"),
        };
        if !self.answerer.modes().contains(&mode) {
            return Err(ErrorData::invalid_params(
                format!(
                    "this client did not declare `elicitation.{name}`: it is not asked in {name} mode"
                ),
                None,
            ));
        }
        // The answer, unless the server withdraws the request first (`notifications/cancelled`,
        // as rmcp's own request timeout sends): then the answerer's future is dropped, and a
        // terminal does not show a question nobody waits for.
        let withdrawn =
            || ErrorData::internal_error("the server withdrew the request".to_owned(), None);
        let answer = {
            let mut answering = pin!(self.answerer.answer(&server, &incoming));
            let mut cancelled = pin!(context.ct.cancelled());
            poll_fn(|cx| match answering.as_mut().poll(cx) {
                Poll::Ready(answer) => Poll::Ready(Some(answer)),
                Poll::Pending => cancelled.as_mut().poll(cx).map(|()| None),
            })
            .await
        };
        let Some(answer) = answer.ok_or_else(withdrawn)? else {
            // No answer: the server's timeout decides (before 2026-07-28, and its cancellation
            // ends the wait), or the call is never retried (2026-07-28).
            context.ct.cancelled().await;
            return Err(withdrawn());
        };
        serde_json::from_value(answer).map_err(|e| {
            ErrorData::internal_error(
                format!("rmcp's ElicitResult cannot carry the answer: {e}"),
                None,
            )
        })
    }

    fn get_info(&self) -> ClientConfig {
        let modes = self.answerer.modes();
        let mut elicitation = Map::new();
        for (mode, name) in [(Mode::Form, "form"), (Mode::Url, "url")] {
            if modes.contains(&mode) {
                elicitation.insert(name.to_owned(), json!({}));
            }
        }
        let capabilities = if elicitation.is_empty() {
            json!({})
        } else {
            json!({ "elicitation": elicitation })
        };
        let capabilities: ClientCapabilities =
            serde_json::from_value(capabilities).unwrap_or_default();
        let mut config = ClientConfig::new(
            capabilities,
            Implementation::new(self.name.clone(), env!("CARGO_PKG_VERSION")),
        );
        if let Some(version) = &self.protocol_version {
            config.protocol_version = version.clone();
        }
        config
    }
}
