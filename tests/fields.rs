//! Every field kind: the exact property it emits, and the values it accepts and rejects.
//!
//! One form per kind, so each test reads like the row of the README's "Field kinds" table it
//! checks.

use std::collections::{BTreeSet, HashSet};

use mcp_elicit::{
    Elicit, Elicitation,
    reply::ReplyError,
    schema::{Choice, Choices, EnumOption, Rule},
};
use serde_json::{Value, json};

/// The emitted property `name` of form `T`.
fn property<T: Elicit>(name: &str) -> Value {
    let schema = serde_json::to_value(T::requested_schema()).expect("schema serializes");
    schema["properties"][name].clone()
}

/// The `required` list of form `T`.
fn required<T: Elicit>() -> Value {
    serde_json::to_value(T::requested_schema()).expect("schema serializes")["required"].clone()
}

fn accept(content: Value) -> Value {
    json!({"action": "accept", "content": content})
}

/// Parse an accepted reply that must be valid.
fn accepted<T: Elicit + std::fmt::Debug>(content: Value) -> T {
    match T::from_reply(&accept(content.clone())) {
        Ok(Elicitation::Accept(value)) => value,
        other => panic!("{content} should be accepted, got {other:?}"),
    }
}

/// The rules an accepted reply breaks, as `(property, rule)`.
fn broken<T: Elicit + std::fmt::Debug>(content: Value) -> Vec<(String, Rule)> {
    match T::from_reply(&accept(content.clone())) {
        Err(ReplyError::Invalid(violations)) => violations
            .into_iter()
            .map(|v| (v.property, v.rule))
            .collect(),
        other => panic!("{content} should be rejected as invalid, got {other:?}"),
    }
}

fn one(property: &str, rule: Rule) -> Vec<(String, Rule)> {
    vec![(property.to_owned(), rule)]
}

// ---------------------------------------------------------------------------------------------
// String

/// A string field.
#[derive(Elicit, Debug, PartialEq)]
struct Text {
    name: String,
}

#[test]
fn string_field_is_a_required_string_property() {
    assert_eq!(property::<Text>("name"), json!({"type": "string"}));
    assert_eq!(required::<Text>(), json!(["name"]));
}

#[test]
fn string_field_accepts_any_string_and_rejects_other_types() {
    assert_eq!(accepted::<Text>(json!({"name": "octocat"})).name, "octocat");
    assert_eq!(accepted::<Text>(json!({"name": ""})).name, "");
    for (value, found) in [
        (json!(3), "a number"),
        (json!(true), "a boolean"),
        (json!(["a"]), "an array"),
        (json!({"a": 1}), "an object"),
    ] {
        assert_eq!(
            broken::<Text>(json!({ "name": value })),
            one(
                "name",
                Rule::Type {
                    expected: mcp_elicit::schema::JsonType::String,
                    found
                }
            )
        );
    }
}

// ---------------------------------------------------------------------------------------------
// bool

/// A boolean field.
#[derive(Elicit, Debug, PartialEq)]
struct Flag {
    subscribe: bool,
}

#[test]
fn bool_field_is_a_boolean_property() {
    assert_eq!(property::<Flag>("subscribe"), json!({"type": "boolean"}));
    assert!(accepted::<Flag>(json!({"subscribe": true})).subscribe);
    assert!(!accepted::<Flag>(json!({"subscribe": false})).subscribe);
}

