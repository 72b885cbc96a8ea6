//! How a form is written for each protocol revision: one test per rule.

use elicit_core::{
    Elicitation, FormRequest, Revision,
    protocol::RevisionError,
    schema::{
        BooleanSchema, EnumOption, IntegerSchema, MultiSelectSchema, NumberSchema, Property,
        RequestedSchema, SelectSchema, SelectStyle, StringSchema,
    },
};
use serde_json::{Value, json};

fn form(properties: Vec<Property>) -> FormRequest {
    let schema = RequestedSchema::new(properties).unwrap_or_else(|e| panic!("{e}"));
    FormRequest::new("Answer, please.", schema).unwrap_or_else(|e| panic!("{e}"))
}

fn emit(request: &FormRequest, revision: Revision) -> Value {
    let revisioned = request
        .for_revision(revision)
        .unwrap_or_else(|e| panic!("{e}"));
    serde_json::to_value(revisioned).unwrap_or_else(|e| panic!("{e}"))
}

fn property(request: &FormRequest, revision: Revision, name: &str) -> Value {
    emit(request, revision)["requestedSchema"]["properties"][name].clone()
}

fn titled_env() -> SelectSchema {
    SelectSchema::new(vec![
        EnumOption::titled("stg", "Staging"),
        EnumOption::titled("prd", "Production"),
    ])
}

#[test]
fn mode_is_omitted_in_2025_06_18() {
    let request = form(vec![Property::new("name", StringSchema::new())]);
    let params = emit(&request, Revision::V2025_06_18);
    assert_eq!(params.get("mode"), None);
    assert_eq!(
        params,
        json!({"message": "Answer, please.", "requestedSchema": {
            "type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}})
    );
}

#[test]
fn mode_is_form_from_2025_11_25() {
    let request = form(vec![Property::new("name", StringSchema::new())]);
    for revision in [Revision::V2025_11_25, Revision::V2026_07_28] {
        assert_eq!(emit(&request, revision)["mode"], "form");
    }
}

#[test]
fn titled_single_select_becomes_enum_and_enum_names_in_2025_06_18() {
    let request = form(vec![Property::new("env", titled_env())]);
    assert_eq!(
        property(&request, Revision::V2025_06_18, "env"),
        json!({"type": "string", "enum": ["stg", "prd"], "enumNames": ["Staging", "Production"]})
    );
}

#[test]
fn untitled_single_select_is_a_plain_enum_in_2025_06_18() {
    let request = form(vec![Property::new(
        "env",
        SelectSchema::new(vec![EnumOption::new("stg"), EnumOption::new("prd")]),
    )]);
    assert_eq!(
        property(&request, Revision::V2025_06_18, "env"),
        json!({"type": "string", "enum": ["stg", "prd"]})
    );
}

#[test]
fn defaults_other_than_on_booleans_are_dropped_in_2025_06_18() {
    let request = form(vec![
        Property::new("s", StringSchema::new().default_value("x")),
        Property::new("i", IntegerSchema::new().default_value(3)),
        Property::new("n", NumberSchema::new().default_value(0.5)),
        Property::new("e", titled_env().default_value("stg")),
    ]);
    let params = emit(&request, Revision::V2025_06_18);
    for name in ["s", "i", "n", "e"] {
        assert_eq!(
            params["requestedSchema"]["properties"][name].get("default"),
            None,
            "{name}"
        );
    }
}

#[test]
fn boolean_default_is_kept_in_2025_06_18() {
    let request = form(vec![Property::new(
        "ok",
        BooleanSchema::new().default_value(true),
    )]);
    assert_eq!(
        property(&request, Revision::V2025_06_18, "ok"),
        json!({"type": "boolean", "default": true})
    );
}

#[test]
fn multi_select_is_an_error_in_2025_06_18() {
    let request = form(vec![
        Property::new("name", StringSchema::new()),
        Property::new(
            "tags",
            MultiSelectSchema::new(vec![EnumOption::new("a"), EnumOption::new("b")]),
        ),
    ]);
    let err = request.for_revision(Revision::V2025_06_18).unwrap_err();
    assert_eq!(
        err,
        RevisionError::MultiSelectUnsupported {
            property: "tags".into(),
            revision: Revision::V2025_06_18
        }
    );
    let message = err.to_string();
    assert!(message.contains("`tags`"), "{message}");
    assert!(message.contains("cannot express"), "{message}");
    assert!(request.for_revision(Revision::V2025_11_25).is_ok());
}

#[test]
fn later_revisions_get_the_full_schema() {
    let request = form(vec![
        Property::new("s", StringSchema::new().default_value("x")),
        Property::new("e", titled_env().default_value("stg")),
        Property::new(
            "tags",
            MultiSelectSchema::new(vec![EnumOption::new("a"), EnumOption::new("b")])
                .default_value(vec!["a".into()]),
        ),
    ]);
    let latest = serde_json::to_value(&request).unwrap_or_default();
    assert_eq!(emit(&request, Revision::V2026_07_28), latest);
    assert_eq!(emit(&request, Revision::V2025_11_25), latest);
    let e = &latest["requestedSchema"]["properties"]["e"];
    assert_eq!(e["oneOf"][0], json!({"const": "stg", "title": "Staging"}));
    assert_eq!(e["default"], "stg");
    assert_eq!(latest["requestedSchema"]["properties"]["s"]["default"], "x");
}

#[test]
fn legacy_enum_names_opt_in_holds_on_every_revision() {
    let request = form(vec![Property::new(
        "env",
        titled_env().style(SelectStyle::Legacy),
    )]);
    for revision in Revision::ALL {
        let env = property(&request, revision, "env");
        assert_eq!(
            env["enumNames"],
            json!(["Staging", "Production"]),
            "{revision}"
        );
        assert_eq!(env.get("oneOf"), None, "{revision}");
    }
}

#[test]
fn select_without_its_run_time_options_is_refused_for_every_revision() {
    let request = form(vec![Property::new("account", SelectSchema::dynamic())]);
    for revision in Revision::ALL {
        assert_eq!(
            request.for_revision(revision).unwrap_err(),
            RevisionError::OptionsNotSupplied {
                property: "account".into()
            }
        );
    }
    let supplied = request
        .with_options("account", [EnumOption::new("acct_1")])
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(supplied.for_revision(Revision::V2025_06_18).is_ok());
}

#[test]
fn replies_are_read_alike_in_every_revision() {
    let request = form(vec![
        Property::new("name", StringSchema::new()),
        Property::new("n", IntegerSchema::new()).optional(),
    ]);
    for revision in Revision::ALL {
        let revisioned = request
            .for_revision(revision)
            .unwrap_or_else(|e| panic!("{e}"));
        // 2025-06-18 clients may add `_meta`; every revision may omit content on decline.
        let accepted = revisioned.parse_reply(
            &json!({"action": "accept", "content": {"name": "octocat", "n": 3}, "_meta": {}}),
        );
        assert!(matches!(accepted, Ok(Elicitation::Accept(_))), "{revision}");
        assert_eq!(
            revisioned.parse_reply(&json!({"action": "decline"})),
            Ok(Elicitation::Decline)
        );
        assert_eq!(
            revisioned.parse_reply(&json!({"action": "cancel", "content": {}})),
            Ok(Elicitation::Cancel)
        );
        assert_eq!(revisioned.revision(), revision);
    }
}
