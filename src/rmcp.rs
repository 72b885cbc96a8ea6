//! The official Rust SDK, [`rmcp`](https://docs.rs/rmcp): this crate's requests as rmcp's model
//! types, rmcp's replies as this crate's typed outcomes, and one typed way for an rmcp tool
//! handler to ask that works on every protocol revision.
//!
//! Enable with the `rmcp` feature. Nothing here changes how the rest of the crate behaves; it
//! only translates.
//!
//! # Asking from a tool handler
//!
//! An [`Asker`] reads what the client negotiated and declared for *this* request, and asks the
//! way that revision asks:
//!
//! - up to 2025-11-25 it sends `elicitation/create` through the peer and waits for the reply
//!   (a timeout or a transport error is [`Elicitation::NoReply`], never acceptance);
//! - from 2026-07-28 on it returns an input-required result for the handler to send back, and
//!   reads the answer from the client's retry;
//! - a client that did not declare the mode is never asked: you get [`Asked::CannotAsk`], which
//!   [`headless_result`] turns into a tool result naming the missing capability.
//!
//! ```ignore
//! let mut asker = Asker::for_tool_call(&self.rounds, "local-user", &request, &context)?;
//! let env = match asker.form("environment", DeployTarget::form_request()).await? {
//!     Asked::Answered(outcome) => outcome,
//!     Asked::Suspend(input_required) => return Ok(input_required.into()),
//!     Asked::CannotAsk(headless) => return Ok(headless_result(&headless).into()),
//! };
//! match env {
//!     Elicitation::Accept(target) => { /* deploy */ }
//!     Elicitation::Decline | Elicitation::Cancel | Elicitation::NoReply => { /* nothing was done */ }
//! }
//! ```
//!
//! Decline and cancel are final answers on every revision: they are returned, never asked
//! again.

use std::fmt;
use std::time::Duration;

use ::rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ContentBlock, ElicitRequestParams,
    ElicitResult, ElicitationAction, ElicitationSchema, ErrorCode, GetPromptRequestParams,
    InputResponses, ProtocolVersion,
};
use ::rmcp::service::{RequestContext, ServiceError};
use ::rmcp::{ErrorData, RoleServer};
use serde_json::Value;

use crate::mrtr::{Answer, Ask, DeclaredCapabilities, MrtrError, Retry, Round, Rounds};
use crate::observe::{self, Outcome};
use crate::state::{Binding, ParamsDigest, UnixTime};
use crate::{
    Action, CannotAsk, Consent, ConsentForm, Elicitation, ElicitationSupport, FormRequest,
    FromContent, JsonRpcError, MalformedReply, Mode, ReplyError, RequestedSchema, Revision,
    RevisionError, UrlOutcome, UrlRequest,
};

// ---------------------------------------------------------------------------------------------
// Conversions

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

