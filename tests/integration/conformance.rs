//! Conformance with the MCP spec's own schema and examples, read from `MCP_SPEC_DIR` (the
//! `mcp-spec` folder, one sub-folder per revision).
//!
//! Built only with this package's `spec` feature (it brings `jsonschema`), and ignored by
//! default so that a fresh clone passes even with the feature on; run with
//! `MCP_SPEC_DIR=../shared/mcp-spec cargo test -p elicit-integration-tests --features spec -- --ignored`. When run without
//! `MCP_SPEC_DIR` they fail: a conformance check that silently passes checks nothing.

use std::collections::BTreeSet;
use std::path::PathBuf;

use mcp_elicit::{
    Elicit, Elicitation, FormRequest, UrlOutcome,
    schema::{
        Choice, Choices, EnumOption, Format, Property, RequestedSchema, SelectSchema, SelectStyle,
        StringSchema,
    },
};
use serde_json::{Value, json};

const NEEDS_SPEC: &str = "needs the MCP spec: set MCP_SPEC_DIR (e.g. ../shared/mcp-spec)";

/// The revisions whose `ElicitRequestFormParams` every generated request must satisfy.
const REVISIONS: [&str; 2] = ["2025-11-25", "2026-07-28"];

/// The alternatives of `PrimitiveSchemaDefinition`, one of which each property must be.
const PRIMITIVES: [&str; 8] = [
    "StringSchema",
    "NumberSchema",
    "BooleanSchema",
    "UntitledSingleSelectEnumSchema",
    "TitledSingleSelectEnumSchema",
    "LegacyTitledEnumSchema",
    "UntitledMultiSelectEnumSchema",
    "TitledMultiSelectEnumSchema",
];

fn spec_dir() -> PathBuf {
    let Some(dir) = std::env::var_os("MCP_SPEC_DIR") else {
        panic!("MCP_SPEC_DIR is not set; {NEEDS_SPEC}");
    };
    let dir = PathBuf::from(dir);
    assert!(
        dir.join("2026-07-28/schema.json").is_file(),
        "MCP_SPEC_DIR={} has no 2026-07-28/schema.json; {NEEDS_SPEC}",
        dir.display()
    );
    dir
}

fn read(relative: &str) -> String {
    let path = spec_dir().join(relative);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn load(relative: &str) -> Value {
    serde_json::from_str(&read(relative)).unwrap_or_else(|e| panic!("{relative}: {e}"))
}

/// The revision's whole schema document with its root replaced by a `$ref` to one definition,
/// so that every `$ref` inside the definition resolves within the official document.
fn validator(revision: &str, definition: &str) -> jsonschema::Validator {
    let mut document = load(&format!("{revision}/schema.json"));
    assert!(
        document["$defs"][definition].is_object(),
        "{revision} defines no {definition}"
    );
    let root = document.as_object_mut().expect("the schema is an object");
    root.insert("$ref".into(), json!(format!("#/$defs/{definition}")));
    jsonschema::validator_for(&document).unwrap_or_else(|e| panic!("{revision} {definition}: {e}"))
}

fn errors(validator: &jsonschema::Validator, instance: &Value) -> Vec<String> {
    validator
        .iter_errors(instance)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect()
}

/// JSON numbers compared by value: the spec writes `18` where a Rust `f64` bound prints `18.0`.
fn normalize(value: &Value) -> Value {
    match value {
        Value::Number(n) => match n.as_f64() {
            Some(x) if n.is_f64() && x.fract() == 0.0 && x.abs() < 9.0e15 => json!(x as i64),
            _ => value.clone(),
        },
        Value::Array(items) => Value::Array(items.iter().map(normalize).collect()),
        Value::Object(map) => {
            Value::Object(map.iter().map(|(k, v)| (k.clone(), normalize(v))).collect())
        }
        other => other.clone(),
    }
}

// ---------------------------------------------------------------------------------------------
// Forms that cover every field kind and attribute

#[derive(Elicit, Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Color {
    Red,
    Green,
    Blue,
}

