//! Every attribute of `#[derive(Elicit)]`, on the struct, its fields and an options enum's
//! variants, and the `#[serde(..)]` attributes it honours: the exact JSON emitted, and that a
//! reply is read back under the same names.
//!
//! `serde_json::Value` sorts keys, so the property order (the struct's field order) is checked
//! on the serialized text.

use mcp_elicit::{Elicit, Elicitation, schema::Rule};
use serde_json::{Value, json};

fn schema<T: Elicit>() -> Value {
    serde_json::to_value(T::requested_schema()).expect("schema serializes")
}

fn accept(content: Value) -> Value {
    json!({"action": "accept", "content": content})
}

fn accepted<T: Elicit + std::fmt::Debug>(content: Value) -> T {
    match T::from_reply(&accept(content.clone())) {
        Ok(Elicitation::Accept(value)) => value,
        other => panic!("{content} should be accepted, got {other:?}"),
    }
}

fn broken<T: Elicit + std::fmt::Debug>(content: Value) -> Vec<(String, Rule)> {
    match T::from_reply(&accept(content.clone())) {
        Err(mcp_elicit::reply::ReplyError::Invalid(violations)) => violations
            .into_iter()
            .map(|v| (v.property, v.rule))
            .collect(),
        other => panic!("{content} should be rejected as invalid, got {other:?}"),
    }
}

/// The property names in the order they appear in the serialized schema text.
fn property_order<T: Elicit>() -> Vec<String> {
    let text = serde_json::to_string(T::requested_schema()).expect("schema serializes");
    let names: Vec<String> = T::requested_schema()
        .properties()
        .iter()
        .map(|p| p.name().to_owned())
        .collect();
    let mut positions: Vec<(usize, String)> = names
        .into_iter()
        .map(|n| {
            let at = text
                .find(&format!("\"{n}\":{{\"type\""))
                .unwrap_or_else(|| panic!("property {n} not in {text}"));
            (at, n)
        })
        .collect();
    positions.sort();
    positions.into_iter().map(|(_, n)| n).collect()
}

// ---------------------------------------------------------------------------------------------
// Struct attributes

#[derive(Elicit, Debug)]
#[elicit(message = "Which name should appear on the invoice?")]
struct WithMessage {
    name: String,
}

/// Choose where to deploy;
/// production requires a change ticket.
///
/// (Second paragraph.)
#[derive(Elicit, Debug)]
struct WithDocMessage {
    env: String,
}

/// This doc comment is not the message.
#[derive(Elicit, Debug)]
#[elicit(message = "The attribute wins.")]
struct MessageOverDoc {
    env: String,
}

#[test]
fn struct_message_is_the_request_message() {
    assert_eq!(
        WithMessage::message(),
        "Which name should appear on the invoice?"
    );
    let params = serde_json::to_string(&WithMessage::form_request()).expect("serializes");
    assert_eq!(
        params,
        r#"{"mode":"form","message":"Which name should appear on the invoice?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}"#
    );
}

#[test]
fn struct_doc_comment_is_the_message_fallback_joined_into_one_line() {
    assert_eq!(
        WithDocMessage::message(),
        "Choose where to deploy; production requires a change ticket. (Second paragraph.)"
    );
    assert_eq!(MessageOverDoc::message(), "The attribute wins.");
}

/// Reported under a custom name.
#[derive(Elicit, Debug)]
#[elicit(name = "deploy.target")]
struct Named {
    env: String,
}

#[test]
fn struct_name_defaults_to_the_type_name() {
    assert_eq!(Named::name(), "deploy.target");
    assert_eq!(WithMessage::name(), "WithMessage");
}

/// Fields renamed by convention.
#[derive(Elicit, Debug, PartialEq)]
#[elicit(rename_all = "camelCase")]
struct CamelForm {
    first_name: String,
    is_admin: bool,
    #[elicit(rename = "years")]
    age_in_years: u8,
}

/// Fields renamed by serde's convention.
#[derive(Elicit, Debug, PartialEq, serde::Deserialize)]
#[serde(rename_all = "SCREAMING-KEBAB-CASE")]
struct SerdeRenameAll {
    first_name: String,
    #[serde(rename = "x")]
    second_name: String,
}

