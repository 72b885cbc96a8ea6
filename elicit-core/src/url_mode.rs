//! URL-mode elicitation: send the user to a page for something that must not pass through the
//! client — a credential, a payment, a third-party OAuth consent.
//!
//! The user's `accept` means only *consent to open the page*, never that anything on it was
//! done; so the outcome is its own type, [`UrlOutcome`], with no content and a variant named
//! [`Consented`](UrlOutcome::Consented). Whether the interaction finished is something the
//! server learns from its own page (and, in 2025-11-25, may announce with
//! [`ElicitationComplete`]).

use std::fmt;

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use serde_json::Value;

use crate::jsonrpc::JsonRpcError;
use crate::reply::{Action, ReplyError};
use crate::revision::{Revision, RevisionError};
use crate::schema::Text;
use crate::url::{ElicitationUrl, UrlError, UrlPolicy};

/// The `elicitationId` of a 2025-11-25 URL elicitation: 128 random bits from the operating
/// system, as 32 lowercase hex digits, so that no one can guess another user's id.
///
/// ```
/// # extern crate elicit_core as mcp_elicit;
/// use mcp_elicit::ElicitationId;
/// let id = ElicitationId::random()?;
/// assert_eq!(id.as_str().len(), 32);
/// assert_ne!(id, ElicitationId::random()?);
/// # Ok::<(), mcp_elicit::UrlError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ElicitationId(String);

impl ElicitationId {
    /// The longest id [`ElicitationId::parse`] accepts.
    pub const MAX_LEN: usize = 256;

    /// A fresh unguessable id.
    pub fn random() -> Result<Self, UrlError> {
        let mut bytes = [0u8; 16];
        getrandom::fill(&mut bytes).map_err(|_| UrlError::NoRandomness)?;
        let mut hex = String::with_capacity(32);
        for b in bytes {
            hex.push(hex_digit(b >> 4));
            hex.push(hex_digit(b & 0xf));
        }
        Ok(Self(hex))
    }

    /// An id made earlier (stored by the server, or echoed by a client): 1 to
    /// [`MAX_LEN`](Self::MAX_LEN) printable ASCII characters without spaces.
    pub fn parse(id: &str) -> Result<Self, InvalidElicitationId> {
        if id.is_empty() || id.len() > Self::MAX_LEN || !id.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(InvalidElicitationId);
        }
        Ok(Self(id.to_owned()))
    }

    /// The id as sent.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

fn hex_digit(nibble: u8) -> char {
    char::from(
        b"0123456789abcdef"
            .get(usize::from(nibble & 0xf))
            .copied()
            .unwrap_or(b'0'),
    )
}

impl fmt::Display for ElicitationId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Serialize for ElicitationId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

/// A string that cannot be an `elicitationId`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InvalidElicitationId;

impl fmt::Display for InvalidElicitationId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "an elicitationId is 1 to {} printable ASCII characters without spaces",
            ElicitationId::MAX_LEN
        )
    }
}

impl std::error::Error for InvalidElicitationId {}

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
/// assert_eq!(outcome, UrlOutcome::Consented);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, PartialEq)]
pub struct UrlRequest {
    name: Text,
    message: Text,
    url: ElicitationUrl,
    id: ElicitationId,
}

impl UrlRequest {
    /// A request to open `url` (checked under [`UrlPolicy::Production`]), with a fresh
    /// [`ElicitationId`].
    pub fn new(message: impl Into<Text>, url: &str) -> Result<Self, UrlError> {
        Self::with_url(message, ElicitationUrl::parse(url)?)
    }

