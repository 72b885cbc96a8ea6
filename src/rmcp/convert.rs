//! Conversions between this crate's types and rmcp's: the bottom of the rmcp integration, which
//! every other part of it builds on.

use std::fmt;

use ::rmcp::ErrorData;
use ::rmcp::model::{
    CallToolResult, ClientCapabilities, ElicitRequestParams, ElicitResult, ElicitationAction,
    ElicitationSchema, ErrorCode, ProtocolVersion,
};
use serde_json::Value;

use crate::mrtr::MrtrError;
use crate::observe::{self, Outcome};
use crate::{
    Elicitation, ElicitationSupport, FormRequest, Revision, UrlOutcome, UrlRequest,
    protocol::jsonrpc::JsonRpcError,
    protocol::{CannotAsk, RevisionError},
    reply::{Action, FromContent, MalformedReply, ReplyError},
    schema::RequestedSchema,
};

/// A request of this crate that rmcp's model types cannot carry as it is.
///
/// Nothing is sent when this happens: rmcp would have dropped or changed part of the question.
#[derive(Debug)]
#[non_exhaustive]
pub enum ConvertError {
    /// The revision cannot express the request (e.g. a multi-select for 2025-06-18).
    Revision(RevisionError),
    /// rmcp's types refused the request's JSON (e.g. an integer bound beyond `i64`).
    Refused {
        /// What was being converted.
        what: &'static str,
        /// serde's message.
        error: String,
    },
    /// rmcp accepted the JSON but would write something else: it has no field for part of it.
    Lossy {
        /// What was being converted.
        what: &'static str,
    },
}

impl fmt::Display for ConvertError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConvertError::Revision(e) => fmt::Display::fmt(e, f),
            ConvertError::Refused { what, error } => {
                write!(f, "rmcp cannot represent this {what}: {error}")
            }
            ConvertError::Lossy { what } => write!(
                f,
                "rmcp would change this {what} on the wire (it has no field for part of it); nothing was sent"
            ),
        }
    }
}

impl std::error::Error for ConvertError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ConvertError::Revision(e) => Some(e),
            _ => None,
        }
    }
}

impl From<RevisionError> for ConvertError {
    fn from(e: RevisionError) -> Self {
        ConvertError::Revision(e)
    }
}

/// Move `ours` (anything this crate serializes) into an rmcp type through JSON (a `Value`, whose
/// maps keep their order under the `preserve_order` the `rmcp` feature turns on), and check that
/// rmcp writes back exactly what we wrote.
fn through_json<S: serde::Serialize, R>(what: &'static str, ours: &S) -> Result<R, ConvertError>
where
    R: serde::Serialize + serde::de::DeserializeOwned,
{
    through_json_with(what, ours, |_| {})
}

/// [`through_json`], first removing from rmcp's output what rmcp always adds (`normalize`).
fn through_json_with<S: serde::Serialize, R>(
    what: &'static str,
    ours: &S,
    normalize: impl Fn(&mut Value),
) -> Result<R, ConvertError>
where
    R: serde::Serialize + serde::de::DeserializeOwned,
{
    let refused = |error: serde_json::Error| ConvertError::Refused {
        what,
        error: error.to_string(),
    };
    // Through a `Value`, not text: read back from the tree, rmcp's type costs no second parse of
    // the JSON (a derived form's schema is most of an input-required result; this runs on every
    // question a 2026-07-28 server asks).
    let ours = serde_json::to_value(ours).map_err(refused)?;
    let theirs = R::deserialize(&ours).map_err(refused)?;
    let mut back = serde_json::to_value(&theirs).map_err(refused)?;
    normalize(&mut back);
    if back != ours {
        return Err(ConvertError::Lossy { what });
    }
    Ok(theirs)
}

/// The `elicitation/create` params of a form, as `revision` writes them, in rmcp's type.
///
/// ```
/// use mcp_elicit::{FormRequest, Revision, schema::{Property, RequestedSchema, StringSchema}};
/// use rmcp::model::ElicitRequestParams;
///
/// let schema = RequestedSchema::new(vec![Property::new("name", StringSchema::new())])?;
/// let request = FormRequest::new("What is your name?", schema)?;
/// let params = mcp_elicit::rmcp::form_params(&request, Revision::V2025_11_25)?;
/// let ElicitRequestParams::FormElicitationParams { message, requested_schema, .. } = params else {
///     unreachable!()
/// };
/// assert_eq!(message, "What is your name?");
/// assert_eq!(requested_schema.required, Some(vec!["name".to_owned()]));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn form_params<T>(
    request: &FormRequest<T>,
    revision: Revision,
) -> Result<ElicitRequestParams, ConvertError> {
    let revisioned = request.for_revision(revision)?;
    if revision.has_mode_field() {
        return through_json("form request", &revisioned);
    }
    // rmcp always writes `mode`, which 2025-06-18 does not have; compare without it.
    let text = serde_json::to_string(&revisioned).map_err(|e| ConvertError::Refused {
        what: "form request",
        error: e.to_string(),
    })?;
    let mut ours: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
    if let Some(object) = ours.as_object_mut() {
        object.insert("mode".to_owned(), Value::from("form"));
    }
    let params: ElicitRequestParams = through_json("form request", &ours)?;
    Ok(params)
}

