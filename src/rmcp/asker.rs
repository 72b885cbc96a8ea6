//! [`Asker`]: asking from inside one rmcp request handler, on every revision.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use ::rmcp::handler::server::common::FromContextPart;
use ::rmcp::handler::server::tool::ToolCallContext;
use ::rmcp::model::{
    CallToolRequestParams, ElicitRequestParams, ElicitResult, GetPromptRequestParams,
    InputResponses, JsonObject,
};
use ::rmcp::service::{RequestContext, ServiceError};
use ::rmcp::{ErrorData, RoleServer};
use serde_json::Value;

use super::{
    Stop, counted_action, elicitation_support, form_params, input_required, mrtr_error, revision,
    url_outcome, url_params,
};
use crate::mrtr::{Answer, Ask, DeclaredCapabilities, Retry, Round, Rounds};
use crate::observe::{self, Outcome};
use crate::state::{Binding, KeyError, ParamsDigest, UnixTime};
use crate::{
    Consent, ConsentForm, Elicit, Elicitation, ElicitationSupport, FormRequest, FromContent, Mode,
    Rejected, ReplyError, Revision, Text, UrlOutcome, UrlRequest,
};

/// How a server asks from its handlers: the keys its 2026-07-28 round state is sealed with, who
/// is asking, how often an answer that breaks a form's rules is asked again, and how long to wait
/// for an answer. Made once at start-up; cheap to clone.
///
/// - [`single_user`](Asking::single_user): a server with one user, the one who started it
///   (stdio). No principal to name; keys generated for the life of the process.
/// - [`per_user`](Asking::per_user): a server behind authentication (streamable HTTP). Round
///   state opens only for the principal that was asked, and keys come from the environment or
///   a secret store, shared by every replica.
///
/// ```
/// use mcp_elicit::mrtr::Rounds;
/// use mcp_elicit::rmcp::Asking;
///
/// // A stdio server: one call.
/// let asking = Asking::single_user()?;
/// assert_eq!(asking.rounds().reasks(), 1);
/// # Ok::<(), mcp_elicit::state::KeyError>(())
/// ```
#[derive(Clone)]
pub struct Asking {
    rounds: Arc<Rounds>,
    principal: Principal,
    timeout: Duration,
}

/// Who is asking, for the binding of round state.
#[derive(Clone)]
enum Principal {
    /// One user: every request is theirs.
    Single,
    /// Read from each request; `None` refuses the request.
    PerRequest(Arc<PrincipalFn>),
}

type PrincipalFn = dyn Fn(&RequestContext<RoleServer>) -> Option<String> + Send + Sync;

impl fmt::Debug for Asking {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Asking")
            .field("rounds", &self.rounds)
            .field(
                "principal",
                &match self.principal {
                    Principal::Single => "single user",
                    Principal::PerRequest(_) => "per request",
                },
            )
            .field("timeout", &self.timeout)
            .finish()
    }
}

