//! Reading a client's `ElicitResult`: one test per rule of the spec and of this crate, named
//! after the rule.

use std::collections::BTreeSet;

use mcp_elicit::{
    Elicit, Elicitation,
    limits::MAX_REPLY_BYTES,
    reply::{Action, MalformedReply, ReplyError},
    schema::{JsonType, Rule},
};
use serde_json::{Value, json};

#[derive(Elicit, Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[elicit(rename_all = "lowercase")]
enum Color {
    Red,
    Green,
    Blue,
}

/// Please provide your contact information.
#[derive(Elicit, Debug, Clone, PartialEq)]
struct Contact {
    #[elicit(min_length = 2, max_length = 3)]
    name: String,
    #[elicit(format = "email")]
    email: String,
    #[elicit(minimum = 18, maximum = 130)]
    age: u8,
    newsletter: Option<bool>,
    #[elicit(min_items = 1, max_items = 2)]
    colors: BTreeSet<Color>,
    favourite: Option<Color>,
}

/// Everything here is optional.
#[derive(Elicit, Debug, PartialEq)]
struct AllOptional {
    note: Option<String>,
    count: Option<i32>,
}

fn valid_contact() -> serde_json::Map<String, Value> {
    json!({
        "name": "Ada",
        "email": "ada@example.com",
        "age": 36,
        "colors": ["red"],
    })
    .as_object()
    .cloned()
    .expect("object")
}

fn with(key: &str, value: Value) -> Value {
    let mut content = valid_contact();
    content.insert(key.into(), value);
    json!({"action": "accept", "content": content})
}

fn without(key: &str) -> Value {
    let mut content = valid_contact();
    content.remove(key);
    json!({"action": "accept", "content": content})
}

fn violations(reply: &Value) -> Vec<(String, Rule)> {
    match Contact::from_reply(reply) {
        Err(ReplyError::Invalid(v)) => v.into_iter().map(|v| (v.property, v.rule)).collect(),
        other => panic!("{reply} should be invalid, got {other:?}"),
    }
}

fn malformed(reply: &Value) -> MalformedReply {
    match Contact::from_reply(reply) {
        Err(ReplyError::Malformed(m)) => m,
        other => panic!("{reply} should be malformed, got {other:?}"),
    }
}

fn accepted(reply: &Value) -> Contact {
    match Contact::from_reply(reply) {
        Ok(Elicitation::Accept(c)) => c,
        other => panic!("{reply} should be accepted, got {other:?}"),
    }
}

// ---------------------------------------------------------------------------------------------
// Actions and content

#[test]
fn content_may_be_missing_or_null_on_decline_and_cancel() {
    for (action, outcome) in [
        ("decline", Elicitation::Decline),
        ("cancel", Elicitation::Cancel),
    ] {
        assert_eq!(
            Contact::from_reply(&json!({ "action": action })),
            Ok(outcome.clone())
        );
        assert_eq!(
            Contact::from_reply(&json!({"action": action, "content": null})),
            Ok(outcome.clone())
        );
        // Whatever a decline or cancel carries is not an answer, and is not read.
        assert_eq!(
            Contact::from_reply(&json!({"action": action, "content": {"age": "old"}})),
            Ok(outcome.clone())
        );
        assert_eq!(
            Contact::from_reply(&json!({"action": action, "content": [1, 2]})),
            Ok(outcome)
        );
    }
}

#[test]
fn accept_without_content_is_an_error_if_anything_is_required() {
    for reply in [
        json!({"action": "accept"}),
        json!({"action": "accept", "content": null}),
        json!({"action": "accept", "content": {}}),
    ] {
        assert_eq!(
            violations(&reply),
            vec![
                ("name".into(), Rule::Required),
                ("email".into(), Rule::Required),
                ("age".into(), Rule::Required),
                ("colors".into(), Rule::Required),
            ]
        );
    }
}

#[test]
fn accept_without_content_is_an_empty_answer_when_nothing_is_required() {
    let empty = AllOptional {
        note: None,
        count: None,
    };
    assert_eq!(
        AllOptional::from_reply(&json!({"action": "accept"})),
        Ok(Elicitation::Accept(empty))
    );
}

