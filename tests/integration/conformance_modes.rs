//! Conformance of URL mode, capabilities and revisions with the spec's own `schema.json`.
//!
//! Every request this crate emits — a form with every field kind, a URL elicitation — for every
//! revision validates against that revision's official definition, and so do the errors, the
//! completion notification and the headless tool result. Capability parsing is run on the
//! spec's own `ClientCapabilities` examples.
//!
//! Needs the spec: `MCP_SPEC_DIR=/path/to/mcp-spec cargo test -p elicit-integration-tests --features spec -- --ignored`.

use std::path::PathBuf;

use mcp_elicit::{
    ElicitationSupport, FormRequest, Mode, Revision, UrlOutcome, UrlRequest,
    protocol::RevisionError,
    schema::{
        BooleanSchema, EnumOption, Format, IntegerSchema, MultiSelectSchema, NumberSchema,
        Property, RequestedSchema, SelectSchema, SelectStyle, StringSchema,
    },
    url_mode::UrlElicitationRequired,
};
use serde_json::{Value, json};

const NEEDS_SPEC: &str = "needs the MCP spec: set MCP_SPEC_DIR";

fn spec_dir() -> PathBuf {
    match std::env::var_os("MCP_SPEC_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => panic!("{NEEDS_SPEC}"),
    }
}

fn read_json(path: PathBuf) -> Value {
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

fn schema_document(revision: Revision) -> Value {
    read_json(spec_dir().join(revision.as_str()).join("schema.json"))
}

/// Errors of `instance` against definition `definition` of the revision's schema, with the
/// whole document as the root so every `$ref` resolves.
fn errors(revision: Revision, definition: &str, instance: &Value) -> Vec<String> {
    let mut root = schema_document(revision);
    let defs = if root.get("$defs").is_some() {
        "$defs"
    } else {
        "definitions"
    };
    assert!(
        root[defs].get(definition).is_some(),
        "{revision} has no definition {definition}"
    );
    if let Some(object) = root.as_object_mut() {
        object.insert("$ref".into(), json!(format!("#/{defs}/{definition}")));
    }
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(&root)
        .unwrap_or_else(|e| panic!("{revision} schema does not compile: {e}"));
    validator
        .iter_errors(instance)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect()
}

#[track_caller]
fn assert_valid(revision: Revision, definition: &str, instance: &Value) {
    let errors = errors(revision, definition, instance);
    assert!(
        errors.is_empty(),
        "{revision} {definition} rejects\n{}\n{errors:#?}",
        serde_json::to_string_pretty(instance).unwrap_or_default()
    );
}

#[track_caller]
fn assert_invalid(revision: Revision, definition: &str, instance: &Value) {
    assert!(
        !errors(revision, definition, instance).is_empty(),
        "{revision} {definition} accepts what it should not:\n{instance}"
    );
}

fn to_json<T: serde::Serialize>(value: T) -> Value {
    serde_json::to_value(value).unwrap_or_else(|e| panic!("does not serialize: {e}"))
}

/// JSON equality where `18` and `18.0` are the same number, as they are to JSON Schema.
fn same_json(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_json(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| same_json(v, w)))
        }
        _ => a == b,
    }
}

fn colors() -> Vec<EnumOption> {
    vec![
        EnumOption::titled("#FF0000", "Red"),
        EnumOption::titled("#00FF00", "Green"),
        EnumOption::titled("#0000FF", "Blue"),
    ]
}

/// Every single-value field kind, with every constraint and a default on each.
fn single_value_properties() -> Vec<Property> {
    let plain = vec![EnumOption::new("Red"), EnumOption::new("Green")];
    vec![
        Property::new("name", StringSchema::new().min_length(1).max_length(50))
            .title("Name")
            .description("Your full name")
            .optional(),
        Property::new(
            "email",
            StringSchema::new()
                .format(Format::Email)
                .default_value("user@example.com"),
        ),
        Property::new("site", StringSchema::new().format(Format::Uri)).optional(),
        Property::new("day", StringSchema::new().format(Format::Date)).optional(),
        Property::new("at", StringSchema::new().format(Format::DateTime)).optional(),
        Property::new(
            "count",
            IntegerSchema::new().minimum(1).maximum(10).default_value(3),
        ),
        Property::new(
            "ratio",
            NumberSchema::new()
                .minimum(0.0)
                .maximum(1.0)
                .default_value(0.5),
        )
        .optional(),
        Property::new("confirm", BooleanSchema::new().default_value(false)).title("Proceed"),
        Property::new("color", SelectSchema::new(plain).default_value("Red")),
        Property::new(
            "titled_color",
            SelectSchema::new(colors()).default_value("#FF0000"),
        ),
        Property::new(
            "legacy_color",
            SelectSchema::new(colors())
                .style(SelectStyle::Legacy)
                .default_value("#0000FF"),
        )
        .optional(),
    ]
}