/// The `requestedSchema` of a form, as `revision` writes it, in rmcp's type.
pub fn elicitation_schema(
    schema: &RequestedSchema,
    revision: Revision,
) -> Result<ElicitationSchema, ConvertError> {
    let request =
        FormRequest::new("schema", schema.clone()).map_err(|e| ConvertError::Refused {
            what: "schema",
            error: e.to_string(),
        })?;
    match form_params(&request, revision)? {
        ElicitRequestParams::FormElicitationParams {
            requested_schema, ..
        } => Ok(requested_schema),
        _ => Err(ConvertError::Lossy { what: "schema" }),
    }
}

/// The `elicitation/create` params of a URL request, as `revision` writes them, in rmcp's type.
/// 2025-06-18 has no URL mode ([`ConvertError::Revision`]).
///
/// rmcp always writes an `elicitationId`; for 2026-07-28, which has none, it writes `""`
/// (unless the request writes its id on every revision,
/// [`UrlRequest::with_elicitation_id_on_every_revision`]).
pub fn url_params(
    request: &UrlRequest,
    revision: Revision,
) -> Result<ElicitRequestParams, ConvertError> {
    request.for_revision(revision)?;
    let elicitation_id = if request.writes_elicitation_id(revision) {
        request.elicitation_id().as_str().to_owned()
    } else {
        String::new()
    };
    Ok(ElicitRequestParams::UrlElicitationParams {
        meta: None,
        message: request.message().to_owned(),
        url: request.url().as_str().to_owned(),
        elicitation_id,
    })
}

/// A 2026-07-28 URL question as its host needs it on the wire: for a host whose row says it
/// needs an `elicitationId` on a revision that removed it (`needs_id`:
/// [`Host::url_needs_elicitation_id`](crate::hosts::Host::url_needs_elicitation_id), GitHub
/// Copilot CLI 1.0.102), the question carries the flow's own id
/// ([`FlowId::elicitation_id`](crate::url_mode::FlowId::elicitation_id)), the id a completion
/// of the flow names; for any other client it is `request` as it is, with no `elicitationId`.
pub(crate) fn url_question_for_host(
    request: UrlRequest,
    needs_id: bool,
    flow: &crate::url_mode::FlowId,
) -> UrlRequest {
    if needs_id {
        request
            .with_elicitation_id(flow.elicitation_id())
            .with_elicitation_id_on_every_revision()
    } else {
        request
    }
}

/// An input-required result of the [`mrtr`](crate::mrtr) module in rmcp's type, to return from a
/// handler (`.into()` a `CallToolResponse`, `GetPromptResponse` or `ReadResourceResponse`).
///
/// rmcp writes `"elicitationId": ""` into a URL elicitation, which 2026-07-28 does not have; it
/// is the one difference tolerated.
pub fn input_required(
    result: &crate::mrtr::InputRequiredResult,
) -> Result<::rmcp::model::InputRequiredResult, ConvertError> {
    // The requests are what a tool asks, the same JSON on every call that asks it; only the
    // state differs, and it is one string field of rmcp's type. So the requests go through the
    // lossless check once: after that, the same JSON is rmcp's value from then. A derived form's
    // request is known by where it was made (once per type), so it is not even written out.
    // A URL question is not kept: its URL carries its flow (and before 2026-07-28 its
    // `elicitationId`), new on almost every call, so keeping it would only push the form
    // questions out.
    let requests = result.input_requests();
    let asked = match elicit_core::__private::input_request_places(requests) {
        Some(places) => places_key(&places),
        None if asks_a_url(requests) => return checked_input_required(result),
        None => match serde_json::to_string(requests) {
            Ok(json) => json,
            Err(_) => return checked_input_required(result),
        },
    };
    if let Some(requests) = CHECKED_REQUESTS.get(&asked) {
        let state = result.request_state().map(str::to_owned);
        return Ok(::rmcp::model::InputRequiredResult::new(
            (*requests).clone(),
            state,
        ));
    }
    let theirs = checked_input_required(result)?;
    CHECKED_REQUESTS.put(asked, theirs.input_requests.clone());
    Ok(theirs)
}

/// Whether any of `requests` is a URL-mode elicitation.
fn asks_a_url(requests: &crate::mrtr::InputRequests) -> bool {
    requests
        .iter()
        .any(|(_, request)| request.pointer("/params/mode").and_then(Value::as_str) == Some("url"))
}