/// `#[elicit(rename_all)]` wins over `#[serde(rename_all)]`.
#[derive(Elicit, Debug, serde::Deserialize)]
#[elicit(rename_all = "kebab-case")]
#[serde(rename_all = "PascalCase")]
struct BothRenameAll {
    first_name: String,
}

#[test]
fn rename_all_renames_every_field_and_rename_wins() {
    assert_eq!(
        property_order::<CamelForm>(),
        ["firstName", "isAdmin", "years"]
    );
    assert_eq!(
        schema::<CamelForm>()["required"],
        json!(["firstName", "isAdmin", "years"])
    );
    assert_eq!(
        accepted::<CamelForm>(json!({"firstName": "Ada", "isAdmin": true, "years": 36})),
        CamelForm {
            first_name: "Ada".into(),
            is_admin: true,
            age_in_years: 36
        }
    );
    // The Rust names are not the wire names.
    assert_eq!(
        broken::<CamelForm>(json!({"first_name": "Ada", "is_admin": true, "years": 36})),
        vec![
            ("firstName".into(), Rule::Required),
            ("isAdmin".into(), Rule::Required)
        ]
    );
}

#[test]
fn serde_rename_all_and_rename_are_honoured() {
    assert_eq!(property_order::<SerdeRenameAll>(), ["FIRST-NAME", "x"]);
    // The names agree with what serde itself reads.
    let content = json!({"FIRST-NAME": "a", "x": "b"});
    let via_serde: SerdeRenameAll = serde_json::from_value(content.clone()).expect("serde");
    assert_eq!(accepted::<SerdeRenameAll>(content), via_serde);
    assert_eq!(property_order::<BothRenameAll>(), ["first-name"]);
}

mod reexport {
    pub use mcp_elicit as inner;
}

/// Derived through a re-export of the crate.
#[derive(mcp_elicit::Elicit, Debug)]
#[elicit(crate = "crate::reexport::inner")]
struct ThroughReexport {
    name: String,
}

#[test]
fn crate_attribute_names_the_runtime_through_a_reexport() {
    assert_eq!(
        schema::<ThroughReexport>(),
        json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]})
    );
}

// ---------------------------------------------------------------------------------------------
// Field attributes

/// Field display text.
#[derive(Elicit, Debug)]
struct Display {
    #[elicit(title = "Full name", description = "As on your passport")]
    name: String,
    /// Where we send the receipt.
    /// Second line of the doc.
    #[elicit(title = "Email")]
    email: String,
    /// This doc is replaced.
    #[elicit(description = "The attribute wins")]
    city: String,
    plain: String,
}

#[test]
fn title_and_description_are_emitted_with_the_doc_comment_as_fallback() {
    assert_eq!(
        schema::<Display>()["properties"],
        json!({
            "name": {"type": "string", "title": "Full name", "description": "As on your passport"},
            "email": {"type": "string", "title": "Email",
                      "description": "Where we send the receipt. Second line of the doc."},
            "city": {"type": "string", "description": "The attribute wins"},
            "plain": {"type": "string"},
        })
    );
}

#[test]
fn property_keys_are_written_in_the_spec_order() {
    // type, title, description, then the kind's own keywords.
    let text = serde_json::to_string(Display::requested_schema()).expect("serializes");
    assert!(
        text.contains(
            r#""name":{"type":"string","title":"Full name","description":"As on your passport"}"#
        ),
        "{text}"
    );
}

/// String constraints.
#[derive(Elicit, Debug, PartialEq)]
struct Strings {
    #[elicit(format = "email")]
    email: String,
    #[elicit(format = "uri")]
    homepage: String,
    #[elicit(format = "date")]
    birthday: String,
    #[elicit(format = "date-time")]
    meeting: String,
    #[elicit(min_length = 2, max_length = 5)]
    code: String,
}

#[test]
fn format_min_length_and_max_length_are_emitted() {
    assert_eq!(
        schema::<Strings>()["properties"],
        json!({
            "email": {"type": "string", "format": "email"},
            "homepage": {"type": "string", "format": "uri"},
            "birthday": {"type": "string", "format": "date"},
            "meeting": {"type": "string", "format": "date-time"},
            "code": {"type": "string", "minLength": 2, "maxLength": 5},
        })
    );
}