fn multi_select_properties() -> Vec<Property> {
    let plain: Vec<EnumOption> = ["Red", "Green", "Blue"]
        .into_iter()
        .map(EnumOption::new)
        .collect();
    vec![
        Property::new(
            "colors",
            MultiSelectSchema::new(plain)
                .min_items(1)
                .max_items(2)
                .default_value(vec!["Red".into(), "Green".into()]),
        ),
        Property::new(
            "titled_colors",
            MultiSelectSchema::new(colors())
                .min_items(1)
                .max_items(2)
                .default_value(vec!["#FF0000".into()]),
        )
        .optional(),
    ]
}

fn form(properties: Vec<Property>) -> FormRequest {
    let schema = RequestedSchema::new(properties).unwrap_or_else(|e| panic!("{e}"));
    FormRequest::new("Please fill in the form.", schema).unwrap_or_else(|e| panic!("{e}"))
}

fn every_kind() -> FormRequest {
    let mut properties = single_value_properties();
    properties.extend(multi_select_properties());
    form(properties)
}

fn url_request() -> UrlRequest {
    UrlRequest::new(
        "Please provide your API key to continue.",
        "https://mcp.example.com/ui/set_api_key?flow=7f3a",
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

fn form_params(request: &FormRequest, revision: Revision) -> Value {
    to_json(
        request
            .for_revision(revision)
            .unwrap_or_else(|e| panic!("{e}")),
    )
}

#[test]
#[ignore = "needs the MCP spec: set MCP_SPEC_DIR"]
fn form_with_every_field_kind_conforms_in_2026_07_28() {
    let revision = Revision::V2026_07_28;
    let params = form_params(&every_kind(), revision);
    assert_valid(revision, "ElicitRequestFormParams", &params);
    assert_valid(revision, "ElicitRequestParams", &params);
    let request = json!({"method": "elicitation/create", "params": params});
    assert_valid(revision, "ElicitRequest", &request);
    let interim = json!({"resultType": "input_required", "inputRequests": {"form": request}});
    assert_valid(revision, "InputRequiredResult", &interim);
    // FormRequest's own Serialize is this revision.
    assert_eq!(to_json(every_kind()), params);
}

#[test]
#[ignore = "needs the MCP spec: set MCP_SPEC_DIR"]
fn form_with_every_field_kind_conforms_in_2025_11_25() {
    let revision = Revision::V2025_11_25;
    let params = form_params(&every_kind(), revision);
    assert_valid(revision, "ElicitRequestFormParams", &params);
    let request =
        json!({"jsonrpc": "2.0", "id": 1, "method": "elicitation/create", "params": params});
    assert_valid(revision, "ElicitRequest", &request);
}

#[test]
#[ignore = "needs the MCP spec: set MCP_SPEC_DIR"]
fn form_with_every_single_value_kind_conforms_in_2025_06_18() {
    let revision = Revision::V2025_06_18;
    let params = form_params(&form(single_value_properties()), revision);
    let request = json!({"method": "elicitation/create", "params": params});
    assert_valid(revision, "ElicitRequest", &request);
    // Each property on its own matches one of the revision's primitive definitions.
    for (name, property) in params["requestedSchema"]["properties"]
        .as_object()
        .into_iter()
        .flatten()
    {
        let errors = errors(revision, "PrimitiveSchemaDefinition", property);
        assert!(errors.is_empty(), "{name}: {errors:?}");
    }
}

#[test]
#[ignore = "needs the MCP spec: set MCP_SPEC_DIR"]
fn each_property_matches_its_own_definition_in_every_revision() {
    for revision in [Revision::V2025_11_25, Revision::V2026_07_28] {
        let params = form_params(&every_kind(), revision);
        let properties = &params["requestedSchema"]["properties"];
        for (name, definition) in [
            ("name", "StringSchema"),
            ("email", "StringSchema"),
            ("count", "NumberSchema"),
            ("ratio", "NumberSchema"),
            ("confirm", "BooleanSchema"),
            ("color", "UntitledSingleSelectEnumSchema"),
            ("titled_color", "TitledSingleSelectEnumSchema"),
            ("legacy_color", "LegacyTitledEnumSchema"),
            ("colors", "UntitledMultiSelectEnumSchema"),
            ("titled_colors", "TitledMultiSelectEnumSchema"),
        ] {
            let errors = errors(revision, definition, &properties[name]);
            assert!(errors.is_empty(), "{revision} {name}: {errors:?}");
        }
    }
}

#[test]
#[ignore = "needs the MCP spec: set MCP_SPEC_DIR"]
fn multi_select_is_refused_in_2025_06_18_because_its_schema_cannot_express_it() {
    let refusal = every_kind()
        .for_revision(Revision::V2025_06_18)
        .unwrap_err();
    assert!(matches!(
        refusal,
        RevisionError::MultiSelectUnsupported { .. }
    ));
    // The refusal is right: the latest shape of a multi-select is no 2025-06-18 primitive.
    let latest = to_json(every_kind());
    assert_invalid(
        Revision::V2025_06_18,
        "PrimitiveSchemaDefinition",
        &latest["requestedSchema"]["properties"]["colors"],
    );
}

#[test]
#[ignore = "needs the MCP spec: set MCP_SPEC_DIR"]
fn url_request_conforms_in_2026_07_28_without_elicitation_id() {
    let revision = Revision::V2026_07_28;
    let params = to_json(
        url_request()
            .for_revision(revision)
            .unwrap_or_else(|e| panic!("{e}")),
    );
    assert_eq!(params.get("elicitationId"), None);
    assert_valid(revision, "ElicitRequestURLParams", &params);
    assert_valid(revision, "ElicitRequestParams", &params);
    let request = json!({"method": "elicitation/create", "params": params});
    assert_valid(revision, "ElicitRequest", &request);
    assert_valid(
        revision,
        "InputRequiredResult",
        &json!({"resultType": "input_required", "inputRequests": {"connect": request}}),
    );
}

#[test]
#[ignore = "needs the MCP spec: set MCP_SPEC_DIR"]
fn url_request_conforms_in_2025_11_25_with_elicitation_id() {
    let revision = Revision::V2025_11_25;
    let params = to_json(
        url_request()
            .for_revision(revision)
            .unwrap_or_else(|e| panic!("{e}")),
    );
    assert_valid(revision, "ElicitRequestURLParams", &params);
    assert_valid(
        revision,
        "ElicitRequest",
        &json!({"jsonrpc": "2.0", "id": "e1", "method": "elicitation/create", "params": params}),
    );
    // Without its id the same request would not conform: the id is what 2025-11-25 adds.
    assert_invalid(revision, "ElicitRequestURLParams", &to_json(url_request()));
}

#[test]
#[ignore = "needs the MCP spec: set MCP_SPEC_DIR"]
fn url_request_matches_the_spec_example_exactly() {
    let example = read_json(
        spec_dir().join("2026-07-28/examples/ElicitRequestURLParams/elicit-sensitive-data.json"),
    );
    let message = example["message"].as_str().unwrap_or_default().to_owned();
    let url = example["url"].as_str().unwrap_or_default();
    let request = UrlRequest::new(message, url).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(to_json(request), example);
}

#[test]
#[ignore = "needs the MCP spec: set MCP_SPEC_DIR"]
fn form_request_matches_the_spec_examples_exactly() {
    let dir = spec_dir().join("2026-07-28/examples/ElicitRequestFormParams");
    let single = form(vec![Property::new("name", StringSchema::new())])
        .with_message("Please provide your GitHub username")
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        to_json(single),
        read_json(dir.join("elicit-single-field.json"))
    );
    let multiple = form(vec![
        Property::new("name", StringSchema::new()).description("Your full name"),
        Property::new("email", StringSchema::new().format(Format::Email))
            .description("Your email address"),
        Property::new("age", NumberSchema::new().minimum(18.0))
            .description("Your age")
            .optional(),
    ])
    .with_message("Please provide your contact information")
    .unwrap_or_else(|e| panic!("{e}"));
    let (ours, theirs) = (
        to_json(multiple),
        read_json(dir.join("elicit-multiple-fields.json")),
    );
    assert!(same_json(&ours, &theirs), "{ours}\n{theirs}");
}

#[test]
#[ignore = "needs the MCP spec: set MCP_SPEC_DIR"]
fn url_elicitation_required_error_conforms_in_2025_11_25() {
    let error = UrlElicitationRequired::new(url_request())
        .and(url_request())
        .with_message("Authorization is required to access your Example Co files.")
        .to_jsonrpc_error();
    let response = to_json(error.response(2));
    assert_valid(
        Revision::V2025_11_25,
        "URLElicitationRequiredError",
        &response,
    );
    assert_valid(Revision::V2025_11_25, "JSONRPCErrorResponse", &response);
}

#[test]
#[ignore = "needs the MCP spec: set MCP_SPEC_DIR"]
fn completion_notification_conforms_in_2025_11_25() {
    let notification = to_json(url_request().completion());
    assert_valid(
        Revision::V2025_11_25,
        "ElicitationCompleteNotification",
        &notification,
    );
}

#[test]
#[ignore = "needs the MCP spec: set MCP_SPEC_DIR"]
fn missing_capability_is_missing_required_client_capability_error_in_2026_07_28() {
    for (support, mode) in [
        (ElicitationSupport::FORM, Mode::Url),
        (ElicitationSupport::NONE, Mode::Form),
    ] {
        let cannot = support
            .check(mode, Revision::V2026_07_28)
            .expect_err("mode not declared");
        let response = to_json(cannot.to_jsonrpc_error().response("call-9"));
        assert_valid(
            Revision::V2026_07_28,
            "MissingRequiredClientCapabilityError",
            &response,
        );
        // The required capability it names is itself a valid ClientCapabilities.
        let required = &response["error"]["data"]["requiredCapabilities"];
        assert_valid(Revision::V2026_07_28, "ClientCapabilities", required);
        assert_eq!(
            ElicitationSupport::from_client_capabilities(required).map(|s| s.supports(mode)),
            Ok(true)
        );
    }
}

#[test]
#[ignore = "needs the MCP spec: set MCP_SPEC_DIR"]
fn missing_capability_is_invalid_params_before_2026_07_28() {
    for revision in [Revision::V2025_06_18, Revision::V2025_11_25] {
        let cannot = ElicitationSupport::FORM
            .check(Mode::Url, revision)
            .expect_err("url not available");
        let response = to_json(cannot.to_jsonrpc_error().response(4));
        assert_eq!(response["error"]["code"], -32602);
        let definition = if revision == Revision::V2025_06_18 {
            "JSONRPCError"
        } else {
            "JSONRPCErrorResponse"
        };
        assert_valid(revision, definition, &response);
    }
}

#[test]
#[ignore = "needs the MCP spec: set MCP_SPEC_DIR"]
fn headless_tool_result_conforms_in_every_revision() {
    for revision in Revision::ALL {
        let cannot = ElicitationSupport::NONE
            .check(Mode::Form, revision)
            .expect_err("nothing declared");
        assert_valid(revision, "CallToolResult", &cannot.tool_result());
    }
}

#[test]
#[ignore = "needs the MCP spec: set MCP_SPEC_DIR"]
fn capabilities_are_read_from_the_spec_examples() {
    let dir = spec_dir().join("2026-07-28/examples/ClientCapabilities");
    for (file, expected) in [
        (
            "elicitation-form-and-url-mode-support.json",
            ElicitationSupport::FORM_AND_URL,
        ),
        (
            "elicitation-form-only-implicit.json",
            ElicitationSupport::FORM,
        ),
    ] {
        let capabilities = read_json(dir.join(file));
        for revision in [Revision::V2025_11_25, Revision::V2026_07_28] {
            assert_valid(revision, "ClientCapabilities", &capabilities);
        }
        let initialize = json!({
            "protocolVersion": "2025-11-25",
            "capabilities": capabilities,
            "clientInfo": {"name": "c", "version": "1"},
        });
        assert_valid(
            Revision::V2025_11_25,
            "InitializeRequestParams",
            &initialize,
        );
        assert_eq!(
            ElicitationSupport::from_params(Revision::V2025_11_25, &initialize),
            Ok(expected),
            "{file}"
        );
        let call = json!({"name": "deploy", "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": capabilities,
        }});
        assert_valid(Revision::V2026_07_28, "CallToolRequestParams", &call);
        assert_eq!(
            ElicitationSupport::from_params(Revision::V2026_07_28, &call),
            Ok(expected),
            "{file}"
        );
    }
}