#[test]
fn bool_field_rejects_strings_and_numbers() {
    for value in [json!("true"), json!(1), json!(0)] {
        assert_eq!(
            broken::<Flag>(json!({ "subscribe": value })),
            one(
                "subscribe",
                Rule::Type {
                    expected: mcp_elicit::schema::JsonType::Boolean,
                    found: if value.is_string() {
                        "a string"
                    } else {
                        "a number"
                    }
                }
            )
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Integers: the type's own range is the schema's minimum/maximum unless narrowed.

/// Every integer type.
#[derive(Elicit, Debug, PartialEq)]
struct Integers {
    a_i8: i8,
    a_i16: i16,
    a_i32: i32,
    a_i64: i64,
    a_isize: isize,
    a_u8: u8,
    a_u16: u16,
    a_u32: u32,
    a_u64: u64,
    a_usize: usize,
}

#[test]
fn integer_fields_carry_their_type_range_as_minimum_and_maximum() {
    let expected = [
        ("a_i8", json!(i8::MIN), json!(i8::MAX)),
        ("a_i16", json!(i16::MIN), json!(i16::MAX)),
        ("a_i32", json!(i32::MIN), json!(i32::MAX)),
        ("a_i64", json!(i64::MIN), json!(i64::MAX)),
        ("a_isize", json!(isize::MIN), json!(isize::MAX)),
        ("a_u8", json!(0), json!(u8::MAX)),
        ("a_u16", json!(0), json!(u16::MAX)),
        ("a_u32", json!(0), json!(u32::MAX)),
        ("a_u64", json!(0), json!(u64::MAX)),
        ("a_usize", json!(0), json!(usize::MAX)),
    ];
    for (name, min, max) in expected {
        assert_eq!(
            property::<Integers>(name),
            json!({"type": "integer", "minimum": min, "maximum": max}),
            "{name}"
        );
    }
}

fn integers_content() -> serde_json::Map<String, Value> {
    let value = json!({
        "a_i8": -128, "a_i16": 32767, "a_i32": -2147483648_i64, "a_i64": i64::MIN,
        "a_isize": isize::MAX, "a_u8": 255, "a_u16": 0, "a_u32": u32::MAX,
        "a_u64": u64::MAX, "a_usize": 7,
    });
    value.as_object().cloned().expect("an object")
}

#[test]
fn integer_fields_accept_the_extremes_of_their_range() {
    let form = accepted::<Integers>(Value::Object(integers_content()));
    assert_eq!(
        form,
        Integers {
            a_i8: i8::MIN,
            a_i16: i16::MAX,
            a_i32: i32::MIN,
            a_i64: i64::MIN,
            a_isize: isize::MAX,
            a_u8: u8::MAX,
            a_u16: 0,
            a_u32: u32::MAX,
            a_u64: u64::MAX,
            a_usize: 7,
        }
    );
}

#[test]
fn integer_fields_reject_one_past_either_end_of_their_range() {
    let cases: [(&str, Value, Rule); 8] = [
        (
            "a_i8",
            json!(-129),
            Rule::Minimum {
                minimum: "-128".into(),
            },
        ),
        (
            "a_i8",
            json!(128),
            Rule::Maximum {
                maximum: "127".into(),
            },
        ),
        (
            "a_u8",
            json!(-1),
            Rule::Minimum {
                minimum: "0".into(),
            },
        ),
        (
            "a_u8",
            json!(256),
            Rule::Maximum {
                maximum: "255".into(),
            },
        ),
        (
            "a_i64",
            json!(i128::from(i64::MAX) + 1),
            Rule::Maximum {
                maximum: i64::MAX.to_string(),
            },
        ),
        (
            "a_u64",
            json!(-1),
            Rule::Minimum {
                minimum: "0".into(),
            },
        ),
        (
            "a_u32",
            json!(u64::from(u32::MAX) + 1),
            Rule::Maximum {
                maximum: u32::MAX.to_string(),
            },
        ),
        (
            "a_u64",
            json!(1.0e20),
            Rule::Maximum {
                maximum: u64::MAX.to_string(),
            },
        ),
    ];
    for (name, value, rule) in cases {
        let mut content = integers_content();
        content.insert(name.into(), value.clone());
        assert_eq!(
            broken::<Integers>(Value::Object(content)),
            one(name, rule),
            "{name} = {value}"
        );
    }
}

/// An integer narrowed on one side keeps the type's bound on the other.
#[derive(Elicit, Debug, PartialEq)]
struct Narrowed {
    #[elicit(minimum = 1)]
    replicas: u8,
    #[elicit(maximum = 10)]
    offset: i16,
    #[elicit(minimum = -5, maximum = 5)]
    delta: i32,
}

#[test]
fn integer_bounds_narrow_the_type_range_only_where_given() {
    assert_eq!(
        property::<Narrowed>("replicas"),
        json!({"type": "integer", "minimum": 1, "maximum": 255})
    );
    assert_eq!(
        property::<Narrowed>("offset"),
        json!({"type": "integer", "minimum": -32768, "maximum": 10})
    );
    assert_eq!(
        property::<Narrowed>("delta"),
        json!({"type": "integer", "minimum": -5, "maximum": 5})
    );
    assert_eq!(
        broken::<Narrowed>(json!({"replicas": 0, "offset": 11, "delta": -6})),
        vec![
            (
                "replicas".into(),
                Rule::Minimum {
                    minimum: "1".into()
                }
            ),
            (
                "offset".into(),
                Rule::Maximum {
                    maximum: "10".into()
                }
            ),
            (
                "delta".into(),
                Rule::Minimum {
                    minimum: "-5".into()
                }
            ),
        ]
    );
    assert_eq!(
        accepted::<Narrowed>(json!({"replicas": 1, "offset": -32768, "delta": 5})),
        Narrowed {
            replicas: 1,
            offset: i16::MIN,
            delta: 5
        }
    );
}

// ---------------------------------------------------------------------------------------------
// f32 / f64

/// Floating-point fields.
#[derive(Elicit, Debug, PartialEq)]
struct Floats {
    ratio: f64,
    #[elicit(minimum = 0, maximum = 1.5)]
    weight: f32,
}

#[test]
fn float_fields_are_number_properties_bounded_only_when_asked() {
    assert_eq!(property::<Floats>("ratio"), json!({"type": "number"}));
    let weight = property::<Floats>("weight");
    assert_eq!(weight["type"], "number");
    assert_eq!(weight["minimum"].as_f64(), Some(0.0));
    assert_eq!(weight["maximum"].as_f64(), Some(1.5));
}

#[test]
fn float_fields_accept_integers_and_fractions() {
    assert_eq!(
        accepted::<Floats>(json!({"ratio": 3, "weight": 0.25})),
        Floats {
            ratio: 3.0,
            weight: 0.25
        }
    );
    assert_eq!(
        accepted::<Floats>(json!({"ratio": -1.0e300, "weight": 1.5})).ratio,
        -1.0e300
    );
}

#[test]
fn float_fields_reject_out_of_bounds_and_non_numbers() {
    assert_eq!(
        broken::<Floats>(json!({"ratio": "1.0", "weight": 1.6})),
        vec![
            (
                "ratio".into(),
                Rule::Type {
                    expected: mcp_elicit::schema::JsonType::Number,
                    found: "a string"
                }
            ),
            (
                "weight".into(),
                Rule::Maximum {
                    maximum: "1.5".into()
                }
            ),
        ]
    );
    assert_eq!(
        broken::<Floats>(json!({"ratio": 0, "weight": -0.1})),
        one(
            "weight",
            Rule::Minimum {
                minimum: "0".into()
            }
        )
    );
}

/// An unbounded f32.
#[derive(Elicit, Debug, PartialEq)]
struct Single {
    x: f32,
}

#[test]
fn f32_field_rejects_a_number_beyond_f32_range_as_out_of_range() {
    assert_eq!(
        broken::<Single>(json!({"x": 1.0e39})),
        one("x", Rule::OutOfRange)
    );
    assert_eq!(accepted::<Single>(json!({"x": 3.5})).x, 3.5);
}

// ---------------------------------------------------------------------------------------------
// Single-selects: untitled and titled enums.

#[derive(Elicit, Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Color {
    Red,
    Green,
    Blue,
}

#[derive(Elicit, Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Size {
    #[elicit(title = "Small (S)")]
    S,
    #[elicit(title = "Large (L)")]
    L,
}

/// Single-selects.
#[derive(Elicit, Debug, PartialEq)]
struct Selects {
    color: Color,
    size: Size,
    #[elicit(legacy_enum_names)]
    legacy: Size,
}

#[test]
fn untitled_enum_is_a_string_with_enum() {
    assert_eq!(
        property::<Selects>("color"),
        json!({"type": "string", "enum": ["Red", "Green", "Blue"]})
    );
}

#[test]
fn titled_enum_is_a_string_with_one_of_const_and_title() {
    assert_eq!(
        property::<Selects>("size"),
        json!({"type": "string", "oneOf": [
            {"const": "S", "title": "Small (S)"},
            {"const": "L", "title": "Large (L)"},
        ]})
    );
}

#[test]
fn legacy_enum_names_writes_enum_and_enum_names() {
    assert_eq!(
        property::<Selects>("legacy"),
        json!({"type": "string", "enum": ["S", "L"], "enumNames": ["Small (S)", "Large (L)"]})
    );
}

#[test]
fn single_select_accepts_offered_values_only() {
    assert_eq!(
        accepted::<Selects>(json!({"color": "Blue", "size": "L", "legacy": "S"})),
        Selects {
            color: Color::Blue,
            size: Size::L,
            legacy: Size::S
        }
    );
    assert_eq!(
        broken::<Selects>(json!({"color": "red", "size": "Large (L)", "legacy": 1})),
        vec![
            (
                "color".into(),
                Rule::NotAnOption {
                    value: "red".into()
                }
            ),
            (
                "size".into(),
                Rule::NotAnOption {
                    value: "Large (L)".into()
                }
            ),
            (
                "legacy".into(),
                Rule::Type {
                    expected: mcp_elicit::schema::JsonType::String,
                    found: "a number"
                }
            ),
        ]
    );
}

// ---------------------------------------------------------------------------------------------
// Multi-selects: Vec, BTreeSet, HashSet; titled and untitled; minItems / maxItems.

/// Multi-selects.
#[derive(Elicit, Debug, PartialEq)]
struct Multis {
    #[elicit(min_items = 1, max_items = 2)]
    colors: Vec<Color>,
    sizes: BTreeSet<Size>,
    #[elicit(max_items = 2)]
    tags: HashSet<Color>,
}

#[test]
fn untitled_multi_select_is_an_array_of_string_enum() {
    assert_eq!(
        property::<Multis>("colors"),
        json!({
            "type": "array", "minItems": 1, "maxItems": 2,
            "items": {"type": "string", "enum": ["Red", "Green", "Blue"]},
        })
    );
    assert_eq!(
        property::<Multis>("tags"),
        json!({
            "type": "array", "maxItems": 2,
            "items": {"type": "string", "enum": ["Red", "Green", "Blue"]},
        })
    );
}

#[test]
fn titled_multi_select_is_an_array_of_any_of_const_and_title() {
    assert_eq!(
        property::<Multis>("sizes"),
        json!({
            "type": "array",
            "items": {"anyOf": [
                {"const": "S", "title": "Small (S)"},
                {"const": "L", "title": "Large (L)"},
            ]},
        })
    );
}

#[test]
fn multi_select_keeps_the_client_order_in_a_vec_and_collects_sets() {
    let form =
        accepted::<Multis>(json!({"colors": ["Blue", "Red"], "sizes": ["L", "S"], "tags": []}));
    assert_eq!(form.colors, vec![Color::Blue, Color::Red]);
    assert_eq!(form.sizes, BTreeSet::from([Size::S, Size::L]));
    assert!(form.tags.is_empty());
}

#[test]
fn multi_select_enforces_min_items_and_max_items() {
    assert_eq!(
        broken::<Multis>(json!({"colors": [], "sizes": [], "tags": ["Red", "Green", "Blue"]})),
        vec![
            (
                "colors".into(),
                Rule::MinItems {
                    min_items: 1,
                    count: 0
                }
            ),
            (
                "tags".into(),
                Rule::MaxItems {
                    max_items: 2,
                    count: 3
                }
            ),
        ]
    );
    assert_eq!(
        broken::<Multis>(json!({"colors": ["Red", "Green", "Blue"], "sizes": [], "tags": []})),
        one(
            "colors",
            Rule::MaxItems {
                max_items: 2,
                count: 3
            }
        )
    );
}

#[test]
fn multi_select_rejects_values_not_offered_and_non_arrays() {
    assert_eq!(
        broken::<Multis>(json!({"colors": ["Red", "Purple"], "sizes": "S", "tags": [1]})),
        vec![
            (
                "colors".into(),
                Rule::NotAnOption {
                    value: "Purple".into()
                }
            ),
            (
                "sizes".into(),
                Rule::Type {
                    expected: mcp_elicit::schema::JsonType::Array,
                    found: "a string"
                }
            ),
            (
                "tags".into(),
                Rule::Type {
                    expected: mcp_elicit::schema::JsonType::Array,
                    found: "an array holding a non-string"
                }
            ),
        ]
    );
}

#[test]
fn duplicate_selections_are_rejected_even_for_a_set_field() {
    // A set would silently fold the duplicate; the reply still broke the form's uniqueness.
    for (name, content) in [
        (
            "sizes",
            json!({"colors": ["Red"], "sizes": ["S", "S"], "tags": []}),
        ),
        (
            "tags",
            json!({"colors": ["Red"], "sizes": [], "tags": ["Red", "Red"]}),
        ),
        (
            "colors",
            json!({"colors": ["Red", "Red"], "sizes": [], "tags": []}),
        ),
    ] {
        let value = if name == "sizes" { "S" } else { "Red" };
        assert_eq!(
            broken::<Multis>(content),
            one(
                name,
                Rule::DuplicateSelection {
                    value: value.into()
                }
            )
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Option<T>: the same property, not required.

/// Optional fields of every kind.
#[derive(Elicit, Debug, PartialEq)]
struct Optionals {
    name: Option<String>,
    age: Option<u8>,
    score: Option<f64>,
    agree: Option<bool>,
    color: Option<Color>,
    colors: Option<Vec<Color>>,
    account: Option<Choice>,
}

#[test]
fn option_fields_keep_their_property_but_are_not_required() {
    let request = Optionals::form_request()
        .with_options("account", [EnumOption::new("a")])
        .expect("options");
    let schema = serde_json::to_value(request.schema()).expect("serializes");
    assert_eq!(schema["required"], json!([]));
    assert_eq!(
        schema["properties"],
        json!({
            "name": {"type": "string"},
            "age": {"type": "integer", "minimum": 0, "maximum": 255},
            "score": {"type": "number"},
            "agree": {"type": "boolean"},
            "color": {"type": "string", "enum": ["Red", "Green", "Blue"]},
            "colors": {"type": "array", "items": {"type": "string", "enum": ["Red", "Green", "Blue"]}},
            "account": {"type": "string", "enum": ["a"]},
        })
    );
}

#[test]
fn option_fields_are_none_when_absent_or_null() {
    let none = Optionals {
        name: None,
        age: None,
        score: None,
        agree: None,
        color: None,
        colors: None,
        account: None,
    };
    let request = Optionals::form_request()
        .with_options("account", [EnumOption::new("a")])
        .expect("options");
    let parse = |content: Value| match request.parse_reply(&accept(content)) {
        Ok(Elicitation::Accept(v)) => v,
        other => panic!("{other:?}"),
    };
    assert_eq!(parse(json!({})), none);
    assert_eq!(
        parse(
            json!({"name": null, "age": null, "score": null, "agree": null,
                     "color": null, "colors": null, "account": null})
        ),
        none
    );
    assert_eq!(
        parse(json!({"name": "x", "age": 3, "score": 0.5, "agree": false,
                     "color": "Red", "colors": [], "account": "a"})),
        Optionals {
            name: Some("x".into()),
            age: Some(3),
            score: Some(0.5),
            agree: Some(false),
            color: Some(Color::Red),
            colors: Some(vec![]),
            account: Some(Choice::new("a")),
        }
    );
}

#[test]
fn option_fields_still_validate_a_present_value() {
    assert_eq!(
        broken::<Optionals>(json!({"age": 300, "color": "Pink"})),
        vec![
            (
                "age".into(),
                Rule::Maximum {
                    maximum: "255".into()
                }
            ),
            (
                "color".into(),
                Rule::NotAnOption {
                    value: "Pink".into()
                }
            ),
        ]
    );
}

// ---------------------------------------------------------------------------------------------
// Choice / Choices: options supplied at run time.

/// Which account should be charged?
#[derive(Elicit, Debug, PartialEq)]
struct Charge {
    account: Choice,
    #[elicit(min_items = 1, max_items = 2)]
    notify: Choices,
}

fn charge_request() -> mcp_elicit::FormRequest<Charge> {
    Charge::form_request()
        .with_message("Two accounts match “ACME”. Which one should be charged?")
        .expect("message")
        .with_options(
            "account",
            [
                EnumOption::titled("acct_1", "ACME Corp"),
                EnumOption::titled("acct_2", "ACME Labs"),
            ],
        )
        .expect("account options")
        .with_options("notify", ["alice", "bob", "carol"].map(EnumOption::new))
        .expect("notify options")
}

#[test]
fn choice_fields_emit_the_options_and_message_supplied_at_run_time() {
    let params = serde_json::to_value(charge_request()).expect("serializes");
    assert_eq!(
        params,
        json!({
            "mode": "form",
            "message": "Two accounts match “ACME”. Which one should be charged?",
            "requestedSchema": {
                "type": "object",
                "properties": {
                    "account": {"type": "string", "oneOf": [
                        {"const": "acct_1", "title": "ACME Corp"},
                        {"const": "acct_2", "title": "ACME Labs"},
                    ]},
                    "notify": {"type": "array", "minItems": 1, "maxItems": 2,
                               "items": {"type": "string", "enum": ["alice", "bob", "carol"]}},
                },
                "required": ["account", "notify"],
            },
        })
    );
}

#[test]
fn choice_fields_accept_only_the_options_offered() {
    let request = charge_request();
    let reply = accept(json!({"account": "acct_2", "notify": ["carol", "alice"]}));
    let Ok(Elicitation::Accept(charge)) = request.parse_reply(&reply) else {
        panic!("valid reply rejected")
    };
    assert_eq!(charge.account.value(), "acct_2");
    assert_eq!(charge.notify.values(), ["carol", "alice"]);

    let forged = accept(json!({"account": "acct_9", "notify": ["dave", "alice", "alice"]}));
    let err = request.parse_reply(&forged).expect_err("forged reply");
    let rules: Vec<_> = err
        .violations()
        .expect("invalid, not malformed")
        .into_iter()
        .map(|v| (v.property.clone(), v.rule.clone()))
        .collect();
    assert_eq!(
        rules,
        vec![
            (
                "account".into(),
                Rule::NotAnOption {
                    value: "acct_9".into()
                }
            ),
            (
                "notify".into(),
                Rule::NotAnOption {
                    value: "dave".into()
                }
            ),
        ]
    );
}

#[test]
fn choices_field_enforces_item_counts_and_duplicates_against_run_time_options() {
    let request = charge_request();
    let rule = |notify: Value| {
        request
            .parse_reply(&accept(json!({"account": "acct_1", "notify": notify})))
            .expect_err("invalid")
            .violations()
            .expect("violations")
            .as_slice()[0]
            .rule
            .clone()
    };
    assert_eq!(
        rule(json!([])),
        Rule::MinItems {
            min_items: 1,
            count: 0
        }
    );
    assert_eq!(
        rule(json!(["alice", "bob", "carol"])),
        Rule::MaxItems {
            max_items: 2,
            count: 3
        }
    );
    assert_eq!(
        rule(json!(["bob", "bob"])),
        Rule::DuplicateSelection {
            value: "bob".into()
        }
    );
}

#[test]
fn choice_request_cannot_be_sent_before_its_options_are_supplied() {
    // Serializing a select with no options would send a form nobody can answer.
    let err = serde_json::to_string(&Charge::form_request()).expect_err("no options yet");
    assert!(
        err.to_string().contains("`account` offers no options"),
        "{err}"
    );
    // And a reply to it offers nothing to choose from.
    let reply = accept(json!({"account": "acct_1", "notify": ["alice"]}));
    assert!(Charge::from_reply(&reply).is_err());
}

#[test]
fn with_options_errors_leave_the_request_unchanged() {
    let request = charge_request();
    let before = serde_json::to_string(&request).expect("serializes");

    let errors = [
        request
            .clone()
            .with_options("nope", [EnumOption::new("x")])
            .expect_err("no such field"),
        request
            .clone()
            .with_options("account", Vec::new())
            .expect_err("no options"),
        request
            .clone()
            .with_options("account", [EnumOption::new("x"), EnumOption::new("x")])
            .expect_err("duplicate values"),
        request
            .clone()
            .with_message("  ")
            .expect_err("empty message"),
    ];
    assert_eq!(
        errors.iter().map(ToString::to_string).collect::<Vec<_>>(),
        [
            "`nope` is not a select of this form whose options are supplied at run time",
            "property `account` offers no options; a select needs at least one (for run-time options use `FormRequest::with_options`)",
            "property `account` offers the value \"x\" twice; option values must be unique",
            "the message is empty; say in one sentence what is asked and why",
        ]
    );
    // The request they were tried on still sends and checks exactly what it did.
    assert_eq!(serde_json::to_string(&request).expect("serializes"), before);
    assert!(
        request
            .parse_reply(&accept(json!({"account": "acct_1", "notify": ["bob"]})))
            .is_ok()
    );
}

#[test]
fn with_options_refuses_a_select_whose_options_are_fixed() {
    let err = Selects::form_request()
        .with_options("color", [EnumOption::new("Pink")])
        .expect_err("fixed options");
    assert_eq!(
        err,
        mcp_elicit::schema::SchemaError::NotADynamicSelect {
            property: "color".into()
        }
    );
}

/// Choices that ask for more than are offered.
#[derive(Elicit, Debug)]
struct AtLeastThree {
    #[elicit(min_items = 3)]
    picks: Choices,
}

#[test]
fn with_options_refuses_fewer_options_than_min_items() {
    let err = AtLeastThree::form_request()
        .with_options("picks", ["a", "b"].map(EnumOption::new))
        .expect_err("unsatisfiable");
    assert_eq!(
        err,
        mcp_elicit::schema::SchemaError::MinItemsExceedsOptions {
            property: "picks".into()
        }
    );
}

/// A run-time select with a default.
#[derive(Elicit, Debug)]
struct PickWithDefault {
    #[elicit(default = "acct_2")]
    account: Choice,
}

#[test]
fn choice_default_is_emitted_once_options_are_supplied() {
    let request = PickWithDefault::form_request()
        .with_options("account", ["acct_1", "acct_2"].map(EnumOption::new))
        .expect("options include the default");
    assert_eq!(
        serde_json::to_value(request.schema()).expect("serializes")["properties"]["account"],
        json!({"type": "string", "enum": ["acct_1", "acct_2"], "default": "acct_2"})
    );
}

#[test]
fn choice_default_must_be_one_of_the_options_supplied() {
    let err = PickWithDefault::form_request()
        .with_options("account", ["acct_1", "acct_3"].map(EnumOption::new))
        .expect_err("the default is not offered");
    assert_eq!(
        err,
        mcp_elicit::schema::SchemaError::InvalidDefault {
            property: "account".into(),
            reason: "\"acct_2\" is not one of the offered options".into()
        }
    );
}

/// An integer beyond 64 bits reaches a reader only as the nearest `f64`, which may round onto a
/// bound: `-9223372036854775809` and `-9223372036854776000` both read as `-2^63`, `i64::MIN`.
/// Such a number is refused, on the text path and the `Value` path alike, whether the bound is
/// the field type's or a hand-built schema's.
#[test]
fn an_integer_rounded_onto_a_bound_is_refused_not_read_as_the_bound() {
    #[derive(Elicit, Debug)]
    /// Which offset?
    struct Offset {
        offset: i64,
    }
    for text in [
        "-9223372036854775809",
        "-9223372036854776000",
        "9223372036854775808.0",
    ] {
        let reply = format!(r#"{{"action":"accept","content":{{"offset":{text}}}}}"#);
        for outcome in [
            Offset::from_reply_str(&reply),
            Offset::from_reply(&serde_json::from_str(&reply).expect("JSON")),
        ] {
            let Err(ReplyError::Invalid(violations)) = outcome else {
                panic!("{text} was read: {outcome:?}");
            };
            assert_eq!(violations.as_slice()[0].property, "offset", "{text}");
            // Inexact, or (where serde_json reads the number exactly: its
            // `arbitrary_precision` feature) the bound it lies beyond.
            assert!(
                matches!(
                    violations.as_slice()[0].rule,
                    Rule::Inexact | Rule::Minimum { .. } | Rule::Maximum { .. }
                ),
                "{text}: {violations}"
            );
        }
    }
    // The exact bounds, written exactly, are read.
    for (text, value) in [
        ("-9223372036854775808", i64::MIN),
        ("9223372036854775807", i64::MAX),
    ] {
        let reply = format!(r#"{{"action":"accept","content":{{"offset":{text}}}}}"#);
        assert_eq!(
            Offset::from_reply_str(&reply).map(|o| o.map(|o| o.offset)),
            Ok(Elicitation::Accept(value))
        );
    }
    // A hand-built schema bounded at `i64::MIN` hands back no rounded number either.
    let schema = mcp_elicit::schema::RequestedSchema::new(vec![mcp_elicit::schema::Property::new(
        "offset",
        mcp_elicit::schema::IntegerSchema::new().minimum(i128::from(i64::MIN)),
    )])
    .expect("schema");
    let request = mcp_elicit::FormRequest::new("Which offset?", schema).expect("request");
    let reply = json!({"action": "accept", "content": {"offset": -9.223372036854776e18}});
    let Err(ReplyError::Invalid(violations)) = request.parse_reply(&reply) else {
        panic!("a rounded integer was handed back");
    };
    assert_eq!(violations.as_slice()[0].rule, Rule::Inexact);
    // Below 2^53 a float that is a whole number is that integer.
    let reply = json!({"action": "accept", "content": {"offset": 3.0}});
    assert_eq!(
        Offset::from_reply(&reply).map(|o| o.map(|o| o.offset)),
        Ok(Elicitation::Accept(3))
    );
}