#[test]
fn format_min_length_and_max_length_are_enforced() {
    let valid = json!({
        "email": "octocat@github.com",
        "homepage": "https://github.com/octocat",
        "birthday": "2024-02-29",
        "meeting": "2026-07-28T09:30:00+02:00",
        "code": "ab",
    });
    assert_eq!(accepted::<Strings>(valid.clone()).code, "ab");
    assert_eq!(
        broken::<Strings>(json!({
            "email": "octocat",
            "homepage": "github.com/octocat",
            "birthday": "2023-02-29",
            "meeting": "2026-07-28 09:30",
            "code": "abcdef",
        })),
        vec![
            (
                "email".into(),
                Rule::Format(mcp_elicit::schema::Format::Email)
            ),
            (
                "homepage".into(),
                Rule::Format(mcp_elicit::schema::Format::Uri)
            ),
            (
                "birthday".into(),
                Rule::Format(mcp_elicit::schema::Format::Date)
            ),
            (
                "meeting".into(),
                Rule::Format(mcp_elicit::schema::Format::DateTime)
            ),
            (
                "code".into(),
                Rule::MaxLength {
                    max_length: 5,
                    length: 6
                }
            ),
        ]
    );
}

/// Number constraints.
#[derive(Elicit, Debug, PartialEq)]
struct Numbers {
    #[elicit(minimum = -10, maximum = 10)]
    offset: i64,
    #[elicit(minimum = 0.5, maximum = 99.5)]
    percent: f64,
}

#[test]
fn minimum_and_maximum_are_emitted_and_enforced() {
    assert_eq!(
        schema::<Numbers>()["properties"],
        json!({
            "offset": {"type": "integer", "minimum": -10, "maximum": 10},
            "percent": {"type": "number", "minimum": 0.5, "maximum": 99.5},
        })
    );
    assert_eq!(
        broken::<Numbers>(json!({"offset": -11, "percent": 99.6})),
        vec![
            (
                "offset".into(),
                Rule::Minimum {
                    minimum: "-10".into()
                }
            ),
            (
                "percent".into(),
                Rule::Maximum {
                    maximum: "99.5".into()
                }
            ),
        ]
    );
    assert_eq!(
        accepted::<Numbers>(json!({"offset": 10, "percent": 0.5})),
        Numbers {
            offset: 10,
            percent: 0.5
        }
    );
}

#[derive(Elicit, Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Deserialize)]
#[elicit(rename_all = "snake_case")]
enum Topping {
    #[elicit(title = "Extra cheese")]
    ExtraCheese,
    #[elicit(rename = "shroom")]
    Mushroom,
    Olive,
}

#[derive(Elicit, Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
enum Crust {
    Thin,
    #[serde(rename = "deep-dish")]
    DeepDish,
}

/// Defaults of every kind.
#[derive(Elicit, Debug, PartialEq)]
struct Defaults {
    #[elicit(default = "Ada", min_length = 1)]
    name: String,
    #[elicit(default = "ada@example.com", format = "email")]
    email: String,
    #[elicit(default = true)]
    subscribe: bool,
    #[elicit(default = 3, minimum = 1, maximum = 12)]
    replicas: u8,
    #[elicit(default = -2)]
    offset: i32,
    #[elicit(default = 0.25)]
    ratio: f64,
    #[elicit(default = 2)]
    scale: f32,
    #[elicit(default = Crust::DeepDish)]
    crust: Crust,
    #[elicit(default = "thin")]
    crust_by_value: Option<Crust>,
    #[elicit(default = [Topping::Olive, Topping::ExtraCheese], max_items = 2)]
    toppings: Vec<Topping>,
}

