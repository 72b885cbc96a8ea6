//! With the `metrics` feature, asks and outcomes are counters of the `metrics` facade.

use std::time::Duration;

use mcp_elicit::observe::{self, Outcome};
use mcp_elicit::{
    FormRequest,
    schema::{Property, RequestedSchema, StringSchema},
};
use metrics_util::debugging::{DebugValue, DebuggingRecorder};
use serde_json::json;

/// Outside `for_client` the client is `unknown`.
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
        ("elicit_asked_total{elicitation=whoami,client=unknown}", 6),
        (
            "elicit_answered_total{elicitation=whoami,outcome=accepted,client=unknown}",
            1,
        ),
        (
            "elicit_answered_total{elicitation=whoami,outcome=rejected,client=unknown}",
            1,
        ),
        (
            "elicit_answered_total{elicitation=whoami,outcome=declined,client=unknown}",
            1,
        ),
        (
            "elicit_answered_total{elicitation=whoami,outcome=cancelled,client=unknown}",
            2,
        ),
        (
            "elicit_answered_total{elicitation=whoami,outcome=no_reply,client=unknown}",
            1,
        ),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    assert_eq!(seen, expected);
}

/// Inside `for_client`, what the parsing paths record carries the client's label; a timed answer
/// is a histogram sample in seconds, and a count of answers too fast for a person.
#[test]
fn for_client_labels_the_counts_and_timed_records_seconds_and_the_too_fast() {
    let recorder = DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    let schema =
        RequestedSchema::new(vec![Property::new("name", StringSchema::new())]).expect("schema");
    let request = FormRequest::new("Your name?", schema)
        .expect("request")
        .with_name("whoami");
    let clients = observe::ClientNames::new(["Claude Code"]);
    let claude = clients.label(Some("claude-code"));
    let threshold = observe::TooFast::DEFAULT;

    metrics::with_local_recorder(&recorder, || {
        observe::for_client(&claude, || {
            observe::asked(request.name());
            let _ = request.parse_reply(&json!({"action": "decline"}));
        });
        for elapsed in [Duration::from_millis(40), Duration::from_secs(3)] {
            observe::timed(&observe::TimedAnswer::new(
                request.name(),
                &claude,
                Outcome::Declined,
                elapsed,
                1,
                threshold,
            ));
        }
    });

    let mut seen = std::collections::BTreeMap::new();
    for (key, _, _, value) in snapshotter.snapshot().into_vec() {
        let labels: Vec<String> = key
            .key()
            .labels()
            .map(|l| format!("{}={}", l.key(), l.value()))
            .collect();
        let value = match value {
            DebugValue::Counter(n) => format!("{n}"),
            DebugValue::Histogram(samples) => {
                format!("{:?}", samples.iter().map(|s| s.0).collect::<Vec<_>>())
            }
            DebugValue::Gauge(g) => panic!("no gauge is emitted: {g}"),
        };
        seen.insert(
            format!("{}{{{}}}", key.key().name(), labels.join(",")),
            value,
        );
    }
    let expected: std::collections::BTreeMap<String, String> = [
        (
            "elicit_asked_total{elicitation=whoami,client=claude-code}",
            "1",
        ),
        (
            "elicit_answered_total{elicitation=whoami,outcome=declined,client=claude-code}",
            "1",
        ),
        (
            "elicit_answer_seconds{client=claude-code,outcome=declined}",
            "[0.04, 3.0]",
        ),
        (
            "elicit_answered_too_fast_total{client=claude-code,outcome=declined}",
            "1",
        ),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v.to_owned()))
    .collect();
    assert_eq!(seen, expected);
}

/// Nested, the inner client labels what is recorded inside it, and the outer one is back after.
#[test]
fn for_client_nested_restores_the_outer_client() {
    let recorder = DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    let clients = observe::ClientNames::new(["a", "b"]);
    let (a, b) = (clients.label(Some("a")), clients.label(Some("b")));
    metrics::with_local_recorder(&recorder, || {
        observe::for_client(&a, || {
            observe::asked("nested");
            observe::for_client(&b, || observe::asked("nested"));
            observe::asked("nested");
        });
        observe::asked("nested");
    });
    let mut seen = std::collections::BTreeMap::new();
    for (key, _, _, value) in snapshotter.snapshot().into_vec() {
        let DebugValue::Counter(n) = value else {
            panic!("only counters are emitted")
        };
        let client = key
            .key()
            .labels()
            .find(|l| l.key() == "client")
            .map(|l| l.value().to_owned());
        seen.insert(client.expect("a client label"), n);
    }
    let expected: std::collections::BTreeMap<String, u64> = [("a", 2), ("b", 1), ("unknown", 1)]
        .map(|(k, v)| (k.to_owned(), v))
        .into();
    assert_eq!(seen, expected);
}

/// Confirm the purge.
#[derive(mcp_elicit::Elicit, Debug)]
#[elicit(consent)]
struct Purge {
    #[elicit(consent, title = "I understand")]
    understood: bool,
}

/// A consent form accepted with its box unticked is a decline, and is counted as one on every
/// reading path; ticked, it is an acceptance.
#[test]
fn an_unticked_consent_is_counted_as_declined() {
    use mcp_elicit::reply::{Action, ConsentForm};
    use mcp_elicit::{Elicit, Elicitation};

    let recorder = DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    let unticked = json!({"action": "accept", "content": {"understood": false}});
    let ticked = json!({"action": "accept", "content": {"understood": true}});
    metrics::with_local_recorder(&recorder, || {
        let request = Purge::form_request();
        let read = [
            Purge::consent_from_reply(&unticked).map(|o| o.outcome()),
            request.parse_consent(&unticked).map(|o| o.outcome()),
            request
                .parse_consent_parts(Action::Accept, unticked.get("content").cloned())
                .map(|o| o.outcome()),
        ];
        for outcome in read {
            assert_eq!(outcome.expect("read"), Outcome::Declined);
        }
        assert!(matches!(
            request.parse_consent(&ticked),
            Ok(Elicitation::Accept(_))
        ));
    });

    let snapshot = snapshotter.snapshot().into_vec();
    let counted = |outcome: &str| {
        snapshot
            .iter()
            .filter(|(key, ..)| {
                key.key().name() == "elicit_answered_total"
                    && key
                        .key()
                        .labels()
                        .any(|l| l.key() == "outcome" && l.value() == outcome)
            })
            .map(|(.., value)| match value {
                DebugValue::Counter(n) => *n,
                other => panic!("a counter: {other:?}"),
            })
            .sum::<u64>()
    };
    assert_eq!(counted("declined"), 3);
    assert_eq!(counted("accepted"), 1);
}