/// The key of requests known by where they were made: each key's length, the key and the place,
/// so no two lists share one; it starts with `#`, so no JSON key (`{...}`) is the same.
fn places_key(places: &[(&str, usize)]) -> String {
    use std::fmt::Write as _;
    let mut key = String::from("#");
    for (name, place) in places {
        let _ = write!(key, "{}:{name}:{place:x};", name.len());
    }
    key
}

/// [`input_required`] through JSON, with the lossless check.
fn checked_input_required(
    result: &crate::mrtr::InputRequiredResult,
) -> Result<::rmcp::model::InputRequiredResult, ConvertError> {
    through_json_with("input-required result", result, |back| {
        without_empty_elicitation_ids(back);
    })
}

/// The input requests [`input_required`] has checked, by their JSON or, for derived forms, by
/// where they were made ([`places_key`]): at most
/// [`CheckedRequests::MOST`], forgotten all at once past that (a tool that writes each question
/// anew, a name in its message, pays the check on every call, as before).
static CHECKED_REQUESTS: CheckedRequests =
    CheckedRequests(std::sync::LazyLock::new(Default::default));

type RmcpRequests = Option<::rmcp::model::InputRequests>;

struct CheckedRequests(
    std::sync::LazyLock<
        std::sync::Mutex<std::collections::HashMap<String, std::sync::Arc<RmcpRequests>>>,
    >,
);

impl CheckedRequests {
    const MOST: usize = 256;

    fn get(&self, asked: &str) -> Option<std::sync::Arc<RmcpRequests>> {
        let checked = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        checked.get(asked).cloned()
    }

    fn put(&self, asked: String, theirs: RmcpRequests) {
        let mut checked = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if checked.len() >= Self::MOST {
            checked.clear();
        }
        checked.insert(asked, std::sync::Arc::new(theirs));
    }
}

/// Removes the `"elicitationId": ""` rmcp writes into each URL request of an input-required
/// result (JSON); whether there was one.
pub(crate) fn without_empty_elicitation_ids(result: &mut Value) -> bool {
    let mut removed = false;
    let requests = result
        .get_mut("inputRequests")
        .and_then(Value::as_object_mut);
    for request in requests.into_iter().flat_map(|r| r.values_mut()) {
        let params = request.get_mut("params").and_then(Value::as_object_mut);
        if let Some(params) = params
            && params.get("mode").and_then(Value::as_str) == Some("url")
            && params.get("elicitationId").and_then(Value::as_str) == Some("")
        {
            params.remove("elicitationId");
            removed = true;
        }
    }
    removed
}

/// A [`MrtrError`] as rmcp's error: the same code, message and `data`.
pub fn mrtr_error(error: &MrtrError) -> ErrorData {
    jsonrpc_error(&error.to_jsonrpc_error())
}

/// This crate's JSON-RPC error as rmcp's.
pub fn jsonrpc_error(error: &JsonRpcError) -> ErrorData {
    ErrorData::new(
        ErrorCode(error.code()),
        error.message().to_owned(),
        error.data().cloned(),
    )
}

/// The action of rmcp's `ElicitResult` (an action a later rmcp adds is malformed here).
pub fn action_of(result: &ElicitResult) -> Result<Action, ReplyError> {
    match result.action {
        ElicitationAction::Accept => Ok(Action::Accept),
        ElicitationAction::Decline => Ok(Action::Decline),
        ElicitationAction::Cancel => Ok(Action::Cancel),
        _ => Err(ReplyError::Malformed(MalformedReply::UnknownAction)),
    }
}

/// Read rmcp's `ElicitResult` for a form: validated against every rule of the form, and
/// recorded in [`observe`].
pub fn form_outcome<T: FromContent>(
    request: &FormRequest<T>,
    result: ElicitResult,
) -> Result<Elicitation<T>, ReplyError> {
    request.parse_parts(counted_action(request.name(), &result)?, result.content)
}

/// [`action_of`], counting an action this crate does not know as a rejected reply in
/// [`observe`] under `name` (a reply that is read counts itself).
pub(super) fn counted_action(name: &str, result: &ElicitResult) -> Result<Action, ReplyError> {
    action_of(result).inspect_err(|_| observe::answered(name, Outcome::Rejected))
}

/// Read rmcp's `ElicitResult` for a URL request: only the action matters. Recorded in
/// [`observe`] under `name`.
pub fn url_outcome(name: &str, result: &ElicitResult) -> Result<UrlOutcome, ReplyError> {
    let outcome = action_of(result).map(UrlOutcome::from_action);
    observe::answered(
        name,
        outcome.as_ref().map_or(Outcome::Rejected, |o| o.outcome()),
    );
    outcome
}