/// Move `ours` (anything this crate serializes) into an rmcp type through JSON *text*, so the
/// property order survives, and check that rmcp writes back exactly what we wrote.
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
    let text = serde_json::to_string(ours).map_err(refused)?;
    let theirs: R = serde_json::from_str(&text).map_err(refused)?;
    let ours: Value = serde_json::from_str(&text).map_err(refused)?;
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
/// use mcp_elicit::{FormRequest, Property, RequestedSchema, Revision, StringSchema};
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
/// rmcp always writes an `elicitationId`; for 2026-07-28, which has none, it writes `""`.
pub fn url_params(
    request: &UrlRequest,
    revision: Revision,
) -> Result<ElicitRequestParams, ConvertError> {
    request.for_revision(revision)?;
    let elicitation_id = if revision.has_elicitation_id() {
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

/// An input-required result of the [`mrtr`](crate::mrtr) module in rmcp's type, to return from a
/// handler (`.into()` a `CallToolResponse`, `GetPromptResponse` or `ReadResourceResponse`).
///
/// rmcp writes `"elicitationId": ""` into a URL elicitation, which 2026-07-28 does not have; it
/// is the one difference tolerated.
pub fn input_required(
    result: &crate::mrtr::InputRequiredResult,
) -> Result<::rmcp::model::InputRequiredResult, ConvertError> {
    through_json_with("input-required result", result, |back| {
        let requests = back.get_mut("inputRequests").and_then(Value::as_object_mut);
        for request in requests.into_iter().flat_map(|r| r.values_mut()) {
            let params = request.get_mut("params").and_then(Value::as_object_mut);
            if let Some(params) = params
                && params.get("mode").and_then(Value::as_str) == Some("url")
                && params.get("elicitationId").and_then(Value::as_str) == Some("")
            {
                params.remove("elicitationId");
            }
        }
    })
}

/// A [`MrtrError`] as rmcp's error: the same code, message and `data`.
pub fn mrtr_error(error: &MrtrError) -> ErrorData {
    jsonrpc_error(&error.to_json_rpc_error())
}

/// This crate's JSON-RPC error as rmcp's.
pub fn jsonrpc_error(error: &JsonRpcError) -> ErrorData {
    let code = i32::try_from(error.code()).unwrap_or(ErrorCode::INTERNAL_ERROR.0);
    ErrorData::new(
        ErrorCode(code),
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
fn counted_action(name: &str, result: &ElicitResult) -> Result<Action, ReplyError> {
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

/// The tool result for a client that cannot be asked: `isError: true`, and text saying which
/// capability is missing, that nothing was changed, and what the user can do instead.
///
/// ```
/// use mcp_elicit::{ElicitationSupport, Mode, Revision};
/// let Err(headless) = ElicitationSupport::NONE.check(Mode::Form, Revision::V2025_11_25) else {
///     unreachable!()
/// };
/// let result = mcp_elicit::rmcp::headless_result(&headless.with_hint("Pass `env` as an argument."));
/// assert_eq!(result.is_error, Some(true));
/// let text = &result.content[0].as_text().unwrap().text;
/// assert!(text.contains("capabilities.elicitation.form"));
/// assert!(text.ends_with("Pass `env` as an argument."));
/// ```
pub fn headless_result(cannot: &CannotAsk) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(cannot.to_string())])
}

/// What the client declared, in this crate's terms. rmcp's `{}` (no mode named) is form only.
pub fn elicitation_support(capabilities: Option<&ClientCapabilities>) -> ElicitationSupport {
    capabilities
        .and_then(|c| serde_json::to_value(c).ok())
        .and_then(|c| ElicitationSupport::from_client_capabilities(&c).ok())
        .unwrap_or(ElicitationSupport::NONE)
}

/// The revision of an rmcp protocol version, if it is one with elicitation.
pub fn revision(version: &ProtocolVersion) -> Option<Revision> {
    version.as_str().parse().ok()
}

// ---------------------------------------------------------------------------------------------
// Asking

/// The result of asking: the answer, the input-required result to return (2026-07-28), or the
/// headless path.
#[derive(Debug)]
#[must_use = "an `Asked::Suspend` must be returned to the client, and `CannotAsk` must stop the tool"]
pub enum Asked<T> {
    /// The client answered (or, before 2026-07-28, failed to: [`Elicitation::NoReply`]).
    Answered(T),
    /// 2026-07-28: return this from the handler (`.into()` a `CallToolResponse` or
    /// `GetPromptResponse`); the client asks the user and retries with the answer.
    Suspend(::rmcp::model::InputRequiredResult),
    /// The client cannot be asked in this mode. Nothing was asked; stop without acting, or
    /// complete without the answer if the tool can. [`headless_result`] is the tool result.
    CannotAsk(CannotAsk),
}

/// Why asking failed. Converts into rmcp's [`ErrorData`] so `?` works in a handler.
#[derive(Debug)]
#[non_exhaustive]
pub enum AskError {
    /// The request cannot be expressed for the negotiated revision, or in rmcp's types.
    Convert(ConvertError),
    /// The user accepted, but every reply broke the form's rules. Carries the last one's
    /// violations (`-32602`).
    Rejected(ReplyError),
    /// 2026-07-28: the retry's `requestState` did not open, or its `inputResponses` are
    /// malformed (`-32602`), or the round could not be sealed.
    Mrtr(MrtrError),
}

impl fmt::Display for AskError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AskError::Convert(e) => fmt::Display::fmt(e, f),
            AskError::Rejected(e) => write!(f, "the answer was rejected: {e}"),
            AskError::Mrtr(e) => fmt::Display::fmt(e, f),
        }
    }
}

