//! Multi round-trip requests (2026-07-28), the input-required result: several requests in one
//! round, each under a unique key, of the three kinds the spec allows, and a result that carries
//! requests or a state (or both), whether built or deserialized.

use elicit_core::mrtr::{Ask, InputRequests, InputRequiredResult, MrtrError};
use elicit_core::{Elicit, Elicitation};
use serde_json::json;

mod common;

use common::*;

#[test]
fn several_elicitations_are_asked_in_one_round() {
    let rounds = rounds();
    let params = call();
    let mut round = round::<()>(&rounds, &params).unwrap();
    let result = ask(round
        .answer((
            Ask::form::<DeployTarget>("target"),
            Ask::form::<Window>("window"),
        ))
        .unwrap());
    assert_eq!(keys_of(&result), ["target", "window"]);
    let value = result.to_value();
    assert_eq!(value["resultType"], "input_required");
    assert_eq!(
        value["inputRequests"]["target"]["method"],
        "elicitation/create"
    );
    assert_eq!(
        value["inputRequests"]["target"]["params"],
        serde_json::to_value(DeployTarget::form_request()).unwrap()
    );
    assert_eq!(
        value["inputRequests"]["window"]["params"]["message"],
        "When may the deploy start?"
    );
}

#[test]
fn input_request_keys_are_unique_within_a_request() {
    let rounds = rounds();
    let params = call();
    let mut round = round::<()>(&rounds, &params).unwrap();
    let error = round
        .answer((
            Ask::form::<DeployTarget>("target"),
            Ask::form::<Window>("target"),
        ))
        .unwrap_err();
    assert!(matches!(&error, MrtrError::DuplicateKey { key } if key == "target"));
    assert_eq!(
        error.to_string(),
        "input request key `target` is used twice; keys must be unique within a request"
    );
    assert_eq!(error.to_jsonrpc_error().code(), -32603);

    let requests = InputRequests::new().roots("workspace").unwrap();
    assert!(
        matches!(requests.roots("workspace"), Err(MrtrError::DuplicateKey { key }) if key == "workspace")
    );
}

#[test]
fn sampling_and_roots_requests_mix_with_elicitations() {
    let rounds = rounds();
    let params = call();
    let sampling = json!({
        "messages": [{ "role": "user", "content": { "type": "text", "text": "Summarise the diff" } }],
        "maxTokens": 200,
    });
    let asks = || {
        (
            Ask::form::<DeployTarget>("target"),
            Ask::sampling("summary", sampling.clone()),
            Ask::roots("workspace"),
        )
    };
    let mut first = round::<()>(&rounds, &params).unwrap();
    let result = ask(first.answer(asks()).unwrap());
    let value = result.to_value();
    assert_eq!(
        value["inputRequests"]["summary"],
        json!({ "method": "sampling/createMessage", "params": sampling })
    );
    assert_eq!(
        value["inputRequests"]["workspace"],
        json!({ "method": "roots/list" })
    );

    let summary = json!({ "role": "assistant", "content": { "type": "text", "text": "Bumps a dependency." }, "model": "m", "stopReason": "endTurn" });
    let roots = json!({ "roots": [{ "uri": "file:///srv/billing", "name": "billing" }] });
    let retried = retry(
        &params,
        &result,
        json!({
            "target": accept(json!({ "env": "staging" })),
            "summary": summary,
            "workspace": roots,
        }),
    );
    let mut second = round::<()>(&rounds, &retried).unwrap();
    let (target, got_summary, got_roots) = ready(second.answer(asks()).unwrap());
    assert_eq!(
        target,
        Elicitation::Accept(DeployTarget {
            env: Env::Staging,
            ticket: None
        })
    );
    assert_eq!(got_summary, summary);
    assert_eq!(got_roots, roots);
}

#[test]
fn input_requests_must_be_one_of_the_three_request_kinds() {
    let mut requests = InputRequests::new();
    let error = requests
        .insert("x", json!({ "method": "tools/call", "params": {} }))
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "input request `x` is not allowed: `method` must be \"elicitation/create\", \"sampling/createMessage\" or \"roots/list\""
    );
    let error = requests
        .insert("y", json!({ "method": "sampling/createMessage" }))
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "input request `y` is not allowed: `params` is required for this method"
    );
    let error = InputRequests::new().sampling("z", json!([1])).unwrap_err();
    assert_eq!(
        error.to_string(),
        "input request `z` is not allowed: `params` must be an object"
    );
}

