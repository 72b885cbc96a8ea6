//! `FormRequest::reasked_keeping`: a form asked again after an answer broke some of its rules
//! pre-fills, as `default`s, each field whose value kept its rules, and nothing else. One test
//! per rule.

use elicit_core::schema::{
    BooleanSchema, EnumOption, Format, IntegerSchema, MultiSelectSchema, NumberSchema, Property,
    RequestedSchema, SelectSchema, StringSchema,
};
use elicit_core::{FormRequest, Revision};
use serde_json::{Value, json};

/// Every kind of field, each with a rule an answer can break.
fn every_kind() -> FormRequest {
    let colors = vec![
        EnumOption::titled("r", "Red"),
        EnumOption::titled("g", "Green"),
    ];
    let schema = RequestedSchema::new(vec![
        Property::new("name", StringSchema::new().min_length(2)).title("Name"),
        Property::new("email", StringSchema::new().format(Format::Email)).title("Email"),
        Property::new("age", IntegerSchema::new().minimum(18)).title("Age"),
        Property::new("score", NumberSchema::new().maximum(1.0)).title("Score"),
        Property::new("subscribe", BooleanSchema::new()).title("Subscribe"),
        Property::new("color", SelectSchema::new(colors.clone())).title("Color"),
        Property::new("also", MultiSelectSchema::new(colors)).title("Also"),
        Property::new("note", StringSchema::new().max_length(10))
            .title("Note")
            .optional(),
    ])
    .unwrap();
    FormRequest::new("About you?", schema).unwrap()
}

/// The default of each property of `form` as `revision` writes it, by name (in name order).
/// Each property's default, by name: sorted, since a JSON map's order depends on serde_json's
/// features (`preserve_order`, which the workspace's other crates turn on).
fn defaults(form: &FormRequest, revision: Revision) -> Vec<(String, Option<Value>)> {
    let params = serde_json::to_value(form.for_revision(revision).unwrap()).unwrap();
    let properties = params["requestedSchema"]["properties"].as_object().unwrap();
    let mut defaults: Vec<_> = properties
        .iter()
        .map(|(name, p)| (name.clone(), p.get("default").cloned()))
        .collect();
    defaults.sort_by(|a, b| a.0.cmp(&b.0));
    defaults
}

fn default_of(form: &FormRequest, name: &str) -> Option<Value> {
    defaults(form, Revision::V2025_11_25)
        .into_iter()
        .find(|(n, _)| n == name)
        .and_then(|(_, d)| d)
}

/// `form` asked again after `reply`, which breaks a rule.
fn reasked(form: &FormRequest, reply: &Value) -> FormRequest {
    let error = form.parse_reply(reply).unwrap_err();
    form.reasked_keeping(&error, reply.get("content"))
}

fn accept(content: Value) -> Value {
    json!({ "action": "accept", "content": content })
}

#[test]
fn each_kind_of_field_that_kept_its_rules_is_prefilled() {
    let form = every_kind();
    // Only the age breaks a rule.
    let reply = accept(json!({
        "name": "Ada", "email": "ada@example.com", "age": 12, "score": 0.5,
        "subscribe": false, "color": "g", "also": ["r", "g"], "note": "hi"
    }));
    let again = reasked(&form, &reply);
    assert_eq!(default_of(&again, "name"), Some(json!("Ada")));
    assert_eq!(default_of(&again, "email"), Some(json!("ada@example.com")));
    assert_eq!(default_of(&again, "score"), Some(json!(0.5)));
    assert_eq!(default_of(&again, "subscribe"), Some(json!(false)));
    assert_eq!(default_of(&again, "color"), Some(json!("g")));
    assert_eq!(default_of(&again, "also"), Some(json!(["r", "g"])));
    assert_eq!(default_of(&again, "note"), Some(json!("hi")));
    assert_eq!(default_of(&again, "age"), None, "it broke a rule");
    assert_eq!(
        again.message(),
        format!(
            "Your last answer could not be used: Age must be at least 18.\n\n{}",
            form.message()
        )
    );
}