impl std::error::Error for AskError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            AskError::Convert(e) => Some(e),
            AskError::Rejected(e) => Some(e),
            AskError::Mrtr(e) => Some(e),
        }
    }
}

impl From<ConvertError> for AskError {
    fn from(e: ConvertError) -> Self {
        AskError::Convert(e)
    }
}

impl From<MrtrError> for AskError {
    fn from(e: MrtrError) -> Self {
        AskError::Mrtr(e)
    }
}

impl From<RevisionError> for AskError {
    fn from(e: RevisionError) -> Self {
        AskError::Convert(ConvertError::Revision(e))
    }
}

impl From<AskError> for ErrorData {
    fn from(e: AskError) -> Self {
        match &e {
            AskError::Rejected(_) => ErrorData::invalid_params(e.to_string(), None),
            AskError::Convert(_) => ErrorData::internal_error(e.to_string(), None),
            AskError::Mrtr(mrtr) => mrtr_error(mrtr),
        }
    }
}

/// The request's params as JSON, for the round's binding digest. A request that does not
/// serialize is refused rather than bound to `null`, a digest every such request would share.
fn params_json<P: serde::Serialize>(params: &P) -> Result<Value, AskError> {
    serde_json::to_value(params).map_err(|e| {
        AskError::Convert(ConvertError::Refused {
            what: "request params",
            error: e.to_string(),
        })
    })
}

/// Asks the user from inside one rmcp request handler, the way the negotiated revision asks.
/// See the [module documentation](self).
///
/// Made per request, with [`for_tool_call`](Asker::for_tool_call) or
/// [`for_prompt`](Asker::for_prompt). Each ask takes a key: the `inputRequests` key it is asked
/// under in 2026-07-28, unique within the handler (unused before).
pub struct Asker<'r> {
    context: &'r RequestContext<RoleServer>,
    revision: Revision,
    support: ElicitationSupport,
    timeout: Duration,
    attempts: u32,
    failure: Option<ServiceError>,
    /// 2026-07-28: the round this request resumes or starts.
    round: Option<Round<'r, ()>>,
    /// 2026-07-28: read answers to form and URL questions no earlier round asked.
    before_asked: bool,
}

impl fmt::Debug for Asker<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Asker")
            .field("revision", &self.revision)
            .field("support", &self.support)
            .field("timeout", &self.timeout)
            .field("attempts", &self.attempts)
            .field("round", &self.round)
            .finish_non_exhaustive()
    }
}

