//! The official Rust SDK, [`rmcp`](https://docs.rs/rmcp): ask from a `#[tool]` function, and
//! translate between this crate's types and rmcp's.
//!
//! Enable with the `rmcp` feature.
//!
//! # Asking from a `#[tool]`
//!
//! A tool takes an [`Asker`] parameter, built from the call itself. It knows the negotiated
//! revision, what the client declared it can be asked, the call's name and arguments, and (on
//! 2026-07-28) the retry's `inputResponses` and `requestState`, so there is nothing to rebuild
//! and nothing to forget. The server says once how rounds are sealed and who is asking
//! ([`AskConfig`], reached through [`AskingServer`]):
//!
//! ```
//! use mcp_elicit::rmcp::{Asker, AskConfig, AskingServer, ToolResponse, respond};
//! use mcp_elicit::{Elicit, Elicitation};
//!
//! /// Your table: for how many?
//! #[derive(Elicit, Debug)]
//! struct Booking {
//!     #[elicit(title = "Party size", minimum = 1, maximum = 12)]
//!     party_size: u8,
//! }
//!
//! #[derive(Clone)]
//! struct Restaurant {
//!     asking: AskConfig, // AskConfig::single_user()? for a stdio server
//! }
//!
//! impl AskingServer for Restaurant {
//!     fn asking(&self) -> &AskConfig {
//!         &self.asking
//!     }
//! }
//!
//! impl Restaurant {
//!     // In a `#[tool_router] impl`, with `#[tool(description = "Book a table.")]`.
//!     async fn book_table(&self, mut asker: Asker) -> ToolResponse {
//!         respond(async {
//!             Ok(match asker.form::<Booking>().await? {
//!                 Elicitation::Accept(booking) => format!("A table for {}.", booking.party_size),
//!                 Elicitation::Decline => "You declined: nothing was booked.".to_owned(),
//!                 Elicitation::Cancel => "You dismissed the form: nothing was booked.".to_owned(),
//!                 Elicitation::NoReply => "No answer arrived: nothing was booked.".to_owned(),
//!             })
//!         })
//!         .await
//!     }
//! }
//! ```
//!
//! The README's "rmcp in five minutes" is the whole server (`examples/rmcp/booking.rs`): the
//! `#[tool_router]`, and `main` serving it over stdio.
//!
//! What the user answered is the one `match`; everything else leaves through `?` as a
//! [`Stop`], which [`respond`] turns into what the tool returns:
//!
//! - up to 2025-11-25 the asker sends `elicitation/create` through the peer and waits (a timeout
//!   or a transport error is [`Elicitation::NoReply`](crate::Elicitation::NoReply), never
//!   acceptance);
//! - from 2026-07-28 on it returns the input-required result ([`Stop::InputRequired`]) and
//!   reads the answer from the client's retry, whose sealed state only opens for this principal
//!   and this call;
//! - a client that did not declare the mode is never asked: an `isError` result names the
//!   missing capability ([`Stop::CannotAsk`]);
//! - an answer that breaks the form's rules is asked again, saying what was wrong, at most
//!   [`Rounds::with_reasks`](crate::mrtr::Rounds::with_reasks) times (once by default), on every
//!   revision; then an `isError` result names the broken rules ([`Stop::Rejected`]). Never a
//!   protocol error: the tool's arguments were fine.
//!
//! Decline and cancel are final answers on every revision: returned, never asked again.
//!
//! A `#[prompt]` takes an [`Asker`] the same way and returns [`respond_prompt`]'s
//! [`PromptResponse`]; on 2026-07-28 its server is served through [`AskingService`] (see
//! [`Asker`]).
//!
//! # On the wire
//!
//! - **Property order.** The form's fields reach the client in the order of the struct. rmcp
//!   serializes every message through a `serde_json::Map`, which sorts its keys unless
//!   serde_json's `preserve_order` feature is on, so this feature turns it on. With it, every
//!   `serde_json::Map` in the program keeps insertion order (equality is unchanged).
//! - **`elicitationId`.** rmcp's URL elicitation type always writes an `elicitationId`, which
//!   2026-07-28 removed (rmcp writes `""`). Serve through [`AskingService`] and the field is left
//!   out of 2026-07-28 input-required results; it also records each call's arguments for the
//!   asker, whatever the order of the tool's parameters. rmcp's `StreamableHttpService` takes a
//!   `ServerHandler`, not a service, so an HTTP server cannot be wrapped: there the empty field
//!   stays, and the `Asker` goes before `Parameters<..>`.

// The layers, bottom first: each module imports only from the ones above its line here
// (`tests/layers.rs`).
// Conversions to and from rmcp's types.
mod convert;
// Why a tool stops before the answer, and what it returns then.
mod stop;
// Asking from one request handler.
mod asker;
// The service that records each call and leaves out what rmcp's types cannot.
mod wire;
// The client side: a client whose elicitations an `Answerer` answers, and the test kit on it.
#[cfg(feature = "rmcp-client")]
mod client;
#[cfg(feature = "rmcp-client")]
mod kit;

pub use asker::{AskConfig, Asker, AskingServer};
pub use convert::{
    ConvertError, action_of, cannot_ask_result, elicitation_schema, elicitation_support,
    form_outcome, form_params, input_required, jsonrpc_error, mrtr_error, protocol_version,
    revision, url_outcome, url_params,
};
pub use stop::{PromptResponse, Stop, ToolResponse, respond, respond_prompt};
pub use wire::AskingService;

#[cfg(feature = "rmcp-client")]
pub use client::AnsweringClient;
#[cfg(feature = "rmcp-client")]
pub use kit::{Called, Connected, KitError, TestKit};
