//! What the client said it can do, and the check to make before asking.
//!
//! A client declares `elicitation` in its `ClientCapabilities`: once, in the `initialize`
//! request's `capabilities` (2025-06-18, 2025-11-25), or on every request, in
//! `_meta["io.modelcontextprotocol/clientCapabilities"]` (2026-07-28, where nothing may be
//! inferred from earlier requests). `{}` means form mode only.
//!
//! Before asking, [`ElicitationSupport::check`] the mode. When it was not declared the answer
//! is [`CannotAsk`]: a value, not a panic and not a guess, which a tool turns into a clear
//! result for a headless client ([`CannotAsk::tool_result`]) or a protocol error
//! ([`CannotAsk::to_jsonrpc_error`]). Proceeding as if the user had agreed is never an option
//! this module offers.

use std::fmt;

use serde_json::{Map, Value, json};

use crate::jsonrpc::JsonRpcError;
use crate::requested::Text;
use crate::revision::Revision;

/// The `_meta` key under which a 2026-07-28 request carries the client's capabilities.
pub const CLIENT_CAPABILITIES_META_KEY: &str = "io.modelcontextprotocol/clientCapabilities";

/// An elicitation mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mode {
    /// A form the client renders; the answer passes through the client.
    Form,
    /// A web page the user opens; nothing but the URL passes through the client.
    Url,
}

impl Mode {
    /// The wire name: `"form"` or `"url"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Mode::Form => "form",
            Mode::Url => "url",
        }
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The elicitation modes a client declared. [`ElicitationSupport::NONE`] when it declared no
/// `elicitation` capability at all.
///
/// ```
/// # extern crate elicit_core as mcp_elicit;
/// use mcp_elicit::{ElicitationSupport, Mode, Revision};
/// use serde_json::json;
///
/// // 2025-11-25: from the `initialize` request's params.
/// let init = json!({"protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}},
///                   "clientInfo": {"name": "c", "version": "1"}});
/// let support = ElicitationSupport::from_initialize_params(&init)?;
/// assert!(support.supports(Mode::Form) && !support.supports(Mode::Url));
///
/// // 2026-07-28: from each request's `_meta`.
/// let call = json!({"name": "deploy", "_meta": {
///     "io.modelcontextprotocol/protocolVersion": "2026-07-28",
///     "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"url": {}}}}});
/// let support = ElicitationSupport::from_request_meta(&call)?;
/// assert!(support.check(Mode::Url, Revision::V2026_07_28).is_ok());
/// assert!(support.check(Mode::Form, Revision::V2026_07_28).is_err());
/// # Ok::<(), mcp_elicit::protocol::CapabilityError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ElicitationSupport {
    form: bool,
    url: bool,
}

impl ElicitationSupport {
    /// No elicitation capability: the client cannot be asked anything.
    pub const NONE: Self = Self {
        form: false,
        url: false,
    };
    /// Form mode only (what `"elicitation": {}` means).
    pub const FORM: Self = Self {
        form: true,
        url: false,
    };
    /// Both modes.
    pub const FORM_AND_URL: Self = Self {
        form: true,
        url: true,
    };

    /// Read a `ClientCapabilities` object. An absent `elicitation` is [`NONE`](Self::NONE);
    /// `{}` is form only; otherwise the `form` and `url` members that are present (each an
    /// object). Other members, here and inside `elicitation`, are ignored.
    pub fn from_client_capabilities(capabilities: &Value) -> Result<Self, CapabilityError> {
        let Value::Object(capabilities) = capabilities else {
            return Err(CapabilityError::NotAnObject {
                member: "capabilities",
            });
        };
        let elicitation = match capabilities.get("elicitation") {
            None => return Ok(Self::NONE),
            Some(Value::Object(e)) => e,
            Some(_) => {
                return Err(CapabilityError::NotAnObject {
                    member: "elicitation",
                });
            }
        };
        if elicitation.is_empty() {
            return Ok(Self::FORM);
        }
        let form = declared(elicitation, Mode::Form)?;
        let url = declared(elicitation, Mode::Url)?;
        if !form && !url {
            return Err(CapabilityError::NoMode);
        }
        Ok(Self { form, url })
    }

