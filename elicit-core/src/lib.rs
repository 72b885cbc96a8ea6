//! Runtime of the [`elicit`](https://docs.rs/elicit) crate: MCP elicitation schemas, outcomes,
//! reply validation, modes, capabilities and multi round-trip state.
//!
//! Everything here works without the derive: a server that builds a [`RequestedSchema`] by hand
//! gets the same validation, and so does a client checking user input before sending it.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod elicit;
mod field;
mod format;
mod reply;
mod request;
mod schema;
mod validate;

pub mod mrtr;
pub mod state;

#[doc(hidden)]
pub mod __private;

pub use crate::elicit::{Elicit, FromContent};
pub use crate::field::{Choice, Choices, ElicitField, Select};
pub use crate::format::Format;
pub use crate::reply::{
    Action, Elicitation, MAX_REPLY_BYTES, MalformedReply, RawReply, ReplyError,
};
pub use crate::request::FormRequest;
pub use crate::schema::{
    BooleanSchema, EnumOption, IntegerSchema, MultiSelectSchema, NumberSchema, Options, Property,
    PropertyKind, RequestedSchema, SchemaError, SelectSchema, SelectStyle, StringSchema, Text,
};
pub use crate::validate::{JsonType, Rule, Violation, Violations};
