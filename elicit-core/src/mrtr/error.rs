//! Why a round could not be read or an input-required result could not be built, and the
//! JSON-RPC error each reason answers with.

use std::error::Error;
use std::fmt;

use serde_json::{Map, Value, json};

use super::capability::Capability;
use crate::capabilities::CapabilityError;
use crate::jsonrpc::JsonRpcError;
use crate::state::{RedeemError, SealError, StateError};

/// Why a retry could not be read, or an `InputRequiredResult` could not be built.
///
/// A missing, unparsable or unsolicited *answer* is not an error: the round asks again (MRTR
/// "Error Handling"). What is left is either the client's fault — a malformed `inputResponses`,
/// a `requestState` that does not open, a capability it did not declare — or the server's own:
/// two input requests under one key, an empty result, a state that would not seal.
///
/// [`to_jsonrpc_error`](MrtrError::to_jsonrpc_error) gives the `error` object to answer with
/// (its [`code`](JsonRpcError::code) is the code). No message
/// repeats the client's values or the state text, so every `Display` is safe to log and to send.
///
/// ```
/// # extern crate elicit_core as mcp_elicit;
/// use mcp_elicit::mrtr::{MrtrError, Retry};
/// use serde_json::json;
///
/// let params = json!({
///     "name": "deploy",
///     "_meta": { "io.modelcontextprotocol/clientCapabilities": { "elicitation": {} } },
///     "inputResponses": ["not", "a", "map"],
/// });
/// let error = Retry::from_params(&params).unwrap_err();
/// assert_eq!(error.to_jsonrpc_error().code(), -32602);
/// assert_eq!(serde_json::to_value(error.to_jsonrpc_error())?, json!({
///     "code": -32602,
///     "message": "`inputResponses` must be an object keyed by the inputRequests keys, but is an array",
///     "data": { "field": "inputResponses" },
/// }));
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub enum MrtrError {
    /// The request `params` is not a JSON object. `-32602`.
    ParamsNotAnObject {
        /// The JSON type that was found instead, e.g. "an array".
        found: &'static str,
    },
    /// `inputResponses` is present but not a JSON object. `-32602`.
    InputResponsesNotAnObject {
        /// The JSON type that was found instead.
        found: &'static str,
    },
    /// `requestState` is present but not a string. `-32602`.
    RequestStateNotAString {
        /// The JSON type that was found instead.
        found: &'static str,
    },
    /// The client's capability declaration (`_meta["io.modelcontextprotocol/clientCapabilities"]`)
    /// is missing or does not follow the schema; the inner error names the member. `-32602`.
    Capabilities(CapabilityError),
    /// `requestState` did not open; the inner error names the check that failed. `-32602`.
    State(StateError),
    /// The round's state could not be redeemed for single use: a replay (`-32602`), or the guard
    /// could not decide (`-32603`). See [`Round::spend`](super::Round::spend).
    Redeem(RedeemError),
    /// An ask that reads an answer sent before it was asked
    /// ([`Ask::answerable_before_asked`](super::Ask::answerable_before_asked)), on rounds with a
    /// replay guard ([`Rounds::with_replay_guard`](super::Rounds::with_replay_guard)): such an
    /// answer comes from no state, so the guard could not make it single use. A server's
    /// configuration error: `-32603`.
    BeforeAskedWithReplayGuard {
        /// The key of the ask.
        key: String,
    },
    /// The round resumes a state that must be spent in the server's replay guard before anything
    /// is read from it, and it was not ([`Round::spend`](super::Round::spend)); or
    /// [`Round::spend_now`](super::Round::spend_now) met a guard that has to wait. A server bug:
    /// `-32603`.
    Unspent,
    /// An answer is needed that the client cannot give: it did not declare the capability the
    /// input request needs, and the spec forbids sending it. `-32021`, with
    /// `data.requiredCapabilities`.
    MissingCapabilities(Vec<(String, Capability)>),
    /// Two input requests of one round share a key; keys must be unique within a request. A
    /// server bug: `-32603`.
    DuplicateKey {
        /// The key given twice.
        key: String,
    },
    /// An input request that an `InputRequiredResult` may not carry. A server bug: `-32603`.
    UnsupportedInputRequest {
        /// The key of the offending request.
        key: String,
        /// The rule it breaks.
        rule: &'static str,
    },
    /// An `InputRequiredResult` with neither `inputRequests` nor `requestState`; the spec requires
    /// at least one. A server bug: `-32603`.
    EmptyResult,
    /// The round's state would not seal. A server problem: `-32603`.
    Seal(SealError),
    /// A URL flow could not be started for the round ([`Round::flow_id`](super::Round::flow_id)).
    /// A server problem: `-32603`.
    Flow(crate::url_mode::FlowError),
    /// A consent form ([`Ask::consent`](super::Ask::consent)) came back accepted sooner after
    /// the round that asked it than a person can read it
    /// ([`Round::set_too_fast`](super::Round::set_too_fast)): the retry's arrival against the
    /// asking time sealed in the state. An automatic answer is not the user's consent: it is not
    /// taken, not carried into a later round, and nothing more is asked in this run. `-32602`
    /// (`data.field`: `inputResponses`); `mcp_elicit::rmcp` ends the tool with an `isError`
    /// result instead.
    AutomaticConsent(crate::consent::AutomaticConsent),
}