#[test]
fn a_result_carries_input_requests_or_request_state() {
    let error = InputRequiredResult::new(InputRequests::new(), None).unwrap_err();
    assert!(matches!(error, MrtrError::EmptyResult));
    let state_only = InputRequiredResult::new(InputRequests::new(), Some("s".into())).unwrap();
    assert_eq!(
        state_only.to_value(),
        json!({ "resultType": "input_required", "requestState": "s" })
    );

    // Every result a round builds carries its sealed state; a checkpoint carries nothing else.
    let rounds = rounds();
    let params = call();
    let mut round = round::<u32>(&rounds, &params).unwrap();
    round.keep(50);
    let checkpoint = round.checkpoint().unwrap();
    assert!(checkpoint.input_requests().is_empty());
    let resumed = retry(&params, &checkpoint, json!({}));
    assert_eq!(
        self::round::<u32>(&rounds, &resumed).unwrap().state(),
        Some(&50)
    );

    // Deserializing enforces the same rules.
    let none: Result<InputRequiredResult, _> =
        serde_json::from_value(json!({ "resultType": "input_required" }));
    assert!(
        none.unwrap_err()
            .to_string()
            .contains("at least one of `inputRequests` or `requestState`")
    );
    let complete: Result<InputRequiredResult, _> =
        serde_json::from_value(json!({ "resultType": "complete", "requestState": "s" }));
    assert!(
        complete
            .unwrap_err()
            .to_string()
            .contains("`resultType` must be \"input_required\"")
    );
}

/// A derived form's request is made once per type and asked from there: every round that asks it
/// carries it from the same place, so a transport may know it by that place without writing it
/// out. Anything else (a form changed at run time, a request that is not a derived form's) is
/// not known by a place.
#[test]
fn a_derived_forms_request_is_asked_from_where_it_was_made() {
    use elicit_core::__private::input_request_places;

    let rounds = rounds();
    let params = call();
    let places = |result: &InputRequiredResult| {
        input_request_places(result.input_requests()).map(|places| {
            places
                .into_iter()
                .map(|(key, at)| (key.to_owned(), at))
                .collect::<Vec<_>>()
        })
    };

    let first = asked(&rounds, &params, Ask::form::<DeployTarget>("target"));
    let again = asked(&rounds, &params, Ask::form::<DeployTarget>("target"));
    let first_places = places(&first).expect("a derived form is known by its place");
    assert_eq!(Some(first_places.clone()), places(&again));
    assert_eq!(first.input_requests(), again.input_requests());

    let both = asked(
        &rounds,
        &params,
        (
            Ask::form::<DeployTarget>("target"),
            Ask::form::<Window>("window"),
        ),
    );
    let both_places = places(&both).expect("two derived forms");
    assert_eq!(both_places[0], first_places[0]);
    assert_eq!(both_places[1].0, "window");
    assert_ne!(
        both_places[1].1, first_places[0].1,
        "each type has its own place"
    );

    let changed = DeployTarget::form_request()
        .with_message("Deploy build 42 where?")
        .unwrap();
    let changed = asked(&rounds, &params, Ask::form_request("target", changed));
    assert_eq!(
        places(&changed),
        None,
        "a form changed at run time is written anew"
    );
    assert_ne!(changed.input_requests(), first.input_requests());

    let mixed = asked(
        &rounds,
        &params,
        (Ask::form::<DeployTarget>("target"), Ask::roots("workspace")),
    );
    assert_eq!(
        places(&mixed),
        None,
        "one request without a place: no key by places"
    );
}

/// The requests keep the order they were asked in, whatever order JSON objects keep; two sets of
/// the same requests are equal in any order, as JSON objects are.
#[test]
fn input_requests_keep_the_order_they_were_asked_in() {
    let ab = InputRequests::new()
        .roots("workspace")
        .unwrap()
        .elicit("target", &DeployTarget::form_request())
        .unwrap();
    assert_eq!(ab.keys().collect::<Vec<_>>(), ["workspace", "target"]);
    let written = serde_json::to_string(&ab).unwrap();
    let at = |key: &str| {
        written
            .find(&format!("\"{key}\":"))
            .expect("each key is written")
    };
    assert!(at("workspace") < at("target"), "{written}");
    assert_eq!(
        ab.iter().map(|(key, _)| key).collect::<Vec<_>>(),
        ["workspace", "target"]
    );
    assert_eq!(
        format!("{ab:?}"),
        format!(
            "InputRequests({{\"workspace\": {:?}, \"target\": {:?}}})",
            ab.get("workspace").unwrap(),
            ab.get("target").unwrap()
        ),
        "Debug shows a map, in order"
    );
    let ba = InputRequests::new()
        .elicit("target", &DeployTarget::form_request())
        .unwrap()
        .roots("workspace")
        .unwrap();
    assert_eq!(ab, ba);
    assert_ne!(ab, InputRequests::new().roots("workspace").unwrap());
    let map = ab.clone().into_map();
    assert_eq!(map.len(), 2);
    assert_eq!(Some(&map["target"]), ab.get("target"));
}