#[test]
fn default_is_emitted_for_every_kind() {
    let properties = &schema::<Defaults>()["properties"];
    assert_eq!(properties["name"]["default"], "Ada");
    assert_eq!(properties["email"]["default"], "ada@example.com");
    assert_eq!(properties["subscribe"]["default"], true);
    assert_eq!(
        properties["replicas"],
        json!({"type": "integer", "minimum": 1, "maximum": 12, "default": 3})
    );
    assert_eq!(properties["offset"]["default"], -2);
    assert_eq!(properties["ratio"]["default"], 0.25);
    assert_eq!(properties["scale"]["default"].as_f64(), Some(2.0));
    assert_eq!(
        properties["crust"],
        json!({"type": "string", "enum": ["thin", "deep-dish"], "default": "deep-dish"})
    );
    assert_eq!(properties["crust_by_value"]["default"], "thin");
    assert_eq!(
        properties["toppings"],
        json!({
            "type": "array", "maxItems": 2,
            "items": {"anyOf": [
                {"const": "extra_cheese", "title": "Extra cheese"},
                {"const": "shroom", "title": "shroom"},
                {"const": "olive", "title": "olive"},
            ]},
            "default": ["olive", "extra_cheese"],
        })
    );
}

#[test]
fn a_default_does_not_make_a_field_optional() {
    // The default pre-fills the client's form; the reply must still carry the value.
    let required = schema::<Defaults>()["required"].clone();
    assert_eq!(
        required,
        json!([
            "name",
            "email",
            "subscribe",
            "replicas",
            "offset",
            "ratio",
            "scale",
            "crust",
            "toppings"
        ])
    );
}

#[test]
fn variant_title_and_rename_set_the_option_value_and_label() {
    let form = accepted::<Defaults>(json!({
        "name": "A", "email": "a@b.example", "subscribe": false, "replicas": 1, "offset": 0,
        "ratio": 1, "scale": 1, "crust": "thin", "toppings": ["shroom", "extra_cheese"],
    }));
    assert_eq!(form.toppings, vec![Topping::Mushroom, Topping::ExtraCheese]);
    assert_eq!(form.crust, Crust::Thin);
    assert_eq!(form.crust_by_value, None);
    // The option values agree with what serde itself reads.
    assert_eq!(
        serde_json::from_value::<Crust>(json!("deep-dish")).expect("serde"),
        Crust::DeepDish
    );
    assert_eq!(
        broken::<Defaults>(json!({
            "name": "A", "email": "a@b.example", "subscribe": false, "replicas": 1, "offset": 0,
            "ratio": 1, "scale": 1, "crust": "DeepDish", "toppings": ["Mushroom"],
        })),
        vec![
            (
                "crust".into(),
                Rule::NotAnOption {
                    value: "DeepDish".into()
                }
            ),
            (
                "toppings".into(),
                Rule::NotAnOption {
                    value: "Mushroom".into()
                }
            ),
        ]
    );
}

/// Renamed and skipped fields.
#[derive(Elicit, Debug, PartialEq, serde::Deserialize)]
struct RenameSkip {
    #[elicit(rename = "e-mail")]
    email: String,
    #[elicit(skip)]
    session: u64,
    #[serde(rename = "full_name")]
    name: String,
    #[serde(skip)]
    cache: Vec<String>,
    #[serde(skip_deserializing)]
    computed: Option<String>,
    #[elicit(rename = "wins")]
    #[serde(rename = "loses")]
    both: bool,
}

#[test]
fn rename_and_skip_shape_the_properties() {
    assert_eq!(
        property_order::<RenameSkip>(),
        ["e-mail", "full_name", "wins"]
    );
    let form = accepted::<RenameSkip>(json!({
        "e-mail": "a@b.example", "full_name": "Ada", "wins": true,
        "session": 9, "cache": ["x"], "computed": "y",
    }));
    assert_eq!(
        form,
        RenameSkip {
            email: "a@b.example".into(),
            session: 0,
            name: "Ada".into(),
            cache: Vec::new(),
            computed: None,
            both: true
        }
    );
}

/// `#[serde(default)]` makes a field optional: absent means `Default::default()`.
#[derive(Elicit, Debug, PartialEq, serde::Deserialize)]
struct SerdeDefault {
    #[serde(default)]
    tags: Vec<Topping>,
    #[serde(default)]
    count: u32,
    name: String,
}