    /// A request to open an already checked URL (e.g. one accepted under
    /// [`UrlPolicy::Development`]), with a fresh [`ElicitationId`].
    pub fn with_url(message: impl Into<Text>, url: ElicitationUrl) -> Result<Self, UrlError> {
        let message = message.into();
        if !crate::schema::rules::message_is_not_empty(&message) {
            return Err(UrlError::EmptyMessage);
        }
        Ok(Self {
            name: Text::Borrowed("url"),
            message,
            url,
            id: ElicitationId::random()?,
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

    /// The message shown to the user.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The page to open.
    pub fn url(&self) -> &ElicitationUrl {
        &self.url
    }

    /// The id sent in 2025-11-25 (unused by other revisions).
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
        crate::observe::record_url_reply(&self.name, &result);
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
    request: &'a UrlRequest,
    revision: Revision,
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
        if self.revision.has_elicitation_id() {
            map.serialize_entry("elicitationId", &self.request.id)?;
        }
        map.serialize_entry("message", self.request.message.as_ref())?;
        map.serialize_entry("url", &self.request.url)?;
        map.end()
    }
}

/// The outcome of a URL elicitation. There is no content, and `accept` is
/// [`Consented`](UrlOutcome::Consented): the user agreed to open the page, nothing more. Check
/// your own state for whether they finished.
///
/// ```
/// # extern crate elicit_core as mcp_elicit;
/// use mcp_elicit::UrlOutcome;
/// fn next_step(outcome: UrlOutcome) -> &'static str {
///     match outcome {
///         UrlOutcome::Consented => "waiting for you to finish on the page; call again when done",
///         UrlOutcome::Declined => "not connected: you declined",
///         UrlOutcome::Cancelled => "not connected: the request was dismissed",
///         UrlOutcome::NoReply => "not connected: no answer arrived",
///     }
/// }
/// assert_eq!(next_step(UrlOutcome::Declined), "not connected: you declined");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[must_use = "consent to open a page is not completion; decline, cancel and no reply must be handled"]
pub enum UrlOutcome {
    /// The user consented to open the page. The interaction on it may not have happened.
    Consented,
    /// The user explicitly declined to open it.
    Declined,
    /// The user dismissed the request without choosing.
    Cancelled,
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
            Action::Accept => UrlOutcome::Consented,
            Action::Decline => UrlOutcome::Declined,
            Action::Cancel => UrlOutcome::Cancelled,
        }
    }

    /// [`from_reply`](UrlOutcome::from_reply) from JSON text (at most
    /// [`MAX_REPLY_BYTES`](crate::MAX_REPLY_BYTES)).
    pub fn from_reply_str(reply: &str) -> Result<Self, ReplyError> {
        Ok(Self::from_action(
            crate::read::read_text(None, reply)?.action?,
        ))
    }

    /// The action the client reported, or `None` for [`UrlOutcome::NoReply`].
    pub fn action(self) -> Option<Action> {
        match self {
            UrlOutcome::Consented => Some(Action::Accept),
            UrlOutcome::Declined => Some(Action::Decline),
            UrlOutcome::Cancelled => Some(Action::Cancel),
            UrlOutcome::NoReply => None,
        }
    }

    /// Whether the user consented to open the page (not whether they finished).
    pub fn is_consented(self) -> bool {
        self == UrlOutcome::Consented
    }
}

/// `notifications/elicitation/complete` (2025-11-25): the server tells the client that the
/// page of a URL elicitation was completed. Send it only to the client that was asked.
///
/// ```
/// # extern crate elicit_core as mcp_elicit;
/// use mcp_elicit::{ElicitationComplete, ElicitationId};
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

/// `URLElicitationRequiredError` (`-32042`, 2025-11-25): the request cannot be processed until
/// the user completes these URL elicitations. Never empty, by construction.
///
/// In 2026-07-28 the same situation is an `InputRequiredResult` carrying the URL elicitation.
///
/// ```
/// # extern crate elicit_core as mcp_elicit;
/// use mcp_elicit::{UrlElicitationRequired, UrlRequest};
/// let connect = UrlRequest::new(
///     "Authorization is required to access your Example Co files.",
///     "https://mcp.example.com/connect",
/// )?;
/// let error = UrlElicitationRequired::new(connect).to_jsonrpc_error();
/// let json = serde_json::to_value(error.response(2))?;
/// assert_eq!(json["error"]["code"], -32042);
/// assert_eq!(json["error"]["data"]["elicitations"][0]["mode"], "url");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct UrlElicitationRequired {
    message: Text,
    elicitations: Vec<UrlRequest>,
}

