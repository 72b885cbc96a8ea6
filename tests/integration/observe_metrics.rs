//! With the `metrics` feature, asks and outcomes are counters of the `metrics` facade.

use mcp_elicit::observe::{self, Outcome};
use mcp_elicit::{
    FormRequest,
    schema::{Property, RequestedSchema, StringSchema},
};
use metrics_util::debugging::{DebugValue, DebuggingRecorder};
use serde_json::json;

#[test]
fn counters_carry_the_elicitation_and_the_outcome() {
    let recorder = DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    let schema =
        RequestedSchema::new(vec![Property::new("name", StringSchema::new())]).expect("schema");
    let request = FormRequest::new("Your name?", schema)
        .expect("request")
        .with_name("whoami");

    metrics::with_local_recorder(&recorder, || {
        for reply in [
            json!({"action": "accept", "content": {"name": "Ada"}}),
            json!({"action": "accept", "content": {"name": 7}}),
            json!({"action": "decline"}),
            json!({"action": "cancel"}),
            json!({"action": "cancel"}),
        ] {
            observe::asked(request.name());
            let _ = request.parse_reply(&reply);
        }
        observe::asked(request.name());
        observe::answered(request.name(), Outcome::NoReply);
    });

    let mut seen = std::collections::BTreeMap::new();
    for (key, _, _, value) in snapshotter.snapshot().into_vec() {
        let DebugValue::Counter(n) = value else {
            panic!("only counters are emitted")
        };
        let labels: Vec<String> = key
            .key()
            .labels()
            .map(|l| format!("{}={}", l.key(), l.value()))
            .collect();
        seen.insert(format!("{}{{{}}}", key.key().name(), labels.join(",")), n);
    }
    let expected: std::collections::BTreeMap<String, u64> = [
        ("elicit_asked_total{elicitation=whoami}", 6),
        (
            "elicit_answered_total{elicitation=whoami,outcome=accepted}",
            1,
        ),
        (
            "elicit_answered_total{elicitation=whoami,outcome=rejected}",
            1,
        ),
        (
            "elicit_answered_total{elicitation=whoami,outcome=declined}",
            1,
        ),
        (
            "elicit_answered_total{elicitation=whoami,outcome=cancelled}",
            2,
        ),
        (
            "elicit_answered_total{elicitation=whoami,outcome=no_reply}",
            1,
        ),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    assert_eq!(seen, expected);
}