#[derive(Elicit, Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Hex {
    #[elicit(rename = "#FF0000", title = "Red")]
    Red,
    #[elicit(rename = "#00FF00", title = "Green")]
    Green,
    #[elicit(rename = "#0000FF", title = "Blue")]
    Blue,
}

/// Every field kind, with every constraint and a default where one can be given.
#[derive(Elicit, Debug, Clone, PartialEq)]
#[elicit(rename_all = "camelCase")]
struct Everything {
    #[elicit(
        title = "Display Name",
        description = "Description text",
        min_length = 3,
        max_length = 50,
        format = "email",
        default = "user@example.com"
    )]
    string_schema: String,
    #[elicit(format = "uri")]
    uri: Option<String>,
    #[elicit(format = "date")]
    date: String,
    #[elicit(format = "date-time")]
    date_time: String,
    #[elicit(
        title = "Display Name",
        description = "Description text",
        minimum = 0,
        maximum = 100,
        default = 50
    )]
    number_schema: f64,
    ratio: f32,
    a_i8: i8,
    a_u64: u64,
    a_i64: i64,
    #[elicit(minimum = 1, maximum = 12, default = 3)]
    replicas: u8,
    #[elicit(
        title = "Display Name",
        description = "Description text",
        default = false
    )]
    boolean_schema: bool,
    #[elicit(
        title = "Color Selection",
        description = "Choose your favorite color",
        default = Color::Red
    )]
    untitled_single_select_enum_schema: Color,
    #[elicit(
        title = "Color Selection",
        description = "Choose your favorite color",
        default = Hex::Red
    )]
    titled_single_select_enum_schema: Hex,
    #[elicit(legacy_enum_names, default = Hex::Blue)]
    legacy: Option<Hex>,
    #[elicit(
        title = "Color Selection",
        description = "Choose your favorite colors",
        min_items = 1,
        max_items = 2,
        default = [Color::Red, Color::Green]
    )]
    untitled_multi_select_enum_schema: Vec<Color>,
    #[elicit(
        title = "Color Selection",
        description = "Choose your favorite colors",
        min_items = 1,
        max_items = 2,
        default = [Hex::Red, Hex::Green]
    )]
    titled_multi_select_enum_schema: BTreeSet<Hex>,
    hash_set: std::collections::HashSet<Color>,
    #[elicit(default = "acct_1")]
    account: Choice,
    #[elicit(legacy_enum_names)]
    legacy_account: Option<Choice>,
    #[elicit(max_items = 2)]
    cc: Choices,
}

fn everything() -> FormRequest<Everything> {
    Everything::form_request()
        .with_message("Three accounts match “ACME”; which one, and who is copied?")
        .and_then(|r| {
            r.with_options(
                "account",
                [
                    EnumOption::titled("acct_1", "ACME Corp"),
                    EnumOption::new("acct_2"),
                ],
            )
        })
        .and_then(|r| {
            r.with_options(
                "legacyAccount",
                [EnumOption::titled("a", "A"), EnumOption::titled("b", "B")],
            )
        })
        .and_then(|r| r.with_options("cc", ["alice", "bob"].map(EnumOption::new)))
        .expect("options")
}

/// Please provide your GitHub username
#[derive(Elicit, Debug)]
struct GithubUsername {
    name: String,
}

/// Please provide your GitHub username
#[derive(Elicit, Debug)]
struct GithubUsernameTitled {
    #[elicit(title = "GitHub Username", description = "Your GitHub username")]
    name: String,
}

/// Please provide your contact information
#[derive(Elicit, Debug, PartialEq)]
struct ContactInformation {
    /// Your full name
    name: String,
    /// Your email address
    #[elicit(format = "email")]
    email: String,
    /// Your age
    #[elicit(minimum = 18)]
    age: Option<f64>,
}

/// A form where every field is optional, to read replies that carry no content.
#[derive(Elicit, Debug, PartialEq)]
struct Anything {
    name: Option<String>,
    email: Option<String>,
    age: Option<f64>,
}

