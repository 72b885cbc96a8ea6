#![cfg_attr(not(doctest), doc = include_str!("../guide/rmcp.md"))]
// The layers, bottom first: each module imports only from the ones above its line here
// (`tests/layers.rs`).
// Conversions to and from rmcp's types.
mod convert;
// Who sent an HTTP request: the one function that names a principal over HTTP.
#[cfg(any(feature = "http", feature = "page"))]
mod principal;
// A URL step asked as a form with no field, and when it is.
mod link_form;
// Why a tool stops before the answer, and what it returns then.
mod stop;
// How a server asks: its keys, who is asking, how long to wait.
mod config;
// Progress notifications that keep a call open while the user answers.
mod keep_alive;
// Asking from one request handler.
mod asker;
// The service that records each call and leaves out what rmcp's types cannot.
mod wire;
// The same recording for a transport that takes a `ServerHandler`.
#[cfg(any(feature = "http", feature = "rmcp-client"))]
mod handler;
// Sessions bound to the principal that opened them.
#[cfg(feature = "http")]
mod session;
// Serving over streamable HTTP.
#[cfg(feature = "http")]
mod http;
// The client side: the hosts the test kit plays;
#[cfg(feature = "rmcp-client")]
mod profile;

// a client whose elicitations an `Answerer` answers (as one of those hosts, if asked), and the
// test kit on it.
#[cfg(feature = "rmcp-client")]
mod client;
#[cfg(feature = "rmcp-client")]
mod kit;

#[cfg_attr(not(doctest), doc = include_str!("../guide/hosts.md"))]
pub mod hosts {}

pub use asker::{Asker, AskingServer};
pub use config::{AskConfig, AskConfigError, request_extension};
pub use convert::{
    ConvertError, action_of, cannot_ask_result, elicitation_schema, elicitation_support,
    form_outcome, form_params, input_required, jsonrpc_error, mrtr_error, protocol_version,
    revision, url_outcome, url_params,
};
#[cfg(feature = "http")]
pub use http::{AskingHttpService, HttpResponse};
pub use link_form::{HostFacts, LinkForm, LinkFormNotShown, LinkFormReason, link_form_reason};
#[cfg(any(feature = "http", feature = "page"))]
pub use principal::HttpPrincipal;
#[cfg(feature = "http")]
pub use session::SessionBinding;
pub use stop::{AutomaticConsent, PromptResponse, Stop, ToolResponse, respond, respond_prompt};
pub use wire::AskingService;

#[cfg(feature = "rmcp-client")]
pub use client::AnsweringClient;
#[cfg(feature = "rmcp-client")]
pub use kit::{Called, Connected, KitError, Served, TestKit};
#[cfg(feature = "rmcp-client")]
pub use profile::{Pace, Profile};
