//! The client's side of elicitation: reading what a server asks, as a careful host must, and
//! building the answer with the same rules the server will check it by.
//!
//! Everything here but `terminal` is the core's client half (`elicit_core::client`):
//! [`read_request`] turns the params of an `elicitation/create` (any revision) into an
//! [`Incoming`] form or URL request, and refuses what cannot be shown to a person with an
//! [`IncomingError`] that names the member and the rule; a [`Note`] is what a host should still
//! know about a request it can show; an [`Answerer`] answers for a client (a [`Scripted`] user
//! in tests).
//!
//! ```
//! use mcp_elicit::Revision;
//! use mcp_elicit::client::{Incoming, read_request};
//! use serde_json::json;
//!
//! let params = json!({
//!     "mode": "form",
//!     "message": "How many replicas?",
//!     "requestedSchema": {"type": "object", "properties": {
//!         "replicas": {"type": "integer", "minimum": 1, "maximum": 10, "default": 2}
//!     }}
//! });
//! let Incoming::Form(form) = read_request(&params, Revision::V2025_11_25)? else { unreachable!() };
//! // The user leaves `replicas` empty: its default is sent; the rules are checked first.
//! let answer = form.accept(serde_json::Map::new())?;
//! assert_eq!(answer, json!({"action": "accept", "content": {"replicas": 2}}));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! With the `terminal` feature, `terminal::Terminal` is an [`Answerer`] whose user answers in the
//! terminal.

pub use elicit_core::client::*;

#[cfg(feature = "terminal")]
pub mod terminal;
