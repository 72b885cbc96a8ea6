//! A 2026-07-28 input-required result, as a client reads it: its input requests by key and its
//! `requestState`.

use serde_json::{Map, Value};

use super::error::IncomingError;
use super::incoming::Incoming;
use super::member::{object, string, too_large};
use super::read::read_request;
use crate::limits::MAX_INPUT_REQUESTS;
use crate::revision::Revision;
use crate::violation::quote;

/// One input request of an input-required result.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum IncomingInput {
    /// `elicitation/create`: a question to the user.
    Elicitation(Incoming),
    /// `sampling/createMessage`: its params, as sent.
    Sampling(Value),
    /// `roots/list`.
    Roots,
}

/// A 2026-07-28 input-required result, as a client reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct IncomingRound {
    /// The input requests by key, in the order of the result's map.
    pub inputs: Vec<(String, IncomingInput)>,
    /// The `requestState` to echo on the retry, unread.
    pub request_state: Option<String>,
}

/// Read a 2026-07-28 input-required result: its input requests by key and its `requestState`.
///
/// # Errors
/// An [`IncomingError`] naming the key and the rule; more than [`MAX_INPUT_REQUESTS`] requests
/// are refused before any is read.
pub fn read_input_required(result: &Value) -> Result<IncomingRound, IncomingError> {
    let result = object(result, "result")?;
    // Borrowed, not copied: counted before anything is read from it.
    let no_requests = Map::new();
    let requests = match result.get("inputRequests") {
        None | Some(Value::Null) => &no_requests,
        Some(requests) => object(requests, "inputRequests")?,
    };
    if requests.len() > MAX_INPUT_REQUESTS {
        return Err(too_large(
            "inputRequests",
            "input requests",
            MAX_INPUT_REQUESTS,
        ));
    }
    let state = match result.get("requestState") {
        None | Some(Value::Null) => None,
        Some(state) => Some(string(Some(state), "requestState")?.to_owned()),
    };
    let mut inputs = Vec::with_capacity(requests.len());
    for (key, request) in requests {
        let at = format!("inputRequests.{}", quote(key));
        let request = object(request, &at)?;
        let method = string(request.get("method"), &format!("{at}.method"))?;
        let input = match method {
            "elicitation/create" => {
                let params = request.get("params").unwrap_or(&Value::Null);
                let incoming =
                    read_request(params, Revision::V2026_07_28).map_err(|e| match e {
                        IncomingError::Member {
                            at: inner,
                            expected,
                        } => IncomingError::Member {
                            at: format!("{at}.params.{inner}"),
                            expected,
                        },
                        IncomingError::TooLarge {
                            at: inner,
                            what,
                            limit,
                        } => IncomingError::TooLarge {
                            at: format!("{at}.params.{inner}"),
                            what,
                            limit,
                        },
                        other => other,
                    })?;
                IncomingInput::Elicitation(incoming)
            }
            "sampling/createMessage" => {
                IncomingInput::Sampling(request.get("params").cloned().unwrap_or(Value::Null))
            }
            "roots/list" => IncomingInput::Roots,
            _ => {
                return Err(IncomingError::Member {
                    at: format!("{at}.method"),
                    expected: "elicitation/create, sampling/createMessage or roots/list",
                });
            }
        };
        inputs.push((key.clone(), input));
    }
    Ok(IncomingRound {
        inputs,
        request_state: state,
    })
}
