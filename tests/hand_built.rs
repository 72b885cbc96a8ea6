//! A schema built by hand, without the derive: `RequestedSchema::new` refuses schemas no reply
//! could satisfy, and a valid one emits and validates exactly like the derived equivalent.

use std::borrow::Cow;

use mcp_elicit::{
    Elicit, Elicitation, FormRequest,
    reply::ReplyError,
    schema::{
        BooleanSchema, EnumOption, Format, IntegerSchema, MultiSelectSchema, NumberSchema,
        Property, RequestedSchema, SchemaError, SelectSchema, SelectStyle, StringSchema,
    },
};
use serde_json::{Value, json};

fn colors() -> Vec<EnumOption> {
    ["red", "green", "blue"].map(EnumOption::new).to_vec()
}

// ---------------------------------------------------------------------------------------------
// RequestedSchema::new refuses what no reply could satisfy

fn refused(properties: Vec<Property>) -> SchemaError {
    RequestedSchema::new(properties).expect_err("schema should be refused")
}

#[test]
fn property_names_must_be_unique_and_non_empty() {
    assert_eq!(
        refused(vec![
            Property::new("name", StringSchema::new()),
            Property::new("age", IntegerSchema::new()),
            Property::new("name", BooleanSchema::new()),
        ]),
        SchemaError::DuplicateProperty {
            name: "name".into()
        }
    );
    assert_eq!(
        refused(vec![Property::new("", StringSchema::new())]),
        SchemaError::EmptyName
    );
}

#[test]
fn bounds_must_not_be_inverted() {
    let inverted = |bounds| SchemaError::InvertedBounds {
        property: "p".into(),
        bounds,
    };
    assert_eq!(
        refused(vec![Property::new(
            "p",
            StringSchema::new().min_length(3).max_length(2)
        )]),
        inverted("minLength > maxLength")
    );
    assert_eq!(
        refused(vec![Property::new(
            "p",
            IntegerSchema::new().minimum(1).maximum(0)
        )]),
        inverted("minimum > maximum")
    );
    assert_eq!(
        refused(vec![Property::new(
            "p",
            NumberSchema::new().minimum(0.5).maximum(0.25)
        )]),
        inverted("minimum > maximum")
    );
    assert_eq!(
        refused(vec![Property::new(
            "p",
            MultiSelectSchema::new(colors()).min_items(2).max_items(1)
        )]),
        inverted("minItems > maxItems")
    );
    // Equal bounds are satisfiable.
    assert!(
        RequestedSchema::new(vec![Property::new(
            "p",
            StringSchema::new().min_length(2).max_length(2)
        )])
        .is_ok()
    );
}

#[test]
fn selects_need_options_with_unique_values() {
    assert_eq!(
        refused(vec![Property::new("p", SelectSchema::new(Vec::new()))]),
        SchemaError::NoOptions {
            property: "p".into()
        }
    );
    assert_eq!(
        refused(vec![Property::new("p", MultiSelectSchema::new(Vec::new()))]),
        SchemaError::NoOptions {
            property: "p".into()
        }
    );
    assert_eq!(
        refused(vec![Property::new(
            "p",
            SelectSchema::new(vec![
                EnumOption::new("a"),
                EnumOption::titled("a", "A again")
            ])
        )]),
        SchemaError::DuplicateOption {
            property: "p".into(),
            value: "a".into()
        }
    );
    assert_eq!(
        refused(vec![Property::new(
            "p",
            MultiSelectSchema::new(colors()).min_items(4)
        )]),
        SchemaError::MinItemsExceedsOptions {
            property: "p".into()
        }
    );
}

#[test]
fn defaults_must_satisfy_their_own_property() {
    let reason = |properties| match refused(properties) {
        SchemaError::InvalidDefault { property, reason } => {
            assert_eq!(property, "p");
            reason
        }
        other => panic!("{other:?}"),
    };
    assert_eq!(
        reason(vec![Property::new(
            "p",
            StringSchema::new()
                .format(Format::Email)
                .default_value("nope")
        )]),
        "must be an email address like name@example.com (format \"email\")"
    );
    assert_eq!(
        reason(vec![Property::new(
            "p",
            StringSchema::new().max_length(2).default_value("日本語")
        )]),
        "must be at most 2 characters long (maxLength) but has 3"
    );
    assert_eq!(
        reason(vec![Property::new(
            "p",
            IntegerSchema::new().minimum(1).default_value(0)
        )]),
        "must be at least 1 (minimum)"
    );
    assert_eq!(
        reason(vec![Property::new(
            "p",
            NumberSchema::new().maximum(1.0).default_value(1.5)
        )]),
        "must be at most 1 (maximum)"
    );
    assert_eq!(
        reason(vec![Property::new(
            "p",
            SelectSchema::new(colors()).default_value("pink")
        )]),
        "\"pink\" is not one of the offered options"
    );
    assert_eq!(
        reason(vec![Property::new(
            "p",
            MultiSelectSchema::new(colors()).default_value(vec![Cow::from("pink")])
        )]),
        "\"pink\" is not one of the offered options"
    );
    assert_eq!(
        reason(vec![Property::new(
            "p",
            MultiSelectSchema::new(colors())
                .default_value(vec![Cow::from("red"), Cow::from("red")])
        )]),
        "selects \"red\" more than once"
    );
    assert_eq!(
        reason(vec![Property::new(
            "p",
            MultiSelectSchema::new(colors())
                .max_items(1)
                .default_value(vec![Cow::from("red"), Cow::from("blue")])
        )]),
        "must select at most 1 (maxItems) but selects 2"
    );
}