#[test]
fn a_field_whose_value_broke_a_rule_is_never_prefilled() {
    let form = every_kind();
    let reply = accept(json!({
        "name": "A", "email": "not an address", "age": 30, "score": 7,
        "subscribe": "yes", "color": "blue", "also": ["r", "r"], "note": "far too long a note"
    }));
    let again = reasked(&form, &reply);
    for name in [
        "name",
        "email",
        "score",
        "subscribe",
        "color",
        "also",
        "note",
    ] {
        assert_eq!(default_of(&again, name), None, "{name}");
    }
    assert_eq!(default_of(&again, "age"), Some(json!(30)));
}

#[test]
fn a_broken_fields_declared_default_stays() {
    let schema = RequestedSchema::new(vec![
        Property::new(
            "replicas",
            IntegerSchema::new().maximum(10).default_value(2),
        ),
        Property::new("service", StringSchema::new()),
    ])
    .unwrap();
    let form = FormRequest::new("Deploy?", schema).unwrap();
    let again = reasked(&form, &accept(json!({"replicas": 40, "service": "api"})));
    assert_eq!(
        default_of(&again, "replicas"),
        Some(json!(2)),
        "the form's own, not the 40"
    );
    assert_eq!(default_of(&again, "service"), Some(json!("api")));
}

#[test]
fn a_field_left_empty_is_not_prefilled() {
    let form = every_kind();
    let reply = accept(json!({ "name": "Ada", "note": null }));
    let again = reasked(&form, &reply);
    assert_eq!(default_of(&again, "name"), Some(json!("Ada")));
    assert_eq!(default_of(&again, "note"), None);
    assert_eq!(default_of(&again, "age"), None);
}

#[test]
fn a_field_that_looks_like_a_credential_is_not_prefilled() {
    // A form must not ask for one; what was typed there is not sent back out. By its name,
    // its title, or its description.
    let schema = RequestedSchema::new(vec![
        Property::new("api_key", StringSchema::new()),
        Property::new("p", StringSchema::new()).title("GitHub password"),
        Property::new("code", StringSchema::new()).description("the PIN of your card"),
        Property::new("user", StringSchema::new()),
        Property::new("age", IntegerSchema::new().minimum(18)),
    ])
    .unwrap();
    let form = FormRequest::new("Sign in?", schema).unwrap();
    let reply = accept(json!({"api_key": "k", "p": "pw", "code": "1234", "user": "ada", "age": 3}));
    let again = reasked(&form, &reply);
    for name in ["api_key", "p", "code"] {
        assert_eq!(default_of(&again, name), None, "{name}");
    }
    assert_eq!(default_of(&again, "user"), Some(json!("ada")));
}

#[test]
fn on_2025_06_18_only_booleans_are_prefilled() {
    let schema = RequestedSchema::new(vec![
        Property::new("name", StringSchema::new()),
        Property::new("subscribe", BooleanSchema::new()),
        Property::new("age", IntegerSchema::new().minimum(18)),
    ])
    .unwrap();
    let form = FormRequest::new("About you?", schema).unwrap();
    let again = reasked(
        &form,
        &accept(json!({"name": "Ada", "subscribe": true, "age": 3})),
    );
    let old = defaults(&again, Revision::V2025_06_18);
    assert_eq!(
        old,
        [
            ("age".to_owned(), None),
            ("name".to_owned(), None),
            ("subscribe".to_owned(), Some(json!(true)))
        ]
    );
    assert_eq!(
        default_of(&again, "name"),
        Some(json!("Ada")),
        "later revisions keep it"
    );
}

#[test]
fn a_reply_that_could_not_be_read_keeps_nothing() {
    let form = every_kind();
    let reply = json!({ "action": "accept", "content": "Ada" });
    let again = reasked(&form, &reply);
    assert_eq!(
        serde_json::to_value(&again).unwrap()["requestedSchema"],
        serde_json::to_value(&form).unwrap()["requestedSchema"]
    );
}

#[test]
fn an_integer_written_as_a_whole_float_is_prefilled_as_an_integer() {
    let schema = RequestedSchema::new(vec![
        Property::new("copies", IntegerSchema::new().maximum(5)),
        Property::new("name", StringSchema::new().min_length(3)),
    ])
    .unwrap();
    let form = FormRequest::new("How many?", schema).unwrap();
    let again = reasked(&form, &accept(json!({"copies": 3.0, "name": "x"})));
    assert_eq!(default_of(&again, "copies"), Some(json!(3)));
}
