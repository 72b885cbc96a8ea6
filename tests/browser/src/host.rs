//! The MCP host of the page tests: rmcp's client, whose handler hands each URL request to the
//! test and answers what the test says, and records the custom notifications it gets
//! (`notifications/elicitation/complete`).

use std::sync::{Arc, Mutex, PoisonError};

use rmcp::{
    ClientHandler, ErrorData, RoleClient,
    model::{
        ClientConfig, CustomNotification, ElicitRequestParams, ElicitResult, ElicitationAction,
        Implementation, ProtocolVersion,
    },
    service::{NotificationContext, RequestContext},
};
use serde_json::{Value, json};
use tokio::{
    sync::{mpsc, oneshot},
    task::JoinHandle,
};

/// A URL request the host's handler received; the test decides when to answer it. Dropped
/// unanswered, the host cancels it.
pub struct Asked {
    /// The request's message.
    pub message: String,
    /// The page's URL.
    pub url: String,
    /// Its `elicitationId` (`""` on 2026-07-28, where there is none).
    pub elicitation_id: String,
    answer: oneshot::Sender<ElicitationAction>,
}

impl Asked {
    /// The user agreed to open the page.
    pub fn accept(self) {
        let _ = self.answer.send(ElicitationAction::Accept);
    }
}

/// The host: hand it to rmcp's `serve_client`. It declares URL-mode elicitation only, and
/// 2025-11-25 (rmcp's client follows the server to 2026-07-28 where the test asks for it).
#[derive(Clone)]
pub struct UrlHost {
    name: &'static str,
    asked: mpsc::UnboundedSender<Asked>,
    notifications: Arc<Mutex<Vec<Value>>>,
}

impl UrlHost {
    /// A host named `name` (its `clientInfo`), and where the URL requests it gets arrive.
    #[must_use]
    pub fn new(name: &'static str) -> (Self, mpsc::UnboundedReceiver<Asked>) {
        let (asked, received) = mpsc::unbounded_channel();
        let host = Self {
            name,
            asked,
            notifications: Arc::default(),
        };
        (host, received)
    }

    /// The custom notifications it has got so far, as `{"method", "params"}`: shared, so that
    /// it can be read after the host is handed to rmcp.
    #[must_use]
    pub fn notifications(&self) -> Arc<Mutex<Vec<Value>>> {
        Arc::clone(&self.notifications)
    }
}

impl ClientHandler for UrlHost {
    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let ElicitRequestParams::UrlElicitationParams {
            message,
            url,
            elicitation_id,
            ..
        } = request
        else {
            return Err(ErrorData::invalid_params(
                "this host is only ever asked to open pages",
                None,
            ));
        };
        let (answer, answered) = oneshot::channel();
        self.asked
            .send(Asked {
                message,
                url,
                elicitation_id,
                answer,
            })
            .map_err(|_| ErrorData::internal_error("the test has ended", None))?;
        let action = answered.await.unwrap_or(ElicitationAction::Cancel);
        Ok(ElicitResult::new(action))
    }

    async fn on_custom_notification(
        &self,
        notification: CustomNotification,
        _context: NotificationContext<RoleClient>,
    ) {
        self.notifications
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(json!({
                "method": notification.method,
                "params": notification.params,
            }));
    }

    fn get_info(&self) -> ClientConfig {
        let capabilities = serde_json::from_value(json!({ "elicitation": { "url": {} } }))
            .expect("URL-mode elicitation capabilities");
        let mut info = ClientConfig::new(capabilities, Implementation::new(self.name, "0"));
        info.protocol_version = ProtocolVersion::V_2025_11_25;
        info
    }
}

/// Aborts its task when dropped: what a test serves ends with the test.
pub struct AbortOnDrop(pub JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}
