//! The documented limits on what a client can send, enforced before any expensive work on every
//! entry point, and errors that never carry the input back out (issue #8).

use mcp_elicit::{
    Elicit, Elicitation, FormRequest, UrlOutcome, UrlRequest,
    limits::{MAX_REPLY_BYTES, MAX_STRING_BYTES},
    reply::{MalformedReply, ReplyError},
    schema::{Property, RequestedSchema, Rule, StringSchema},
};
use serde_json::{Map, Value, json};

#[derive(Elicit, Debug, Clone, Copy, PartialEq, Eq)]
#[elicit(rename_all = "lowercase")]
enum Plan {
    Free,
    Team,
}

/// A note with no length limit, a bounded code, a select and a multi-select.
#[derive(Elicit, Debug, PartialEq)]
#[elicit(message = "Limits.")]
struct Form {
    note: Option<String>,
    #[elicit(max_length = 16)]
    code: Option<String>,
    plan: Option<Plan>,
    plans: Option<Vec<Plan>>,
}

fn too_large(result: Result<impl std::fmt::Debug, ReplyError>) -> usize {
    match result {
        Err(ReplyError::Malformed(MalformedReply::TooLarge { bytes })) => bytes,
        other => panic!("expected TooLarge, got {other:?}"),
    }
}

/// The reply's rule for `property`, from an `Invalid` error.
fn rule_of<T: std::fmt::Debug>(result: Result<T, ReplyError>, property: &str) -> Rule {
    match result {
        Err(ReplyError::Invalid(violations)) => violations
            .into_iter()
            .find(|v| v.property == property)
            .map(|v| v.rule)
            .unwrap_or_else(|| panic!("no violation of `{property}`")),
        other => panic!("expected Invalid, got {other:?}"),
    }
}

fn accept(content: Value) -> Value {
    json!({"action": "accept", "content": content})
}

#[test]
fn reply_text_over_the_limit_is_refused_before_it_is_parsed() {
    // Not JSON at all: only a size check that comes first can answer `TooLarge`.
    let text = "[".repeat(MAX_REPLY_BYTES + 1);
    assert_eq!(too_large(Form::from_reply_str(&text)), MAX_REPLY_BYTES + 1);
    assert_eq!(
        too_large(Form::form_request().parse_reply_str(&text)),
        MAX_REPLY_BYTES + 1
    );
    assert_eq!(
        too_large(UrlOutcome::from_reply_str(&text)),
        MAX_REPLY_BYTES + 1
    );
    let url = UrlRequest::new("Open it.", "https://x.example/").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(too_large(url.parse_reply_str(&text)), MAX_REPLY_BYTES + 1);
}

#[test]
fn reply_text_of_exactly_the_limit_is_read() {
    let mut text = r#"{"action":"decline"}"#.to_owned();
    text.push_str(&" ".repeat(MAX_REPLY_BYTES - text.len()));
    assert_eq!(text.len(), MAX_REPLY_BYTES);
    assert_eq!(Form::from_reply_str(&text), Ok(Elicitation::Decline));
}

#[test]
fn deeply_nested_json_text_is_refused_cleanly() {
    // What the reader does not keep, serde_json skips without recursing (one byte of state per
    // level, inside the reply's size limit), so nesting puts no stack at risk: a deep reply is
    // refused for its shape, as any other. What it keeps is flat.
    let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    assert_eq!(
        Form::from_reply_str(&deep),
        Err(ReplyError::Malformed(MalformedReply::NotAnObject))
    );
    let deep_content = format!(
        r#"{{"action":"accept","content":{{"note":{}{}}}}}"#,
        "[".repeat(10_000),
        "]".repeat(10_000)
    );
    let Err(ReplyError::Invalid(violations)) = Form::from_reply_str(&deep_content) else {
        panic!("a deeply nested member is an array where a string is asked for");
    };
    assert!(violations.concerns("note"));
    let deep_object = format!("{}1{}", r#"{"a":"#.repeat(10_000), "}".repeat(10_000));
    assert_eq!(
        UrlOutcome::from_reply_str(&deep_object),
        Err(ReplyError::Malformed(MalformedReply::MissingAction))
    );
    // Unbalanced nesting is still not JSON.
    let unbalanced = format!("{}{}", "[".repeat(10_000), "]".repeat(9_999));
    assert!(matches!(
        Form::from_reply_str(&unbalanced),
        Err(ReplyError::Malformed(MalformedReply::NotJson { .. }))
    ));
}

#[test]
fn a_one_mebibyte_string_gives_a_short_error_on_every_path() {
    const SECRET: &str = "hunter2-";
    let big = SECRET.repeat(1024 * 1024 / SECRET.len());
    assert_eq!(big.len(), 1024 * 1024);
    // As text: refused by size, before parsing.
    let text = accept(json!({"note": big})).to_string();
    let error = Form::from_reply_str(&text)
        .err()
        .unwrap_or_else(|| panic!("accepted"));
    // As a value, in every kind of field.
    let mut errors = vec![error];
    for field in ["note", "code", "plan"] {
        let reply = accept(json!({ field: big }));
        errors.push(
            Form::from_reply(&reply)
                .err()
                .unwrap_or_else(|| panic!("{field} accepted")),
        );
    }
    errors.push(
        Form::from_reply(&accept(json!({"plans": [big]})))
            .err()
            .unwrap_or_else(|| panic!("plans accepted")),
    );
    for error in errors {
        let message = error.to_string();
        assert!(
            message.len() < 200,
            "{} bytes: {message:.200}",
            message.len()
        );
        // At most the 32 characters an option error quotes: never the value as a whole.
        assert!(!message.contains(&SECRET.repeat(5)), "{message}");
    }
}

#[test]
fn strings_longer_than_the_limit_are_refused_from_values_before_they_are_read() {
    let big = "x".repeat(MAX_STRING_BYTES + 1);
    assert_eq!(
        rule_of(Form::from_reply(&accept(json!({"note": big}))), "note"),
        Rule::TooLarge {
            bytes: MAX_STRING_BYTES + 1
        }
    );
    // A hand-built schema with no length limit holds to the same bound.
    let schema = RequestedSchema::new(vec![Property::new("note", StringSchema::new())])
        .unwrap_or_else(|e| panic!("{e}"));
    let schema = FormRequest::new("Leave a note.", schema).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        rule_of(schema.parse_reply(&accept(json!({"note": big}))), "note"),
        Rule::TooLarge {
            bytes: MAX_STRING_BYTES + 1
        }
    );
    // The limit itself is allowed.
    let at_limit = "x".repeat(MAX_STRING_BYTES);
    assert!(
        schema
            .parse_reply(&accept(json!({"note": at_limit})))
            .is_ok()
    );
}