impl UrlElicitationRequired {
    /// The error for one required elicitation, with the spec's message.
    pub fn new(first: UrlRequest) -> Self {
        Self {
            message: Text::Borrowed("This request requires more information."),
            elicitations: vec![first],
        }
    }

    /// Require another elicitation as well.
    pub fn and(mut self, another: UrlRequest) -> Self {
        self.elicitations.push(another);
        self
    }

    /// Replace the error's one-sentence message.
    pub fn with_message(mut self, message: impl Into<Text>) -> Self {
        self.message = message.into();
        self
    }

    /// The required elicitations.
    pub fn elicitations(&self) -> &[UrlRequest] {
        &self.elicitations
    }

    /// The JSON-RPC error object, each elicitation written with its `elicitationId`.
    pub fn to_jsonrpc_error(&self) -> JsonRpcError {
        let elicitations = self
            .elicitations
            .iter()
            .map(|r| {
                serde_json::to_value(RevisionedUrlRequest {
                    request: r,
                    revision: Revision::V2025_11_25,
                })
                .unwrap_or(Value::Null)
            })
            .collect();
        let mut data = serde_json::Map::new();
        data.insert("elicitations".to_owned(), Value::Array(elicitations));
        JsonRpcError::new(
            JsonRpcError::URL_ELICITATION_REQUIRED,
            self.message.as_ref(),
            Some(Value::Object(data)),
        )
    }
}

/// A URL-mode elicitation declared as a type: `#[derive(Elicit)]` with
/// `#[elicit(mode = "url", message = "…")]` implements it. The message is fixed; the URL is
/// per user and per request, so it is given when the request is built.
///
/// ```
/// # extern crate elicit_core as mcp_elicit;
/// use mcp_elicit::{ElicitUrl, UrlOutcome};
/// struct ConnectGithub; // what `#[derive(Elicit)] #[elicit(mode = "url", message = "...")]` writes:
/// impl ElicitUrl for ConnectGithub {
///     fn message() -> &'static str {
///         "Connect your GitHub account so I can open the pull request."
///     }
///     fn name() -> &'static str {
///         "ConnectGithub"
///     }
/// }
/// let request = ConnectGithub::url_request("https://mcp.example.com/connect/github?flow=91c2")?;
/// assert_eq!(request.message(), ConnectGithub::message());
/// assert!(ConnectGithub::url_request("http://mcp.example.com/").is_err());
/// # Ok::<(), mcp_elicit::UrlError>(())
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a URL-mode elicitation",
    label = "needs `#[derive(Elicit)]` with `#[elicit(mode = \"url\", message = \"...\")]`"
)]
pub trait ElicitUrl {
    /// The message shown to the user: one sentence saying why they should open the page.
    fn message() -> &'static str;

    /// The name this elicitation is reported under (metrics, logs): the type's name, or
    /// `#[elicit(name = "...")]`, as for [`Elicit::name`](crate::Elicit::name).
    fn name() -> &'static str;

    /// A request to open `url`, checked under [`UrlPolicy::Production`].
    fn url_request(url: &str) -> Result<UrlRequest, UrlError> {
        UrlRequest::new(Self::message(), url).map(|r| r.with_name(Self::name()))
    }

    /// A request to open `url`, checked under `policy`.
    fn url_request_with(url: &str, policy: UrlPolicy) -> Result<UrlRequest, UrlError> {
        UrlRequest::with_url(Self::message(), ElicitationUrl::parse_with(url, policy)?)
            .map(|r| r.with_name(Self::name()))
    }

