//! The JSON-RPC error objects elicitation defines, ready to serialize.
//!
//! Each error type of this crate that answers a request turns into a [`JsonRpcError`] (the
//! `error` member of a response) with `to_jsonrpc_error()`; [`JsonRpcError::response`] wraps it
//! in a whole JSON-RPC error response. The codes they use are the one table on
//! [`JsonRpcError`]: [`INVALID_PARAMS`](JsonRpcError::INVALID_PARAMS),
//! [`INTERNAL_ERROR`](JsonRpcError::INTERNAL_ERROR),
//! [`URL_ELICITATION_REQUIRED`](JsonRpcError::URL_ELICITATION_REQUIRED) and
//! [`MISSING_REQUIRED_CLIENT_CAPABILITY`](JsonRpcError::MISSING_REQUIRED_CLIENT_CAPABILITY).
//!
//! A code is an `i32`: JSON-RPC 2.0 says only "an integer", every code MCP defines lies in the
//! reserved range -32768 to -32000, and rmcp's `ErrorCode` wraps an `i32`, so a code passes
//! between the two without a conversion that could fail.

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use serde_json::Value;

/// The `id` of the JSON-RPC request being answered.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum RequestId {
    /// A numeric id.
    Number(i64),
    /// A string id.
    String(String),
}

impl From<i64> for RequestId {
    fn from(id: i64) -> Self {
        RequestId::Number(id)
    }
}

impl From<&str> for RequestId {
    fn from(id: &str) -> Self {
        RequestId::String(id.to_owned())
    }
}

impl From<String> for RequestId {
    fn from(id: String) -> Self {
        RequestId::String(id)
    }
}

impl Serialize for RequestId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            RequestId::Number(n) => serializer.serialize_i64(*n),
            RequestId::String(s) => serializer.serialize_str(s),
        }
    }
}

/// A JSON-RPC `error` object: `code`, `message` and, where the error defines it, `data`.
///
/// ```
/// # extern crate elicit_core as mcp_elicit;
/// use mcp_elicit::protocol::jsonrpc::JsonRpcError;
/// let error = JsonRpcError::new(JsonRpcError::INVALID_PARAMS, "unknown tool", None);
/// assert_eq!(
///     serde_json::to_value(error.response(7))?,
///     serde_json::json!({"jsonrpc": "2.0", "id": 7, "error": {"code": -32602, "message": "unknown tool"}})
/// );
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct JsonRpcError {
    code: i32,
    message: String,
    data: Option<Value>,
}

/// The codes this crate answers with: one table, used by every error type's
/// `to_jsonrpc_error`.
impl JsonRpcError {
    /// `-32602` Invalid params (JSON-RPC 2.0): the request's params are unusable (a malformed
    /// `inputResponses`, a `requestState` that does not open, a replayed state); before
    /// 2026-07-28 also a request in an elicitation mode the client did not declare
    /// ([`Revision::missing_capability_code`](crate::Revision::missing_capability_code)).
    pub const INVALID_PARAMS: i32 = -32602;
    /// `-32603` Internal error (JSON-RPC 2.0): the server could not do its part (a state that
    /// would not seal, a replay guard that could not decide, an input-required result it built
    /// wrongly).
    pub const INTERNAL_ERROR: i32 = -32603;
    /// `-32042` `URLElicitationRequiredError` (2025-11-25 only): the request cannot go on
    /// until the pages in `data.elicitations` are opened.
    pub const URL_ELICITATION_REQUIRED: i32 = -32042;
    /// `-32021` `MissingRequiredClientCapabilityError` (2026-07-28): the client did not declare
    /// a capability the request needs, named in `data.requiredCapabilities`.
    pub const MISSING_REQUIRED_CLIENT_CAPABILITY: i32 = -32021;

    /// Any error object.
    pub fn new(code: i32, message: impl Into<String>, data: Option<Value>) -> Self {
        Self {
            code,
            message: message.into(),
            data,
        }
    }

    /// The error code.
    pub fn code(&self) -> i32 {
        self.code
    }

    /// The one-sentence message.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The `data` member, if any.
    pub fn data(&self) -> Option<&Value> {
        self.data.as_ref()
    }

    /// The whole JSON-RPC error response answering request `id`.
    pub fn response(&self, id: impl Into<RequestId>) -> ErrorResponse<'_> {
        ErrorResponse {
            id: id.into(),
            error: self,
        }
    }
}

impl Serialize for JsonRpcError {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("code", &self.code)?;
        map.serialize_entry("message", &self.message)?;
        if let Some(data) = &self.data {
            map.serialize_entry("data", data)?;
        }
        map.end()
    }
}

/// A JSON-RPC error response: `{"jsonrpc": "2.0", "id": .., "error": {..}}`.
#[derive(Debug, Clone, PartialEq)]
pub struct ErrorResponse<'a> {
    id: RequestId,
    error: &'a JsonRpcError,
}

impl Serialize for ErrorResponse<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(3))?;
        map.serialize_entry("jsonrpc", "2.0")?;
        map.serialize_entry("id", &self.id)?;
        map.serialize_entry("error", self.error)?;
        map.end()
    }
}
