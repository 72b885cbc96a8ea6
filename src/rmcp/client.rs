//! [`AnsweringClient`]: an rmcp client whose elicitations an [`Answerer`] answers.

use std::future::pending;
use std::sync::Arc;

use ::rmcp::model::{
    ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult, Implementation,
    ProtocolVersion,
};
use ::rmcp::service::RequestContext;
use ::rmcp::{ClientHandler, ErrorData, RoleClient};
use serde_json::{Map, Value, json};

use super::revision;
use crate::client::{Answerer, read_request};
use crate::{Mode, Revision};

/// An rmcp client that answers the server's elicitations through an [`Answerer`]: it declares
/// the modes the answerer can answer, reads each `elicitation/create` with
/// [`read_request`] (a request a host cannot show is refused, `-32602`), and sends the
/// answerer's `ElicitResult`. On 2026-07-28, rmcp's own client drives the rounds of a call
/// (`call_tool` answers each input-required result through this handler and retries), so the
/// same answerer answers both revisions.
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
    protocol_version: Option<ProtocolVersion>,
}

impl<A> AnsweringClient<A> {
    /// A client named `elicit-client` whose elicitations `answerer` answers. Keep a clone of the
    /// `Arc` to look at the answerer (what a scripted user saw) while the client runs.
    pub fn new(answerer: Arc<A>) -> Self {
        Self {
            answerer,
            name: "elicit-client".to_owned(),
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

    /// The name the client gives the server.
    #[must_use]
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
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
        let server = peer
            .and_then(|info| info.server_info.as_ref().map(|server| server.name.clone()))
            .unwrap_or_default();
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
        let Some(answer) = self.answerer.answer(&server, &incoming).await else {
            // No answer: the server's timeout decides (before 2026-07-28), or the call is never
            // retried (2026-07-28).
            return pending().await;
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
