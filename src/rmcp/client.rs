//! [`AnsweringClient`]: an rmcp client whose elicitations an [`Answerer`] answers, and whose
//! completion notifications it hands to the answerer, matched to the page each completes.

use std::collections::VecDeque;
use std::future::{Future, poll_fn};
use std::pin::pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::Poll;

use ::rmcp::model::{
    ClientCapabilities, ClientConfig, CustomNotification, ElicitRequestParams, ElicitResult,
    ElicitationAction, Implementation, ProtocolVersion,
};
use ::rmcp::service::{
    ClientInitializeError, ClientLifecycleMode, ClientServiceExt, NotificationContext,
    RequestContext, RunningService,
};
use ::rmcp::transport::IntoTransport;
use ::rmcp::{ClientHandler, ErrorData, RoleClient};
use serde_json::{Map, Value, json};

use super::convert::{protocol_version, revision};
use super::profile::{Pace, Profile};
use crate::client::{Answerer, Incoming, IncomingUrl, read_request};
use crate::url_mode::ElicitationId;
use crate::{Mode, Revision};

/// The method of 2025-11-25's completion notification, which rmcp 3.11 has no type for: it
/// arrives as a `CustomNotification`.
const ELICITATION_COMPLETE: &str = "notifications/elicitation/complete";

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
///
/// # Completion notifications (2025-11-25)
///
/// A server may send `notifications/elicitation/complete` when the step on a URL request's page
/// is done. The client hands it to the answerer ([`Answerer::completed`]) with the page it
/// completes, matched by its `elicitationId`, only if the answerer accepted that page and its
/// completion has not come yet. Anything else is ignored, as the spec's client must: an id that
/// does not parse ([`ElicitationId::parse`]), one no request of this client had, one the user
/// declined or dismissed, one completed already. A server cannot make a host show "done" for a
/// page it never asked, nor for one the user did not agree to open. A completion that arrives
/// while its page is still on the screen is kept until the user answers: handed over if they
/// accept, dropped if not.
pub struct AnsweringClient<A> {
    answerer: Arc<A>,
    name: String,
    server_label: Option<String>,
    protocol_version: Option<ProtocolVersion>,
    pages: Arc<Mutex<Pages>>,
    /// The test kit's: how fast its user answers.
    pace: Pace,
    /// The test kit's: the host it plays.
    host: Option<Profile>,
}

/// The URL requests with an `elicitationId` that this client handed its answerer, the newest
/// last, while they are on the screen and once accepted, until their completion is handed over:
/// what a completion notification is matched against. At most [`Pages::MAX`]: the oldest is
/// forgotten first (its completion is then ignored, and the host's manual controls remain).
#[derive(Default)]
struct Pages {
    next: u64,
    pages: VecDeque<AskedPage>,
}

/// A URL request handed to the answerer.
struct AskedPage {
    /// This request among those with the same `elicitationId` (a server may reuse one).
    ticket: u64,
    id: ElicitationId,
    server: String,
    page: IncomingUrl,
    /// The user accepted it (the answer sent was `accept`).
    accepted: bool,
    /// Its completion came while it was on the screen.
    completed: bool,
}

impl Pages {
    const MAX: usize = 64;

    /// `page`, which `server` sent, is handed to the answerer: its ticket.
    fn asking(&mut self, id: ElicitationId, server: &str, page: &IncomingUrl) -> u64 {
        let ticket = self.next;
        self.next = self.next.wrapping_add(1);
        if self.pages.len() >= Self::MAX {
            self.pages.pop_front();
        }
        self.pages.push_back(AskedPage {
            ticket,
            id,
            server: server.to_owned(),
            page: page.clone(),
            accepted: false,
            completed: false,
        });
        ticket
    }

    /// The answer to `ticket`'s request is sent (`accepted`: it was `accept`), or none is. The
    /// page to hand over now if its completion came while it was on the screen.
    fn answered(&mut self, ticket: u64, accepted: bool) -> Option<(String, IncomingUrl)> {
        let at = self.pages.iter().position(|asked| asked.ticket == ticket)?;
        let asked = self.pages.get_mut(at)?;
        if accepted && !asked.completed {
            asked.accepted = true;
            return None;
        }
        let asked = self.pages.remove(at)?;
        accepted.then_some((asked.server, asked.page))
    }

    /// The server reports `id`'s step complete: the page to hand over, if the user accepted it
    /// (the newest with that id); `None` for any other (kept until answered if on the screen).
    fn completed(&mut self, id: &ElicitationId) -> Option<(String, IncomingUrl)> {
        let at = self.pages.iter().rposition(|asked| asked.id == *id)?;
        let asked = self.pages.get_mut(at)?;
        if !asked.accepted {
            asked.completed = true;
            return None;
        }
        let asked = self.pages.remove(at)?;
        Some((asked.server, asked.page))
    }
}

