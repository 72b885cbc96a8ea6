//! Runtime of the [`mcp-elicit`](https://docs.rs/mcp-elicit) crate: MCP elicitation schemas, outcomes,
//! reply validation, modes, capabilities and multi round-trip state.
//!
//! Everything here works without the derive: a server that builds a [`RequestedSchema`] by hand
//! gets the same validation, and so does a client checking user input before sending it.
//!
//! The `mrtr` and `state` modules (multi round-trip requests and their sealed state) are
//! behind the default feature `mrtr`, which brings the crypto crates; the `mcp-elicit` facade leaves
//! it off unless asked for.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]
#![deny(missing_docs)]
// Everything this crate reads may come from a client, so nothing outside the tests may panic on
// it: no `unwrap`, `expect`, `panic!` or unchecked indexing (SECURITY.md). Unit tests may.
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::indexing_slicing,
        clippy::panic,
        clippy::unreachable,
        clippy::todo,
        clippy::unimplemented
    )
)]

mod capabilities;
pub mod client;
mod consent;
mod credential;
mod elicit;
mod field;
mod format;
mod jsonrpc;
mod limits;
mod read;
mod reply;
mod request;
mod revision;
mod schema;
mod url;
mod url_mode;
mod violation;

#[cfg(feature = "mrtr")]
pub mod mrtr;
pub mod observe;
#[cfg(feature = "mrtr")]
pub mod state;

#[doc(hidden)]
pub mod __private;

pub use crate::capabilities::{
    CLIENT_CAPABILITIES_META_KEY, CannotAsk, CannotAskReason, CapabilityError, ElicitationSupport,
    Mode,
};
pub use crate::consent::{Consent, ConsentForm, ConsentMismatch};
pub use crate::credential::credential_kind;
pub use crate::elicit::Elicit;
pub use crate::field::{Choice, Choices, ElicitField, Select};
pub use crate::format::Format;
pub use crate::jsonrpc::{ErrorResponse, JsonRpcError, RequestId};
pub use crate::read::{Content, FromContent};
pub use crate::reply::{
    Action, Elicitation, MAX_REPLY_BYTES, MAX_STRING_BYTES, MalformedReply, Rejected, ReplyError,
};
pub use crate::request::{FormRequest, RevisionedRequest};
pub use crate::revision::{Revision, RevisionError, UnknownRevision};
pub use crate::schema::{
    BooleanSchema, EnumOption, IntegerSchema, MultiSelectSchema, NumberSchema, Options, Property,
    PropertyKind, RequestedSchema, SchemaError, SelectSchema, SelectStyle, StringSchema, Text,
};
pub use crate::url::{ElicitationUrl, MAX_URL_BYTES, UrlError, UrlPolicy};
pub use crate::url_mode::{
    ElicitUrl, ElicitationComplete, ElicitationId, InvalidElicitationId, RevisionedUrlRequest,
    UrlElicitationRequired, UrlOutcome, UrlRequest, UrlRequestError,
};
pub use crate::violation::{JsonType, Rule, Violation, Violations, json_kind};
