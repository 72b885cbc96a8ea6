//! `mcp_elicit::rmcp`: this crate's requests in rmcp's model types, and rmcp's replies read back.

use mcp_elicit::rmcp::{
    ConvertError, Stop, cannot_ask_result, elicitation_support, form_outcome, form_params,
    url_outcome, url_params,
};
use mcp_elicit::{
    Elicit, Elicitation, ElicitationSupport, Mode, Revision, UrlOutcome, UrlRequest,
    protocol::RevisionError,
};
use rmcp::model::{
    CallToolResponse, ClientCapabilities, ElicitRequestParams, ElicitResult, ElicitationAction,
    ElicitationCapability, UrlElicitationCapability,
};
use serde_json::{Value, json};

/// Where to deploy, and who to tell.
#[derive(Elicit, Debug)]
struct Deploy {
    #[elicit(title = "Environment", default = Env::Staging)]
    env: Env,
    /// Who to notify.
    #[elicit(format = "email")]
    notify: String,
    #[elicit(minimum = 1, maximum = 12, default = 3)]
    replicas: u8,
    #[elicit(minimum = 0.5, maximum = 2.0)]
    weight: Option<f64>,
    dry_run: Option<bool>,
}

#[derive(Elicit, Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[elicit(rename_all = "lowercase")]
enum Env {
    #[elicit(title = "Staging")]
    Staging,
    #[elicit(title = "Production", dangerous)]
    Production,
}

/// Which regions?
#[derive(Elicit, Debug)]
struct Regions {
    regions: Vec<Env>,
}

/// How many?
#[derive(Elicit, Debug)]
struct Huge {
    count: u64,
}

fn ours(request: &impl serde::Serialize) -> Value {
    serde_json::to_value(request).unwrap_or_default()
}

fn theirs(params: &ElicitRequestParams) -> Value {
    serde_json::to_value(params).unwrap_or_default()
}

#[test]
fn form_params_write_exactly_what_this_crate_writes() {
    let request = Deploy::form_request();
    for revision in [Revision::V2025_11_25, Revision::V2026_07_28] {
        let params = form_params(&request, revision).expect("converts");
        let expected = ours(&request.for_revision(revision).expect("expressible"));
        assert_eq!(theirs(&params), expected, "{revision}");
    }
}

#[test]
fn form_params_keep_the_field_order() {
    let params = form_params(&Deploy::form_request(), Revision::V2025_11_25).expect("converts");
    let text = serde_json::to_string(&params).unwrap_or_default();
    let at = |key: &str| text.find(&format!("\"{key}\":{{")).unwrap_or(usize::MAX);
    assert!(
        at("env") < at("notify") && at("notify") < at("replicas"),
        "{text}"
    );
}

#[test]
fn form_params_for_2025_06_18_write_titled_options_as_enum_names() {
    let params = form_params(&Deploy::form_request(), Revision::V2025_06_18).expect("converts");
    let env = &theirs(&params)["requestedSchema"]["properties"]["env"];
    assert_eq!(env["enum"], json!(["staging", "production"]));
    assert_eq!(env["enumNames"], json!(["Staging", "Production"]));
}

#[test]
fn a_multi_select_is_refused_for_2025_06_18_not_degraded() {
    let err = form_params(&Regions::form_request(), Revision::V2025_06_18).unwrap_err();
    assert!(matches!(
        err,
        ConvertError::Revision(RevisionError::MultiSelectUnsupported { .. })
    ));
}

#[test]
fn a_bound_rmcp_cannot_hold_is_refused_not_dropped() {
    // u64's own maximum does not fit rmcp's i64 bounds.
    let err = form_params(&Huge::form_request(), Revision::V2025_11_25).unwrap_err();
    assert!(matches!(err, ConvertError::Refused { .. }), "{err}");
}

#[test]
fn url_params_carry_the_elicitation_id_in_2025_11_25_only() {
    let request = UrlRequest::new("Connect GitHub.", "https://example.com/connect?flow=1")
        .expect("a safe URL");
    let ElicitRequestParams::UrlElicitationParams {
        url,
        elicitation_id,
        ..
    } = url_params(&request, Revision::V2025_11_25).expect("converts")
    else {
        panic!("not URL params")
    };
    assert_eq!(url, "https://example.com/connect?flow=1");
    assert_eq!(elicitation_id, request.elicitation_id().as_str());
    assert!(matches!(
        url_params(&request, Revision::V2025_06_18),
        Err(ConvertError::Revision(
            RevisionError::UrlModeUnsupported { .. }
        ))
    ));
}