    /// Read the client's `ElicitResult` (see [`UrlOutcome::from_reply`]); the outcome is
    /// recorded for the interrupt budget under [`name`](ElicitUrl::name).
    fn from_reply(reply: &Value) -> Result<UrlOutcome, ReplyError> {
        let result = UrlOutcome::from_reply(reply);
        crate::observe::record_url_reply(Self::name(), &result);
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn request() -> UrlRequest {
        match UrlRequest::new(
            "Please provide your API key to continue.",
            "https://mcp.example.com/ui/set_api_key?flow=SECRETFLOW",
        ) {
            Ok(r) => r,
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn url_request_serializes_to_url_params_without_id_in_2026_07_28() {
        let r = request();
        let expected = json!({
            "mode": "url",
            "message": "Please provide your API key to continue.",
            "url": "https://mcp.example.com/ui/set_api_key?flow=SECRETFLOW",
        });
        assert_eq!(serde_json::to_value(&r).ok(), Some(expected.clone()));
        let latest = r
            .for_revision(Revision::V2026_07_28)
            .map(serde_json::to_value);
        assert_eq!(latest.ok().and_then(Result::ok), Some(expected));
    }

    #[test]
    fn url_request_carries_elicitation_id_in_2025_11_25() {
        let r = request();
        let v = r
            .for_revision(Revision::V2025_11_25)
            .map(serde_json::to_value);
        let v = v.ok().and_then(Result::ok).unwrap_or_default();
        assert_eq!(v["elicitationId"], json!(r.elicitation_id().as_str()));
        assert_eq!(v["mode"], "url");
    }

    #[test]
    fn url_mode_does_not_exist_in_2025_06_18() {
        let err = request().for_revision(Revision::V2025_06_18).unwrap_err();
        assert_eq!(
            err,
            RevisionError::UrlModeUnsupported {
                revision: Revision::V2025_06_18
            }
        );
        assert!(err.to_string().contains("2025-11-25"));
    }

    #[test]
    fn url_request_debug_redacts_the_query() {
        let shown = format!("{:?}", request());
        assert!(!shown.contains("SECRETFLOW"), "{shown}");
        assert!(shown.contains("https://mcp.example.com/ui/set_api_key?<redacted>"));
    }

    #[test]
    fn url_request_refuses_an_empty_message() {
        assert_eq!(
            UrlRequest::new("  ", "https://x.example/").unwrap_err(),
            UrlError::EmptyMessage
        );
    }

    #[test]
    fn url_request_refuses_an_unsafe_url() {
        assert_eq!(
            UrlRequest::new("m", "http://x.example/").unwrap_err(),
            UrlError::InsecureHttp {
                host: "x.example".into()
            }
        );
    }

    #[test]
    fn elicitation_ids_are_128_random_bits_in_hex() {
        let ids: Vec<ElicitationId> = (0..64)
            .filter_map(|_| ElicitationId::random().ok())
            .collect();
        assert_eq!(ids.len(), 64);
        for id in &ids {
            assert_eq!(id.as_str().len(), 32);
            assert!(
                id.as_str()
                    .bytes()
                    .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
            );
        }
        let mut unique = ids.clone();
        unique.sort_by(|a, b| a.0.cmp(&b.0));
        unique.dedup();
        assert_eq!(unique.len(), ids.len());
        assert_ne!(request().elicitation_id(), request().elicitation_id());
    }

    #[test]
    fn elicitation_id_parse_accepts_printable_ascii_only() {
        assert!(ElicitationId::parse("550e8400-e29b-41d4-a716-446655440000").is_ok());
        for bad in ["", "a b", "é", "a\nb", &"x".repeat(257)] {
            assert_eq!(
                ElicitationId::parse(bad),
                Err(InvalidElicitationId),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn accept_of_a_url_elicitation_is_consent_not_completion() {
        assert_eq!(
            UrlOutcome::from_reply(&json!({"action": "accept"})),
            Ok(UrlOutcome::Consented)
        );
        assert_eq!(
            UrlOutcome::from_reply(&json!({"action": "decline"})),
            Ok(UrlOutcome::Declined)
        );
        assert_eq!(
            UrlOutcome::from_reply(&json!({"action": "cancel"})),
            Ok(UrlOutcome::Cancelled)
        );
        assert_eq!(UrlOutcome::NoReply.action(), None);
        assert!(UrlOutcome::Consented.is_consented());
    }

    #[test]
    fn url_reply_ignores_content_meta_and_elicitation_id() {
        for reply in [
            json!({"action": "accept", "content": {"password": "hunter2"}}),
            json!({"action": "accept", "content": "junk"}),
            json!({"action": "accept", "content": null}),
            json!({"action": "accept", "elicitationId": "abc", "_meta": {"x": 1}}),
        ] {
            assert_eq!(
                UrlOutcome::from_reply(&reply),
                Ok(UrlOutcome::Consented),
                "{reply}"
            );
        }
    }

    #[test]
    fn malformed_url_replies_are_errors_not_outcomes() {
        for reply in [
            json!([]),
            json!({}),
            json!({"action": "ACCEPT"}),
            json!({"action": 1}),
        ] {
            assert!(
                matches!(
                    UrlOutcome::from_reply(&reply),
                    Err(ReplyError::Malformed(_))
                ),
                "{reply}"
            );
        }
        assert!(UrlOutcome::from_reply_str("{").is_err());
        let huge = format!(
            "{{\"action\":\"accept\",\"x\":\"{}\"}}",
            "a".repeat(crate::MAX_REPLY_BYTES)
        );
        assert!(matches!(
            UrlOutcome::from_reply_str(&huge),
            Err(ReplyError::Malformed(
                crate::MalformedReply::TooLarge { .. }
            ))
        ));
    }

    #[test]
    fn completion_notification_names_the_elicitation() {
        let r = request();
        let v = serde_json::to_value(r.completion()).unwrap_or_default();
        assert_eq!(
            v,
            json!({
                "jsonrpc": "2.0",
                "method": "notifications/elicitation/complete",
                "params": {"elicitationId": r.elicitation_id().as_str()}
            })
        );
    }

    #[test]
    fn url_elicitation_required_error_lists_url_elicitations_with_ids() {
        let (a, b) = (request(), request());
        let error = UrlElicitationRequired::new(a.clone())
            .and(b.clone())
            .to_jsonrpc_error();
        assert_eq!(error.code(), -32042);
        assert_eq!(error.message(), "This request requires more information.");
        let v = serde_json::to_value(error.response("req-2")).unwrap_or_default();
        assert_eq!(v["id"], "req-2");
        assert_eq!(v["jsonrpc"], "2.0");
        let list = &v["error"]["data"]["elicitations"];
        assert_eq!(list[0]["elicitationId"], a.elicitation_id().as_str());
        assert_eq!(list[1]["elicitationId"], b.elicitation_id().as_str());
        assert_eq!(list[1]["mode"], "url");
    }

    #[test]
    fn elicit_url_trait_builds_requests_from_a_static_message() {
        struct Pay;
        impl ElicitUrl for Pay {
            fn message() -> &'static str {
                "Confirm the payment on the provider's page."
            }
            fn name() -> &'static str {
                "Pay"
            }
        }
        let r =
            Pay::url_request("https://pay.example/checkout/1").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(r.message(), Pay::message());
        assert!(Pay::url_request("http://pay.example/").is_err());
        assert!(Pay::url_request_with("http://pay.example/", UrlPolicy::Development).is_ok());
        assert_eq!(
            Pay::from_reply(&json!({"action": "accept"})),
            Ok(UrlOutcome::Consented)
        );
    }
}
