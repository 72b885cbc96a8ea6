//! Multi round-trip requests (MCP 2026-07-28): ask with types, seal the round's state, resume on
//! any replica.
//!
//! In 2026-07-28 a server no longer sends `elicitation/create` mid-call. A tool that needs input
//! answers its `tools/call` with an [`InputRequiredResult`] — keyed `inputRequests` and an
//! opaque `requestState` — and the client retries the same call with `inputResponses` and the
//! echoed state. The handler runs again, from the top, on whichever replica receives the retry.
//!
//! This module makes that shape natural:
//!
//! - [`Rounds`] is set up once: the [`StateKeys`](crate::state::StateKeys) every replica shares
//!   and the round TTL.
//! - Each request becomes a [`Round`] ([`Rounds::round`]), from a [`Retry`] (the request's
//!   capabilities, `inputResponses` and `requestState`) and a
//!   [`Binding`](crate::state::Binding) (principal, method, params digest). A `requestState` that
//!   does not open is a `-32602` error naming the failed check.
//! - [`Round::answer`] takes one [`Ask`] or a tuple of them and gives
//!   [`Answer::Ready`] with the typed outcomes, or [`Answer::Ask`] with the result that asks for
//!   every missing one in a single round. Asking first and acting after is one expression, so
//!   nothing is applied before the answer exists.
//! - The round's typed state `S`, and every answer so far, are sealed into `requestState`: bound
//!   to the principal and the request, expiring, and — with a
//!   [`ReplayGuard`](crate::state::ReplayGuard) ([`Rounds::with_replay_guard`]) — spent by the
//!   run that resumes it ([`Round::spend`]), so no round's state is accepted twice.
//!
//! The rules it follows, from the spec: at least one of `inputRequests`/`requestState` in every
//! result; unique keys; only input requests the client declared a capability for (otherwise
//! [`MrtrError::MissingCapabilities`], `-32021`); a missing or unparsable answer is asked again,
//! not an error; unknown keys are ignored; a malformed `inputResponses` is `-32602`. On top: an
//! answer that breaks the form's rules is asked again a bounded number of times, saying what was
//! wrong ([`Rounds::with_reasks`]); decline and cancel are final (never re-asked), and answers
//! the server did not ask for are ignored, so a model cannot supply a user's consent.
//!
//! ```
//! # extern crate elicit_core as mcp_elicit;
//! use mcp_elicit::mrtr::{Answer, Ask, Retry, Rounds};
//! use mcp_elicit::state::{Binding, ParamsDigest, UnixTime};
//! use mcp_elicit::{Elicitation, FormRequest, schema::{Property, RequestedSchema, StringSchema}};
//! use serde_json::{Map, Value, json};
//!
//! /// The tool: asks who to greet, once, then greets them.
//! fn greet(rounds: &Rounds, principal: &str, params: &Value) -> Result<Value, Value> {
//!     let error = |e: mcp_elicit::mrtr::MrtrError| serde_json::to_value(e.to_jsonrpc_error()).unwrap();
//!     let binding = Binding {
//!         principal,
//!         method: "tools/call",
//!         params_digest: ParamsDigest::of_request_params(params),
//!     };
//!     let retry = Retry::from_params(params).map_err(error)?;
//!     let mut round = rounds.round::<()>(retry, binding, UnixTime::now()).map_err(error)?;
//!
//!     let schema = RequestedSchema::new(vec![Property::new("name", StringSchema::new())]).unwrap();
//!     let form = FormRequest::new("Who should I greet?", schema).unwrap();
//!     let name = match round.answer(Ask::form_request("who", form)).map_err(error)? {
//!         Answer::Ready(outcome) => outcome,
//!         Answer::Ask(result) => return Ok(result.to_value()),
//!         // Answers kept breaking the form's rules: stop, and say why.
//!         Answer::Rejected(rejected) => return Ok(json!({ "isError": true,
//!             "content": [{ "type": "text", "text": rejected.to_string() }] })),
//!     };
//!     Ok(match name {
//!         Elicitation::Accept(content) => json!({ "content": [{ "type": "text",
//!             "text": format!("Hello, {}!", content["name"].as_str().unwrap_or("you")) }] }),
//!         _ => json!({ "content": [{ "type": "text", "text": "Nobody greeted." }] }),
//!     })
//! }
//!
//! // Once, at start-up: one process, one fresh key (a fleet shares keys: `Rounds::from_env`).
//! let rounds = Rounds::generate().expect("the OS gives randomness");
//! let meta = json!({ "io.modelcontextprotocol/clientCapabilities": { "elicitation": {} } });
//!
//! // Round 1: no answer yet, so the tool asks.
//! let first = json!({ "name": "greet", "arguments": {}, "_meta": meta });
//! let asked = greet(&rounds, "user-1", &first)?;
//! assert_eq!(asked["resultType"], "input_required");
//! assert_eq!(asked["inputRequests"]["who"]["method"], "elicitation/create");
//!
//! // Round 2: the client retries with the answer and the echoed state.
//! let retry = json!({
//!     "name": "greet", "arguments": {}, "_meta": meta,
//!     "inputResponses": { "who": { "action": "accept", "content": { "name": "Ada" } } },
//!     "requestState": asked["requestState"],
//! });
//! let done = greet(&rounds, "user-1", &retry)?;
//! assert_eq!(done["content"][0]["text"], "Hello, Ada!");
//! # Ok::<(), Value>(())
//! ```

mod ask;
mod capability;
mod error;
mod result;
mod retry;
mod round;
mod rounds;

pub use self::ask::{Ask, Asks};
pub use self::capability::{Capability, DeclaredCapabilities};
pub use self::error::MrtrError;
pub use self::result::{InputRequests, InputRequiredResult};
pub use self::retry::Retry;
pub use self::round::{Answer, CorrelationId, ParkedRound, Round, RoundFlow};
pub use self::rounds::Rounds;