#[test]
fn rmcp_replies_read_as_typed_outcomes() {
    let request = Deploy::form_request();
    let accepted = ElicitResult::new(ElicitationAction::Accept).with_content(json!({
        "env": "production", "notify": "ops@example.com", "replicas": 4
    }));
    match form_outcome(&request, accepted.clone()) {
        Ok(Elicitation::Accept(deploy)) => assert_eq!(deploy.env, Env::Production),
        other => panic!("{other:?}"),
    }
    let declined = ElicitResult::new(ElicitationAction::Decline);
    assert!(matches!(
        form_outcome(&request, declined.clone()),
        Ok(Elicitation::Decline)
    ));
    let invalid = ElicitResult::new(ElicitationAction::Accept)
        .with_content(json!({"env": "prod", "notify": "x", "replicas": 40}));
    let err = form_outcome(&request, invalid.clone()).unwrap_err();
    assert_eq!(err.violations().map(|v| v.len()), Some(3), "{err}");

    let consent = ElicitResult::new(ElicitationAction::Accept);
    assert_eq!(url_outcome("connect", &consent), Ok(UrlOutcome::Accept));
}

#[test]
fn capabilities_read_from_rmcp_types() {
    assert_eq!(elicitation_support(None), ElicitationSupport::NONE);
    assert_eq!(
        elicitation_support(Some(&ClientCapabilities::default())),
        ElicitationSupport::NONE
    );
    let mut caps = ClientCapabilities::default();
    caps.elicitation = Some(ElicitationCapability::default());
    assert_eq!(elicitation_support(Some(&caps)), ElicitationSupport::FORM);
    let mut url_only = ElicitationCapability::default();
    url_only.url = Some(UrlElicitationCapability::default());
    caps.elicitation = Some(url_only);
    let support = elicitation_support(Some(&caps));
    assert!(support.supports(Mode::Url) && !support.supports(Mode::Form));
}

/// One shape for the cannot-ask result: rmcp's, whether converted or returned by a stopped tool,
/// is the core's `CannotAsk::tool_result` on every revision (`resultType` on 2026-07-28 only).
#[test]
fn the_cannot_ask_result_in_rmcp_is_the_cores_on_every_revision() {
    for revision in Revision::ALL {
        for mode in [Mode::Form, Mode::Url] {
            let Err(cannot) = ElicitationSupport::NONE.check(mode, revision) else {
                panic!("a client without elicitation cannot be asked")
            };
            let cannot = cannot.with_hint("Pass `env` as an argument.");
            let core = cannot.tool_result();
            let converted = cannot_ask_result(&cannot).expect("rmcp holds the result");
            assert_eq!(
                serde_json::to_value(&converted).expect("serializes"),
                core,
                "{revision} {mode}"
            );
            let Ok(CallToolResponse::Complete(returned)) = Stop::CannotAsk(cannot).into_response()
            else {
                panic!("a tool that cannot ask returns a complete result ({revision} {mode})")
            };
            assert_eq!(
                serde_json::to_value(&returned).expect("serializes"),
                core,
                "{revision} {mode}"
            );
        }
    }
}

#[test]
fn a_headless_client_gets_an_error_result_naming_the_capability() {
    let Err(cannot) = ElicitationSupport::NONE.check(Mode::Url, Revision::V2026_07_28) else {
        panic!("a client without elicitation cannot be asked")
    };
    let result = cannot_ask_result(&cannot).expect("rmcp holds the result");
    assert_eq!(result.is_error, Some(true));
    let text = serde_json::to_value(&result).unwrap_or_default()["content"][0]["text"].clone();
    let text = text.as_str().unwrap_or_default();
    assert!(text.contains("elicitation.url"), "{text}");
    assert!(text.contains("Nothing was changed"), "{text}");
}