    /// Read the capabilities of an `initialize` request's params (2025-06-18, 2025-11-25).
    pub fn from_initialize_params(params: &Value) -> Result<Self, CapabilityError> {
        let capabilities = params
            .as_object()
            .ok_or(CapabilityError::NotAnObject { member: "params" })?
            .get("capabilities")
            .ok_or(CapabilityError::Missing {
                member: "capabilities",
            })?;
        Self::from_client_capabilities(capabilities)
    }

    /// Read the capabilities from a request's params
    /// `_meta["io.modelcontextprotocol/clientCapabilities"]` (2026-07-28). Both are required
    /// there, so their absence is an error, not "no capabilities".
    pub fn from_request_meta(params: &Value) -> Result<Self, CapabilityError> {
        let meta = params
            .as_object()
            .ok_or(CapabilityError::NotAnObject { member: "params" })?
            .get("_meta")
            .ok_or(CapabilityError::Missing { member: "_meta" })?
            .as_object()
            .ok_or(CapabilityError::NotAnObject { member: "_meta" })?;
        let capabilities =
            meta.get(CLIENT_CAPABILITIES_META_KEY)
                .ok_or(CapabilityError::Missing {
                    member: CLIENT_CAPABILITIES_META_KEY,
                })?;
        Self::from_client_capabilities(capabilities)
    }

    /// Read the capabilities where `revision` puts them: the `initialize` params before
    /// 2026-07-28, this request's params from then on.
    pub fn from_params(revision: Revision, params: &Value) -> Result<Self, CapabilityError> {
        if revision.has_per_request_capabilities() {
            Self::from_request_meta(params)
        } else {
            Self::from_initialize_params(params)
        }
    }

    /// Whether the client declared this mode.
    pub const fn supports(self, mode: Mode) -> bool {
        match mode {
            Mode::Form => self.form,
            Mode::Url => self.url,
        }
    }

    /// Whether the client declared any elicitation at all.
    pub const fn is_declared(self) -> bool {
        self.form || self.url
    }

    /// Check, before asking, that the client declared `mode` and that `revision` has it.
    pub fn check(self, mode: Mode, revision: Revision) -> Result<(), CannotAsk> {
        let reason = if mode == Mode::Url && !revision.has_url_mode() {
            CannotAskReason::RevisionLacksMode
        } else if !self.supports(mode) {
            CannotAskReason::NotDeclared
        } else {
            return Ok(());
        };
        Err(CannotAsk {
            mode,
            revision,
            reason,
            hint: None,
        })
    }
}

fn declared(elicitation: &Map<String, Value>, mode: Mode) -> Result<bool, CapabilityError> {
    match elicitation.get(mode.as_str()) {
        None => Ok(false),
        Some(Value::Object(_)) => Ok(true),
        Some(_) => Err(CapabilityError::ModeNotAnObject { mode }),
    }
}

/// A client capability declaration that does not follow the schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum CapabilityError {
    /// A member that must be an object is not.
    NotAnObject {
        /// Which member.
        member: &'static str,
    },
    /// A required member is absent.
    Missing {
        /// Which member.
        member: &'static str,
    },
    /// `elicitation` is a non-empty object naming neither `form` nor `url`: a client that
    /// declares elicitation must support at least one mode.
    NoMode,
    /// `elicitation.form` or `elicitation.url` is not an object.
    ModeNotAnObject {
        /// Which mode.
        mode: Mode,
    },
}

impl fmt::Display for CapabilityError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CapabilityError::NotAnObject { member } => {
                write!(f, "client capabilities: `{member}` must be an object")
            }
            CapabilityError::Missing { member } => {
                write!(f, "client capabilities: `{member}` is required")
            }
            CapabilityError::NoMode => f.write_str(
                "client capabilities: `elicitation` names neither `form` nor `url`; a client declaring elicitation must support at least one mode (`{}` means form only)",
            ),
            CapabilityError::ModeNotAnObject { mode } => {
                write!(f, "client capabilities: `elicitation.{mode}` must be an object")
            }
        }
    }
}

impl std::error::Error for CapabilityError {}

/// Why the client cannot be asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CannotAskReason {
    /// The client did not declare the mode (a headless client declares none).
    NotDeclared,
    /// The negotiated protocol revision has no such mode (URL mode before 2025-11-25).
    RevisionLacksMode,
}