/// The `elicitationId` of a completion notification, if it is one and its id is valid.
fn completed_id(notification: &CustomNotification) -> Option<ElicitationId> {
    if notification.method != ELICITATION_COMPLETE {
        return None;
    }
    let id = notification
        .params
        .as_ref()?
        .get("elicitationId")?
        .as_str()?;
    ElicitationId::parse(id).ok()
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
            pages: Arc::default(),
            pace: Pace::INSTANT,
            host: None,
        }
    }

    /// The test kit's client: its user answers at `pace`, and it plays `host`.
    pub(super) fn scripted(mut self, pace: Pace, host: Option<Profile>) -> Self {
        self.pace = pace;
        self.host = host;
        self
    }

    /// Whether it declares `mode`: the answerer can answer it (and the kit's host has it).
    fn declares(&self, mode: Mode) -> bool
    where
        A: Answerer,
    {
        self.answerer.modes().contains(&mode)
            && self.host.is_none_or(|host| host.modes().contains(&mode))
    }

    fn pages(&self) -> std::sync::MutexGuard<'_, Pages> {
        self.pages.lock().unwrap_or_else(PoisonError::into_inner)
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
        if !self.declares(mode) {
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
        // A page with an id the server may report complete: matched once answered.
        let ticket = match &incoming {
            Incoming::Url(page) => page
                .elicitation_id()
                .and_then(|id| ElicitationId::parse(id).ok())
                .map(|id| self.pages().asking(id, &server, page)),
            Incoming::Form(_) => None,
        };
        // The test kit's host: one that never answers, or answers itself.
        let host = self.host;
        if host.is_some_and(Profile::drops_requests) {
            context.ct.cancelled().await;
            return Err(withdrawn());
        }
        let pace = match host {
            Some(host) if host.answers_at_once() => Pace::INSTANT,
            _ => self.pace,
        };
        let answering = async {
            if let Some(sent) = host.and_then(|host| host.answers_itself(&incoming)) {
                return Some(sent);
            }
            let answer = self.answerer.answer(&server, &incoming).await?;
            tokio::time::sleep(pace.time(&incoming)).await;
            Some(match host {
                Some(host) => host.sends(&incoming, answer),
                None => answer,
            })
        };
        let answer = {
            let mut answering = pin!(answering);
            let mut cancelled = pin!(context.ct.cancelled());
            poll_fn(|cx| match answering.as_mut().poll(cx) {
                Poll::Ready(answer) => Poll::Ready(Some(answer)),
                Poll::Pending => cancelled.as_mut().poll(cx).map(|()| None),
            })
            .await
        };
        // Whether the answerer answered (if with nothing) before the server withdrew the request.
        let answer_given = answer.is_some();
        // The answer as rmcp sends it: `None` if none is sent.
        let sent = match answer {
            Some(Some(answer)) => {
                Some(serde_json::from_value::<ElicitResult>(answer).map_err(|e| {
                    ErrorData::internal_error(
                        format!("rmcp's ElicitResult cannot carry the answer: {e}"),
                        None,
                    )
                }))
            }
            _ => None,
        };
        if let Some(ticket) = ticket {
            let accepted =
                matches!(&sent, Some(Ok(result)) if result.action == ElicitationAction::Accept);
            let completed = self.pages().answered(ticket, accepted);
            if let Some((server, page)) = completed {
                self.answerer.completed(&server, &page);
            }
        }
        match (answer_given, sent) {
            (_, Some(sent)) => sent,
            // Withdrawn while the answerer answered.
            (false, None) => Err(withdrawn()),
            // No answer: the server's timeout decides (before 2026-07-28, and its cancellation
            // ends the wait), or the call is never retried (2026-07-28).
            (true, None) => {
                context.ct.cancelled().await;
                Err(withdrawn())
            }
        }
    }

    /// `notifications/elicitation/complete` for a page the answerer accepted: handed to it
    /// (see [`AnsweringClient`]); every other notification rmcp has no type for is ignored.
    async fn on_custom_notification(
        &self,
        notification: CustomNotification,
        _context: NotificationContext<RoleClient>,
    ) {
        let Some(id) = completed_id(&notification) else {
            return;
        };
        // Out of the lock before the answerer runs.
        let completed = self.pages().completed(&id);
        if let Some((server, page)) = completed {
            self.answerer.completed(&server, &page);
        }
    }

    fn get_info(&self) -> ClientConfig {
        let mut elicitation = Map::new();
        for (mode, name) in [(Mode::Form, "form"), (Mode::Url, "url")] {
            if self.declares(mode) {
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
            match self.host.and_then(Profile::client_info) {
                Some((name, version)) => Implementation::new(name, version),
                None => Implementation::new(self.name.clone(), env!("CARGO_PKG_VERSION")),
            },
        );
        if let Some(version) = &self.protocol_version {
            config.protocol_version = version.clone();
        }
        config
    }
}
