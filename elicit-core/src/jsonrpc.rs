//! The JSON-RPC error objects elicitation defines, ready to serialize.
//!
//! Each error type of this crate converts into a [`JsonRpcError`] (the `error` member of a
//! response); [`JsonRpcError::response`] wraps it in a whole JSON-RPC error response.

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
    code: i64,
    message: String,
    data: Option<Value>,
}

impl JsonRpcError {
    /// `-32602` Invalid params: in 2025-11-25, what a client answers to an elicitation in a mode
    /// it did not declare.
    pub const INVALID_PARAMS: i64 = -32602;
    /// `-32042` `URLElicitationRequiredError` (2025-11-25).
    pub const URL_ELICITATION_REQUIRED: i64 = -32042;
    /// `-32021` `MissingRequiredClientCapabilityError` (2026-07-28).
    pub const MISSING_REQUIRED_CLIENT_CAPABILITY: i64 = -32021;

    /// Any error object.
    pub fn new(code: i64, message: impl Into<String>, data: Option<Value>) -> Self {
        Self {
            code,
            message: message.into(),
            data,
        }
    }

    /// The error code.
    pub fn code(&self) -> i64 {
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