#[test]
fn a_huge_content_map_costs_only_the_schemas_lookups_and_unknown_keys_stay_ignored() {
    let mut content: Map<String, Value> = (0..100_000)
        .map(|i| (format!("unknown-{i}"), json!([i, {"x": "y"}])))
        .collect();
    content.insert("plan".into(), json!("team"));
    let reply = Value::Object(
        [
            ("action".to_owned(), json!("accept")),
            ("content".to_owned(), Value::Object(content)),
        ]
        .into_iter()
        .collect(),
    );
    assert_eq!(
        Form::from_reply(&reply),
        Ok(Elicitation::Accept(Form {
            note: None,
            code: None,
            plan: Some(Plan::Team),
            plans: None
        }))
    );
}

#[test]
fn a_huge_multi_select_is_refused_at_the_first_repeat() {
    let items: Vec<Value> = std::iter::repeat_n(json!("free"), 1_000_000).collect();
    assert_eq!(
        rule_of(Form::from_reply(&accept(json!({"plans": items}))), "plans"),
        Rule::DuplicateSelection {
            value: "free".into()
        }
    );
}

#[test]
fn deeply_nested_values_are_refused_by_type_without_recursion() {
    // A value built in memory can be deeper than any parser allows; validation never descends
    // into it.
    let mut deep = json!("leaf");
    for _ in 0..1_000 {
        deep = Value::Array(vec![deep]);
    }
    assert!(matches!(
        rule_of(
            Form::from_reply(&accept(json!({"note": deep.clone()}))),
            "note"
        ),
        Rule::Type { .. }
    ));
    assert!(matches!(
        UrlOutcome::from_reply(&json!({"action": deep})),
        Err(ReplyError::Malformed(_))
    ));
}

mod multi_round_trip {
    use mcp_elicit::limits::MAX_STATE_LEN;
    use mcp_elicit::mrtr::{Answer, Ask, MrtrError, Retry, Rounds};
    use mcp_elicit::protocol::CLIENT_CAPABILITIES_META_KEY;
    use mcp_elicit::state::{
        Binding, KeyId, MalformedReason, ParamsDigest, StateError, StateKey, StateKeys, UnixTime,
    };
    use serde_json::{Value, json};

    use super::Form;

    const NOW: UnixTime = UnixTime::from_secs(1_800_000_000);

    fn rounds() -> Rounds {
        Rounds::new(StateKeys::single(
            KeyId::new(1),
            StateKey::from_bytes([5; 32]),
        ))
    }

    fn call() -> Value {
        json!({"name": "t", "_meta": {CLIENT_CAPABILITIES_META_KEY: {"elicitation": {}}}})
    }

    fn binding(params: &Value) -> Binding<'static> {
        Binding {
            principal: "p",
            method: "tools/call",
            params_digest: ParamsDigest::of_request_params(params),
        }
    }

    #[test]
    fn request_state_over_the_limit_is_refused_before_decoding() {
        let rounds = rounds();
        let call = call();
        let huge = "!".repeat(MAX_STATE_LEN + 1);
        let retry = Retry::from_params(&call)
            .unwrap_or_else(|e| panic!("{e}"))
            .with_request_state(Some(&huge));
        match rounds.round::<()>(retry, binding(&call), NOW) {
            Err(MrtrError::State(StateError::Malformed(MalformedReason::TooLong))) => {}
            other => panic!("expected TooLong, got {other:?}"),
        }
    }

    #[test]
    fn a_one_mebibyte_answer_is_asked_again_with_a_short_reason() {
        let rounds = rounds();
        let first = call();
        let mut round = rounds
            .round::<()>(
                Retry::from_params(&first).unwrap_or_else(|e| panic!("{e}")),
                binding(&first),
                NOW,
            )
            .unwrap_or_else(|e| panic!("{e}"));
        let Ok(Answer::Ask(asked)) = round.answer(Ask::form::<Form>("form")) else {
            panic!("round one asks")
        };
        let state = asked.request_state().unwrap_or_default().to_owned();
        let secret = "hunter2-".repeat(128 * 1024);
        let mut retry = first.clone();
        retry["inputResponses"] =
            json!({"form": {"action": "accept", "content": {"code": secret}}});
        retry["requestState"] = json!(state);
        let mut round = rounds
            .round::<()>(
                Retry::from_params(&retry).unwrap_or_else(|e| panic!("{e}")),
                binding(&first),
                NOW,
            )
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(matches!(
            round.answer(Ask::form::<Form>("form")),
            Ok(Answer::Ask(_))
        ));
        let reasons = round.unusable_answers();
        assert_eq!(reasons.len(), 1);
        assert!(
            reasons
                .iter()
                .all(|(_, reason)| reason.len() < 200 && !reason.contains("hunter2-hunter2-"))
        );
    }
}
