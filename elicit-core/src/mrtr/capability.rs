//! Which input requests a client may be sent: the capabilities it declared on *this* request.
//!
//! In 2026-07-28 a client declares its capabilities on every request, in
//! `_meta["io.modelcontextprotocol/clientCapabilities"]`, and a server must not infer them from
//! an earlier one. A server **must not** send an input request the client has not declared
//! support for. Elicitation is read by the crate's [`ElicitationSupport`] (so `{}` means form
//! mode, exactly as everywhere else in this crate); `sampling` and `roots` are read here.

use std::fmt;

use serde_json::{Map, Value};

use super::error::MrtrError;
use crate::capabilities::{
    CLIENT_CAPABILITIES_META_KEY, CapabilityError, ElicitationSupport, Mode,
};

/// A client capability that an input request needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Capability {
    /// `elicitation` in this mode: `elicitation/create`.
    Elicitation(Mode),
    /// `sampling`: `sampling/createMessage`.
    Sampling,
    /// `roots`: `roots/list`.
    Roots,
}

impl Capability {
    /// The capability an input request (`{"method": .., "params": ..}`) needs, or `None` for a
    /// method an `InputRequiredResult` may not carry.
    ///
    /// ```
    /// # extern crate elicit_core as mcp_elicit;
    /// use mcp_elicit::Mode;
    /// use mcp_elicit::mrtr::Capability;
    /// use serde_json::json;
    /// let url = json!({"method": "elicitation/create", "params": {"mode": "url"}});
    /// assert_eq!(Capability::of_input_request(&url), Some(Capability::Elicitation(Mode::Url)));
    /// assert_eq!(Capability::of_input_request(&json!({"method": "roots/list"})), Some(Capability::Roots));
    /// assert_eq!(Capability::of_input_request(&json!({"method": "tools/call"})), None);
    /// ```
    #[must_use]
    pub fn of_input_request(request: &Value) -> Option<Self> {
        match request.get("method")?.as_str()? {
            "elicitation/create" => {
                let mode = request.get("params").and_then(|p| p.get("mode"));
                match mode.and_then(Value::as_str) {
                    Some("url") => Some(Self::Elicitation(Mode::Url)),
                    _ => Some(Self::Elicitation(Mode::Form)),
                }
            }
            "sampling/createMessage" => Some(Self::Sampling),
            "roots/list" => Some(Self::Roots),
            _ => None,
        }
    }

    /// Adds this capability to a `ClientCapabilities` object (for `requiredCapabilities`).
    pub(crate) fn declare_in(self, capabilities: &mut Map<String, Value>) {
        let (name, mode) = match self {
            Self::Elicitation(mode) => ("elicitation", Some(mode.as_str())),
            Self::Sampling => ("sampling", None),
            Self::Roots => ("roots", None),
        };
        let entry = capabilities
            .entry(name)
            .or_insert_with(|| Value::Object(Map::new()));
        if let (Some(mode), Value::Object(modes)) = (mode, entry) {
            modes.insert(mode.into(), Value::Object(Map::new()));
        }
    }
}

impl fmt::Display for Capability {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Elicitation(mode) => write!(f, "the `elicitation.{mode}` client capability"),
            Self::Sampling => f.write_str("the `sampling` client capability"),
            Self::Roots => f.write_str("the `roots` client capability"),
        }
    }
}

/// The capabilities a client declared on one request, as far as input requests are concerned:
/// its [`ElicitationSupport`], and whether it declared `sampling` and `roots`.
///
/// A client that declared nothing may be sent no input request at all; a handler should then
/// complete without asking, or fail legibly (see [`CannotAsk`](crate::protocol::CannotAsk)), which
/// [`Round::answer`](super::Round::answer) does for it with
/// [`MrtrError::MissingCapabilities`] (`-32021`).
///
/// ```
/// # extern crate elicit_core as mcp_elicit;
/// use mcp_elicit::Mode;
/// use mcp_elicit::mrtr::{Capability, DeclaredCapabilities};
/// use serde_json::json;
///
/// let declared = DeclaredCapabilities::from_client_capabilities(&json!({"elicitation": {}}))?;
/// assert!(declared.supports(Capability::Elicitation(Mode::Form)));
/// assert!(!declared.supports(Capability::Elicitation(Mode::Url)));
/// assert!(!declared.supports(Capability::Sampling));
/// # Ok::<(), mcp_elicit::mrtr::MrtrError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DeclaredCapabilities {
    elicitation: ElicitationSupport,
    sampling: bool,
    roots: bool,
}