impl Asking {
    /// How long to wait for an answer (before 2026-07-28) before it counts as
    /// [`Elicitation::NoReply`]: time for a person to read and fill in a short form.
    pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);

    /// For a server with one user — a stdio server, started by the client of the person it
    /// serves. Round state is sealed with a key generated now, for the life of the process: a
    /// restart drops the questions in flight (the client asks again), and nothing needs
    /// storing.
    ///
    /// Not for a server that several people reach (streamable HTTP): with one principal, a
    /// round's state would open for any of them. Use [`per_user`](Asking::per_user) there.
    ///
    /// # Errors
    /// [`KeyError::RandomnessUnavailable`] if the operating system has no randomness to give.
    pub fn single_user() -> Result<Self, KeyError> {
        Ok(Self::single_user_with(Rounds::generate()?))
    }

    /// [`single_user`](Asking::single_user) with rounds set up by the caller, e.g. keys kept
    /// across restarts ([`StateKeys::from_env`](crate::state::StateKeys::from_env)) or a
    /// different [`with_reasks`](Rounds::with_reasks).
    pub fn single_user_with(rounds: Rounds) -> Self {
        Self {
            rounds: Arc::new(rounds),
            principal: Principal::Single,
            timeout: Self::DEFAULT_TIMEOUT,
        }
    }

    /// For a server that several people reach: `principal` names who is asking, from the
    /// request (e.g. the subject of the access token your authentication layer put in the
    /// request's extensions). Round state opens only for the same principal and the same call.
    /// A request for which it returns `None` is refused (`-32600`), before anything is asked.
    ///
    /// ```no_run
    /// use mcp_elicit::mrtr::Rounds;
    /// use mcp_elicit::rmcp::Asking;
    /// use mcp_elicit::state::StateKeys;
    ///
    /// /// What the server's authentication layer leaves in each request's extensions.
    /// #[derive(Clone)]
    /// struct Subject(String);
    ///
    /// // Every replica loads the same keys: `2:<hex of 32 bytes>,1:<the previous key>`.
    /// let rounds = Rounds::new(StateKeys::from_env("ELICIT_STATE_KEYS")?);
    /// let asking = Asking::per_user(rounds, |request| {
    ///     request.extensions.get::<Subject>().map(|subject| subject.0.clone())
    /// });
    /// # let _ = asking;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn per_user(
        rounds: Rounds,
        principal: impl Fn(&RequestContext<RoleServer>) -> Option<String> + Send + Sync + 'static,
    ) -> Self {
        Self {
            rounds: Arc::new(rounds),
            principal: Principal::PerRequest(Arc::new(principal)),
            timeout: Self::DEFAULT_TIMEOUT,
        }
    }

    /// Wait at most `timeout` for each answer (before 2026-07-28).
    #[must_use]
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The rounds: their keys, TTL and re-asks.
    pub fn rounds(&self) -> &Rounds {
        &self.rounds
    }

    fn principal_of(&self, context: &RequestContext<RoleServer>) -> Result<String, ErrorData> {
        match &self.principal {
            Principal::Single => Ok(String::new()),
            Principal::PerRequest(principal) => principal(context).ok_or_else(|| {
                ErrorData::invalid_request(
                    "this tool asks its user, and the request names no authenticated principal",
                    None,
                )
            }),
        }
    }
}

/// A server whose handlers ask: where an [`Asker`] finds the server's [`Asking`].
pub trait AskingServer {
    /// How this server asks.
    fn asking(&self) -> &Asking;
}

/// Asks the user from inside one rmcp handler, the way the negotiated revision asks. See the
/// [module documentation](super).
///
/// A `#[tool]` function takes it as a parameter (the server implements [`AskingServer`]); a
/// hand-written `call_tool` or `get_prompt` makes one with [`for_tool_call`](Asker::for_tool_call)
/// or [`for_prompt`](Asker::for_prompt).
///
/// Its round state is bound to the call's name and arguments, so that an answer given for one
/// set of arguments (consent to drop *this* table) is never read for another. A `#[tool]`'s
/// `Parameters<..>` takes the arguments out of rmcp's context before or after the asker is
/// built, so the server is served through [`Conformant`](super::Conformant), which records them
/// from the request itself. On 2026-07-28 an asker refuses to start without that record
/// (`-32603`, naming `Conformant`): the mistake shows on the first call, not in an attack.
///
/// Each question is asked under its name ([`FormRequest::name`], [`UrlRequest::name`]; the
/// type's name for a derived form), the key of a 2026-07-28 `inputRequests`: to ask the same
/// form twice in one handler, give the second another name
/// ([`FormRequest::with_name`]).
pub struct Asker {
    context: RequestContext<RoleServer>,
    revision: Revision,
    support: ElicitationSupport,
    timeout: Duration,
    reasks: u32,
    hint: Option<Text>,
    failure: Option<ServiceError>,
    /// 2026-07-28: the round this request resumes or starts.
    round: Option<Round<'static, ()>>,
    /// 2026-07-28: read answers to form and URL questions no earlier round asked.
    before_asked: bool,
}

impl fmt::Debug for Asker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Asker")
            .field("revision", &self.revision)
            .field("support", &self.support)
            .field("timeout", &self.timeout)
            .field("reasks", &self.reasks)
            .field("round", &self.round)
            .finish_non_exhaustive()
    }
}

