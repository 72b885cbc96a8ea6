//! Which input requests a client may be sent: the capabilities it declared on *this* request.
//!
//! In 2026-07-28 a client declares its capabilities on every request, in
//! `_meta["io.modelcontextprotocol/clientCapabilities"]`, and a server must not infer them from
//! an earlier one. A server **must not** send an input request the client has not declared
//! support for. This is the minimal check a round needs; it reads only the members that decide
//! which input requests may be sent.

use std::fmt;

use serde_json::{Map, Value};

use super::error::{MrtrError, json_type};

/// The `_meta` key under which a 2026-07-28 request carries the client's capabilities.
pub const CLIENT_CAPABILITIES_META_KEY: &str = "io.modelcontextprotocol/clientCapabilities";

/// A client capability that an input request needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Capability {
    /// `elicitation.form` (or an `elicitation` object naming no mode): form-mode `elicitation/create`.
    ElicitationForm,
    /// `elicitation.url`: URL-mode `elicitation/create`.
    ElicitationUrl,
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
    /// use elicit_core::mrtr::Capability;
    /// use serde_json::json;
    /// let url = json!({"method": "elicitation/create", "params": {"mode": "url"}});
    /// assert_eq!(Capability::of_input_request(&url), Some(Capability::ElicitationUrl));
    /// assert_eq!(Capability::of_input_request(&json!({"method": "roots/list"})), Some(Capability::Roots));
    /// assert_eq!(Capability::of_input_request(&json!({"method": "tools/call"})), None);
    /// ```
    #[must_use]
    pub fn of_input_request(request: &Value) -> Option<Self> {
        match request.get("method")?.as_str()? {
            "elicitation/create" => {
                let mode = request.get("params").and_then(|p| p.get("mode"));
                match mode.and_then(Value::as_str) {
                    Some("url") => Some(Self::ElicitationUrl),
                    _ => Some(Self::ElicitationForm),
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
            Self::ElicitationForm => ("elicitation", Some("form")),
            Self::ElicitationUrl => ("elicitation", Some("url")),
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
        f.write_str(match self {
            Self::ElicitationForm => "the `elicitation.form` client capability",
            Self::ElicitationUrl => "the `elicitation.url` client capability",
            Self::Sampling => "the `sampling` client capability",
            Self::Roots => "the `roots` client capability",
        })
    }
}

/// The capabilities a client declared on one request, as far as input requests are concerned.
///
/// An `elicitation` object naming neither `form` nor `url` declares form mode (the spec's
/// backwards-compatible reading); a member that is not an object declares nothing. A request
/// without `_meta`, or without the capabilities member, declares nothing: such a client is
/// never asked, and a handler should complete without asking or fail legibly
/// ([`MrtrError::MissingCapabilities`]).
///
/// ```
/// use elicit_core::mrtr::{Capability, DeclaredCapabilities};
/// use serde_json::json;
///
/// let declared = DeclaredCapabilities::from_client_capabilities(&json!({"elicitation": {}}))?;
/// assert!(declared.supports(Capability::ElicitationForm));
/// assert!(!declared.supports(Capability::ElicitationUrl));
/// assert!(!declared.supports(Capability::Sampling));
/// # Ok::<(), elicit_core::mrtr::MrtrError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DeclaredCapabilities {
    elicitation_form: bool,
    elicitation_url: bool,
    sampling: bool,
    roots: bool,
}

impl DeclaredCapabilities {
    /// A client that declared nothing: it may be sent no input request at all.
    pub const NONE: Self = Self {
        elicitation_form: false,
        elicitation_url: false,
        sampling: false,
        roots: false,
    };

    /// Reads a `ClientCapabilities` object.
    ///
    /// # Errors
    /// [`MrtrError::CapabilitiesNotAnObject`] if `capabilities` is not an object.
    pub fn from_client_capabilities(capabilities: &Value) -> Result<Self, MrtrError> {
        let Value::Object(capabilities) = capabilities else {
            return Err(MrtrError::CapabilitiesNotAnObject {
                field: CLIENT_CAPABILITIES_META_KEY,
                found: json_type(capabilities),
            });
        };
        let object = |name: &str| capabilities.get(name).and_then(Value::as_object);
        let (elicitation_form, elicitation_url) = match object("elicitation") {
            None => (false, false),
            Some(modes) => {
                let form = modes.get("form").is_some_and(Value::is_object);
                let url = modes.get("url").is_some_and(Value::is_object);
                let names_a_mode = modes.contains_key("form") || modes.contains_key("url");
                (form || !names_a_mode, url)
            }
        };
        Ok(Self {
            elicitation_form,
            elicitation_url,
            sampling: object("sampling").is_some(),
            roots: object("roots").is_some(),
        })
    }

    /// Reads the capabilities out of a request's `_meta` (`None` when the request has none).
    ///
    /// # Errors
    /// [`MrtrError::CapabilitiesNotAnObject`] if `_meta` or its capabilities member is present
    /// but not an object.
    ///
    /// ```
    /// use elicit_core::mrtr::{Capability, DeclaredCapabilities};
    /// use serde_json::json;
    ///
    /// let meta = json!({"io.modelcontextprotocol/clientCapabilities": {"sampling": {}}});
    /// let declared = DeclaredCapabilities::from_meta(Some(&meta))?;
    /// assert!(declared.supports(Capability::Sampling));
    /// assert_eq!(DeclaredCapabilities::from_meta(None)?, DeclaredCapabilities::NONE);
    /// # Ok::<(), elicit_core::mrtr::MrtrError>(())
    /// ```
    pub fn from_meta(meta: Option<&Value>) -> Result<Self, MrtrError> {
        let Some(meta) = meta else {
            return Ok(Self::NONE);
        };
        let Value::Object(meta) = meta else {
            return Err(MrtrError::CapabilitiesNotAnObject {
                field: "_meta",
                found: json_type(meta),
            });
        };
        match meta.get(CLIENT_CAPABILITIES_META_KEY) {
            None => Ok(Self::NONE),
            Some(capabilities) => Self::from_client_capabilities(capabilities),
        }
    }

    /// Whether the client may be sent an input request needing `capability`.
    #[must_use]
    pub fn supports(&self, capability: Capability) -> bool {
        match capability {
            Capability::ElicitationForm => self.elicitation_form,
            Capability::ElicitationUrl => self.elicitation_url,
            Capability::Sampling => self.sampling,
            Capability::Roots => self.roots,
        }
    }
}