impl DeclaredCapabilities {
    /// A client that declared nothing.
    pub const NONE: Self = Self {
        elicitation: ElicitationSupport::NONE,
        sampling: false,
        roots: false,
    };

    /// Reads a `ClientCapabilities` object.
    ///
    /// # Errors
    /// [`MrtrError::Capabilities`] (`-32602`) if it, `elicitation`, `sampling` or `roots` is not
    /// an object, or `elicitation` names no mode.
    pub fn from_client_capabilities(capabilities: &Value) -> Result<Self, MrtrError> {
        let elicitation = ElicitationSupport::from_client_capabilities(capabilities)?;
        let declared = |member: &'static str| match capabilities.get(member) {
            None => Ok(false),
            Some(Value::Object(_)) => Ok(true),
            Some(_) => Err(CapabilityError::NotAnObject { member }),
        };
        Ok(Self {
            elicitation,
            sampling: declared("sampling")?,
            roots: declared("roots")?,
        })
    }

    /// Reads the capabilities from a 2026-07-28 request's params,
    /// `_meta["io.modelcontextprotocol/clientCapabilities"]`. Both are required there, so their
    /// absence is an error, not "no capabilities" (as in
    /// [`ElicitationSupport::from_request_meta`]).
    ///
    /// # Errors
    /// [`MrtrError::Capabilities`] (`-32602`) naming the member that is missing or malformed.
    ///
    /// ```
    /// # extern crate elicit_core as mcp_elicit;
    /// use mcp_elicit::mrtr::{Capability, DeclaredCapabilities};
    /// use serde_json::json;
    ///
    /// let params = json!({"_meta": {"io.modelcontextprotocol/clientCapabilities": {"sampling": {}}}});
    /// assert!(DeclaredCapabilities::from_request_params(&params)?.supports(Capability::Sampling));
    /// let error = DeclaredCapabilities::from_request_params(&json!({"name": "t"})).unwrap_err();
    /// assert_eq!(error.to_string(), "client capabilities: `_meta` is required");
    /// # Ok::<(), mcp_elicit::mrtr::MrtrError>(())
    /// ```
    pub fn from_request_params(params: &Value) -> Result<Self, MrtrError> {
        let meta = params
            .as_object()
            .ok_or(CapabilityError::NotAnObject { member: "params" })?
            .get("_meta")
            .ok_or(CapabilityError::Missing { member: "_meta" })?;
        let capabilities = meta
            .as_object()
            .ok_or(CapabilityError::NotAnObject { member: "_meta" })?
            .get(CLIENT_CAPABILITIES_META_KEY)
            .ok_or(CapabilityError::Missing {
                member: CLIENT_CAPABILITIES_META_KEY,
            })?;
        Self::from_client_capabilities(capabilities)
    }

    /// The elicitation modes the client declared.
    #[must_use]
    pub fn elicitation(&self) -> ElicitationSupport {
        self.elicitation
    }

    /// Whether the client may be sent an input request needing `capability`.
    #[must_use]
    pub fn supports(&self, capability: Capability) -> bool {
        match capability {
            Capability::Elicitation(mode) => self.elicitation.supports(mode),
            Capability::Sampling => self.sampling,
            Capability::Roots => self.roots,
        }
    }
}

impl From<ElicitationSupport> for DeclaredCapabilities {
    /// A client that declared these elicitation modes and nothing else.
    fn from(elicitation: ElicitationSupport) -> Self {
        Self {
            elicitation,
            ..Self::NONE
        }
    }
}
