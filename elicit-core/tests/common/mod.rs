//! What the `mrtr_*` tests share: the forms they ask (`DeployTarget`, `Window`), the keys and
//! clock rounds are sealed with, and a round driven the way a handler drives it: from a
//! `tools/call` params object, retried with the answers and the echoed `requestState`.
//!
//! Each test binary uses a part of it.

#![allow(dead_code)]

use elicit_core::mrtr::{Answer, InputRequiredResult, MrtrError, Retry, Round, Rounds};
use elicit_core::state::{Binding, KeyId, ParamsDigest, StateKey, StateKeys, UnixTime};
use serde_json::{Value, json};

/// Where should `billing-api` be deployed?
#[derive(elicit_derive::Elicit, Debug, PartialEq)]
#[elicit(crate = elicit_core)]
pub struct DeployTarget {
    pub env: Env,
    /// The change ticket approving the deploy.
    #[elicit(min_length = 4)]
    pub ticket: Option<String>,
}

#[derive(elicit_derive::Elicit, Debug, Clone, Copy, PartialEq)]
#[elicit(crate = elicit_core, rename_all = "lowercase")]
pub enum Env {
    Staging,
    #[elicit(dangerous)]
    Production,
}

/// When may the deploy start?
#[derive(elicit_derive::Elicit, Debug, PartialEq)]
#[elicit(crate = elicit_core)]
pub struct Window {
    /// Hour of the day, UTC.
    #[elicit(minimum = 0, maximum = 23)]
    pub hour: u8,
}

/// The JSON of a JSON-RPC error object, for comparing with the wire.
pub trait ToValue {
    fn to_value(&self) -> Value;
}

impl ToValue for elicit_core::protocol::jsonrpc::JsonRpcError {
    fn to_value(&self) -> Value {
        serde_json::to_value(self).expect("an error object serializes")
    }
}

pub const NOW: UnixTime = UnixTime::from_secs(1_800_000_000);

pub const PRINCIPAL: &str = "user-8f3a";

pub fn keys() -> StateKeys {
    StateKeys::single(KeyId::new(1), StateKey::from_bytes([9; 32]))
}

pub fn rounds() -> Rounds {
    Rounds::new(keys())
}

pub fn capabilities(capabilities: Value) -> Value {
    json!({ "io.modelcontextprotocol/clientCapabilities": capabilities })
}

/// A `tools/call` params object: the first request, from a client that declares form elicitation.
pub fn call() -> Value {
    json!({
        "name": "deploy",
        "arguments": { "service": "billing-api" },
        "_meta": capabilities(json!({ "elicitation": {}, "sampling": {}, "roots": {} })),
    })
}

/// The retry of `params` after `result`, with `responses`.
pub fn retry(params: &Value, result: &InputRequiredResult, responses: Value) -> Value {
    let mut retry = params.clone();
    retry["inputResponses"] = responses;
    retry["requestState"] = json!(result.request_state().expect("every round seals its state"));
    retry
}

pub fn binding(params: &Value) -> Binding<'static> {
    Binding {
        principal: PRINCIPAL,
        method: "tools/call",
        params_digest: ParamsDigest::of_request_params(params),
    }
}

pub fn round<'r, S: serde::de::DeserializeOwned>(
    rounds: &'r Rounds,
    params: &'r Value,
) -> Result<Round<'r, S>, MrtrError> {
    rounds.round(Retry::from_params(params)?, binding(params), NOW)
}

pub fn ask<T>(answer: Answer<T>) -> InputRequiredResult {
    match answer {
        Answer::Ask(result) => result,
        Answer::Ready(_) => panic!("expected the round to ask"),
        Answer::Rejected(rejected) => panic!("expected the round to ask, got {rejected}"),
    }
}

pub fn ready<T>(answer: Answer<T>) -> T {
    match answer {
        Answer::Ready(answers) => answers,
        Answer::Ask(result) => panic!("expected answers, got {}", result.to_value()),
        Answer::Rejected(rejected) => panic!("expected answers, got {rejected}"),
    }
}

/// One run on `params` that must ask: its input-required result.
pub fn asked<A: elicit_core::mrtr::Asks>(
    rounds: &Rounds,
    params: &Value,
    asks: A,
) -> InputRequiredResult {
    ask(round::<()>(rounds, params).unwrap().answer(asks).unwrap())
}

/// The retry of a run on `params` that asked for the `window`, answering it with `window`.
pub fn window_answered(rounds: &Rounds, params: &Value, window: Value) -> Value {
    let first = asked(
        rounds,
        params,
        elicit_core::mrtr::Ask::form::<Window>("window"),
    );
    retry(params, &first, json!({ "window": window }))
}

pub fn keys_of(result: &InputRequiredResult) -> Vec<&str> {
    result.input_requests().keys().collect()
}

pub fn accept(content: Value) -> Value {
    json!({ "action": "accept", "content": content })
}

/// The message of the elicitation asked under `key`.
pub fn message_of<'a>(result: &'a InputRequiredResult, key: &str) -> &'a str {
    result.input_requests().get(key).unwrap()["params"]["message"]
        .as_str()
        .expect("an elicitation has a message")
}

/// Drives a future that never waits (the in-memory guard's) to completion.
pub fn block_on<F: std::future::Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    let mut context = std::task::Context::from_waker(std::task::Waker::noop());
    loop {
        if let std::task::Poll::Ready(output) = future.as_mut().poll(&mut context) {
            return output;
        }
    }
}
