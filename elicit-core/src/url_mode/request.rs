//! A URL-mode request: the message, the checked URL, and its id; as each revision writes it.

use std::fmt;

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use serde_json::Value;

use super::{ElicitationComplete, ElicitationId, UrlOutcome, UrlRequestError, record_url_reply};
use crate::outcome::ReplyError;
use crate::requested::Text;
use crate::revision::{Revision, RevisionError};
use crate::url::ElicitationUrl;

/// A URL-mode elicitation: a message saying why, and the checked URL of the page to open.
///
/// Its own `Serialize` writes the latest revision's `ElicitRequestURLParams`
/// (`{"mode": "url", "message", "url"}`); [`for_revision`](UrlRequest::for_revision) writes any
/// revision's, adding the `elicitationId` in 2025-11-25. `Debug` never shows the URL's query.
///
/// ```
/// # extern crate elicit_core as mcp_elicit;
/// use mcp_elicit::{Revision, UrlOutcome, UrlRequest};
/// let request = UrlRequest::new(
///     "Connect your Example Co account so I can read your files.",
///     "https://mcp.example.com/connect?flow=7f3a",
/// )?;
/// assert_eq!(serde_json::to_value(&request)?, serde_json::json!({
///     "mode": "url",
///     "message": "Connect your Example Co account so I can read your files.",
///     "url": "https://mcp.example.com/connect?flow=7f3a",
/// }));
/// let older = serde_json::to_value(request.for_revision(Revision::V2025_11_25)?)?;
/// assert_eq!(older["elicitationId"], request.elicitation_id().as_str());
/// assert!(!format!("{request:?}").contains("7f3a"));
///
/// // Accept is consent to open the page, not completion.
/// let outcome = request.parse_reply(&serde_json::json!({"action": "accept"}))?;
/// assert_eq!(outcome, UrlOutcome::Accept);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, PartialEq)]
pub struct UrlRequest {
    name: Text,
    message: Text,
    url: ElicitationUrl,
    id: ElicitationId,
    /// Whether the `elicitationId` is written on every revision, also one that removed it.
    id_always: bool,
}

impl UrlRequest {
    /// A request to open `url` (checked under
    /// [`UrlPolicy::Production`](crate::url_mode::UrlPolicy::Production)), with a fresh [`ElicitationId`].
    pub fn new(message: impl Into<Text>, url: &str) -> Result<Self, UrlRequestError> {
        Self::with_url(message, ElicitationUrl::parse(url)?)
    }

    /// A request to open an already checked URL (e.g. one accepted under
    /// [`UrlPolicy::Development`](crate::url_mode::UrlPolicy::Development)), with a fresh
    /// [`ElicitationId`].
    pub fn with_url(
        message: impl Into<Text>,
        url: ElicitationUrl,
    ) -> Result<Self, UrlRequestError> {
        let message = message.into();
        if !crate::requested::rules::message_is_not_empty(&message) {
            return Err(UrlRequestError::EmptyMessage);
        }
        Ok(Self {
            name: Text::Borrowed("url"),
            message,
            url,
            id: ElicitationId::random()?,
            id_always: false,
        })
    }

    /// The name this request is reported under in [`crate::observe`]: the derived type's name
    /// (`ElicitUrl::url_request`), or `"url"` until set with [`with_name`](UrlRequest::with_name).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Report this request under another name.
    pub fn with_name(mut self, name: impl Into<Text>) -> Self {
        self.name = name.into();
        self
    }

    /// Use an id the server already made (e.g. one it put in the URL and stored).
    pub fn with_elicitation_id(mut self, id: ElicitationId) -> Self {
        self.id = id;
        self
    }