fn hand_built_legacy() -> FormRequest {
    let schema = RequestedSchema::new(vec![
        Property::new(
            "env",
            SelectSchema::new(vec![
                EnumOption::titled("staging", "Staging"),
                EnumOption::new("production"),
            ])
            .style(SelectStyle::Legacy),
        )
        .title("Environment"),
        Property::new("when", StringSchema::new().format(Format::DateTime)).optional(),
    ])
    .expect("schema");
    FormRequest::new("Where should it deploy?", schema).expect("request")
}

fn generated_requests() -> Vec<(&'static str, Value)> {
    vec![
        ("Everything", everything().to_json_value()),
        (
            "GithubUsername",
            GithubUsername::form_request().to_json_value(),
        ),
        (
            "GithubUsernameTitled",
            GithubUsernameTitled::form_request().to_json_value(),
        ),
        (
            "ContactInformation",
            ContactInformation::form_request().to_json_value(),
        ),
        ("Anything", Anything::form_request().to_json_value()),
        ("hand-built legacy", hand_built_legacy().to_json_value()),
    ]
}

/// A request of any target type as JSON, so requests of different forms share one list.
trait ToJsonValue {
    fn to_json_value(&self) -> Value;
}

impl<T> ToJsonValue for FormRequest<T> {
    fn to_json_value(&self) -> Value {
        serde_json::to_value(self).expect("request serializes")
    }
}

// ---------------------------------------------------------------------------------------------
// Requests

#[test]
#[ignore = "needs the MCP spec: set MCP_SPEC_DIR (e.g. ../shared/mcp-spec)"]
fn every_generated_request_validates_against_elicit_request_form_params() {
    for revision in REVISIONS {
        let validator = validator(revision, "ElicitRequestFormParams");
        for (name, request) in generated_requests() {
            assert_eq!(
                errors(&validator, &request),
                Vec::<String>::new(),
                "{revision}: {name}: {request}"
            );
        }
    }
}

#[test]
#[ignore = "needs the MCP spec: set MCP_SPEC_DIR (e.g. ../shared/mcp-spec)"]
fn every_generated_property_is_a_spec_primitive_schema_using_only_its_keys() {
    // The spec's definitions allow unknown keys, so passing `anyOf` alone would not catch a
    // misspelt or misplaced keyword. Each property must also use only the keys of a
    // definition it satisfies.
    for revision in REVISIONS {
        let document = load(&format!("{revision}/schema.json"));
        let kinds: Vec<_> = PRIMITIVES
            .iter()
            .map(|kind| {
                let keys: BTreeSet<String> = document["$defs"][kind]["properties"]
                    .as_object()
                    .unwrap_or_else(|| panic!("{revision}: {kind} has no properties"))
                    .keys()
                    .cloned()
                    .collect();
                (*kind, validator(revision, kind), keys)
            })
            .collect();
        for (name, request) in generated_requests() {
            let properties = request["requestedSchema"]["properties"]
                .as_object()
                .expect("properties");
            for (property, schema) in properties {
                let used: BTreeSet<String> = schema
                    .as_object()
                    .expect("object")
                    .keys()
                    .cloned()
                    .collect();
                let matches: Vec<&str> = kinds
                    .iter()
                    .filter(|(_, v, keys)| v.is_valid(schema) && used.is_subset(keys))
                    .map(|(kind, _, _)| *kind)
                    .collect();
                assert!(
                    !matches.is_empty(),
                    "{revision}: {name}.{property} is none of the primitive schemas: {schema}"
                );
            }
        }
    }
}

#[test]
#[ignore = "needs the MCP spec: set MCP_SPEC_DIR (e.g. ../shared/mcp-spec)"]
fn the_validator_rejects_requests_that_break_the_spec() {
    // A control: the validator built above is not one that accepts everything.
    let broken = [
        json!({"mode": "form", "requestedSchema": {"type": "object", "properties": {}}}),
        json!({"mode": "url", "message": "m", "requestedSchema": {"type": "object", "properties": {}}}),
        json!({"message": "m", "requestedSchema": {"type": "array", "properties": {}}}),
        json!({"message": "m", "requestedSchema": {"type": "object", "properties": {
            "nested": {"type": "object", "properties": {}}
        }}}),
        json!({"message": "m", "requestedSchema": {"type": "object", "properties": {
            "phone": {"type": "string", "format": "phone"}
        }}}),
        json!({"message": "m", "requestedSchema": {"type": "object", "properties": {
            "n": {"type": "integer", "minimum": "0"}
        }}}),
    ];
    for revision in REVISIONS {
        let validator = validator(revision, "ElicitRequestFormParams");
        for request in &broken {
            assert!(
                !validator.is_valid(request),
                "{revision} accepted {request}"
            );
        }
    }
}