/// The client cannot be asked in this mode: the headless path, made legible.
///
/// A tool that needed to ask stops here, having done nothing it would have confirmed first,
/// and tells the user which capability is missing and what they can do:
///
/// ```
/// # extern crate elicit_core as mcp_elicit;
/// use mcp_elicit::{ElicitationSupport, Mode, Revision};
/// let support = ElicitationSupport::NONE; // a batch runner, a CI agent
/// let Err(cannot) = support.check(Mode::Form, Revision::V2026_07_28) else { unreachable!() };
/// let cannot = cannot.with_hint("Pass `environment` in the tool's arguments to deploy without asking.");
/// let result = cannot.tool_result();
/// assert_eq!(result["isError"], true);
/// let text = result["content"][0]["text"].as_str().unwrap_or_default();
/// assert!(text.contains("elicitation.form"));
/// assert!(text.contains("Nothing was changed"));
///
/// // Or, where the server prefers a protocol error:
/// assert_eq!(cannot.to_jsonrpc_error().code(), -32021);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CannotAsk {
    mode: Mode,
    revision: Revision,
    reason: CannotAskReason,
    hint: Option<Text>,
}

impl CannotAsk {
    /// The mode that was needed.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The revision in use.
    pub fn revision(&self) -> Revision {
        self.revision
    }

    /// Why the client cannot be asked.
    pub fn reason(&self) -> CannotAskReason {
        self.reason
    }

    /// Add what this tool's user can do instead (e.g. pass the value as an argument).
    pub fn with_hint(mut self, hint: impl Into<Text>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// Where the missing declaration belongs, e.g. `capabilities.elicitation.url`.
    pub fn capability_path(&self) -> String {
        let root = if self.revision.has_per_request_capabilities() {
            "_meta[\"io.modelcontextprotocol/clientCapabilities\"]"
        } else {
            "capabilities"
        };
        format!("{root}.elicitation.{}", self.mode)
    }

    /// A `CallToolResult` with `isError: true` whose text says what is missing and what the
    /// user can do: what a tool returns in a client that cannot ask.
    pub fn tool_result(&self) -> Value {
        let mut result = json!({
            "content": [{"type": "text", "text": self.to_string()}],
            "isError": true,
        });
        if self.revision.has_result_type()
            && let Some(object) = result.as_object_mut()
        {
            object.insert("resultType".to_owned(), json!("complete"));
        }
        result
    }

    /// The protocol error for the revision ([`Revision::missing_capability_code`]): `-32602`
    /// Invalid params before 2026-07-28, `MissingRequiredClientCapabilityError` (`-32021`,
    /// naming `requiredCapabilities`) from then.
    pub fn to_jsonrpc_error(&self) -> JsonRpcError {
        let message = match self.reason {
            CannotAskReason::NotDeclared => format!(
                "The client did not declare elicitation mode `{}` ({}).",
                self.mode,
                self.capability_path()
            ),
            CannotAskReason::RevisionLacksMode => format!(
                "Protocol revision {} has no elicitation mode `{}`.",
                self.revision, self.mode
            ),
        };
        let code = self.revision.missing_capability_code();
        // `MissingRequiredClientCapabilityError` names what is missing; Invalid params has no
        // `data`.
        let data = (code == JsonRpcError::MISSING_REQUIRED_CLIENT_CAPABILITY).then(|| {
            let mut modes = Map::new();
            modes.insert(self.mode.as_str().to_owned(), json!({}));
            json!({"requiredCapabilities": {"elicitation": modes}})
        });
        JsonRpcError::new(code, message, data)
    }
}

impl fmt::Display for CannotAsk {
    /// A paragraph for the user: what was needed, what is missing, that nothing changed, and
    /// what they can do.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let need = match self.mode {
            Mode::Form => "to ask you a question (form-mode elicitation)",
            Mode::Url => {
                "to send you to a web page for a sensitive step such as signing in or paying (URL-mode elicitation)"
            }
        };
        match self.reason {
            CannotAskReason::NotDeclared => write!(
                f,
                "This tool needs {need}, but this client did not declare that it can (`{}` is missing). Nothing was changed. ",
                self.capability_path()
            )?,
            CannotAskReason::RevisionLacksMode => write!(
                f,
                "This tool needs {need}, but the protocol version in use ({}) does not support it. Nothing was changed. ",
                self.revision
            )?,
        }
        match self.mode {
            Mode::Form => f.write_str(
                "To continue, run it from a client that supports elicitation, or provide the missing information another way",
            )?,
            Mode::Url => f.write_str(
                "To continue, run it from a client that supports URL-mode elicitation, or complete the step with the service directly and try again",
            )?,
        }
        match &self.hint {
            Some(hint) => write!(f, ". {hint}"),
            None => f.write_str("."),
        }
    }
}