    /// Write the `elicitationId` on every revision, also on one that removed it (2026-07-28,
    /// whose schema allows members it does not name), for a host that still needs it
    /// ([`Host::url_needs_elicitation_id`](crate::hosts::Host::url_needs_elicitation_id): GitHub
    /// Copilot CLI 1.0.102). Set the id the server knows the step by first
    /// ([`with_elicitation_id`](UrlRequest::with_elicitation_id)).
    ///
    /// ```
    /// # extern crate elicit_core as mcp_elicit;
    /// use mcp_elicit::{Revision, UrlRequest};
    /// let request = UrlRequest::new("Connect your account.", "https://mcp.example.com/c/7f3a")?;
    /// let latest = serde_json::to_value(request.for_revision(Revision::V2026_07_28)?)?;
    /// assert!(latest.get("elicitationId").is_none());
    /// let request = request.with_elicitation_id_on_every_revision();
    /// let latest = serde_json::to_value(request.for_revision(Revision::V2026_07_28)?)?;
    /// assert_eq!(latest["elicitationId"], request.elicitation_id().as_str());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn with_elicitation_id_on_every_revision(mut self) -> Self {
        self.id_always = true;
        self
    }

    /// Whether `revision` writes this request's `elicitationId`: the revisions that have one
    /// (2025-11-25), and every revision once
    /// [`with_elicitation_id_on_every_revision`](UrlRequest::with_elicitation_id_on_every_revision).
    pub fn writes_elicitation_id(&self, revision: Revision) -> bool {
        self.id_always || revision.has_elicitation_id()
    }

    /// The same request (URL, id, name) with `note` after its message: asked again.
    #[cfg(feature = "mrtr")]
    pub(crate) fn noted(&self, note: &str) -> Self {
        Self {
            message: format!("{} ({note})", self.message).into(),
            ..self.clone()
        }
    }

    /// The message shown to the user.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The page to open.
    pub fn url(&self) -> &ElicitationUrl {
        &self.url
    }

    /// The id sent in 2025-11-25 (unused by other revisions unless
    /// [`with_elicitation_id_on_every_revision`](UrlRequest::with_elicitation_id_on_every_revision)).
    pub fn elicitation_id(&self) -> &ElicitationId {
        &self.id
    }

    /// The `elicitation/create` params as `revision` writes them; 2025-06-18 has no URL mode.
    pub fn for_revision(
        &self,
        revision: Revision,
    ) -> Result<RevisionedUrlRequest<'_>, RevisionError> {
        if !revision.has_url_mode() {
            return Err(RevisionError::UrlModeUnsupported { revision });
        }
        Ok(RevisionedUrlRequest {
            request: self,
            revision,
        })
    }

    /// Read the client's `ElicitResult` for this request (see [`UrlOutcome::from_reply`]).
    /// The outcome is recorded for the interrupt budget ([`crate::observe`]).
    pub fn parse_reply(&self, reply: &Value) -> Result<UrlOutcome, ReplyError> {
        self.recorded(UrlOutcome::from_reply(reply))
    }

    /// [`parse_reply`](UrlRequest::parse_reply) from JSON text.
    pub fn parse_reply_str(&self, reply: &str) -> Result<UrlOutcome, ReplyError> {
        self.recorded(UrlOutcome::from_reply_str(reply))
    }

    fn recorded(&self, result: Result<UrlOutcome, ReplyError>) -> Result<UrlOutcome, ReplyError> {
        record_url_reply(&self.name, &result);
        result
    }

    /// The 2025-11-25 notification announcing that this elicitation's page was completed.
    pub fn completion(&self) -> ElicitationComplete {
        ElicitationComplete::new(self.id.clone())
    }
}

impl fmt::Debug for UrlRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UrlRequest")
            .field("name", &self.name)
            .field("message", &self.message)
            .field("url", &self.url)
            .field("elicitation_id", &self.id)
            .finish()
    }
}

impl Serialize for UrlRequest {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        RevisionedUrlRequest {
            request: self,
            revision: Revision::LATEST,
        }
        .serialize(serializer)
    }
}

/// A [`UrlRequest`] as one revision writes it: `ElicitRequestURLParams`.
#[derive(Debug, Clone, Copy)]
pub struct RevisionedUrlRequest<'a> {
    pub(super) request: &'a UrlRequest,
    pub(super) revision: Revision,
}

impl RevisionedUrlRequest<'_> {
    /// The revision written.
    pub fn revision(&self) -> Revision {
        self.revision
    }
}

impl Serialize for RevisionedUrlRequest<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("mode", "url")?;
        if self.request.writes_elicitation_id(self.revision) {
            map.serialize_entry("elicitationId", &self.request.id)?;
        }
        map.serialize_entry("message", self.request.message.as_ref())?;
        map.serialize_entry("url", &self.request.url)?;
        map.end()
    }
}