#[test]
#[ignore = "needs the MCP spec: set MCP_SPEC_DIR (e.g. ../shared/mcp-spec)"]
fn the_official_request_examples_are_what_the_derive_emits() {
    let validator = validator("2026-07-28", "ElicitRequestFormParams");
    let examples = "2026-07-28/examples/ElicitRequestFormParams";
    for (file, emitted) in [
        (
            "elicit-single-field.json",
            GithubUsername::form_request().to_json_value(),
        ),
        (
            "elicit-multiple-fields.json",
            ContactInformation::form_request().to_json_value(),
        ),
    ] {
        let official = load(&format!("{examples}/{file}"));
        assert_eq!(
            errors(&validator, &official),
            Vec::<String>::new(),
            "{file}"
        );
        assert_eq!(normalize(&emitted), normalize(&official), "{file}");
    }
    let official = load("2026-07-28/examples/ElicitRequest/elicitation-request.json");
    assert_eq!(official["method"], "elicitation/create");
    assert_eq!(
        GithubUsernameTitled::form_request().to_json_value(),
        official["params"]
    );
}

#[test]
#[ignore = "needs the MCP spec: set MCP_SPEC_DIR (e.g. ../shared/mcp-spec)"]
fn the_official_primitive_schema_examples_are_what_the_derive_emits() {
    let request = everything().to_json_value();
    let properties = &request["requestedSchema"]["properties"];
    for (kind, file, property) in [
        ("StringSchema", "email-input-schema.json", "stringSchema"),
        ("NumberSchema", "number-input-schema.json", "numberSchema"),
        (
            "BooleanSchema",
            "boolean-input-schema.json",
            "booleanSchema",
        ),
        (
            "UntitledSingleSelectEnumSchema",
            "color-select-schema.json",
            "untitledSingleSelectEnumSchema",
        ),
        (
            "TitledSingleSelectEnumSchema",
            "titled-color-select-schema.json",
            "titledSingleSelectEnumSchema",
        ),
        (
            "UntitledMultiSelectEnumSchema",
            "color-multi-select-schema.json",
            "untitledMultiSelectEnumSchema",
        ),
        (
            "TitledMultiSelectEnumSchema",
            "titled-color-multi-select-schema.json",
            "titledMultiSelectEnumSchema",
        ),
    ] {
        let official = load(&format!("2026-07-28/examples/{kind}/{file}"));
        assert!(
            validator("2026-07-28", kind).is_valid(&official),
            "{kind} example"
        );
        assert_eq!(
            normalize(&properties[property]),
            normalize(&official),
            "{kind}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Results

/// Every official `ElicitResult` example: the example files, and the JSON results in each
/// revision's `elicitation.md` (a JSON-RPC response's `result`, or a bare result).
fn official_results() -> Vec<(String, Value)> {
    let mut results = Vec::new();
    let dir = spec_dir().join("2026-07-28/examples/ElicitResult");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("entry").path())
        .collect();
    files.sort();
    for path in files {
        let text = std::fs::read_to_string(&path).expect("readable");
        let value = serde_json::from_str(&text).expect("example is JSON");
        results.push((path.display().to_string(), value));
    }
    let responses =
        load("2026-07-28/examples/InputResponses/elicitation-and-sampling-input-responses.json");
    results.push((
        "InputResponses github_login".into(),
        responses["github_login"].clone(),
    ));
    for revision in REVISIONS {
        let page = read(&format!("{revision}/elicitation.md"));
        for (i, block) in page.split("```json").skip(1).enumerate() {
            let block = block.split("```").next().unwrap_or_default();
            // `jsonc` blocks with comments are not examples of a wire message.
            let Ok(value) = serde_json::from_str::<Value>(block) else {
                continue;
            };
            let result = if value.get("jsonrpc").is_some() {
                value.get("result").cloned().unwrap_or(Value::Null)
            } else {
                value
            };
            if result.get("action").is_some() {
                results.push((format!("{revision}/elicitation.md block {i}"), result));
            }
        }
    }
    results
}

#[test]
#[ignore = "needs the MCP spec: set MCP_SPEC_DIR (e.g. ../shared/mcp-spec)"]
fn every_official_elicit_result_example_parses() {
    let results = official_results();
    // 3 files, 1 input response, 3 results on each revision's page.
    assert!(results.len() >= 10, "found only {}", results.len());
    let spec_validators: Vec<_> = REVISIONS
        .iter()
        .map(|r| (r, validator(r, "ElicitResult")))
        .collect();
    for (origin, result) in &results {
        for (revision, v) in &spec_validators {
            assert_eq!(
                errors(v, result),
                Vec::<String>::new(),
                "{revision}: {origin}"
            );
        }
        // Whatever the form, the reply reads as an action.
        let action = UrlOutcome::from_reply(result).unwrap_or_else(|e| panic!("{origin}: {e}"));
        match result.get("content") {
            // URL mode: accepted with no content.
            None => {
                assert_eq!(action, UrlOutcome::Accept, "{origin}");
                assert_eq!(
                    Anything::from_reply(result),
                    Ok(Elicitation::Accept(Anything {
                        name: None,
                        email: None,
                        age: None
                    })),
                    "{origin}"
                );
            }
            Some(content) => {
                // The official form examples answered: the typed form reads every one.
                let Ok(Elicitation::Accept(contact)) = Anything::from_reply(result) else {
                    panic!("{origin}: not accepted")
                };
                assert_eq!(
                    contact.name.as_deref(),
                    content["name"].as_str(),
                    "{origin}"
                );
                if content.get("email").is_some() {
                    assert_eq!(
                        ContactInformation::from_reply(result),
                        Ok(Elicitation::Accept(ContactInformation {
                            name: "Monalisa Octocat".into(),
                            email: "octocat@github.com".into(),
                            age: Some(30.0)
                        })),
                        "{origin}"
                    );
                } else {
                    let Ok(Elicitation::Accept(user)) = GithubUsername::from_reply(result) else {
                        panic!("{origin}: not accepted")
                    };
                    assert_eq!(user.name, "octocat", "{origin}");
                }
            }
        }
    }
}

#[test]
#[ignore = "needs the MCP spec: set MCP_SPEC_DIR (e.g. ../shared/mcp-spec)"]
fn replies_built_from_typed_values_validate_against_elicit_result() {
    let request = everything();
    let value = Everything {
        string_schema: "user@example.com".into(),
        uri: Some("https://example.com".into()),
        date: "2026-07-28".into(),
        date_time: "2026-07-28T09:30:00Z".into(),
        // Whole numbers: the spec's ElicitResult content allows `integer` but not `number`.
        number_schema: 50.0,
        ratio: 2.0,
        a_i8: -128,
        a_u64: u64::MAX,
        a_i64: i64::MIN,
        replicas: 3,
        boolean_schema: true,
        untitled_single_select_enum_schema: Color::Blue,
        titled_single_select_enum_schema: Hex::Green,
        legacy: None,
        untitled_multi_select_enum_schema: vec![Color::Green],
        titled_multi_select_enum_schema: BTreeSet::from([Hex::Red, Hex::Blue]),
        hash_set: [Color::Red].into(),
        account: Choice::new("acct_2"),
        legacy_account: Some(Choice::new("b")),
        cc: Choices::new(["bob"]),
    };
    let reply = json!({"action": "accept", "content": value.to_content()});
    for revision in REVISIONS {
        assert_eq!(
            errors(&validator(revision, "ElicitResult"), &reply),
            Vec::<String>::new(),
            "{revision}"
        );
    }
    assert_eq!(request.parse_reply(&reply), Ok(Elicitation::Accept(value)));
}