/// `input_required` checks a question's requests once and reuses rmcp's value for the same JSON:
/// each call still carries its own state, and the result is what the check would give.
#[test]
fn a_question_checked_once_carries_each_calls_own_state() {
    use mcp_elicit::mrtr::{InputRequests, InputRequiredResult};
    use mcp_elicit::rmcp::input_required;

    let requests = InputRequests::new()
        .elicit("deploy", &Deploy::form_request())
        .expect("one key");
    for state in ["state-1", "state-2", "state-3"] {
        let ours =
            InputRequiredResult::new(requests.clone(), Some(state.to_owned())).expect("a result");
        let theirs = input_required(&ours).expect("rmcp carries it");
        assert_eq!(theirs.request_state.as_deref(), Some(state));
        assert_eq!(
            serde_json::to_value(&theirs).expect("rmcp writes it"),
            ours.to_value()
        );
    }
}

/// What rmcp cannot carry is refused on every call, not only the first: a refusal is never kept
/// as if it had been checked.
#[test]
fn a_question_rmcp_cannot_carry_is_refused_every_time() {
    use mcp_elicit::mrtr::{InputRequests, InputRequiredResult};
    use mcp_elicit::rmcp::input_required;

    let requests = InputRequests::new()
        .elicit("count", &Huge::form_request())
        .expect("one key");
    for state in ["state-1", "state-2"] {
        let ours =
            InputRequiredResult::new(requests.clone(), Some(state.to_owned())).expect("a result");
        let err = input_required(&ours).unwrap_err();
        assert!(matches!(err, ConvertError::Refused { .. }), "{err}");
    }
}

/// The results of [`Round::answer`](mcp_elicit::mrtr::Round::answer) for a derived form are known
/// by where the form's request was made, and rmcp's value for them reused. Each call still
/// carries its own state, the result is what the check gives, neither two forms under one key
/// nor one form under two keys are confused, and what rmcp cannot carry is refused on every call.
#[test]
fn a_derived_forms_question_from_a_round_converts_as_checked() {
    use mcp_elicit::mrtr::{Answer, Ask, Asks, InputRequiredResult, Retry, Rounds};
    use mcp_elicit::rmcp::input_required;
    use mcp_elicit::state::{Binding, KeyId, ParamsDigest, StateKey, StateKeys, UnixTime};

    let rounds = Rounds::new(StateKeys::single(
        KeyId::new(4),
        StateKey::from_bytes([6; 32]),
    ));
    fn ask<A: Asks>(rounds: &Rounds, asks: A) -> InputRequiredResult {
        let params = json!({
            "name": "deploy",
            "_meta": {"io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}},
        });
        let binding = Binding {
            principal: "ops-1",
            method: "tools/call",
            params_digest: ParamsDigest::of_request_params(&params),
        };
        let retry = Retry::from_params(&params).expect("well-formed");
        let mut round = rounds
            .round::<()>(retry, binding, UnixTime::now())
            .expect("opens");
        match round.answer(asks).expect("answers") {
            Answer::Ask(result) => result,
            Answer::Ready(_) | Answer::Rejected(_) => panic!("a first round asks"),
        }
    }

    let mut states = Vec::new();
    for _ in 0..3 {
        let ours = ask(&rounds, Ask::form::<Deploy>("deploy"));
        let theirs = input_required(&ours).expect("rmcp carries it");
        assert_eq!(theirs.request_state.as_deref(), ours.request_state());
        assert_eq!(
            serde_json::to_value(&theirs).expect("rmcp writes it"),
            ours.to_value()
        );
        states.push(ours.request_state().map(str::to_owned));
    }
    states.dedup();
    assert_eq!(states.len(), 3, "each call seals its own state");

    let other = ask(&rounds, Ask::form::<Regions>("deploy"));
    let theirs = input_required(&other).expect("rmcp carries it");
    assert_eq!(
        serde_json::to_value(&theirs).expect("rmcp writes it"),
        other.to_value(),
        "another form under the same key is another question"
    );

    for key in ["first", "second", "first"] {
        let ours = ask(&rounds, Ask::form::<Deploy>(key));
        let theirs = input_required(&ours).expect("rmcp carries it");
        assert_eq!(
            serde_json::to_value(&theirs).expect("rmcp writes it"),
            ours.to_value(),
            "the same form under another key is another set of requests"
        );
    }

    for _ in 0..2 {
        let ours = ask(&rounds, Ask::form::<Huge>("count"));
        let err = input_required(&ours).unwrap_err();
        assert!(matches!(err, ConvertError::Refused { .. }), "{err}");
    }
}
