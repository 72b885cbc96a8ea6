//! Runtime of the [`mcp-elicit`](https://docs.rs/mcp-elicit) crate: MCP elicitation schemas, outcomes,
//! reply validation, modes, capabilities and multi round-trip state.
//!
//! Everything here works without the derive: a server that builds a [`RequestedSchema`](schema::RequestedSchema) by hand
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

// The modules, bottom layer first: each imports only from its own layer and those listed
// before it (`tests/layers.rs` checks the imports and this order). The public surface is the
// modules at the end of this file.
//
// Leaves: formats, revisions, JSON-RPC errors, URL syntax, the interrupt budget's sink, limits,
// the lexicon of credential names.
mod credential;
mod format;
mod jsonrpc;
pub mod limits;
pub mod observe;
mod revision;
mod url;
// What a broken rule is; the sealed request state, which needs only the leaves.
#[cfg(feature = "mrtr")]
pub mod state;
mod violation;
// Schemas: kinds, builders, their rules, their wire form, and a property's value.
mod requested;
// Rust types as form fields.
mod field;
// What each MCP host draws and needs, and the form adapted to what it draws.
pub mod hosts;
// Replies: actions, outcomes, the reader.
mod outcome;
mod read;
// Forms: the request, the derived trait, consent.
mod consent;
mod elicit;
mod request;
// URL mode and what the client declared.
mod capabilities;
pub mod url_mode;
// Multi round-trip requests, and the client half.
pub mod client;
#[cfg(feature = "mrtr")]
pub mod mrtr;

#[doc(hidden)]
pub mod __private;

pub use crate::capabilities::{ElicitationSupport, Mode};
pub use crate::consent::Consent;
pub use crate::elicit::Elicit;
pub use crate::outcome::Elicitation;
pub use crate::request::FormRequest;
pub use crate::revision::Revision;
pub use crate::url_mode::{UrlOutcome, UrlRequest};

/// What a form asks for: the requested schema, its property kinds and their rules, the formats,
/// the Rust types that stand for selects, and what breaks a rule.
///
/// [`FormRequest`] puts a message and a [`RequestedSchema`](schema::RequestedSchema) together;
/// [`Elicit`] derives both from a struct.
pub mod schema {
    pub use crate::credential::credential_kind;
    pub use crate::field::{Choice, Choices, ElicitField, Select};
    pub use crate::format::Format;
    pub use crate::request::{FormRequest, RevisionedRequest};
    pub use crate::requested::{
        BooleanSchema, EnumOption, IntegerSchema, MultiSelectSchema, NumberSchema, Options,
        Property, PropertyKind, RequestedSchema, SchemaError, SelectSchema, SelectStyle,
        StringSchema, Text,
    };
    pub use crate::violation::{JsonType, Rule, Violation, Violations, json_kind};
}

/// What comes back: the four outcomes of a form, the client's action, the errors of a reply
/// that cannot be used, and consent bound to what it agreed to.
pub mod reply {
    pub use crate::consent::{AutomaticConsent, Consent, ConsentForm, ConsentMismatch};
    pub use crate::outcome::{Action, Elicitation, MalformedReply, Rejected, ReplyError};
    pub use crate::read::{Content, FromContent};
}

/// What differs between peers: the protocol revisions, what a client declared it can show, what
/// to do when it cannot, and the JSON-RPC errors the protocol defines.
pub mod protocol {
    pub use crate::capabilities::{
        CLIENT_CAPABILITIES_META_KEY, CannotAsk, CannotAskReason, CapabilityError,
        ElicitationSupport, Mode,
    };
    pub use crate::revision::{Revision, RevisionError, UnknownRevision};

    pub mod jsonrpc {
        //! The JSON-RPC error objects elicitation defines, ready to serialize.
        //!
        //! Each error type of this crate converts into a [`JsonRpcError`] (the `error` member of
        //! a response); [`JsonRpcError::response`] wraps it in a whole JSON-RPC error response.
        pub use crate::jsonrpc::{ErrorResponse, JsonRpcError, RequestId};
    }
}
