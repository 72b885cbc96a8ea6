//! The interrupt budget: every ask and every outcome reaches the observer exactly once.

use std::collections::BTreeMap;
use std::sync::Mutex;

use elicit_core::mrtr::{Answer, Ask, Retry, Rounds};
use elicit_core::observe::{self, Observer, Outcome};
use elicit_core::state::{Binding, KeyId, ParamsDigest, StateKey, StateKeys, UnixTime};
use elicit_core::{
    Elicitation, FormRequest,
    schema::{IntegerSchema, Property, RequestedSchema},
};
use serde_json::{Value, json};

#[derive(Default)]
struct Recording(Mutex<BTreeMap<(String, &'static str), u64>>);

impl Recording {
    fn bump(&self, name: &str, what: &'static str) {
        if let Ok(mut counts) = self.0.lock() {
            *counts.entry((name.to_owned(), what)).or_default() += 1;
        }
    }
}

impl Observer for &'static Recording {
    fn asked(&self, elicitation: &str) {
        self.bump(elicitation, "asked");
    }
    fn answered(&self, elicitation: &str, outcome: Outcome) {
        self.bump(elicitation, outcome.as_str());
    }
}

fn request() -> FormRequest {
    let schema = RequestedSchema::new(vec![Property::new(
        "replicas",
        IntegerSchema::new().maximum(5),
    )])
    .expect("schema");
    FormRequest::new("How many replicas?", schema)
        .expect("request")
        .with_name("scale")
}

#[test]
fn scripted_sequence_is_counted_exactly() {
    let recording: &'static Recording = Box::leak(Box::default());
    observe::set_observer(recording).expect("first observer");
    assert_eq!(
        observe::set_observer(recording),
        Err(observe::ObserverAlreadySet)
    );

    let request = request();
    let replies = [
        json!({"action": "accept", "content": {"replicas": 3}}),
        json!({"action": "accept", "content": {"replicas": 2}}),
        json!({"action": "decline"}),
        json!({"action": "cancel"}),
        json!({"action": "cancel", "content": null}),
        json!({"action": "cancel"}),
        json!({"action": "accept", "content": {"replicas": 9}}),
        json!({"action": "maybe"}),
    ];
    for reply in &replies {
        observe::asked(request.name());
        let _ = request.parse_reply(reply);
    }
    // Malformed text is a rejected reply too.
    observe::asked(request.name());
    assert!(request.parse_reply_str("{not json").is_err());
    // A request the client never answered.
    observe::asked(request.name());
    observe::answered(request.name(), Outcome::NoReply);
    // Another elicitation is counted apart.
    let other = request.clone().with_name("other");
    observe::asked(other.name());
    assert!(matches!(
        other.parse_reply(&json!({"action": "decline"})),
        Ok(Elicitation::Decline)
    ));

    multi_round_trip_counts_each_ask_and_each_answer_once();

    let counts = recording.0.lock().expect("lock").clone();
    let get =
        |name: &str, what: &'static str| counts.get(&(name.to_owned(), what)).copied().unwrap_or(0);
    assert_eq!(get("scale", "asked"), 10);
    assert_eq!(get("scale", "accepted"), 2);
    assert_eq!(get("scale", "declined"), 1);
    assert_eq!(get("scale", "cancelled"), 3);
    assert_eq!(get("scale", "rejected"), 3);
    assert_eq!(get("scale", "no_reply"), 1);
    assert_eq!(get("other", "asked"), 1);
    assert_eq!(get("other", "declined"), 1);
    // Multi round-trip: asked when the input request goes out, answered when the answer
    // arrives — an answer carried forward in the state on later rounds is not counted again.
    assert_eq!(get("mrtr-a", "asked"), 1);
    assert_eq!(get("mrtr-a", "accepted"), 1);
    assert_eq!(
        get("mrtr-b", "asked"),
        2,
        "asked in round 1, and again after the bad answer"
    );
    assert_eq!(get("mrtr-b", "rejected"), 1);
    assert_eq!(get("mrtr-b", "declined"), 1);
    assert_eq!(counts.len(), 13, "nothing else was recorded: {counts:?}");
}

/// Round 1 asks A and B; round 2 answers A (accept) and B (invalid) so B is asked again;
/// round 3 declines B while A is carried in the state.
fn multi_round_trip_counts_each_ask_and_each_answer_once() {
    let rounds = Rounds::new(StateKeys::single(
        KeyId::new(1),
        StateKey::from_bytes([7; 32]),
    ));
    let call = json!({
        "name": "scale",
        "arguments": {},
        "_meta": {"io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}},
    });
    let run = |params: &Value| {
        let binding = Binding {
            principal: "user-1",
            method: "tools/call",
            params_digest: ParamsDigest::of_request_params(params),
        };
        let retry = Retry::from_params(params).expect("well-formed");
        let mut round = rounds
            .round::<()>(retry, binding, UnixTime::now())
            .expect("opens");
        let asks = (
            Ask::form_request("a", request().with_name("mrtr-a")),
            Ask::form_request("b", request().with_name("mrtr-b")),
        );
        match round.answer(asks).expect("answers") {
            Answer::Ready(answers) => Ok(answers),
            Answer::Ask(result) => Err(serde_json::to_value(&result).expect("serializes")),
            Answer::Rejected(rejected) => panic!("no answer was rejected: {rejected}"),
        }
    };
    let first = run(&call).expect_err("round 1 asks");
    let mut second_call = call.clone();
    second_call["requestState"] = first["requestState"].clone();
    second_call["inputResponses"] = json!({
        "a": {"action": "accept", "content": {"replicas": 2}},
        "b": {"action": "accept", "content": {"replicas": 50}},
    });
    let second = run(&second_call).expect_err("round 2 asks b again");
    let mut third_call = call.clone();
    third_call["requestState"] = second["requestState"].clone();
    third_call["inputResponses"] = json!({"b": {"action": "decline"}});
    let (a, b) = run(&third_call).expect("round 3 has both answers");
    assert!(a.is_accepted());
    assert_eq!(b, Elicitation::Decline);
}