/// The digest of a call's name and arguments, for the binding of its round state. The retry's
/// own fields (`inputResponses`, `requestState`, `_meta`) are not part of it.
pub(super) fn call_digest(name: &str, arguments: Option<&JsonObject>) -> ParamsDigest {
    let mut call = serde_json::Map::new();
    call.insert("name".to_owned(), Value::from(name));
    if let Some(arguments) = arguments {
        call.insert("arguments".to_owned(), Value::Object(arguments.clone()));
    }
    ParamsDigest::of_request_params(&Value::Object(call))
}

/// A `tools/call`'s [`call_digest`], taken by [`Conformant`](super::Conformant) from the request
/// as the client sent it, before any of the tool's parameters is built: the `Parameters<..>`
/// parameter takes the arguments out of rmcp's context, so an `Asker` after it would not see
/// them.
#[derive(Clone, Copy)]
pub(super) struct CallDigest(pub(super) ParamsDigest);

/// `tools/call` in a `#[tool]` function.
impl<S: AskingServer> FromContextPart<ToolCallContext<'_, S>> for Asker {
    fn from_context_part(context: &mut ToolCallContext<'_, S>) -> Result<Self, ErrorData> {
        let digest = context
            .request_context
            .extensions
            .get::<CallDigest>()
            .map(|digest| digest.0);
        Asker::new(
            context.service.asking(),
            "tools/call",
            digest,
            context.input_responses.as_ref(),
            context.request_state.as_deref(),
            context.request_context.clone(),
        )
    }
}

impl Asker {
    /// An asker for a hand-written `call_tool`.
    ///
    /// # Errors
    /// `-32602` if the retry's `requestState` does not open: forged, tampered, expired, or
    /// sealed for another principal or call; `-32600` if a [`per_user`](Asking::per_user)
    /// server finds no principal.
    pub fn for_tool_call(
        asking: &Asking,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<Self, ErrorData> {
        Self::new(
            asking,
            "tools/call",
            Some(call_digest(&request.name, request.arguments.as_ref())),
            request.input_responses.as_ref(),
            request.request_state.as_deref(),
            context.clone(),
        )
    }

    /// An asker for a hand-written `get_prompt`. (rmcp's `#[prompt]` router does not pass a
    /// 2026-07-28 retry's `inputResponses` and `requestState` to the prompt, so a prompt that
    /// asks is written by hand.)
    ///
    /// # Errors
    /// As [`for_tool_call`](Asker::for_tool_call).
    pub fn for_prompt(
        asking: &Asking,
        request: &GetPromptRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<Self, ErrorData> {
        Self::new(
            asking,
            "prompts/get",
            Some(call_digest(&request.name, request.arguments.as_ref())),
            request.input_responses.as_ref(),
            request.request_state.as_deref(),
            context.clone(),
        )
    }

    fn new(
        asking: &Asking,
        method: &str,
        params_digest: Option<ParamsDigest>,
        responses: Option<&InputResponses>,
        request_state: Option<&str>,
        context: RequestContext<RoleServer>,
    ) -> Result<Self, ErrorData> {
        let capabilities = context.client_capabilities();
        let (revision, support) = match context.protocol_version().as_ref().and_then(revision) {
            Some(revision) => (revision, elicitation_support(capabilities.as_ref())),
            // A version before elicitation existed: nothing can be asked.
            None => (Revision::V2025_06_18, ElicitationSupport::NONE),
        };
        let round = if revision.has_per_request_capabilities() {
            let params_digest = params_digest.ok_or_else(|| {
                ErrorData::internal_error(
                    "this server asks from a #[tool] on protocol 2026-07-28 but is not served \
                     through `mcp_elicit::rmcp::Conformant`, which binds the round state to the \
                     call's arguments: serve `Conformant(server)`",
                    None,
                )
            })?;
            let principal = asking.principal_of(&context)?;
            let declared = capabilities
                .and_then(|c| serde_json::to_value(c).ok())
                .and_then(|c| DeclaredCapabilities::from_client_capabilities(&c).ok())
                .unwrap_or(DeclaredCapabilities::NONE);
            let retry = Retry::new(declared)
                .with_input_response_pairs(responses.into_iter().flatten())
                .with_request_state(request_state);
            let binding = Binding {
                principal: &principal,
                method,
                params_digest,
            };
            let round = Arc::clone(&asking.rounds)
                .round_shared::<()>(retry, binding, UnixTime::now())
                .map_err(|e| mrtr_error(&e))?;
            Some(round)
        } else {
            None
        };
        Ok(Self {
            context,
            revision,
            support,
            timeout: asking.timeout,
            reasks: asking.rounds.reasks(),
            hint: None,
            failure: None,
            round,
            before_asked: false,
        })
    }

    /// Ask a question again at most `reasks` times while its answers break its rules, in this
    /// handler (the server's default is [`Rounds::with_reasks`]).
    pub fn set_reasks(&mut self, reasks: u32) -> &mut Self {
        self.reasks = reasks;
        if let Some(round) = self.round.as_mut() {
            round.set_reasks(reasks);
        }
        self
    }

    /// What the user can do instead, or what was not done, added to the `isError` result when
    /// the client cannot be asked or the answers are rejected: `"Nothing was deployed."`.
    pub fn set_hint(&mut self, hint: impl Into<Text>) -> &mut Self {
        self.hint = Some(hint.into());
        self
    }

    /// Wait at most `timeout` for each answer (before 2026-07-28).
    pub fn set_timeout(&mut self, timeout: Duration) -> &mut Self {
        self.timeout = timeout;
        self
    }

    /// 2026-07-28: also read answers to form and URL questions that no earlier round asked
    /// (see [`Ask::answerable_before_asked`]), for a stateless tool whose client may answer up
    /// front. Consent is never read this way.
    pub fn answer_before_asked(&mut self) -> &mut Self {
        self.before_asked = true;
        self
    }

    /// The revision of this request.
    pub fn revision(&self) -> Revision {
        self.revision
    }

    /// What the client declared it can be asked, for this request.
    pub fn support(&self) -> ElicitationSupport {
        self.support
    }

    /// 2026-07-28: the round, for asking several inputs at once (a tuple of [`Ask`]s) or for
    /// sampling and roots requests. `None` before 2026-07-28.
    pub fn round(&mut self) -> Option<&mut Round<'static, ()>> {
        self.round.as_mut()
    }

    /// Why the last answer was [`NoReply`](Elicitation::NoReply): the timeout, the transport,
    /// or the client's error. For the server's log.
    pub fn last_failure(&self) -> Option<&ServiceError> {
        self.failure.as_ref()
    }

    /// Ask with the derived form `T`, as declared.
    ///
    /// # Errors
    /// A [`Stop`]: return it with `?` inside [`reply`](super::reply).
    pub async fn form<T: Elicit + 'static>(&mut self) -> Result<Elicitation<T>, Stop> {
        self.form_request(T::form_request()).await
    }