#[test]
fn accept_with_content_that_is_not_an_object_is_malformed() {
    for content in [json!([]), json!("name"), json!(3), json!(true)] {
        assert_eq!(
            malformed(&json!({"action": "accept", "content": content})),
            MalformedReply::ContentNotAnObject
        );
    }
}

#[test]
fn action_is_required_and_must_be_accept_decline_or_cancel() {
    assert_eq!(malformed(&json!({})), MalformedReply::MissingAction);
    assert_eq!(
        malformed(&json!({"action": null})),
        MalformedReply::MissingAction
    );
    for action in [json!("ACCEPT"), json!("ok"), json!(1), json!(["accept"])] {
        assert_eq!(
            malformed(&json!({ "action": action })),
            MalformedReply::UnknownAction
        );
    }
    for reply in [json!(null), json!([]), json!("accept"), json!(1)] {
        assert_eq!(malformed(&reply), MalformedReply::NotAnObject);
    }
}

#[test]
fn reply_text_must_be_json_and_at_most_the_size_limit() {
    assert_eq!(
        Contact::from_reply_str(r#"{"action": "accept""#),
        Err(ReplyError::Malformed(MalformedReply::NotJson {
            line: 1,
            column: 19
        }))
    );
    let huge = format!(
        r#"{{"action":"decline","pad":"{}"}}"#,
        "x".repeat(MAX_REPLY_BYTES)
    );
    assert_eq!(
        Contact::from_reply_str(&huge),
        Err(ReplyError::Malformed(MalformedReply::TooLarge {
            bytes: huge.len()
        }))
    );
    assert_eq!(
        Contact::from_reply_str(r#"{"action":"cancel"}"#),
        Ok(Elicitation::Cancel)
    );
}

#[test]
fn metadata_beside_action_and_content_is_ignored() {
    let mut reply = with("newsletter", json!(true));
    reply["_meta"] = json!({"progressToken": 1});
    assert_eq!(accepted(&reply).newsletter, Some(true));
}

// ---------------------------------------------------------------------------------------------
// Content rules

#[test]
fn required_properties_must_be_present_and_not_null() {
    assert_eq!(
        violations(&without("email")),
        vec![("email".into(), Rule::Required)]
    );
    assert_eq!(
        violations(&with("email", Value::Null)),
        vec![("email".into(), Rule::Required)]
    );
    // An optional property may be absent or null.
    assert_eq!(accepted(&with("newsletter", Value::Null)).newsletter, None);
    assert_eq!(accepted(&without("newsletter")).newsletter, None);
}

#[test]
fn each_value_must_have_the_json_type_of_its_property() {
    assert_eq!(
        violations(&with("age", json!("36"))),
        vec![(
            "age".into(),
            Rule::Type {
                expected: JsonType::Integer,
                found: "a string"
            }
        )]
    );
    assert_eq!(
        violations(&with("newsletter", json!("yes"))),
        vec![(
            "newsletter".into(),
            Rule::Type {
                expected: JsonType::Boolean,
                found: "a string"
            }
        )]
    );
    assert_eq!(
        violations(&with("colors", json!("red"))),
        vec![(
            "colors".into(),
            Rule::Type {
                expected: JsonType::Array,
                found: "a string"
            }
        )]
    );
    assert_eq!(
        violations(&with("name", json!({"first": "Ada"}))),
        vec![(
            "name".into(),
            Rule::Type {
                expected: JsonType::String,
                found: "an object"
            }
        )]
    );
}

#[test]
fn an_integer_rejects_a_fraction_and_accepts_a_whole_number_written_as_float() {
    assert_eq!(
        violations(&with("age", json!(36.5))),
        vec![("age".into(), Rule::NotAnInteger)]
    );
    assert_eq!(accepted(&with("age", json!(36.0))).age, 36);
    // From text too, where `36.0` is what a JavaScript client may well send.
    let text = r#"{"action":"accept","content":{"name":"Ada","email":"a@b.example","age":36.0,"colors":["red"]}}"#;
    assert_eq!(
        Contact::from_reply_str(text).map(|o| o.map(|c| c.age)),
        Ok(Elicitation::Accept(36))
    );
}

#[test]
fn an_integer_rejects_values_out_of_range() {
    assert_eq!(
        violations(&with("age", json!(17))),
        vec![(
            "age".into(),
            Rule::Minimum {
                minimum: "18".into()
            }
        )]
    );
    assert_eq!(
        violations(&with("age", json!(131.0))),
        vec![(
            "age".into(),
            Rule::Maximum {
                maximum: "130".into()
            }
        )]
    );
    for huge in [
        json!(1.0e300),
        json!(-1.0e300),
        json!(u64::MAX),
        json!(i64::MIN),
    ] {
        let found = violations(&with("age", huge.clone()));
        assert_eq!(found.len(), 1, "{huge}");
        assert_eq!(found[0].0, "age", "{huge}");
    }
}

#[test]
fn string_length_is_counted_in_characters_not_bytes() {
    // Three characters, nine bytes: within max_length = 3.
    assert_eq!(accepted(&with("name", json!("日本語"))).name, "日本語");
    // Four characters, four bytes.
    assert_eq!(
        violations(&with("name", json!("Adam"))),
        vec![(
            "name".into(),
            Rule::MaxLength {
                max_length: 3,
                length: 4
            }
        )]
    );
    // One character, two bytes: below min_length = 2.
    assert_eq!(
        violations(&with("name", json!("é"))),
        vec![(
            "name".into(),
            Rule::MinLength {
                min_length: 2,
                length: 1
            }
        )]
    );
}

/// Every format the spec allows.
#[derive(Elicit, Debug)]
struct Formats {
    #[elicit(format = "email")]
    email: Option<String>,
    #[elicit(format = "uri")]
    uri: Option<String>,
    #[elicit(format = "date")]
    date: Option<String>,
    #[elicit(format = "date-time")]
    date_time: Option<String>,
}

fn format_ok(key: &str, value: &str) -> bool {
    match Formats::from_reply(&json!({"action": "accept", "content": {key: value}})) {
        Ok(Elicitation::Accept(_)) => true,
        Err(ReplyError::Invalid(v)) => {
            let [violation] = v.as_slice() else {
                panic!("one violation expected: {v}")
            };
            assert_eq!(violation.property, key);
            assert!(matches!(violation.rule, Rule::Format(_)), "{violation}");
            false
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn format_email_is_checked() {
    for ok in [
        "octocat@github.com",
        "a.b+tag@sub.example.co",
        "x@xn--bcher-kva.example",
    ] {
        assert!(format_ok("email", ok), "{ok}");
    }
    for bad in [
        "ü@bücher.example",
        "admin@ex\u{430}mple.com",
        "octocat",
        "@github.com",
        "a@",
        "a b@example.com",
        "a..b@example.com",
    ] {
        assert!(!format_ok("email", bad), "{bad}");
    }
}

#[test]
fn format_uri_must_be_an_absolute_uri() {
    for ok in [
        "https://example.com/a?b#c",
        "mailto:a@example.com",
        "urn:isbn:0451450523",
    ] {
        assert!(format_ok("uri", ok), "{ok}");
    }
    for bad in [
        "example.com",
        "/relative/path",
        "//example.com",
        "https://exa mple.com",
        "",
    ] {
        assert!(!format_ok("uri", bad), "{bad}");
    }
}

#[test]
fn format_date_is_an_rfc3339_full_date() {
    for ok in ["2026-07-28", "2024-02-29", "2000-02-29"] {
        assert!(format_ok("date", ok), "{ok}");
    }
    for bad in [
        "2023-02-29",
        "2026-7-28",
        "28/07/2026",
        "2026-07-28T00:00:00Z",
        "2026-13-01",
    ] {
        assert!(!format_ok("date", bad), "{bad}");
    }
}

#[test]
fn format_date_time_is_an_rfc3339_date_time() {
    for ok in [
        "2026-07-28T09:30:00Z",
        "2026-07-28T09:30:00.123+02:00",
        "2016-12-31T18:29:60-05:30",
    ] {
        assert!(format_ok("date_time", ok), "{ok}");
    }
    for bad in [
        "2016-12-31T23:59:60-05:30",
        "2026-07-28",
        "2026-07-28T09:30:00",
        "2026-07-28 09:30:00Z",
        "2026-07-28T25:00:00Z",
        "2026-02-30T09:30:00Z",
    ] {
        assert!(!format_ok("date_time", bad), "{bad}");
    }
}

#[test]
fn a_select_value_must_be_one_of_the_options() {
    assert_eq!(
        violations(&with("favourite", json!("Red"))),
        vec![(
            "favourite".into(),
            Rule::NotAnOption {
                value: "Red".into()
            }
        )]
    );
    assert_eq!(
        accepted(&with("favourite", json!("red"))).favourite,
        Some(Color::Red)
    );
}

#[test]
fn a_multi_select_must_select_between_min_items_and_max_items() {
    assert_eq!(
        violations(&with("colors", json!([]))),
        vec![(
            "colors".into(),
            Rule::MinItems {
                min_items: 1,
                count: 0
            }
        )]
    );
    assert_eq!(
        violations(&with("colors", json!(["red", "green", "blue"]))),
        vec![(
            "colors".into(),
            Rule::MaxItems {
                max_items: 2,
                count: 3
            }
        )]
    );
    assert_eq!(
        accepted(&with("colors", json!(["blue", "red"]))).colors,
        BTreeSet::from([Color::Red, Color::Blue])
    );
}

#[test]
fn a_set_field_rejects_duplicate_selections() {
    assert_eq!(
        violations(&with("colors", json!(["red", "red"]))),
        vec![(
            "colors".into(),
            Rule::DuplicateSelection {
                value: "red".into()
            }
        )]
    );
}

#[test]
fn unknown_keys_are_ignored() {
    let reply = json!({"action": "accept", "content": {
        "name": "Ada", "email": "ada@example.com", "age": 36, "colors": ["red"],
        "password": "hunter2", "nested": {"a": [1, 2, {"b": null}]},
    }});
    assert_eq!(accepted(&reply).name, "Ada");
}

#[test]
fn every_violation_is_collected_in_schema_order_each_naming_property_and_rule() {
    let reply = json!({"action": "accept", "content": {
        "colors": ["red", "pink"],
        "age": 12.5,
        "email": "not an email",
        "favourite": 3,
    }});
    let Err(ReplyError::Invalid(all)) = Contact::from_reply(&reply) else {
        panic!("invalid")
    };
    let found: Vec<_> = all
        .as_slice()
        .iter()
        .map(|v| (v.property.as_str(), &v.rule))
        .collect();
    assert_eq!(
        found,
        [
            ("name", &Rule::Required),
            ("email", &Rule::Format(mcp_elicit::schema::Format::Email)),
            ("age", &Rule::NotAnInteger),
            (
                "colors",
                &Rule::NotAnOption {
                    value: "pink".into()
                }
            ),
            (
                "favourite",
                &Rule::Type {
                    expected: JsonType::String,
                    found: "a number"
                }
            ),
        ]
    );
    assert_eq!(all.len(), 5);
    assert!(all.concerns("favourite") && !all.concerns("newsletter"));
    assert_eq!(
        all.to_string(),
        "the reply breaks 5 rules of the form: `name` is required but missing; \
         `email` must be an email address like name@example.com (format \"email\"); \
         `age` must be a whole number; `colors` \"pink\" is not one of the offered options; \
         `favourite` must be a string but is a number"
    );
}

#[test]
fn every_rule_has_a_readable_message() {
    let cases = [
        (Rule::Required, "is required but missing"),
        (
            Rule::Type {
                expected: JsonType::Array,
                found: "a string",
            },
            "must be an array of strings but is a string",
        ),
        (Rule::NotAnInteger, "must be a whole number"),
        (
            Rule::Minimum {
                minimum: "18".into(),
            },
            "must be at least 18 (minimum)",
        ),
        (
            Rule::Maximum {
                maximum: "1.5".into(),
            },
            "must be at most 1.5 (maximum)",
        ),
        (
            Rule::MinLength {
                min_length: 2,
                length: 1,
            },
            "must be at least 2 characters long (minLength) but has 1",
        ),
        (
            Rule::MaxLength {
                max_length: 3,
                length: 4,
            },
            "must be at most 3 characters long (maxLength) but has 4",
        ),
        (
            Rule::Format(mcp_elicit::schema::Format::Uri),
            "must be an absolute URI like https://example.com/path (format \"uri\")",
        ),
        (
            Rule::Format(mcp_elicit::schema::Format::Date),
            "must be a date like 2026-07-28 (RFC 3339 full-date) (format \"date\")",
        ),
        (
            Rule::Format(mcp_elicit::schema::Format::DateTime),
            "must be a date-time like 2026-07-28T09:30:00Z (RFC 3339) (format \"date-time\")",
        ),
        (
            Rule::NotAnOption { value: "x".into() },
            "\"x\" is not one of the offered options",
        ),
        (
            Rule::MinItems {
                min_items: 1,
                count: 0,
            },
            "must select at least 1 (minItems) but selects 0",
        ),
        (
            Rule::MaxItems {
                max_items: 2,
                count: 3,
            },
            "must select at most 2 (maxItems) but selects 3",
        ),
        (
            Rule::DuplicateSelection {
                value: "red".into(),
            },
            "selects \"red\" more than once",
        ),
        (Rule::OutOfRange, "is out of range for this field"),
    ];
    for (rule, text) in cases {
        assert_eq!(rule.to_string(), text);
    }
}

#[test]
fn a_single_violation_reads_in_the_singular() {
    let err = Contact::from_reply(&without("email")).expect_err("invalid");
    assert_eq!(
        err.to_string(),
        "the reply breaks 1 rule of the form: `email` is required but missing"
    );
    assert!(std::error::Error::source(&err).is_some());
}

#[test]
fn malformed_replies_say_what_is_wrong() {
    let message = |reply: Value| {
        Contact::from_reply(&reply)
            .expect_err("malformed")
            .to_string()
    };
    assert_eq!(
        message(json!({})),
        "malformed elicitation reply: `action` is required"
    );
    assert_eq!(
        message(json!({"action": "yes"})),
        "malformed elicitation reply: `action` must be \"accept\", \"decline\" or \"cancel\""
    );
    assert_eq!(
        message(json!([])),
        "malformed elicitation reply: an ElicitResult must be a JSON object"
    );
    assert_eq!(
        message(json!({"action": "accept", "content": 1})),
        "malformed elicitation reply: `content` of an accepted form must be an object"
    );
    let err = Contact::from_reply_str("nope").expect_err("not JSON");
    assert_eq!(
        err.to_string(),
        "malformed elicitation reply: not valid JSON (line 1, column 2)"
    );
    assert!(std::error::Error::source(&err).is_none());
    assert!(err.violations().is_none());
}

#[test]
fn a_client_value_is_quoted_back_only_shortened() {
    let long = "x".repeat(1000);
    let found = violations(&with("favourite", json!(long)));
    let Rule::NotAnOption { value } = &found[0].1 else {
        panic!("{found:?}")
    };
    assert_eq!(value.chars().count(), 33, "32 characters and an ellipsis");
    assert!(value.ends_with('…'));
    // Cut on a character boundary, never inside one.
    let wide = "é".repeat(100);
    let found = violations(&with("favourite", json!(wide)));
    let Rule::NotAnOption { value } = &found[0].1 else {
        panic!("{found:?}")
    };
    assert_eq!(value, &format!("{}…", "é".repeat(32)));
}

// ---------------------------------------------------------------------------------------------
// The outcome type

#[test]
fn outcome_reports_its_action_and_only_accept_yields_a_value() {
    let accept: Elicitation<u8> = Elicitation::Accept(1);
    assert_eq!(accept.action(), Some(Action::Accept));
    assert!(accept.is_accepted());
    assert_eq!(accept.as_ref().map(|v| v + 1), Elicitation::Accept(2));
    assert_eq!(accept.accepted(), Some(1));
    for (outcome, action) in [
        (Elicitation::<u8>::Decline, Some(Action::Decline)),
        (Elicitation::Cancel, Some(Action::Cancel)),
        (Elicitation::NoReply, None),
    ] {
        assert_eq!(outcome.action(), action);
        assert!(!outcome.is_accepted());
        assert_eq!(outcome.clone().map(|v| v + 1), outcome);
        assert_eq!(outcome.accepted(), None);
    }
    assert_eq!(Action::Decline.to_string(), "decline");
    assert_eq!(
        serde_json::to_value(Action::Cancel).expect("json"),
        "cancel"
    );
}

// ---------------------------------------------------------------------------------------------
// Never panic on any input

/// Values of every JSON shape, including the awkward ones.
fn awkward_values() -> Vec<Value> {
    let mut nested = json!("deep");
    for _ in 0..64 {
        nested = json!([nested, {"k": nested.clone()}]);
        if nested.to_string().len() > 10_000 {
            break;
        }
    }
    vec![
        Value::Null,
        json!(true),
        json!(false),
        json!(0),
        json!(-0.0),
        json!(0.5),
        json!(i64::MIN),
        json!(i64::MAX),
        json!(u64::MAX),
        json!(f64::MAX),
        json!(f64::MIN),
        json!(f64::MIN_POSITIVE),
        json!(1.0e38),
        json!(-1.7e38),
        json!(""),
        json!("\u{0}"),
        json!("é👍🏽\u{202e}"),
        json!("x".repeat(10_000)),
        json!("é".repeat(40)),
        json!([]),
        json!([null]),
        json!(["red", "red", "red"]),
        json!([["red"]]),
        json!({}),
        json!({"red": true}),
        nested,
    ]
}

#[test]
fn parsing_never_panics_on_any_input() {
    let keys = ["name", "email", "age", "newsletter", "colors", "favourite"];
    let values = awkward_values();
    let mut outcomes = 0;
    for key in keys {
        for value in &values {
            let reply = with(key, value.clone());
            // Either outcome is fine; a panic fails the test.
            let _ = Contact::from_reply(&reply);
            let _ = AllOptional::from_reply(&json!({"action": "accept", "content": {key: value}}));
            outcomes += 1;
        }
    }
    for value in &values {
        for reply in [
            value.clone(),
            json!({ "action": value }),
            json!({"action": "accept", "content": value}),
            json!({"action": "decline", "content": value}),
        ] {
            let _ = Contact::from_reply(&reply);
            let text = reply.to_string();
            // Prefixes of the text (about a hundred), cut on character boundaries.
            let step = (text.len() / 100).max(1);
            for (cut, _) in text.char_indices().step_by(step) {
                let _ = Contact::from_reply_str(&text[..cut]);
            }
            outcomes += 1;
        }
    }
    for text in [
        "",
        " ",
        "\u{feff}{}",
        "{\"action\":\"accept\"",
        "[[[[[[[[",
        "1e999999",
    ] {
        let _ = Contact::from_reply_str(text);
    }
    // Deeper than the JSON parser's recursion limit: what is not read is skipped by serde_json
    // without recursing, so the reply is judged by its shape, as any other.
    let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    assert_eq!(
        Contact::from_reply_str(&deep),
        Err(ReplyError::Malformed(MalformedReply::NotAnObject))
    );
    let deep_member = format!(
        r#"{{"action":"accept","content":{{"name":{}{}}}}}"#,
        "[".repeat(10_000),
        "]".repeat(10_000)
    );
    let Err(ReplyError::Invalid(violations)) = Contact::from_reply_str(&deep_member) else {
        panic!("a deeply nested member is read as an array, and refused");
    };
    assert!(violations.concerns("name"));
    assert_eq!(outcomes, keys.len() * values.len() + 4 * values.len());
}

#[test]
fn an_action_is_its_wire_name_both_ways() {
    for (action, name) in [
        (Action::Accept, "accept"),
        (Action::Decline, "decline"),
        (Action::Cancel, "cancel"),
    ] {
        assert_eq!(serde_json::to_value(action).unwrap(), json!(name));
        assert_eq!(
            serde_json::from_value::<Action>(json!(name)).unwrap(),
            action
        );
    }
    let unknown = serde_json::from_value::<Action>(json!("approve")).unwrap_err();
    assert_eq!(
        unknown.to_string(),
        "unknown variant `approve`, expected one of `accept`, `decline`, `cancel`"
    );
    for not_a_name in [
        json!("Accept"),
        json!(1),
        json!(null),
        json!({ "accept": null }),
    ] {
        assert!(
            serde_json::from_value::<Action>(not_a_name.clone()).is_err(),
            "{not_a_name}"
        );
    }
}