#[test]
#[ignore = "needs the MCP spec: set MCP_SPEC_DIR"]
fn url_replies_from_the_spec_examples_are_consent_only() {
    let dir = spec_dir().join("2026-07-28/examples/ElicitResult");
    let reply = read_json(dir.join("accept-url-mode-no-content.json"));
    assert_eq!(UrlOutcome::from_reply(&reply), Ok(UrlOutcome::Accept));
    // A form reply answering a URL elicitation still means only consent: content is ignored.
    let with_content = read_json(dir.join("input-multiple-fields.json"));
    assert_eq!(
        UrlOutcome::from_reply(&with_content),
        Ok(UrlOutcome::Accept)
    );
}

#[test]
#[ignore = "needs the MCP spec: set MCP_SPEC_DIR"]
fn form_replies_from_the_spec_examples_parse_for_every_revision() {
    let dir = spec_dir().join("2026-07-28/examples/ElicitResult");
    let request = form(vec![
        Property::new("name", StringSchema::new()),
        Property::new("email", StringSchema::new().format(Format::Email)).optional(),
        Property::new("age", NumberSchema::new().minimum(18.0)).optional(),
    ]);
    for file in ["input-single-field.json", "input-multiple-fields.json"] {
        let reply = read_json(dir.join(file));
        for revision in Revision::ALL {
            assert_valid(revision, "ElicitResult", &reply);
            let outcome = request
                .for_revision(revision)
                .unwrap_or_else(|e| panic!("{e}"))
                .parse_reply(&reply);
            assert!(
                matches!(outcome, Ok(mcp_elicit::Elicitation::Accept(_))),
                "{revision} {file}: {outcome:?}"
            );
        }
    }
}