impl std::error::Error for CannotAsk {}

#[cfg(test)]
mod tests {
    use super::*;

    fn caps(v: Value) -> Result<ElicitationSupport, CapabilityError> {
        ElicitationSupport::from_client_capabilities(&v)
    }

    #[test]
    fn empty_elicitation_capability_means_form_only() {
        assert_eq!(
            caps(json!({"elicitation": {}})),
            Ok(ElicitationSupport::FORM)
        );
    }

    #[test]
    fn declared_modes_are_read() {
        assert_eq!(
            caps(json!({"elicitation": {"form": {}, "url": {}}})),
            Ok(ElicitationSupport::FORM_AND_URL)
        );
        let url_only = caps(json!({"elicitation": {"url": {}}}));
        assert_eq!(
            url_only.map(|s| (s.supports(Mode::Form), s.supports(Mode::Url))),
            Ok((false, true))
        );
    }

    #[test]
    fn absent_elicitation_capability_means_none() {
        assert_eq!(caps(json!({})), Ok(ElicitationSupport::NONE));
        assert_eq!(
            caps(json!({"sampling": {}, "roots": {}})),
            Ok(ElicitationSupport::NONE)
        );
        assert!(!ElicitationSupport::NONE.is_declared());
    }

    #[test]
    fn elicitation_naming_neither_mode_is_invalid() {
        assert_eq!(
            caps(json!({"elicitation": {"popup": {}}})),
            Err(CapabilityError::NoMode)
        );
    }

    #[test]
    fn unknown_extra_keys_are_ignored() {
        assert_eq!(
            caps(
                json!({"elicitation": {"form": {"x": 1}, "future": true}, "experimental": {"y": {}}})
            ),
            Ok(ElicitationSupport::FORM)
        );
    }

    #[test]
    fn malformed_capabilities_are_errors() {
        assert!(matches!(
            caps(json!([])),
            Err(CapabilityError::NotAnObject { .. })
        ));
        assert!(matches!(
            caps(json!({"elicitation": true})),
            Err(CapabilityError::NotAnObject { .. })
        ));
        assert!(matches!(
            caps(json!({"elicitation": null})),
            Err(CapabilityError::NotAnObject { .. })
        ));
        assert_eq!(
            caps(json!({"elicitation": {"url": true}})),
            Err(CapabilityError::ModeNotAnObject { mode: Mode::Url })
        );
        assert_eq!(
            caps(json!({"elicitation": {"form": null}})),
            Err(CapabilityError::ModeNotAnObject { mode: Mode::Form })
        );
    }

    #[test]
    fn initialize_params_carry_capabilities_up_to_2025_11_25() {
        let p = json!({"protocolVersion": "2025-06-18", "capabilities": {"elicitation": {}}});
        assert_eq!(
            ElicitationSupport::from_initialize_params(&p),
            Ok(ElicitationSupport::FORM)
        );
        assert_eq!(
            ElicitationSupport::from_params(Revision::V2025_11_25, &p),
            Ok(ElicitationSupport::FORM)
        );
        assert_eq!(
            ElicitationSupport::from_initialize_params(&json!({})),
            Err(CapabilityError::Missing {
                member: "capabilities"
            })
        );
        assert!(ElicitationSupport::from_initialize_params(&json!("x")).is_err());
    }