impl MrtrError {
    /// The JSON-RPC error code to answer with.
    fn code(&self) -> i32 {
        match self {
            Self::ParamsNotAnObject { .. }
            | Self::InputResponsesNotAnObject { .. }
            | Self::RequestStateNotAString { .. }
            | Self::Capabilities(_)
            | Self::AutomaticConsent(_) => JsonRpcError::INVALID_PARAMS,
            Self::State(error) => error.to_jsonrpc_error().code(),
            Self::Redeem(error) => error.to_jsonrpc_error().code(),
            Self::MissingCapabilities(_) => JsonRpcError::MISSING_REQUIRED_CLIENT_CAPABILITY,
            Self::DuplicateKey { .. }
            | Self::UnsupportedInputRequest { .. }
            | Self::Unspent
            | Self::BeforeAskedWithReplayGuard { .. }
            | Self::EmptyResult
            | Self::Flow(_) => JsonRpcError::INTERNAL_ERROR,
            Self::Seal(error) => error.to_jsonrpc_error().code(),
        }
    }

    /// The JSON-RPC `error` object: `code`, `message` (this error's `Display`) and `data`.
    ///
    /// `data` names the offending request member (`{"field": "inputResponses"}`) for the client's
    /// errors, and carries `requiredCapabilities` (a `ClientCapabilities` object) for
    /// [`MissingCapabilities`](MrtrError::MissingCapabilities), as
    /// `MissingRequiredClientCapabilityError` requires. Server-side errors carry no `data`: their
    /// details are for the server's log, not the client.
    /// [`JsonRpcError::response`] wraps it in the whole response.
    ///
    /// ```
    /// # extern crate elicit_core as mcp_elicit;
    /// use mcp_elicit::mrtr::MrtrError;
    /// assert_eq!(MrtrError::EmptyResult.to_jsonrpc_error().code(), -32603);
    /// ```
    #[must_use]
    pub fn to_jsonrpc_error(&self) -> JsonRpcError {
        JsonRpcError::new(self.code(), self.to_string(), self.data())
    }

    fn data(&self) -> Option<Value> {
        let field = |name: &str| Some(json!({ "field": name }));
        match self {
            Self::ParamsNotAnObject { .. } => field("params"),
            Self::InputResponsesNotAnObject { .. } | Self::AutomaticConsent(_) => {
                field("inputResponses")
            }
            Self::RequestStateNotAString { .. }
            | Self::State(_)
            | Self::Redeem(RedeemError::AlreadyRedeemed) => field("requestState"),
            Self::Capabilities(_) => field("_meta"),
            Self::MissingCapabilities(missing) => {
                let mut required = Map::new();
                for (_, capability) in missing {
                    capability.declare_in(&mut required);
                }
                Some(json!({ "requiredCapabilities": required }))
            }
            Self::Redeem(_)
            | Self::DuplicateKey { .. }
            | Self::UnsupportedInputRequest { .. }
            | Self::Unspent
            | Self::BeforeAskedWithReplayGuard { .. }
            | Self::EmptyResult
            | Self::Seal(_)
            | Self::Flow(_) => None,
        }
    }
}

impl fmt::Display for MrtrError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::ParamsNotAnObject { found } => {
                write!(f, "request `params` must be an object, but is {found}")
            }
            Self::InputResponsesNotAnObject { found } => write!(
                f,
                "`inputResponses` must be an object keyed by the inputRequests keys, but is {found}"
            ),
            Self::RequestStateNotAString { found } => write!(
                f,
                "`requestState` must be the string the server sent, but is {found}"
            ),
            Self::Capabilities(error) => fmt::Display::fmt(error, f),
            Self::State(error) => fmt::Display::fmt(error, f),
            Self::Redeem(error) => fmt::Display::fmt(error, f),
            Self::MissingCapabilities(missing) => {
                f.write_str("the client did not declare the capability this request needs: ")?;
                for (position, (key, capability)) in missing.iter().enumerate() {
                    if position > 0 {
                        f.write_str("; ")?;
                    }
                    write!(f, "input request `{key}` needs {capability}")?;
                }
                Ok(())
            }
            Self::DuplicateKey { key } => write!(
                f,
                "input request key `{key}` is used twice; keys must be unique within a request"
            ),
            Self::UnsupportedInputRequest { key, rule } => {
                write!(f, "input request `{key}` is not allowed: {rule}")
            }
            Self::BeforeAskedWithReplayGuard { key } => write!(
                f,
                "`{key}` reads an answer sent before it was asked (`answerable_before_asked`), \
                 which comes from no state: a replay guard cannot make it single use; ask it \
                 (drop `answerable_before_asked`), or serve this tool's rounds without a guard"
            ),
            Self::Unspent => f.write_str(
                "this round resumes a requestState that must be spent in the replay guard before \
                 it is read: await `Round::spend` first (`spend_now` only with a guard that \
                 decides without waiting, such as `MemoryReplayGuard`)",
            ),
            Self::EmptyResult => f.write_str(
                "an InputRequiredResult must carry at least one of `inputRequests` or `requestState`",
            ),
            Self::Seal(error) => fmt::Display::fmt(error, f),
            Self::Flow(error) => fmt::Display::fmt(error, f),
            Self::AutomaticConsent(automatic) => fmt::Display::fmt(automatic, f),
        }
    }
}

impl Error for MrtrError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match self {
            Self::State(error) => Some(error),
            Self::Seal(error) => Some(error),
            Self::Redeem(error) => Some(error),
            Self::Capabilities(error) => Some(error),
            Self::Flow(error) => Some(error),
            Self::AutomaticConsent(automatic) => Some(automatic),
            _ => None,
        }
    }
}

impl From<StateError> for MrtrError {
    fn from(error: StateError) -> Self {
        Self::State(error)
    }
}

impl From<CapabilityError> for MrtrError {
    fn from(error: CapabilityError) -> Self {
        Self::Capabilities(error)
    }
}

impl From<RedeemError> for MrtrError {
    fn from(error: RedeemError) -> Self {
        Self::Redeem(error)
    }
}

impl From<SealError> for MrtrError {
    fn from(error: SealError) -> Self {
        Self::Seal(error)
    }
}
