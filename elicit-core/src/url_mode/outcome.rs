//! What the user did with a URL elicitation, and the notification that it completed.

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use serde_json::Value;

use super::ElicitationId;
use crate::outcome::{Action, ReplyError};

/// The outcome of a URL elicitation. Its variants are named like [`Elicitation`]'s, but there is
/// no content, and [`Accept`](UrlOutcome::Accept) means only that the user agreed to open the
/// page, nothing more. Check your own state for whether they finished.
///
/// [`Elicitation`]: crate::Elicitation
///
/// ```
/// # extern crate elicit_core as mcp_elicit;
/// use mcp_elicit::UrlOutcome;
/// fn next_step(outcome: UrlOutcome) -> &'static str {
///     match outcome {
///         UrlOutcome::Accept => "waiting for you to finish on the page; call again when done",
///         UrlOutcome::Decline => "not connected: you declined",
///         UrlOutcome::Cancel => "not connected: the request was dismissed",
///         UrlOutcome::NoReply => "not connected: no answer arrived",
///     }
/// }
/// assert_eq!(next_step(UrlOutcome::Decline), "not connected: you declined");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[must_use = "consent to open a page is not completion; decline, cancel and no reply must be handled"]
pub enum UrlOutcome {
    /// The user agreed to open the page — **not** that they finished there. The interaction on
    /// the page may not have happened, may still be going on, or may have failed; only your
    /// page knows.
    Accept,
    /// The user explicitly declined to open it.
    Decline,
    /// The user dismissed the request without choosing.
    Cancel,
    /// No answer arrived. Parsing a reply never produces this; the code that waits does.
    NoReply,
}

impl UrlOutcome {
    /// Read an `ElicitResult` answering a URL elicitation. Only `action` matters: any
    /// `content`, `_meta` or `elicitationId` a client adds is ignored.
    pub fn from_reply(reply: &Value) -> Result<Self, ReplyError> {
        Ok(Self::from_action(
            crate::read::read_value(None, reply)?.action?,
        ))
    }

    /// The outcome of a URL elicitation the user answered with `action`.
    pub fn from_action(action: Action) -> Self {
        match action {
            Action::Accept => UrlOutcome::Accept,
            Action::Decline => UrlOutcome::Decline,
            Action::Cancel => UrlOutcome::Cancel,
        }
    }

    /// [`from_reply`](UrlOutcome::from_reply) from JSON text (at most
    /// [`MAX_REPLY_BYTES`](crate::limits::MAX_REPLY_BYTES)).
    pub fn from_reply_str(reply: &str) -> Result<Self, ReplyError> {
        Ok(Self::from_action(
            crate::read::read_text(None, reply)?.action?,
        ))
    }

    /// How this outcome counts in the interrupt budget ([`crate::observe`]): agreeing to open
    /// the page counts as accepted.
    pub fn outcome(self) -> crate::observe::Outcome {
        use crate::observe::Outcome;
        match self {
            UrlOutcome::Accept => Outcome::Accepted,
            UrlOutcome::Decline => Outcome::Declined,
            UrlOutcome::Cancel => Outcome::Cancelled,
            UrlOutcome::NoReply => Outcome::NoReply,
        }
    }

    /// The action the client reported, or `None` for [`UrlOutcome::NoReply`].
    pub fn action(self) -> Option<Action> {
        match self {
            UrlOutcome::Accept => Some(Action::Accept),
            UrlOutcome::Decline => Some(Action::Decline),
            UrlOutcome::Cancel => Some(Action::Cancel),
            UrlOutcome::NoReply => None,
        }
    }

    /// Whether the user agreed to open the page (not whether they finished there). Named like
    /// [`Elicitation::is_accepted`](crate::Elicitation::is_accepted).
    pub fn is_accepted(self) -> bool {
        self == UrlOutcome::Accept
    }
}

/// `notifications/elicitation/complete` (2025-11-25): the server tells the client that the
/// page of a URL elicitation was completed. Send it only to the client that was asked.
///
/// ```
/// # extern crate elicit_core as mcp_elicit;
/// use mcp_elicit::{url_mode::{ElicitationComplete, ElicitationId}};
/// let done = ElicitationComplete::new(ElicitationId::parse("550e8400-e29b-41d4-a716-446655440000")?);
/// assert_eq!(serde_json::to_value(&done)?, serde_json::json!({
///     "jsonrpc": "2.0",
///     "method": "notifications/elicitation/complete",
///     "params": {"elicitationId": "550e8400-e29b-41d4-a716-446655440000"}
/// }));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ElicitationComplete {
    elicitation_id: ElicitationId,
}

impl ElicitationComplete {
    /// The notification's method.
    pub const METHOD: &'static str = "notifications/elicitation/complete";

    /// The notification for this elicitation.
    pub fn new(elicitation_id: ElicitationId) -> Self {
        Self { elicitation_id }
    }

    /// The completed elicitation.
    pub fn elicitation_id(&self) -> &ElicitationId {
        &self.elicitation_id
    }
}

impl Serialize for ElicitationComplete {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        struct Params<'a>(&'a ElicitationId);
        impl Serialize for Params<'_> {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let mut map = serializer.serialize_map(Some(1))?;
                map.serialize_entry("elicitationId", self.0)?;
                map.end()
            }
        }
        let mut map = serializer.serialize_map(Some(3))?;
        map.serialize_entry("jsonrpc", "2.0")?;
        map.serialize_entry("method", Self::METHOD)?;
        map.serialize_entry("params", &Params(&self.elicitation_id))?;
        map.end()
    }
}