/// The tool result for a client that cannot be asked, in rmcp's type: [`CannotAsk::tool_result`]
/// (`isError: true`, and text saying which capability is missing, that nothing was changed, and
/// what the user can do instead), the same JSON on every revision. A [`ConvertError`] if rmcp's
/// type would write something else, never a different result.
///
/// ```
/// use mcp_elicit::{ElicitationSupport, Mode, Revision};
/// let Err(headless) = ElicitationSupport::NONE.check(Mode::Form, Revision::V2025_11_25) else {
///     unreachable!()
/// };
/// let headless = headless.with_hint("Pass `env` as an argument.");
/// let result = mcp_elicit::rmcp::cannot_ask_result(&headless)?;
/// assert_eq!(result.is_error, Some(true));
/// let text = &result.content[0].as_text().unwrap().text;
/// assert!(text.contains("capabilities.elicitation.form"));
/// assert!(text.ends_with("Pass `env` as an argument."));
/// assert_eq!(serde_json::to_value(&result)?, headless.tool_result());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn cannot_ask_result(cannot: &CannotAsk) -> Result<CallToolResult, ConvertError> {
    through_json("cannot-ask result", &cannot.tool_result())
}

/// What the client declared, in this crate's terms. rmcp's `{}` (no mode named) is form only.
pub fn elicitation_support(capabilities: Option<&ClientCapabilities>) -> ElicitationSupport {
    support_of(capabilities_json(capabilities).as_ref())
}

/// rmcp's capabilities as the JSON this crate reads them from.
pub(crate) fn capabilities_json(capabilities: Option<&ClientCapabilities>) -> Option<Value> {
    capabilities.and_then(|c| serde_json::to_value(c).ok())
}

/// [`elicitation_support`] of capabilities already in JSON ([`capabilities_json`]).
pub(crate) fn support_of(capabilities: Option<&Value>) -> ElicitationSupport {
    capabilities
        .and_then(|c| ElicitationSupport::from_client_capabilities(c).ok())
        .unwrap_or(ElicitationSupport::NONE)
}

/// The revision of an rmcp protocol version, if it is one with elicitation.
pub fn revision(version: &ProtocolVersion) -> Option<Revision> {
    version.as_str().parse().ok()
}

/// rmcp's protocol version of a revision: the inverse of [`revision`].
pub fn protocol_version(revision: Revision) -> ProtocolVersion {
    match revision {
        Revision::V2025_06_18 => ProtocolVersion::V_2025_06_18,
        Revision::V2025_11_25 => ProtocolVersion::V_2025_11_25,
        Revision::V2026_07_28 => ProtocolVersion::V_2026_07_28,
        // A revision newer than this list: rmcp reads any version string.
        other => serde_json::from_value(Value::from(other.as_str())).unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mrtr::{InputRequests, InputRequiredResult};
    use crate::schema::{Property, RequestedSchema, StringSchema};

    fn result(requests: InputRequests) -> InputRequiredResult {
        InputRequiredResult::new(requests, Some("state".to_owned())).expect("a result")
    }

    /// URL questions, new on every call, are converted (and checked) every time and never kept:
    /// however many are asked, a form question's entry stays.
    #[test]
    fn url_questions_do_not_push_form_questions_out() {
        let schema = RequestedSchema::new(vec![Property::new("name", StringSchema::new())])
            .expect("a schema");
        let form = FormRequest::new("Which name, for the cache test?", schema).expect("a form");
        let form = result(InputRequests::new().elicit("name", &form).expect("one key"));
        let form_key = serde_json::to_string(form.input_requests()).expect("JSON");
        input_required(&form).expect("rmcp carries a form");
        assert!(
            CHECKED_REQUESTS.get(&form_key).is_some(),
            "a form question is kept"
        );

        for n in 0..=CheckedRequests::MOST {
            let url = format!("https://pages.example/connect/{n}");
            let request = UrlRequest::new("Connect your account.", &url).expect("a URL");
            let asked = result(
                InputRequests::new()
                    .elicit_url("connect", &request)
                    .expect("one key"),
            );
            let theirs = input_required(&asked).expect("rmcp carries a URL question");
            // rmcp's `"elicitationId": ""`, which the wire drops, is the one difference.
            let mut theirs = serde_json::to_value(&theirs).expect("rmcp writes it");
            without_empty_elicitation_ids(&mut theirs);
            assert_eq!(theirs, asked.to_value());
            let url_key = serde_json::to_string(asked.input_requests()).expect("JSON");
            assert!(
                CHECKED_REQUESTS.get(&url_key).is_none(),
                "a URL question is not kept"
            );
        }
        assert!(
            CHECKED_REQUESTS.get(&form_key).is_some(),
            "{} URL questions left the form question's entry",
            CheckedRequests::MOST + 1
        );
    }
}