    /// Ask with a form built or changed at run time (a message naming what was found, options
    /// filled in, a hand-built schema); the answer is validated against exactly this request.
    ///
    /// # Errors
    /// A [`Stop`]: return it with `?` inside [`reply`](super::reply).
    pub async fn form_request<T: FromContent + 'static>(
        &mut self,
        request: FormRequest<T>,
    ) -> Result<Elicitation<T>, Stop> {
        self.check(Mode::Form)?;
        if self.round.is_some() {
            let ask = Ask::form_request(request.name().to_owned(), request);
            let ask = if self.before_asked {
                ask.answerable_before_asked()
            } else {
                ask
            };
            return self.answer(ask);
        }
        self.ask_form(request, |request, result| {
            let action = counted_action(request.name(), &result)?;
            request.parse_parts(action, result.content)
        })
        .await
    }

    /// Ask for consent with the derived `#[elicit(consent)]` form `T`: only an accepted form
    /// with every confirmation ticked is a [`Consent`]; an unticked one is a decline.
    ///
    /// # Errors
    /// A [`Stop`]: return it with `?` inside [`reply`](super::reply).
    pub async fn consent<T: ConsentForm + 'static>(
        &mut self,
    ) -> Result<Elicitation<Consent<T>>, Stop> {
        self.consent_request(T::form_request()).await
    }

    /// [`consent`](Asker::consent) with a request built at run time: a message naming exactly
    /// what is about to be destroyed. The consent carries that message.
    ///
    /// # Errors
    /// A [`Stop`]: return it with `?` inside [`reply`](super::reply).
    pub async fn consent_request<T: ConsentForm + 'static>(
        &mut self,
        request: FormRequest<T>,
    ) -> Result<Elicitation<Consent<T>>, Stop> {
        self.check(Mode::Form)?;
        if self.round.is_some() {
            return self.answer(Ask::consent_request(request.name().to_owned(), request));
        }
        self.ask_form(request, |request, result| {
            let action = counted_action(request.name(), &result)?;
            request.parse_consent_parts(action, result.content)
        })
        .await
    }

    /// Send the user to a page (URL mode). [`UrlOutcome::Accept`] means they agreed to open
    /// it, not that they finished: check your own records for that.
    ///
    /// # Errors
    /// A [`Stop`]: return it with `?` inside [`reply`](super::reply).
    pub async fn url(&mut self, request: UrlRequest) -> Result<UrlOutcome, Stop> {
        self.check(Mode::Url)?;
        if self.round.is_some() {
            let ask = Ask::url(request.name().to_owned(), request);
            let ask = if self.before_asked {
                ask.answerable_before_asked()
            } else {
                ask
            };
            return self.answer(ask);
        }
        let name = request.name().to_owned();
        let params = url_params(&request, self.revision)?;
        let mut asks = 0;
        loop {
            asks += 1;
            let Some(result) = self.send(&name, params.clone()).await else {
                return Ok(UrlOutcome::NoReply);
            };
            match url_outcome(&name, &result) {
                Ok(outcome) => return Ok(outcome),
                Err(_) if asks <= self.reasks => {}
                Err(error) => {
                    let explanation = format!("the reply could not be read ({error}).");
                    return Err(self.rejected(Rejected::new(name, asks, error, explanation)));
                }
            }
        }
    }

    /// Whether the client declared `mode`; a [`Stop::CannotAsk`] if not.
    fn check(&self, mode: Mode) -> Result<(), Stop> {
        self.support.check(mode, self.revision).map_err(|cannot| {
            Stop::CannotAsk(match &self.hint {
                Some(hint) => cannot.with_hint(hint.clone()),
                None => cannot,
            })
        })
    }

    /// Before 2026-07-28: send `request`, and while its answers break its rules, send it again
    /// saying what was wrong, at most `reasks` times.
    async fn ask_form<T, O>(
        &mut self,
        request: FormRequest<T>,
        read: impl Fn(&FormRequest<T>, ElicitResult) -> Result<Elicitation<O>, ReplyError>,
    ) -> Result<Elicitation<O>, Stop> {
        let mut asked = request.clone();
        let mut asks = 0;
        loop {
            asks += 1;
            let params = form_params(&asked, self.revision)?;
            let Some(result) = self.send(request.name(), params).await else {
                return Ok(Elicitation::NoReply);
            };
            match read(&request, result) {
                Ok(outcome) => return Ok(outcome),
                Err(error) if asks <= self.reasks => asked = request.reasked(&error),
                Err(error) => {
                    let explanation = request.explain(&error);
                    let rejected = Rejected::new(request.name(), asks, error, explanation);
                    return Err(self.rejected(rejected));
                }
            }
        }
    }

    fn rejected(&self, rejected: Rejected) -> Stop {
        Stop::Rejected {
            rejected: Box::new(rejected),
            hint: self.hint.clone(),
        }
    }

    /// 2026-07-28: read the answer from the retry, or the input-required result asking for it.
    /// The round records both in [`observe`].
    fn answer<O>(&mut self, ask: Ask<O>) -> Result<O, Stop> {
        let Some(round) = self.round.as_mut() else {
            return Err(Stop::Error(ErrorData::internal_error(
                "a 2026-07-28 answer was read outside a round",
                None,
            )));
        };
        match round.answer(ask) {
            Ok(Answer::Ready(outcome)) => Ok(outcome),
            Ok(Answer::Ask(result)) => Err(Stop::Suspend(Box::new(input_required(&result)?))),
            Ok(Answer::Rejected(rejected)) => Err(self.rejected(rejected)),
            Err(error) => Err(Stop::Error(mrtr_error(&error))),
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
