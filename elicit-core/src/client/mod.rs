//! The client's side of elicitation: reading what a server asks, as a careful host must, and
//! building the answer with the same rules the server will check it by.
//!
//! [`read_request`] turns the params of an `elicitation/create` (any revision) into an
//! [`Incoming`] form or URL request, and refuses what cannot be shown to a person (a nested
//! object, a malformed schema, an unsafe URL) with an [`IncomingError`] that names the member
//! and the rule. What a host should still know about a request it can show is a [`Note`]: the
//! request does not conform to the revision, a form field looks like a credential (form mode
//! must not ask for one), a URL's host is an IP address or an internationalised name that may
//! imitate another. [`read_input_required`] reads a 2026-07-28 input-required result the same
//! way.
//!
//! ```
//! # extern crate elicit_core as mcp_elicit;
//! use mcp_elicit::Revision;
//! use mcp_elicit::client::{Incoming, Note, read_request};
//! use serde_json::json;
//!
//! let params = json!({
//!     "mode": "form",
//!     "message": "Sign in to deploy.",
//!     "requestedSchema": {
//!         "type": "object",
//!         "properties": {
//!             "replicas": {"type": "integer", "minimum": 1, "maximum": 10, "default": 2},
//!             "apiKey": {"type": "string"}
//!         },
//!         "required": ["apiKey"]
//!     }
//! });
//! let Incoming::Form(form) = read_request(&params, Revision::V2025_11_25)? else { unreachable!() };
//! assert_eq!(form.notes(), [Note::Credential { property: "apiKey".into(), kind: "an API key" }]);
//!
//! // The user leaves `replicas` empty: its default is sent; the rules are checked first.
//! let answer = form.accept(json!({"apiKey": "…"}).as_object().unwrap().clone())?;
//! assert_eq!(answer, json!({"action": "accept", "content": {"apiKey": "…", "replicas": 2}}));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

// The layers, bottom first: each module imports only from the ones above its line here.
// What a host can show and the answer it sends; why it cannot show a request.
mod error;
mod incoming;
// Reading a request's members.
mod member;
// Reading a form's schema.
mod form;
// Reading an `elicitation/create`.
mod read;
// Reading an input-required result.
mod round;
// Who answers.
mod answerer;

pub use answerer::{Answerer, FnAnswerer, Scripted, Step, WrongMode};
pub use error::IncomingError;
pub use incoming::{Incoming, IncomingForm, IncomingUrl, Note, answer};
pub use read::read_request;
pub use round::{IncomingInput, IncomingRound, read_input_required};