#[test]
fn schema_errors_say_what_is_wrong() {
    let messages = [
        (
            SchemaError::DuplicateProperty { name: "n".into() },
            "property `n` is defined twice; property names must be unique",
        ),
        (SchemaError::EmptyName, "a property has an empty name"),
        (
            SchemaError::InvertedBounds {
                property: "n".into(),
                bounds: "minLength > maxLength",
            },
            "property `n`: minLength > maxLength, so no value can satisfy it",
        ),
        (
            SchemaError::MinItemsExceedsOptions {
                property: "n".into(),
            },
            "property `n`: minItems is larger than the number of options, so no selection can satisfy it",
        ),
        (
            SchemaError::NotFinite {
                property: "n".into(),
            },
            "property `n`: bounds and defaults must be finite numbers",
        ),
    ];
    for (error, text) in messages {
        assert_eq!(error.to_string(), text);
    }
}

#[test]
fn a_dynamic_select_takes_its_options_and_checks_its_default_when_asked() {
    let schema = RequestedSchema::new(vec![
        Property::new("account", SelectSchema::dynamic().default_value("b")),
        Property::new("cc", MultiSelectSchema::dynamic().min_items(2)).optional(),
    ])
    .expect("dynamic selects may start empty");
    let request = FormRequest::new("Which account?", schema).expect("request");
    assert!(serde_json::to_string(&request).is_err(), "no options yet");

    assert_eq!(
        request
            .clone()
            .with_options("account", ["a", "c"].map(EnumOption::new))
            .expect_err("default not offered"),
        SchemaError::InvalidDefault {
            property: "account".into(),
            reason: "\"b\" is not one of the offered options".into()
        }
    );
    assert_eq!(
        request
            .clone()
            .with_options("cc", [EnumOption::new("x")])
            .expect_err("min_items exceeds options"),
        SchemaError::MinItemsExceedsOptions {
            property: "cc".into()
        }
    );
    let request = request
        .with_options("account", ["a", "b"].map(EnumOption::new))
        .and_then(|r| r.with_options("cc", ["x", "y"].map(EnumOption::new)))
        .expect("options");
    assert_eq!(
        serde_json::to_value(&request).expect("serializes")["requestedSchema"],
        json!({
            "type": "object",
            "properties": {
                "account": {"type": "string", "enum": ["a", "b"], "default": "b"},
                "cc": {"type": "array", "minItems": 2, "items": {"type": "string", "enum": ["x", "y"]}},
            },
            "required": ["account"],
        })
    );
    let reply = json!({"action": "accept", "content": {"account": "a", "cc": ["y", "x"]}});
    let Ok(Elicitation::Accept(content)) = request.parse_reply(&reply) else {
        panic!("valid reply rejected")
    };
    assert_eq!(content["cc"], json!(["y", "x"]));
}

#[test]
fn hand_built_properties_emit_every_key_in_order() {
    let schema = RequestedSchema::new(vec![
        Property::new(
            "s",
            StringSchema::new()
                .format(Format::Date)
                .min_length(10)
                .max_length(10)
                .default_value("2026-07-28"),
        )
        .title("Day")
        .description("Which day"),
        Property::new(
            "i",
            IntegerSchema::new().minimum(-1).maximum(1).default_value(0),
        )
        .optional(),
        Property::new("n", NumberSchema::new().default_value(2.5)).required(false),
        Property::new("b", BooleanSchema::new().default_value(true)),
        Property::new(
            "legacy",
            SelectSchema::new(vec![EnumOption::titled("a", "A"), EnumOption::new("b")])
                .style(SelectStyle::Legacy)
                .default_value("b"),
        ),
        Property::new(
            "m",
            MultiSelectSchema::new(vec![EnumOption::titled("a", "A"), EnumOption::new("b")])
                .min_items(0)
                .max_items(2)
                .default_value(vec![Cow::from("b")]),
        ),
    ])
    .expect("valid schema");
    assert_eq!(
        serde_json::to_string(&schema).expect("serializes"),
        concat!(
            r#"{"type":"object","properties":{"#,
            r#""s":{"type":"string","title":"Day","description":"Which day","format":"date","minLength":10,"maxLength":10,"default":"2026-07-28"},"#,
            r#""i":{"type":"integer","minimum":-1,"maximum":1,"default":0},"#,
            r#""n":{"type":"number","default":2.5},"#,
            r#""b":{"type":"boolean","default":true},"#,
            r#""legacy":{"type":"string","enum":["a","b"],"enumNames":["A","b"],"default":"b"},"#,
            r#""m":{"type":"array","minItems":0,"maxItems":2,"items":{"anyOf":[{"const":"a","title":"A"},{"const":"b","title":"b"}]},"default":["b"]}"#,
            r#"},"required":["s","b","legacy","m"]}"#,
        )
    );
    assert_eq!(
        schema.required().collect::<Vec<_>>(),
        ["s", "b", "legacy", "m"]
    );
    assert_eq!(schema.property("i").map(Property::is_required), Some(false));
    assert_eq!(
        schema.property("s").and_then(Property::title_text),
        Some("Day")
    );
    assert!(schema.property("missing").is_none());
}