    #[test]
    fn request_meta_carries_capabilities_in_2026_07_28() {
        let p = json!({"_meta": {CLIENT_CAPABILITIES_META_KEY: {"elicitation": {"form": {}, "url": {}}}}});
        assert_eq!(
            ElicitationSupport::from_params(Revision::V2026_07_28, &p),
            Ok(ElicitationSupport::FORM_AND_URL)
        );
        // Required there: absence is an error, not silence.
        assert_eq!(
            ElicitationSupport::from_request_meta(&json!({"name": "t"})),
            Err(CapabilityError::Missing { member: "_meta" })
        );
        assert_eq!(
            ElicitationSupport::from_request_meta(&json!({"_meta": {}})),
            Err(CapabilityError::Missing {
                member: CLIENT_CAPABILITIES_META_KEY
            })
        );
        assert!(ElicitationSupport::from_request_meta(&json!({"_meta": []})).is_err());
        // An empty ClientCapabilities means no optional capability, so no elicitation.
        assert_eq!(
            ElicitationSupport::from_request_meta(
                &json!({"_meta": {CLIENT_CAPABILITIES_META_KEY: {}}})
            ),
            Ok(ElicitationSupport::NONE)
        );
    }

    #[test]
    fn hostile_capabilities_never_panic() {
        let deep = (0..64).fold(json!({}), |inner, _| json!({"elicitation": inner}));
        for v in [
            json!(null),
            json!(1),
            json!("elicitation"),
            json!({"elicitation": [{"form": {}}]}),
            json!({"elicitation": {"form": [], "url": {}}}),
            deep,
        ] {
            let _ = caps(v.clone());
            let _ = ElicitationSupport::from_initialize_params(&v);
            let _ = ElicitationSupport::from_request_meta(&v);
        }
    }

    #[test]
    fn undeclared_mode_cannot_be_asked() {
        let e = ElicitationSupport::FORM
            .check(Mode::Url, Revision::V2025_11_25)
            .unwrap_err();
        assert_eq!(e.reason(), CannotAskReason::NotDeclared);
        assert_eq!(e.capability_path(), "capabilities.elicitation.url");
        assert!(
            ElicitationSupport::FORM
                .check(Mode::Form, Revision::V2025_11_25)
                .is_ok()
        );
        assert!(
            ElicitationSupport::NONE
                .check(Mode::Form, Revision::V2025_06_18)
                .is_err()
        );
    }

    #[test]
    fn url_mode_cannot_be_asked_in_2025_06_18_even_if_declared() {
        let e = ElicitationSupport::FORM_AND_URL
            .check(Mode::Url, Revision::V2025_06_18)
            .unwrap_err();
        assert_eq!(e.reason(), CannotAskReason::RevisionLacksMode);
        assert!(e.to_string().contains("2025-06-18"));
    }

    #[test]
    fn undeclared_mode_is_invalid_params_in_2025_11_25() {
        let e = ElicitationSupport::FORM
            .check(Mode::Url, Revision::V2025_11_25)
            .unwrap_err();
        let error = e.to_jsonrpc_error();
        assert_eq!(error.code(), -32602);
        assert!(error.message().contains("`url`"));
    }

    #[test]
    fn undeclared_mode_is_missing_required_client_capability_in_2026_07_28() {
        let e = ElicitationSupport::FORM
            .check(Mode::Url, Revision::V2026_07_28)
            .unwrap_err();
        let error = e.to_jsonrpc_error();
        assert_eq!(error.code(), -32021);
        assert_eq!(
            error.data(),
            Some(&json!({"requiredCapabilities": {"elicitation": {"url": {}}}}))
        );
    }

    #[test]
    fn headless_tool_result_names_the_capability_and_what_to_do() {
        let e = ElicitationSupport::NONE
            .check(Mode::Url, Revision::V2026_07_28)
            .unwrap_err()
            .with_hint("Or set EXAMPLE_TOKEN in the server's environment.");
        let r = e.tool_result();
        assert_eq!(r["isError"], true);
        assert_eq!(r["resultType"], "complete");
        let text = r["content"][0]["text"].as_str().unwrap_or_default();
        assert!(
            text.contains("_meta[\"io.modelcontextprotocol/clientCapabilities\"].elicitation.url"),
            "{text}"
        );
        assert!(text.contains("Nothing was changed"), "{text}");
        assert!(
            text.contains("complete the step with the service directly"),
            "{text}"
        );
        assert!(
            text.ends_with("Or set EXAMPLE_TOKEN in the server's environment."),
            "{text}"
        );
        let older = ElicitationSupport::NONE
            .check(Mode::Form, Revision::V2025_11_25)
            .unwrap_err();
        assert_eq!(older.tool_result().get("resultType"), None);
    }
}