/// An answer to every field of `every_kind`, each keeping its rules but `count`, which breaks
/// its maximum; none is any field's declared default.
fn answer_breaking_only_count() -> Value {
    json!({
        "name": "Ada Lovelace", "email": "ada@example.com", "site": "https://example.com/ada",
        "day": "2026-07-28", "at": "2026-07-28T09:30:00Z", "count": 99, "ratio": 0.25,
        "confirm": true, "color": "Green", "titled_color": "#00FF00", "legacy_color": "#FF0000",
        "colors": ["Blue"], "titled_colors": ["#0000FF", "#00FF00"]
    })
}

/// A form asked again pre-fills, as defaults, the answers that kept their rules: every default
/// it writes is valid in each revision's schema, and 2025-06-18 gets the boolean's only.
#[test]
#[ignore = "needs the MCP spec: set MCP_SPEC_DIR"]
fn a_reasked_forms_prefilled_defaults_conform_in_every_revision() {
    let content = answer_breaking_only_count();
    let reply = json!({"action": "accept", "content": content});
    for (revision, asked) in [
        (Revision::V2026_07_28, every_kind()),
        (Revision::V2025_11_25, every_kind()),
        (Revision::V2025_06_18, form(single_value_properties())),
    ] {
        let error = asked.parse_reply(&reply).unwrap_err();
        let again = asked.reasked_keeping(&error, reply.get("content"));
        let params = form_params(&again, revision);
        if revision != Revision::V2025_06_18 {
            assert_valid(revision, "ElicitRequestFormParams", &params);
        }
        let mut request = json!({"method": "elicitation/create", "params": params});
        if revision == Revision::V2025_11_25 {
            request["jsonrpc"] = json!("2.0");
            request["id"] = json!(1);
        }
        assert_valid(revision, "ElicitRequest", &request);
        let properties = params["requestedSchema"]["properties"]
            .as_object()
            .unwrap_or_else(|| panic!("{revision}: no properties"));
        for (name, property) in properties {
            let default = property.get("default");
            let expected = match name.as_str() {
                // It broke its maximum: the form's own default stays.
                "count" if revision.has_defaults_beyond_booleans() => Some(json!(3)),
                "confirm" => Some(json!(true)),
                _ if !revision.has_defaults_beyond_booleans() => None,
                "count" => None,
                _ => content.get(name).cloned(),
            };
            assert!(
                match (default, &expected) {
                    (Some(a), Some(b)) => same_json(a, b),
                    (None, None) => true,
                    _ => false,
                },
                "{revision} {name}: default {default:?}, expected {expected:?}"
            );
        }
    }
}