// ---------------------------------------------------------------------------------------------
// The same validation as the derive

#[derive(Elicit, Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[elicit(rename_all = "lowercase")]
enum Color {
    Red,
    Green,
    Blue,
}

/// Please provide your contact information.
#[derive(Elicit, Debug)]
struct Contact {
    #[elicit(min_length = 2, max_length = 3)]
    name: String,
    #[elicit(format = "email")]
    email: String,
    #[elicit(minimum = 18, maximum = 130)]
    age: u8,
    newsletter: Option<bool>,
    #[elicit(min_items = 1, max_items = 2)]
    colors: Vec<Color>,
    favourite: Option<Color>,
    ratio: Option<f64>,
}

fn hand_built_contact() -> FormRequest {
    let schema = RequestedSchema::new(vec![
        Property::new("name", StringSchema::new().min_length(2).max_length(3)),
        Property::new("email", StringSchema::new().format(Format::Email)),
        Property::new("age", IntegerSchema::new().minimum(18).maximum(130)),
        Property::new("newsletter", BooleanSchema::new()).optional(),
        Property::new(
            "colors",
            MultiSelectSchema::new(colors()).min_items(1).max_items(2),
        ),
        Property::new("favourite", SelectSchema::new(colors())).optional(),
        Property::new("ratio", NumberSchema::new()).optional(),
    ])
    .expect("valid schema");
    FormRequest::new(Contact::message(), schema).expect("request")
}

#[test]
fn hand_built_schema_emits_the_same_request_as_the_derive() {
    assert_eq!(
        serde_json::to_string(&hand_built_contact()).expect("serializes"),
        serde_json::to_string(&Contact::form_request()).expect("serializes")
    );
}

#[test]
fn hand_built_schema_validates_replies_the_same_way_as_the_derive() {
    let request = hand_built_contact();
    let base = json!({"name": "Ada", "email": "ada@example.com", "age": 36, "colors": ["red"]});
    let values = [
        Value::Null,
        json!(true),
        json!(36),
        json!(36.0),
        json!(36.5),
        json!(-1),
        json!(1.0e300),
        json!("red"),
        json!("Ada"),
        json!("日本"),
        json!("ada@example.com"),
        json!(""),
        json!([]),
        json!(["red"]),
        json!(["red", "red"]),
        json!(["red", "green", "blue"]),
        json!(["pink"]),
        json!([1]),
        json!({}),
    ];
    let mut compared = 0;
    for key in [
        "name",
        "email",
        "age",
        "newsletter",
        "colors",
        "favourite",
        "ratio",
    ] {
        for value in &values {
            let mut content = base.clone();
            content[key] = value.clone();
            let reply = json!({"action": "accept", "content": content});
            let derived = Contact::from_reply(&reply);
            let by_hand = request.parse_reply(&reply);
            match (&derived, &by_hand) {
                (Ok(Elicitation::Accept(_)), Ok(Elicitation::Accept(_))) => {}
                (Err(ReplyError::Invalid(a)), Err(ReplyError::Invalid(b))) => {
                    assert_eq!(a, b, "{reply}");
                }
                _ => panic!("{reply}: derive gave {derived:?}, hand-built gave {by_hand:?}"),
            }
            compared += 1;
        }
    }
    assert_eq!(compared, 7 * values.len());
    // And the schema alone validates content the same way.
    let content = json!({"name": "A", "email": "x", "age": 3, "colors": []});
    let by_schema = request
        .schema()
        .validate(content.as_object().expect("object"))
        .expect_err("invalid");
    let by_derive = Contact::requested_schema()
        .validate(content.as_object().expect("object"))
        .expect_err("invalid");
    assert_eq!(by_schema, by_derive);
    assert_eq!(by_schema.len(), 4);
}

#[test]
fn hand_built_schema_hands_back_the_content_as_json() {
    let reply = json!({"action": "accept", "content": {
        "name": "Ada", "email": "ada@example.com", "age": 36.0, "colors": ["red"], "extra": 1,
    }});
    let Ok(Elicitation::Accept(content)) = hand_built_contact().parse_reply(&reply) else {
        panic!("valid reply rejected")
    };
    assert_eq!(content["name"], "Ada");
    assert_eq!(
        hand_built_contact().parse_reply(&json!({"action": "decline"})),
        Ok(Elicitation::Decline)
    );
    assert_eq!(
        hand_built_contact().parse_reply(&json!({"action": "cancel", "content": null})),
        Ok(Elicitation::Cancel)
    );
}
