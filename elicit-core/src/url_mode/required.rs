//! The `-32042` error that asks the client to open pages before retrying a request.

use serde_json::Value;

use super::{RevisionedUrlRequest, UrlRequest};
use crate::jsonrpc::JsonRpcError;
use crate::requested::Text;
use crate::revision::Revision;

/// `URLElicitationRequiredError` (`-32042`, 2025-11-25): the request cannot be processed until
/// the user completes these URL elicitations. Never empty, by construction.
///
/// In 2026-07-28 the same situation is an `InputRequiredResult` carrying the URL elicitation.
///
/// ```
/// # extern crate elicit_core as mcp_elicit;
/// use mcp_elicit::{UrlRequest, url_mode::UrlElicitationRequired};
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
