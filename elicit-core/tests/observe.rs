//! The interrupt budget: every ask and every outcome reaches the observer exactly once.

use std::collections::BTreeMap;
use std::sync::Mutex;

use elicit_core::observe::{self, Observer, Outcome};
use elicit_core::{Elicitation, FormRequest, IntegerSchema, Property, RequestedSchema};
use serde_json::json;

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
    assert_eq!(counts.len(), 8, "nothing else was recorded: {counts:?}");
}