#[test]
fn serde_default_makes_a_field_optional_and_fills_it_with_default() {
    assert_eq!(schema::<SerdeDefault>()["required"], json!(["name"]));
    assert_eq!(
        accepted::<SerdeDefault>(json!({"name": "x"})),
        SerdeDefault {
            tags: vec![],
            count: 0,
            name: "x".into()
        }
    );
    assert_eq!(
        accepted::<SerdeDefault>(json!({"name": "x", "count": null, "tags": ["olive"]})),
        SerdeDefault {
            tags: vec![Topping::Olive],
            count: 0,
            name: "x".into()
        }
    );
    // A present value is still checked.
    assert_eq!(
        broken::<SerdeDefault>(json!({"name": "x", "count": -1})),
        vec![(
            "count".into(),
            Rule::Minimum {
                minimum: "0".into()
            }
        )]
    );
}

/// Other serde attributes are ignored.
#[derive(Elicit, Debug, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct SerdeOthers {
    #[serde(alias = "n", skip_serializing_if = "String::is_empty")]
    name: String,
}

#[test]
fn other_serde_attributes_are_ignored() {
    assert_eq!(
        schema::<SerdeOthers>(),
        json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]})
    );
    // `deny_unknown_fields` is serde's business: elicitation ignores unknown keys (the spec).
    assert!(SerdeOthers::from_reply(&accept(json!({"name": "a", "extra": 1}))).is_ok());
}

/// A confirmation and a not-secret.
#[derive(Elicit, Debug)]
struct Confirm {
    #[elicit(
        consent,
        default = false,
        title = "I understand this deletes the repository"
    )]
    confirm: bool,
    #[elicit(not_secret = "the public id of the key, shown in the dashboard")]
    api_key_id: String,
}

#[test]
fn consent_and_not_secret_leave_the_property_as_declared() {
    assert_eq!(
        schema::<Confirm>()["properties"],
        json!({
            "confirm": {"type": "boolean", "title": "I understand this deletes the repository",
                        "default": false},
            "api_key_id": {"type": "string"},
        })
    );
}

// ---------------------------------------------------------------------------------------------
// Order

/// Many fields, deliberately not in alphabetical order.
#[derive(Elicit, Debug)]
struct Ordered {
    zeta: String,
    alpha: bool,
    mike: Option<u8>,
    #[elicit(skip)]
    _skipped: bool,
    bravo: f64,
    #[elicit(rename = "aardvark")]
    yankee: Crust,
}

#[test]
fn properties_and_required_follow_the_struct_field_order() {
    assert_eq!(
        property_order::<Ordered>(),
        ["zeta", "alpha", "mike", "bravo", "aardvark"]
    );
    let text = serde_json::to_string(Ordered::requested_schema()).expect("serializes");
    assert!(
        text.ends_with(r#""required":["zeta","alpha","bravo","aardvark"]}"#),
        "{text}"
    );
    assert!(
        text.starts_with(r#"{"type":"object","properties":{"zeta":"#),
        "{text}"
    );
}

fn three() -> u32 {
    3
}

/// `#[serde(default = "path")]` fills an absent field from the function, as serde does.
#[derive(Elicit, Debug, PartialEq, serde::Deserialize)]
struct SerdeDefaultPath {
    #[serde(default = "three")]
    count: u32,
    name: String,
}

#[test]
fn serde_default_path_fills_an_absent_field_from_the_function() {
    assert_eq!(schema::<SerdeDefaultPath>()["required"], json!(["name"]));
    let content = json!({"name": "x"});
    let via_serde: SerdeDefaultPath = serde_json::from_value(content.clone()).expect("serde");
    assert_eq!(via_serde.count, 3);
    assert_eq!(accepted::<SerdeDefaultPath>(content), via_serde);
}

/// A pointer-sized integer's bounds and default are checked against the target's range by the
/// compiler (on a 64-bit target, 64-bit values compile; on a 32-bit one they would not).
#[test]
fn pointer_sized_bounds_and_defaults_are_checked_on_the_target() {
    /// How many bytes to reserve?
    #[derive(Elicit, Debug)]
    struct Reserve {
        #[cfg_attr(
            target_pointer_width = "64",
            elicit(maximum = 4_000_000_000, default = 3_000_000_000)
        )]
        bytes: usize,
    }
    let schema = serde_json::to_value(Reserve::requested_schema()).expect("serializes");
    #[cfg(target_pointer_width = "64")]
    {
        assert_eq!(schema["properties"]["bytes"]["maximum"], 4_000_000_000u64);
        assert_eq!(schema["properties"]["bytes"]["default"], 3_000_000_000u64);
    }
}