impl<'r> Asker<'r> {
    /// How long to wait for an answer before it counts as [`Elicitation::NoReply`]: time for a
    /// person to read and fill in a short form.
    pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);

    /// How many times a form is sent when the answers keep breaking its rules (before
    /// 2026-07-28; from then on the client bounds the rounds).
    pub const DEFAULT_ATTEMPTS: u32 = 2;

    /// An asker for a `tools/call`. `rounds` seals the 2026-07-28 round state; `principal` is
    /// who is asking (e.g. the access token's subject; `""` only for a server with no
    /// authentication), and the state only opens for them and for this same call.
    ///
    /// # Errors
    /// [`AskError::Mrtr`] (`-32602`) if the retry's `requestState` does not open: forged,
    /// tampered, expired, or sealed for another principal or call.
    pub fn for_tool_call(
        rounds: &'r Rounds,
        principal: &'r str,
        request: &'r CallToolRequestParams,
        context: &'r RequestContext<RoleServer>,
    ) -> Result<Self, AskError> {
        let params = params_json(request)?;
        Self::new(
            context,
            rounds,
            principal,
            "tools/call",
            &params,
            request.input_responses.as_ref(),
            request.request_state.as_deref(),
        )
    }

    /// An asker for a `prompts/get` (see [`for_tool_call`](Asker::for_tool_call)).
    pub fn for_prompt(
        rounds: &'r Rounds,
        principal: &'r str,
        request: &'r GetPromptRequestParams,
        context: &'r RequestContext<RoleServer>,
    ) -> Result<Self, AskError> {
        let params = params_json(request)?;
        Self::new(
            context,
            rounds,
            principal,
            "prompts/get",
            &params,
            request.input_responses.as_ref(),
            request.request_state.as_deref(),
        )
    }

    fn new(
        context: &'r RequestContext<RoleServer>,
        rounds: &'r Rounds,
        principal: &'r str,
        method: &'r str,
        params: &Value,
        responses: Option<&'r InputResponses>,
        request_state: Option<&'r str>,
    ) -> Result<Self, AskError> {
        let capabilities = context.client_capabilities();
        let (revision, support) = match context.protocol_version().as_ref().and_then(revision) {
            Some(revision) => (revision, elicitation_support(capabilities.as_ref())),
            // A version before elicitation existed: nothing can be asked.
            None => (Revision::V2025_06_18, ElicitationSupport::NONE),
        };
        let round = if revision.has_per_request_capabilities() {
            let declared = capabilities
                .and_then(|c| serde_json::to_value(c).ok())
                .and_then(|c| DeclaredCapabilities::from_client_capabilities(&c).ok())
                .unwrap_or(DeclaredCapabilities::NONE);
            let retry = Retry::new(declared)
                .with_input_response_pairs(responses.into_iter().flatten())
                .with_request_state(request_state);
            let binding = Binding {
                principal,
                method,
                params_digest: ParamsDigest::of_request_params(params),
            };
            Some(rounds.round::<()>(retry, binding, UnixTime::now())?)
        } else {
            None
        };
        Ok(Self {
            context,
            revision,
            support,
            timeout: Self::DEFAULT_TIMEOUT,
            attempts: Self::DEFAULT_ATTEMPTS,
            failure: None,
            round,
            before_asked: false,
        })
    }

    /// Wait at most `timeout` for each answer (before 2026-07-28).
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Send a form at most `attempts` times (at least once) while the answers break its rules
    /// (before 2026-07-28).
    pub fn with_attempts(mut self, attempts: u32) -> Self {
        self.attempts = attempts.max(1);
        self
    }

    /// The revision of this request.
    pub fn revision(&self) -> Revision {
        self.revision
    }

    /// 2026-07-28: also read answers to form and URL questions that no earlier round asked
    /// (see [`Ask::answerable_before_asked`]), for a stateless tool whose client may answer up
    /// front. Consent is never read this way.
    #[must_use]
    pub fn answering_before_asked(mut self) -> Self {
        self.before_asked = true;
        self
    }

    /// What the client declared it can be asked, for this request.
    pub fn support(&self) -> ElicitationSupport {
        self.support
    }

    /// 2026-07-28: the round, for asking several inputs at once (a tuple of
    /// [`Ask`]s) or for sampling and roots requests. `None` before 2026-07-28.
    pub fn round(&mut self) -> Option<&mut Round<'r, ()>> {
        self.round.as_mut()
    }

    /// Why the last answer was [`NoReply`](Elicitation::NoReply): the timeout, the transport,
    /// or the client's error. For the server's log.
    pub fn last_failure(&self) -> Option<&ServiceError> {
        self.failure.as_ref()
    }

    /// Ask with a form; the answer is validated against exactly this request's schema.
    pub async fn form<T: FromContent + 'static>(
        &mut self,
        key: &str,
        request: FormRequest<T>,
    ) -> Result<Asked<Elicitation<T>>, AskError> {
        if let Err(cannot) = self.support.check(Mode::Form, self.revision) {
            return Ok(Asked::CannotAsk(cannot));
        }
        if let Some(round) = self.round.as_mut() {
            let ask = Ask::form_request(key, request);
            let ask = if self.before_asked {
                ask.answerable_before_asked()
            } else {
                ask
            };
            return Self::answer(round, ask);
        }
        let params = form_params(&request, self.revision)?;
        let mut attempt = 1;
        loop {
            let Some(result) = self.send(request.name(), params.clone()).await else {
                return Ok(Asked::Answered(Elicitation::NoReply));
            };
            match form_outcome(&request, result) {
                Ok(outcome) => return Ok(Asked::Answered(outcome)),
                Err(_) if attempt < self.attempts => attempt += 1,
                Err(rejected) => return Err(AskError::Rejected(rejected)),
            }
        }
    }

    /// Ask for consent with a form marked `#[elicit(consent)]`: only an accepted form with every
    /// confirmation ticked is [`Consent`]; an unticked one is a decline.
    pub async fn consent<T: ConsentForm + 'static>(
        &mut self,
        key: &str,
        request: FormRequest<T>,
    ) -> Result<Asked<Elicitation<Consent<T>>>, AskError> {
        if let Err(cannot) = self.support.check(Mode::Form, self.revision) {
            return Ok(Asked::CannotAsk(cannot));
        }
        if let Some(round) = self.round.as_mut() {
            return Self::answer(round, Ask::consent_request(key, request));
        }
        let params = form_params(&request, self.revision)?;
        let mut attempt = 1;
        loop {
            let Some(result) = self.send(request.name(), params.clone()).await else {
                return Ok(Asked::Answered(Elicitation::NoReply));
            };
            match counted_action(request.name(), &result)
                .and_then(|action| request.parse_consent_parts(action, result.content))
            {
                Ok(outcome) => return Ok(Asked::Answered(outcome)),
                Err(_) if attempt < self.attempts => attempt += 1,
                Err(rejected) => return Err(AskError::Rejected(rejected)),
            }
        }
    }

    /// Send the user to a page (URL mode). [`UrlOutcome::Accept`] means they agreed to open
    /// it, not that they finished: check your own records for that.
    pub async fn url(
        &mut self,
        key: &str,
        request: UrlRequest,
    ) -> Result<Asked<UrlOutcome>, AskError> {
        let name = request.name().to_owned();
        let name = name.as_str();
        if let Err(cannot) = self.support.check(Mode::Url, self.revision) {
            return Ok(Asked::CannotAsk(cannot));
        }
        if let Some(round) = self.round.as_mut() {
            let ask = Ask::url(key, request);
            let ask = if self.before_asked {
                ask.answerable_before_asked()
            } else {
                ask
            };
            return Self::answer(round, ask);
        }
        let params = url_params(&request, self.revision)?;
        let Some(result) = self.send(name, params).await else {
            return Ok(Asked::Answered(UrlOutcome::NoReply));
        };
        match url_outcome(name, &result) {
            Ok(outcome) => Ok(Asked::Answered(outcome)),
            Err(rejected) => Err(AskError::Rejected(rejected)),
        }
    }

    /// 2026-07-28: read the answer from the retry, or the input-required result asking for it.
    /// The round records both in [`observe`].
    fn answer<O>(round: &mut Round<'r, ()>, ask: Ask<O>) -> Result<Asked<O>, AskError> {
        match round.answer(ask)? {
            Answer::Ready(outcome) => Ok(Asked::Answered(outcome)),
            Answer::Ask(result) => Ok(Asked::Suspend(input_required(&result)?)),
        }
    }

    /// `elicitation/create` through the peer; `None` (recorded as no reply) on a timeout, a
    /// transport error or an error from the client.
    async fn send(&mut self, name: &str, params: ElicitRequestParams) -> Option<ElicitResult> {
        observe::asked(name);
        match self
            .context
            .peer
            .create_elicitation_with_timeout(params, Some(self.timeout))
            .await
        {
            Ok(result) => Some(result),
            Err(failure) => {
                observe::answered(name, Outcome::NoReply);
                self.failure = Some(failure);
                None
            }
        }
    }
}
