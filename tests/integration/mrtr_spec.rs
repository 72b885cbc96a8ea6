//! Multi round-trip requests against the 2026-07-28 spec's own files: its `InputRequiredResult`,
//! `InputRequests` and `InputResponses` examples, and its `schema.json`.
//!
//! Ignored by default; run with the spec checked out:
//! `MCP_SPEC_DIR=/path/to/mcp-spec cargo test -p elicit-integration-tests --features spec --test mrtr_spec -- --ignored`
//! (`MCP_SPEC_DIR` holds `2026-07-28/`). A run without the variable fails loudly.

use std::path::PathBuf;

use mcp_elicit::mrtr::{Answer, Ask, InputRequests, InputRequiredResult, Retry, Rounds};
use mcp_elicit::state::{Binding, KeyId, ParamsDigest, StateKey, StateKeys, UnixTime};
use mcp_elicit::{
    Elicitation, FormRequest,
    schema::{
        BooleanSchema, EnumOption, IntegerSchema, Property, RequestedSchema, SelectSchema,
        StringSchema,
    },
};
use serde_json::{Map, Value, json};

fn spec_dir() -> PathBuf {
    let dir = std::env::var_os("MCP_SPEC_DIR").unwrap_or_else(|| {
        panic!("MCP_SPEC_DIR is not set: point it at the MCP spec (the folder holding 2026-07-28/)")
    });
    PathBuf::from(dir).join("2026-07-28")
}

fn read(relative: &str) -> Value {
    let path = spec_dir().join(relative);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

fn examples(kind: &str) -> Vec<(String, Value)> {
    let dir = spec_dir().join("examples").join(kind);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no examples in {}", dir.display());
    files
        .into_iter()
        .map(|path| {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (
                name,
                read(&format!(
                    "examples/{kind}/{}",
                    path.file_name().unwrap().to_string_lossy()
                )),
            )
        })
        .collect()
}

/// A validator for one `$defs` entry of the spec's schema.json.
fn validator(definition: &str) -> jsonschema::Validator {
    let mut schema = read("schema.json");
    schema["$ref"] = json!(format!("#/$defs/{definition}"));
    jsonschema::validator_for(&schema)
        .unwrap_or_else(|e| panic!("schema.json does not compile: {e}"))
}

fn assert_valid(validator: &jsonschema::Validator, instance: &Value, what: &str) {
    let errors: Vec<String> = validator
        .iter_errors(instance)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "{what} breaks the schema:\n{}\n{instance:#}",
        errors.join("\n")
    );
}

/// The spec example's `github_login` form and `capital_of_france` sampling request.
fn github_login() -> FormRequest {
    let schema = RequestedSchema::new(vec![Property::new("name", StringSchema::new())]).unwrap();
    FormRequest::new("Please provide your GitHub username", schema).unwrap()
}

fn capital_of_france() -> Value {
    json!({
        "messages": [{ "role": "user", "content": { "type": "text", "text": "What is the capital of France?" } }],
        "maxTokens": 100,
    })
}

fn rounds() -> Rounds {
    Rounds::new(StateKeys::single(
        KeyId::new(1),
        StateKey::from_bytes([1; 32]),
    ))
}

const NOW: UnixTime = UnixTime::from_secs(1_800_000_000);

fn binding(params: &Value) -> Binding<'_> {
    Binding {
        principal: "octocat",
        method: "tools/call",
        params_digest: ParamsDigest::of_request_params(params),
    }
}

#[test]
#[ignore = "needs the MCP spec: set MCP_SPEC_DIR"]
fn spec_input_required_results_round_trip() {
    for (name, example) in examples("InputRequiredResult") {
        let result: InputRequiredResult =
            serde_json::from_value(example.clone()).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(
            serde_json::to_value(&result).unwrap(),
            example,
            "{name} round-trips"
        );
    }
}

#[test]
#[ignore = "needs the MCP spec: set MCP_SPEC_DIR"]
fn spec_input_requests_are_what_the_builder_produces() {
    let (name, example) = examples("InputRequests").remove(0);
    let built = InputRequests::new()
        .elicit("github_login", &github_login())
        .unwrap()
        .sampling("capital_of_france", capital_of_france())
        .unwrap();
    assert_eq!(serde_json::to_value(&built).unwrap(), example, "{name}");
}

#[test]
#[ignore = "needs the MCP spec: set MCP_SPEC_DIR"]
fn spec_input_responses_are_read_by_key() {
    let (_, responses) = examples("InputResponses").remove(0);
    let rounds = rounds();
    let params = json!({
        "name": "whoami",
        "_meta": { "io.modelcontextprotocol/clientCapabilities": { "elicitation": {}, "sampling": {} } },
    });
    let asks = || {
        (
            Ask::form_request("github_login", github_login()),
            Ask::sampling("capital_of_france", capital_of_france()),
        )
    };

    let mut first = rounds
        .round::<()>(Retry::from_params(&params).unwrap(), binding(&params), NOW)
        .unwrap();
    let Answer::Ask(result) = first.answer(asks()).unwrap() else {
        panic!("round 1 asks")
    };

    let mut retry = params.clone();
    retry["inputResponses"] = responses.clone();
    retry["requestState"] = json!(result.request_state().unwrap());
    let mut second = rounds
        .round::<()>(Retry::from_params(&retry).unwrap(), binding(&retry), NOW)
        .unwrap();
    let Answer::Ready((login, capital)) = second.answer(asks()).unwrap() else {
        panic!("round 2 has every answer")
    };
    let Elicitation::Accept(login) = login else {
        panic!("accepted")
    };
    assert_eq!(login["name"], "octocat");
    assert_eq!(capital, responses["capital_of_france"]);
}

#[test]
#[ignore = "needs the MCP spec: set MCP_SPEC_DIR"]
fn spec_examples_validate_against_the_schema() {
    let result = validator("InputRequiredResult");
    for (name, example) in examples("InputRequiredResult") {
        assert_valid(&result, &example, &name);
    }
    let requests = validator("InputRequests");
    for (name, example) in examples("InputRequests") {
        assert_valid(&requests, &example, &name);
    }
    // The validator is not vacuous: a wrong type is caught.
    assert!(!result.is_valid(&json!({ "resultType": "input_required", "requestState": 7 })));
    assert!(!requests.is_valid(&json!({ "x": { "method": "elicitation/create", "params": {} } })));
}

#[test]
#[ignore = "needs the MCP spec: set MCP_SPEC_DIR"]
fn every_generated_input_required_result_validates_against_the_schema() {
    let result_schema = validator("InputRequiredResult");
    let requests_schema = validator("InputRequests");
    let rounds = rounds();
    let params = json!({
        "name": "deploy",
        "arguments": { "service": "billing-api" },
        "_meta": { "io.modelcontextprotocol/clientCapabilities": { "elicitation": { "form": {} }, "sampling": {}, "roots": {} } },
    });
    let every_kind = RequestedSchema::new(vec![
        Property::new("name", StringSchema::new()).title("Name"),
        Property::new("replicas", IntegerSchema::new()).required(false),
        Property::new("confirm", BooleanSchema::new()),
        Property::new(
            "env",
            SelectSchema::new(vec![
                EnumOption::titled("staging", "Staging"),
                EnumOption::new("production"),
            ]),
        ),
    ])
    .unwrap();
    let deploy = FormRequest::new("Where, and how many replicas?", every_kind).unwrap();

    let mut generated: Vec<(&str, InputRequiredResult)> = Vec::new();
    let mut round = rounds
        .round::<Map<String, Value>>(Retry::from_params(&params).unwrap(), binding(&params), NOW)
        .unwrap();
    let Answer::Ask(mixed) = round
        .answer((
            Ask::form_request("deploy", deploy.clone()),
            Ask::form_request("login", github_login()),
            Ask::sampling("summary", capital_of_france()),
            Ask::roots("workspace"),
        ))
        .unwrap()
    else {
        panic!("asks")
    };
    generated.push(("a round of every request kind", mixed.clone()));

    // A re-ask after an invalid answer, a state-only checkpoint, and the hand-built ones.
    let mut retry = params.clone();
    retry["inputResponses"] = json!({ "deploy": { "action": "accept", "content": { "name": 5 } } });
    retry["requestState"] = json!(mixed.request_state().unwrap());
    let mut again = rounds
        .round::<Map<String, Value>>(Retry::from_params(&retry).unwrap(), binding(&retry), NOW)
        .unwrap();
    let Answer::Ask(reask) = again.answer(Ask::form_request("deploy", deploy)).unwrap() else {
        panic!("re-asks")
    };
    generated.push(("a re-ask", reask));
    again.keep(Map::from_iter([("progress".to_owned(), json!("50%"))]));
    generated.push(("a checkpoint", again.checkpoint().unwrap()));
    generated.push((
        "state only",
        InputRequiredResult::new(InputRequests::new(), Some("opaque".into())).unwrap(),
    ));
    generated.push((
        "requests only",
        InputRequiredResult::new(InputRequests::new().roots("r").unwrap(), None).unwrap(),
    ));

    for (what, result) in &generated {
        let value = serde_json::to_value(result).unwrap();
        assert_valid(&result_schema, &value, what);
        if let Some(requests) = value.get("inputRequests") {
            assert_valid(&requests_schema, requests, what);
        }
    }
}
