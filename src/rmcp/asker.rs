//! [`Asker`]: asking from inside one rmcp request handler, on every revision.

use std::borrow::Borrow;
use std::fmt;
use std::future::{Future, poll_fn};
use std::pin::{Pin, pin};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::Poll;
use std::time::Duration;

use ::rmcp::handler::server::common::FromContextPart;
use ::rmcp::handler::server::prompt::PromptContext;
use ::rmcp::handler::server::tool::ToolCallContext;
use ::rmcp::model::{
    CallToolRequestParams, ElicitRequestParams, ElicitResult, ElicitationAction,
    GetPromptRequestParams, InputResponses, JsonObject,
};
use ::rmcp::service::{RequestContext, ServiceError};
use ::rmcp::{ErrorData, RoleServer};
use serde_json::Value;

use super::config::AskConfig;
use super::convert::{
    capabilities_json, counted_action, form_outcome, form_params, input_required, mrtr_error,
    revision, support_of, url_outcome, url_params,
};
use super::keep_alive::{self, KeepAlive};
use super::link_form::{HostFacts, LinkForm, LinkFormNotShown, link_form_reason};
use super::stop::{AutomaticConsent, Stop};
use crate::events::{self, ShortFlow};
use crate::hosts::{FieldKinds, Host};
use crate::mrtr::{Answer, Ask, Asks, DeclaredCapabilities, MrtrError, ParkedRound, Retry, Round};
use crate::observe::{self, ClientLabel, Outcome, TimedAnswer, TooFast};
use crate::state::{Binding, ParamsDigest, UnixTime};
use crate::url_mode::{
    Abandonment, ElicitationComplete, Flow, FlowError, FlowId, FlowOutcome, FlowStatus, Flows,
};
use crate::{
    Consent, Elicit, Elicitation, ElicitationSupport, FormRequest, Mode, Revision, UrlOutcome,
    UrlRequest,
    reply::{ConsentForm, FromContent, Rejected, ReplyError},
    schema::Text,
};

/// A server whose handlers ask: where an [`Asker`] finds the server's [`AskConfig`].
///
/// A `#[tool]` that takes an `Asker` on a server without it fails to compile with rmcp's
/// "`IntoToolRoute` is not satisfied": implement this trait.
#[diagnostic::on_unimplemented(
    message = "`{Self}` does not say how it asks: implement `mcp_elicit::rmcp::AskingServer` for it",
    label = "a tool of this server takes an `Asker`",
    note = "`impl AskingServer for {Self} {{ fn asking(&self) -> &AskConfig {{ &self.asking }} }}`, with an `AskConfig` field made by `AskConfig::single_user(\"me\")?`"
)]
pub trait AskingServer {
    /// How this server asks.
    fn asking(&self) -> &AskConfig;
}

/// Asks the user from inside one rmcp handler, the way the negotiated revision asks. See the
/// [module documentation](super).
///
/// A `#[tool]` or `#[prompt]` function takes it as a parameter (the server implements
/// [`AskingServer`]); a hand-written `call_tool` or `get_prompt` makes one with
/// [`for_tool_call`](Asker::for_tool_call) or [`for_prompt`](Asker::for_prompt).
///
/// Its round state is bound to the call's name and arguments, so that an answer given for one
/// set of arguments (consent to drop *this* table) is never read for another; each answer is
/// also bound to the exact question it answered. rmcp's `Parameters<..>` takes the arguments
/// out of a tool's context, so the server is served through
/// [`AskingService`](super::AskingService), which records them from the request itself (the
/// order of the tool's parameters then does not matter), or over streamable HTTP through
/// `AskingHttpService` (cargo feature `http`), which does the same. Otherwise a `#[tool]` that
/// asks on 2026-07-28 is refused (`-32603`) before anything is asked.
///
/// Each question is asked under its name ([`FormRequest::name`], [`UrlRequest::name`]; the
/// type's name for a derived form), the key of a 2026-07-28 `inputRequests`: to ask the same
/// form twice in one handler, give the second another name
/// ([`FormRequest::with_name`]).
pub struct Asker {
    /// The request's peer, cancellation and id (not its extensions nor its `_meta`).
    context: RequestContext<RoleServer>,
    revision: Revision,
    support: ElicitationSupport,
    timeout: Duration,
    /// 2026-07-28: how long a retry accepting a URL flow's question waits for its page.
    page_wait: Duration,
    reasks: u32,
    hint: Option<Text>,
    failure: Option<ServiceError>,
    /// 2026-07-28: the round this request resumes or starts, live or put away while a retry
    /// waits for a URL flow's page. Read only through [`live_round`](Asker::live_round), which
    /// resumes a parked one.
    round: Option<RoundSlot>,
    /// 2026-07-28: read answers to form and URL questions no earlier round asked.
    before_asked: bool,
    /// The key of every question asked in this call.
    keys: Vec<String>,
    /// Where URL flows are kept ([`AskConfig::with_flows`]).
    flows: Option<Flows>,
    /// Who is asked, for a flow's binding; `None` where the configuration names no one (a
    /// `per_user` server, a request without a principal): a flow is then refused.
    principal: Option<String>,
    /// The call's digest, for a flow's binding.
    call: ParamsDigest,
    /// With a progress token and an interval: the progress that keeps the call open while it
    /// waits for the user (before 2026-07-28) or for a URL flow's page (on 2026-07-28).
    keep_alive: Option<KeepAlive>,
    /// The client's label, for what is recorded in `observe`.
    client: ClientLabel,
    /// The client's row in the host table ([`AskConfig::with_hosts`]), looked up once per
    /// request from its `clientInfo`; `None` for a client the table does not know.
    host: Option<Host>,
    /// Whether a URL step may be carried in a link form ([`AskConfig::with_link_form`]).
    link_form: LinkForm,
    /// How fast is faster than a person.
    too_fast: TooFast,
    /// Before 2026-07-28: the last answer's time and the least a person takes for its form, if
    /// it came faster than that ([`TooFast`]); what a consent is judged by.
    answered_too_fast: Option<(Duration, Duration)>,
    /// This call's span: its events' parent ([`events::ASK`]).
    span: tracing::Span,
}

impl fmt::Debug for Asker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Asker")
            .field("revision", &self.revision)
            .field("support", &self.support)
            .field("timeout", &self.timeout)
            .field("reasks", &self.reasks)
            .field("rounds", &self.round.is_some())
            .field("keep_alive", &self.keep_alive)
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

/// A `tools/call`'s [`call_digest`], taken by [`AskingService`](super::AskingService) from the
/// request as the client sent it, before any of the tool's parameters is built: rmcp's
/// `Parameters<..>` takes the arguments out of the tool's context, so an `Asker` after it would
/// not see them.
#[derive(Clone, Copy)]
pub(super) struct CallDigest(pub(super) ParamsDigest);

/// A `prompts/get`'s digest and retry fields, taken by [`AskingService`](super::AskingService)
/// from the request as the client sent it: rmcp's `#[prompt]` router does not pass a retry's
/// `inputResponses` and `requestState` on to the prompt.
#[derive(Clone)]
pub(super) struct PromptRetry {
    pub(super) digest: ParamsDigest,
    pub(super) input_responses: Option<InputResponses>,
    pub(super) request_state: Option<String>,
}

/// `prompts/get` in a `#[prompt]` function. On 2026-07-28 the server must be served through
/// [`AskingService`](super::AskingService) or `AskingHttpService`, which keep the retry's
/// fields rmcp's prompt router drops; without them the asker refuses to start (`-32603`, naming
/// both) rather than ask the same question in every round.
impl<S: AskingServer> FromContextPart<PromptContext<'_, S>> for Asker {
    fn from_context_part(context: &mut PromptContext<'_, S>) -> Result<Self, ErrorData> {
        let asking = context.server.asking();
        if let Some(retry) = context.context.extensions.get::<PromptRetry>().cloned() {
            return Asker::new(
                asking,
                "prompts/get",
                &context.name,
                retry.digest,
                retry.input_responses.as_ref(),
                retry.request_state.as_deref(),
                &context.context,
            );
        }
        let digest = call_digest(&context.name, context.arguments.as_ref());
        let asker = Asker::new(
            asking,
            "prompts/get",
            &context.name,
            digest,
            None,
            None,
            &context.context,
        )?;
        if asker.has_rounds() {
            return Err(ErrorData::internal_error(
                "a #[prompt] that asks on protocol 2026-07-28 needs its server served through \
                 `mcp_elicit::rmcp::AskingService` (stdio, any byte stream) or \
                 `mcp_elicit::rmcp::AskingHttpService` (streamable HTTP): rmcp's prompt router \
                 drops the retry's inputResponses and requestState",
                None,
            ));
        }
        Ok(asker)
    }
}

/// `tools/call` in a `#[tool]` function.
impl<S: AskingServer> FromContextPart<ToolCallContext<'_, S>> for Asker {
    fn from_context_part(context: &mut ToolCallContext<'_, S>) -> Result<Self, ErrorData> {
        // The request as the client sent it, recorded by `AskingService` or
        // `AskingHttpService` before any of the tool's parameters was built.
        let recorded = context.request_context.extensions.get::<CallDigest>();
        let digest = match recorded {
            Some(recorded) => recorded.0,
            None => call_digest(&context.name, context.arguments.as_ref()),
        };
        let asker = Asker::new(
            context.service.asking(),
            "tools/call",
            &context.name,
            digest,
            context.input_responses.as_ref(),
            context.request_state.as_deref(),
            &context.request_context,
        )?;
        // Unrecorded, the arguments left in the context may be none because `Parameters<..>`
        // took them: a round bound to them could be read for another call.
        if asker.has_rounds() && recorded.is_none() {
            return Err(ErrorData::internal_error(
                "a #[tool] that asks on protocol 2026-07-28 binds its round state to the call's \
                 arguments: serve the server through `mcp_elicit::rmcp::AskingService` (stdio, \
                 any byte stream) or `mcp_elicit::rmcp::AskingHttpService` (streamable HTTP)",
                None,
            ));
        }
        Ok(asker)
    }
}

impl Asker {
    /// An asker for a hand-written `call_tool`.
    ///
    /// The asker copies what it needs of `request`: a handler that may wait (a 2026-07-28
    /// retry waiting for a URL flow's page) drops the request once the asker is made, so that
    /// the waiting call does not hold the retry's `inputResponses` and `requestState` (about
    /// 1.9 KB for one answer, BENCHMARKS.md §11); rmcp's `#[tool]` router drops them by itself.
    ///
    /// # Errors
    /// `-32602` if the retry's `requestState` does not open: forged, tampered, expired, or
    /// sealed for another principal or call; `-32600` if a [`per_user`](AskConfig::per_user)
    /// server finds no principal.
    pub fn for_tool_call(
        asking: &AskConfig,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<Self, ErrorData> {
        Self::new(
            asking,
            "tools/call",
            &request.name,
            call_digest(&request.name, request.arguments.as_ref()),
            request.input_responses.as_ref(),
            request.request_state.as_deref(),
            context,
        )
    }

    /// An asker for a hand-written `get_prompt`.
    ///
    /// # Errors
    /// As [`for_tool_call`](Asker::for_tool_call).
    pub fn for_prompt(
        asking: &AskConfig,
        request: &GetPromptRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<Self, ErrorData> {
        Self::new(
            asking,
            "prompts/get",
            &request.name,
            call_digest(&request.name, request.arguments.as_ref()),
            request.input_responses.as_ref(),
            request.request_state.as_deref(),
            context,
        )
    }

    fn new(
        asking: &AskConfig,
        method: &str,
        tool: &str,
        params_digest: ParamsDigest,
        responses: Option<&InputResponses>,
        request_state: Option<&str>,
        context: &RequestContext<RoleServer>,
    ) -> Result<Self, ErrorData> {
        asking.refuse_unbound_sessions(context)?;
        // Read as JSON once, for what the client can be asked and, on 2026-07-28, what it
        // declared.
        let capabilities = capabilities_json(context.client_capabilities().as_ref());
        let (revision, support) = match context.protocol_version().as_ref().and_then(revision) {
            Some(revision) => (revision, support_of(capabilities.as_ref())),
            // A version before elicitation existed: nothing can be asked.
            None => (Revision::V2025_06_18, ElicitationSupport::NONE),
        };
        let principal = asking.principal_of(context);
        let client_info = context.client_info();
        let client = asking
            .client_names
            .label(client_info.as_ref().map(|info| info.name.as_str()));
        // Once per request, not per field: a client no row names costs a few name compares.
        let host = client_info
            .as_ref()
            .and_then(|info| asking.hosts.find(&info.name, &info.version))
            .cloned();
        // The name the request gave, which a hand-written handler may not have matched.
        let tool = events::logged(tool);
        // One call's events read together under its span; on 2026-07-28 its rounds share the
        // correlation id sealed in their state, on whichever replica each runs.
        let span = tracing::info_span!(
            target: events::ASK,
            "elicit",
            method,
            tool = &*tool,
            revision = revision.as_str(),
            client = client.as_str(),
            correlation = tracing::field::Empty,
        );
        let round = if revision.has_multi_round_trip() {
            let principal = principal.clone()?;
            let declared = capabilities
                .as_ref()
                .and_then(|c| DeclaredCapabilities::from_client_capabilities(c).ok())
                .unwrap_or(DeclaredCapabilities::NONE);
            let retry = Retry::new(declared)
                .with_input_response_pairs(responses.into_iter().flatten())
                .with_request_state(request_state);
            let binding = Binding {
                principal: &principal,
                method,
                params_digest,
            };
            let mut round = Arc::clone(&asking.rounds)
                .round_shared::<()>(retry, binding, UnixTime::now())
                .map_err(|e| {
                    state_refused(&span, &e);
                    mrtr_error(&e)
                })?;
            round.set_too_fast(asking.too_fast);
            span.record("correlation", tracing::field::display(round.correlation()));
            Some(RoundSlot::Live(Box::new(round)))
        } else {
            None
        };
        // On 2026-07-28 too: a retry may wait for a URL flow's page.
        let keep_alive = KeepAlive::of(context, asking.keep_alive);
        // What asking needs of the request, and no more: its peer, its cancellation and its id.
        // Not its extensions (over HTTP, a copy of the HTTP request's headers) nor its `_meta`,
        // read above: a pending ask keeps this while a person answers.
        let mut kept = RequestContext::new(context.id.clone(), context.peer.clone());
        kept.ct = context.ct.clone();
        Ok(Self {
            keep_alive,
            client,
            host,
            link_form: asking.link_form,
            too_fast: asking.too_fast,
            answered_too_fast: None,
            context: kept,
            revision,
            support,
            timeout: asking.timeout,
            page_wait: asking.page_wait,
            reasks: asking.rounds.reasks(),
            hint: None,
            failure: None,
            round,
            before_asked: false,
            keys: Vec::new(),
            flows: asking.flows.clone(),
            principal: principal.ok(),
            call: params_digest,
            span,
        })
    }

    /// Ask a question again at most `reasks` times while its answers break its rules, in this
    /// handler (the server's default is [`Rounds::with_reasks`](crate::mrtr::Rounds::with_reasks)).
    pub fn set_reasks(&mut self, reasks: u32) -> &mut Self {
        self.reasks = reasks;
        if let Some(round) = self.live_round() {
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
    /// front. Consent is never read this way. Such an answer comes from no state, so a replay
    /// guard cannot make it single use: with one on the rounds (`AskConfig::single_user` sets
    /// one) the question is refused (`-32603`, naming it); serve such a tool with rounds
    /// without a guard ([`AskConfig::single_user_with`](super::AskConfig::single_user_with)).
    pub fn answerable_before_asked(&mut self) -> &mut Self {
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

    /// The client's row in the host table ([`AskConfig::with_hosts`]): what it draws and needs,
    /// looked up once per request from its `clientInfo` (name and version). `None` for a
    /// client the table does not know, or with the table off.
    pub fn host(&self) -> Option<&Host> {
        self.host.as_ref()
    }

    /// The field kinds to adapt a form to: the client's row's, if it does not draw them all.
    fn adapt_to(&self) -> Option<FieldKinds> {
        self.host
            .as_ref()
            .map(Host::field_kinds)
            .filter(|kinds| !kinds.draws_all())
    }

    /// 2026-07-28: the round, for asking several inputs at once (a tuple of [`Ask`]s) or for
    /// sampling and roots requests; `None` before 2026-07-28. With a replay guard
    /// ([`Rounds::with_replay_guard`](crate::mrtr::Rounds::with_replay_guard)) the state it
    /// resumes is spent first ([`Round::spend`]).
    ///
    /// # Errors
    /// [`Stop::Error`]: the state was spent already (a replay, `-32602`), or the guard could not
    /// decide (`-32603`; it fails closed).
    pub async fn round(&mut self) -> Result<Option<&mut Round<'static, ()>>, Stop> {
        match RoundSlot::live(&mut self.round) {
            Some(round) => {
                spent(&self.span, round.spend().await)?;
                Ok(Some(round))
            }
            None => Ok(None),
        }
    }

    /// 2026-07-28: the round, live: one put away while a retry waited for its page is resumed
    /// first, so a handler that gave up on [`url_flow`](Asker::url_flow) mid-wait (its own
    /// timeout around it) and goes on asking finds its round as it was. The only way to the
    /// round: no method can read a parked one by mistake.
    fn live_round(&mut self) -> Option<&mut Round<'static, ()>> {
        RoundSlot::live(&mut self.round)
    }

    /// Whether this request asks in rounds (2026-07-28), live or parked.
    fn has_rounds(&self) -> bool {
        self.round.is_some()
    }

    /// Puts the round away while the call waits: it is read again only through
    /// [`live_round`](Asker::live_round).
    fn park_round(&mut self) {
        if let Some(RoundSlot::Live(round)) = self.round.take() {
            self.round = Some(RoundSlot::Parked(round.park()));
        }
    }

    /// Why the last answer was [`NoReply`](Elicitation::NoReply): the timeout, the transport,
    /// or the client's error. For the server's log.
    pub fn last_failure(&self) -> Option<&ServiceError> {
        self.failure.as_ref()
    }

    /// Ask with the derived form `T`, as declared.
    ///
    /// # Errors
    /// A [`Stop`]: return it with `?` inside [`respond`](super::respond).
    pub async fn form<T: Elicit + 'static>(&mut self) -> Result<Elicitation<T>, Stop> {
        self.form_request(T::form_request()).await
    }

    /// Ask with a form built or changed at run time (a message naming what was found, options
    /// filled in, a hand-built schema); the answer is validated against exactly this request.
    ///
    /// # Errors
    /// A [`Stop`]: return it with `?` inside [`respond`](super::respond).
    pub async fn form_request<T: FromContent + 'static>(
        &mut self,
        request: FormRequest<T>,
    ) -> Result<Elicitation<T>, Stop> {
        self.start(Mode::Form, request.name())?;
        if self.has_rounds() {
            let key = request.name().to_owned();
            // Drawn always: a retry is read as the state sealed its form, whatever its client.
            let kinds = self.adapt_to().unwrap_or(FieldKinds::ALL);
            let ask = Ask::form_request_drawn(key, request, kinds);
            return self.answer(ask).await;
        }
        self.ask_form(request, Prefill::Kept, form_outcome).await
    }

    /// Ask for consent with the derived `#[elicit(consent)]` form `T`: only an accepted form
    /// with every confirmation ticked is a [`Consent`]; an unticked one is a decline.
    ///
    /// # Errors
    /// A [`Stop`]: return it with `?` inside [`respond`](super::respond).
    pub async fn consent<T: ConsentForm + 'static>(
        &mut self,
    ) -> Result<Elicitation<Consent<T>>, Stop> {
        self.consent_request(T::form_request()).await
    }

    /// [`consent`](Asker::consent) with a request built at run time: a message naming exactly
    /// what is about to be destroyed. The consent carries that message.
    ///
    /// # Errors
    /// A [`Stop`]: return it with `?` inside [`respond`](super::respond).
    pub async fn consent_request<T: ConsentForm + 'static>(
        &mut self,
        request: FormRequest<T>,
    ) -> Result<Elicitation<Consent<T>>, Stop> {
        self.start(Mode::Form, request.name())?;
        if self.has_rounds() {
            let key = request.name().to_owned();
            // Drawn always: a retry is read as the state sealed its form, whatever its client.
            let kinds = self.adapt_to().unwrap_or(FieldKinds::ALL);
            let ask = Ask::consent_request_drawn(key, request, kinds);
            return self.answer(ask).await;
        }
        let form = request.name().to_owned();
        self.answered_too_fast = None;
        let outcome = self
            .ask_form(request, Prefill::Nothing, |request, result| {
                let action = counted_action(request.name(), &result)?;
                request.parse_consent_parts(action, result.content)
            })
            .await?;
        // A consent faster than a person can give it is not taken as theirs (SECURITY.md).
        match (outcome, self.answered_too_fast.take()) {
            (Elicitation::Accept(_), Some((elapsed, threshold))) => Err(Stop::AutomaticConsent {
                automatic: AutomaticConsent::new(form, elapsed, threshold),
                hint: self.hint.clone(),
            }),
            (outcome, _) => Ok(outcome),
        }
    }

    /// Send the user to a page (URL mode). [`UrlOutcome::Accept`] means they agreed to open
    /// it, not that they finished: check your own records for that.
    ///
    /// On 2026-07-28 the tool runs again when the answer arrives, and the answer is read only
    /// if it asks about the same URL: a flow id in the URL must be the same in every run (look
    /// up the pending flow of this user rather than making a new one).
    ///
    /// # Errors
    /// A [`Stop`]: return it with `?` inside [`respond`](super::respond).
    pub async fn url(&mut self, request: UrlRequest) -> Result<UrlOutcome, Stop> {
        self.start(Mode::Url, request.name())?;
        if self.has_rounds() {
            return self
                .answer(Ask::url(request.name().to_owned(), request))
                .await;
        }
        let name = request.name().to_owned();
        let params = url_params(&request, self.revision)?;
        self.ask_legacy(
            &name,
            |_| Ok(params.clone()),
            |result| url_outcome(&name, &result),
            |asks, error| Rejected::unreadable(name.as_str(), asks, error),
            || UrlOutcome::NoReply,
        )
        .await
    }

    /// Send the user to the page `page` of the server's [flows](crate::url_mode::Flows)
    /// ([`AskConfig::with_flows`]) with `message`, and wait for the step there: the outcome is
    /// what the step came to, never only that the user agreed to open the page.
    ///
    /// The question starts a [`Flow`] bound to this user (the configuration's principal) and
    /// this call; its URL is the pages' base and the flow's id, nothing else; the page finishes
    /// it once, and only for this user. `page` names the question too (its key): one flow per
    /// page per call.
    ///
    /// - Before 2026-07-28, once the user agrees to open the page, the tool waits for the step
    ///   (at most the asker's timeout, and never past the flow's expiry).
    ///   `notifications/elicitation/complete` goes to the client that asked, and to no other,
    ///   as soon as the page finishes, even while the client has not answered yet (a host such
    ///   as the MCP Inspector waits for it before it sends its accept); a step not finished in
    ///   time is [`FlowOutcome::NotFinished`].
    ///   The flow lives as long as the call that waits for it: when the call returns without
    ///   the step (declined, dismissed, no reply, not finished in time) or is cancelled by the
    ///   client (`notifications/cancelled`; the outcome is then
    ///   [`FlowOutcome::Abandoned`], read by nobody), the flow is
    ///   [abandoned](crate::url_mode::FlowStore::abandon), so its page refuses, saying why,
    ///   instead of storing what nobody waits for. A handler future dropped before it returns
    ///   abandons its flow too, by a task spawned on the tokio runtime it was dropped on.
    /// - On 2026-07-28 the flow's id travels in the sealed round state, so every round asks with
    ///   the same URL. A retry that accepts while the step is still open **waits** for the page,
    ///   as the spec's sequence diagram has the server do: at most
    ///   [`AskConfig::with_page_wait`] (30 s by default, well under hosts' 60 s request
    ///   timeouts) and never past the flow's expiry, with the same keep-alive as before
    ///   2026-07-28. If the page is still open then, the question is asked again with the same
    ///   URL and a note; that re-ask is not a bad answer and does not count against the re-ask
    ///   bound, and the next retry waits again (a client accepting in a loop waits each round;
    ///   the flow's expiry ends it). With a replay guard the retry spent its state when it
    ///   began: the same `requestState` sent again, while it waits or after, is refused
    ///   (`-32602`) and changes nothing. A decline or a cancel abandons the flow; so does every
    ///   run that ends the call (a result that is not input-required: success, `isError`, or an
    ///   error), as the `Asker` is dropped. A client that never retries leaves the flow to
    ///   expire.
    /// - On both, a page that finished is read as it finished, whatever the client then
    ///   answered ([`FlowOutcome::of`]): the sink has the secret already.
    /// - On both, a wait for the page holds a place among the flow's waiters in its store only
    ///   while it waits (a retry that gives up at its bound leaves nothing behind), and a flow
    ///   has at most its store's bound of waiters
    ///   ([`MemoryFlowStore::with_max_waiters_per_flow`](crate::url_mode::MemoryFlowStore::with_max_waiters_per_flow),
    ///   8 by default): a retry over it does not wait but is asked again at once, as a page
    ///   still open, and a warning says so (a call before 2026-07-28 over it is not finished).
    ///
    /// - Where the client cannot take the URL question (its revision has no URL mode, it declared
    ///   form mode only, or its row in the host table says it shows the link too late or
    ///   refuses the page's `http` link) and its row was checked in CI, the step is asked in a
    ///   **link form** ([`AskConfig::with_link_form`]): a form with no field whose message is
    ///   `message`, then the page's URL and what to do; accept means "I finished there", and
    ///   the flow is read as above (not finished: the form again, saying so, not counted as a
    ///   re-ask, until the timeout or the flow's expiry; declined or dismissed: abandoned). No
    ///   completion notification is sent. One accepted faster than a person can read it ends
    ///   the call ([`Stop::LinkFormNotShown`]). On 2026-07-28 the way it was asked is sealed in
    ///   the round's state: a retry is read against it, whatever its `clientInfo` says.
    ///
    /// - The receipt is read as `R`, the type the page's sink returns (`serde_json::Value` to
    ///   read it untyped: `url_flow::<Value>`); a page of a declared type is asked with
    ///   [`url_page`](Asker::url_page), which names `R` itself.
    ///
    /// # Errors
    /// A [`Stop`]: return it with `?` inside [`respond`](super::respond). A server without
    /// flows, or a request with no principal, is refused (`-32603`, `-32600`) before anything is
    /// asked; a store that cannot decide fails closed (`-32603`): never an acceptance. A receipt
    /// that does not read as `R` is an error (`-32603`) naming the page and the type
    /// ([`ReceiptError`](crate::url_mode::ReceiptError)).
    pub async fn url_flow<R: serde::de::DeserializeOwned>(
        &mut self,
        page: &str,
        message: impl Into<Text>,
    ) -> Result<FlowOutcome<R>, Stop> {
        let outcome = self.url_flow_json(page, message.into()).await?;
        outcome.receipt(page).map_err(|error| {
            tracing::error!(target: events::ASK, parent: &self.span, page, %error, "unreadable receipt");
            Stop::Error(ErrorData::internal_error(error.to_string(), None))
        })
    }

    /// [`url_flow`](Asker::url_flow), its receipt as the store keeps it.
    ///
    /// One flow, asked one of three ways, each a piece of its own: the URL question before
    /// 2026-07-28 ([`url_question`](Asker::url_question)), a link form before 2026-07-28
    /// ([`link_form_question`](Asker::link_form_question)), and either in rounds on 2026-07-28
    /// ([`flow_in_rounds`](Asker::flow_in_rounds), whose only difference per way is the
    /// [`Ask`] it reads). What the flow came to after the answer is read once per revision:
    /// [`read_flow`](Asker::read_flow) before 2026-07-28, for both ways.
    async fn url_flow_json(&mut self, page: &str, message: Text) -> Result<FlowOutcome, Stop> {
        let Some(flows) = self.flows.clone() else {
            return Err(Stop::Error(ErrorData::internal_error(
                "`Asker::url_flow` needs the server's flows: configure them with \
                 `AskConfig::with_flows`",
                None,
            )));
        };
        let way = self.way_to_ask(&flows, page).await?;
        self.start(way.mode(), page)?;
        let Some(principal) = self.principal.clone() else {
            return Err(Stop::Error(ErrorData::invalid_request(
                "this tool asks its user, and the request names no authenticated principal",
                None,
            )));
        };
        if self.has_rounds() {
            return self
                .flow_in_rounds(&flows, page, &message, principal, way)
                .await;
        }
        // From here on, however the call ends, a flow it left open is abandoned.
        let now = UnixTime::now();
        let id = FlowId::random()?;
        let flow = Flow::new(id, page, principal.as_str(), self.call, message.as_ref())
            .expiring(now, flows.ttl())?;
        let left = Duration::from_secs(flow.expires_at().as_secs().saturating_sub(now.as_secs()));
        flows.store().begin(flow, now).await?;
        flow_event(&self.span, &id, page, "begun");
        let flow = AbandonUnlessOver {
            flows: flows.clone(),
            id,
            principal,
            armed: true,
        };
        match way {
            Way::Url => self.url_question(&flows, page, message, flow, left).await,
            Way::LinkForm => {
                self.link_form_question(&flows, page, &message, flow, left)
                    .await
            }
        }
    }

    /// How the step of the flow asked under `page` is asked. On 2026-07-28 a retry is asked
    /// the way an earlier round sealed in its state (the key its flow is sealed under,
    /// [`Way::sealed_key`]), whatever the retry says of its client; a first question, and every
    /// question before 2026-07-28, the way [`link_form_reason`] says for this client.
    async fn way_to_ask(&mut self, flows: &Flows, page: &str) -> Result<Way, Stop> {
        let span = self.span.clone();
        if let Some(round) = RoundSlot::live(&mut self.round) {
            spent(&span, round.spend().await)?;
            for way in [Way::LinkForm, Way::Url] {
                if round.sealed_flow(&way.sealed_key(page))?.is_some() {
                    return Ok(way);
                }
            }
        }
        let reason = link_form_reason(
            self.link_form,
            self.revision,
            self.support,
            self.host.as_ref().map(HostFacts::of),
            flows.base().scheme() == "http",
        );
        let Some(reason) = reason else {
            return Ok(Way::Url);
        };
        tracing::info!(
            target: events::ASK,
            parent: &span,
            key = page,
            reason = reason.as_str(),
            "the URL step is asked in a link form"
        );
        Ok(Way::LinkForm)
    }

    /// Before 2026-07-28: the step asked as a URL question. While the client has not answered,
    /// the page may finish: the client hears of it at once
    /// (`notifications/elicitation/complete`), so a host that waits for the notification
    /// before it accepts is not stuck. Then [`read_flow`](Asker::read_flow), waiting at most
    /// the asker's timeout.
    async fn url_question(
        &mut self,
        flows: &Flows,
        page: &str,
        message: Text,
        mut flow: AbandonUnlessOver,
        left: Duration,
    ) -> Result<FlowOutcome, Stop> {
        let id = flow.id;
        let request = UrlRequest::with_url(message, flows.url_of(&id)?)?
            .with_name(page.to_owned())
            .with_elicitation_id(id.elicitation_id());
        let params = url_params(&request, self.revision)?;
        drop(request);
        let (opened, told) = {
            let peer = self.context.peer.clone();
            let store = Arc::clone(flows.store());
            // Set once the watch has begun to send the notification: a send under way is
            // finished before the answer is read, rather than dropped and sent a second time.
            let telling = AtomicBool::new(false);
            let telling_now = &telling;
            let mut watch = pin!(async move {
                match store.finished(&id).await {
                    Ok(flow) if is_finished(flow.status()) => {
                        telling_now.store(true, Ordering::Relaxed);
                        tell_complete(&peer, &id).await;
                        true
                    }
                    _ => false,
                }
            });
            let mut told = false;
            let mut watching = true;
            let asked = self.ask_legacy(
                page,
                |_| Ok(params.clone()),
                |result| url_outcome(page, &result),
                |asks, error| Rejected::unreadable(page, asks, error),
                || UrlOutcome::NoReply,
            );
            let mut asked = pin!(asked);
            let mut answer = None;
            let opened = poll_fn(|cx| {
                if watching && let Poll::Ready(done) = watch.as_mut().poll(cx) {
                    watching = false;
                    told = done;
                }
                if answer.is_none()
                    && let Poll::Ready(answered) = asked.as_mut().poll(cx)
                {
                    answer = Some(answered);
                }
                if watching && telling.load(Ordering::Relaxed) {
                    // The notification is on its way: its send wakes this when done.
                    return Poll::Pending;
                }
                answer.take().map_or(Poll::Pending, Poll::Ready)
            })
            .await?;
            (opened, told)
        };
        let wait = Wait {
            bound: self.timeout.min(left),
            again_until: None,
        };
        let read = self
            .read_flow(flows, page, &mut flow, opened, wait, Some(told))
            .await?;
        // Asked once: a page still open at the bound was abandoned, not asked again.
        Ok(read.unwrap_or(FlowOutcome::NotFinished))
    }

    /// Before 2026-07-28: the step asked as a link form ([`LinkFormReason`](super::LinkFormReason)): a form with no
    /// field whose message gives the page's URL; accept means "I finished there". Then
    /// [`read_flow`](Asker::read_flow), waiting at most `page_wait` each time, and asking the
    /// form again, saying the step is not finished (not a re-ask of a bad answer), until the
    /// asker's timeout or the flow's expiry. An accept faster than a person can read the form
    /// ends the call ([`Stop::LinkFormNotShown`]), never a loop.
    async fn link_form_question(
        &mut self,
        flows: &Flows,
        page: &str,
        message: &Text,
        mut flow: AbandonUnlessOver,
        left: Duration,
    ) -> Result<FlowOutcome, Stop> {
        let url = flows.url_of(&flow.id)?;
        let deadline = tokio::time::Instant::now() + self.timeout.min(left);
        let mut not_finished = false;
        loop {
            let form = link_form_request(page, message, url.as_str(), not_finished)?;
            let params = form_params(&form, self.revision)?;
            drop(form);
            self.answered_too_fast = None;
            let answered = self
                .ask_legacy(
                    page,
                    |_| Ok(params.clone()),
                    |result| url_outcome(page, &result),
                    |asks, error| Rejected::unreadable(page, asks, error),
                    || UrlOutcome::NoReply,
                )
                .await?;
            if answered.is_accepted()
                && let Some((elapsed, threshold)) = self.answered_too_fast.take()
            {
                return Err(self.not_shown(&mut flow, page, elapsed, threshold).await);
            }
            let wait = Wait {
                bound: self
                    .page_wait
                    .min(deadline.saturating_duration_since(tokio::time::Instant::now())),
                again_until: Some(deadline),
            };
            if let Some(outcome) = self
                .read_flow(flows, page, &mut flow, answered, wait, None)
                .await?
            {
                return Ok(outcome);
            }
            not_finished = true;
        }
    }

    /// Before 2026-07-28, every way of asking: what the flow came to after `answered`, the
    /// answer to the question that asked its step. Not accepted (declined, dismissed, no
    /// reply): the flow is abandoned, saying why, and the answer stands whatever the store
    /// says; a page that finished meanwhile is read. Accepted: a wait for the page (see
    /// [`Wait`]), only while the client waits for the call (on `notifications/cancelled` rmcp
    /// cancels the request's token; it does not drop this future); a call cancelled, or a page
    /// still open at the end, abandons the flow. The status event, and, only where a URL
    /// question was sent (`told`: whether the watch told the client already), the completion
    /// notification of a page that finished. `Ok(None)`: the page is still open before the
    /// wait's `again_until`: ask again.
    async fn read_flow(
        &mut self,
        flows: &Flows,
        page: &str,
        flow: &mut AbandonUnlessOver,
        answered: UrlOutcome,
        wait: Wait,
        told: Option<bool>,
    ) -> Result<Option<FlowOutcome>, Stop> {
        let id = flow.id;
        if !answered.is_accepted() {
            // The page was offered and not taken: it takes nothing later, and says why.
            let why = abandonment(answered);
            let status = match flow.now(why).await {
                Ok(flow) => flow.status().clone(),
                Err(_) => FlowStatus::Pending,
            };
            self.flow_read(&id, page, &status, told).await;
            return Ok(Some(
                FlowOutcome::of(answered, &status).unwrap_or(FlowOutcome::NoReply),
            ));
        }
        let waited = self.wait_for_page(flows, &id, page, wait.bound).await;
        let cancelled = matches!(waited, Waited::Cancelled);
        let status = match waited {
            Waited::Over(Ok(status)) => status,
            Waited::Over(Err(FlowError::Unknown)) => FlowStatus::Expired,
            Waited::Over(Err(error)) => return Err(error.into()),
            Waited::StillOpen
                if wait
                    .again_until
                    .is_some_and(|until| tokio::time::Instant::now() < until) =>
            {
                return Ok(None);
            }
            // Cancelled, or not finished in time (the tool is about to say so): the page must
            // not take the step afterwards. Abandoning reads the flow too: a step that finished
            // as the wait ended keeps its result.
            Waited::Cancelled | Waited::StillOpen => {
                let why = if cancelled {
                    Abandonment::Cancelled
                } else {
                    Abandonment::CallEnded
                };
                match flow.now(why).await {
                    Ok(over) if matches!(over.status(), FlowStatus::Abandoned(_)) => {
                        flow_event(&self.span, &id, page, "abandoned");
                        // A cancelled call's result is read by nobody; it says what happened.
                        return Ok(Some(if cancelled {
                            FlowOutcome::Abandoned
                        } else {
                            FlowOutcome::NotFinished
                        }));
                    }
                    Ok(over) => over.status().clone(),
                    Err(FlowError::Unknown) => FlowStatus::Expired,
                    Err(error) => return Err(error.into()),
                }
            }
        };
        flow.armed = false;
        self.flow_read(&id, page, &status, told).await;
        Ok(Some(
            FlowOutcome::of(UrlOutcome::Accept, &status).unwrap_or(FlowOutcome::NotFinished),
        ))
    }

    /// What the call read of its flow: the status event, and where a URL question was sent
    /// and its watch has not told the client yet (`told: Some(false)`), the completion
    /// notification of a page that finished. A link form (`None`) sends none: its host never
    /// had a URL question.
    async fn flow_read(&self, id: &FlowId, page: &str, status: &FlowStatus, told: Option<bool>) {
        flow_status_event(&self.span, id, page, status);
        if told == Some(false) && is_finished(status) {
            tell_complete(&self.context.peer, id).await;
        }
    }

    /// A link form accepted faster than a person can read it: nobody read it, the host answered
    /// it by itself. Its flow is abandoned, and the call ends saying so
    /// ([`Stop::LinkFormNotShown`]).
    async fn not_shown(
        &self,
        flow: &mut AbandonUnlessOver,
        page: &str,
        elapsed: Duration,
        threshold: Duration,
    ) -> Stop {
        if let Ok(over) = flow.now(Abandonment::CallEnded).await
            && matches!(over.status(), FlowStatus::Abandoned(_))
        {
            flow_event(&self.span, &flow.id, page, "abandoned");
        }
        tracing::warn!(
            target: events::ASK,
            parent: &self.span,
            key = page,
            elapsed_ms = elapsed.as_millis(),
            "the link form was accepted faster than a person can read it: the host did not show it"
        );
        Stop::LinkFormNotShown {
            not_shown: LinkFormNotShown::new(page, elapsed, threshold),
            hint: self.hint.clone(),
        }
    }

    /// On 2026-07-28, every way of asking (`way`, as [`way_to_ask`](Asker::way_to_ask) read
    /// it): the flow's id travels in the sealed round state under the way's key, so every round
    /// asks with the same URL, and the way it was asked. A retry that accepts while the step is
    /// still open waits for the page ([`AskConfig::with_page_wait`], never past the flow's
    /// expiry) before its answer is read; a link form's accept is first timed against the
    /// asking time sealed in the state, and one faster than a person can read it ends the call
    /// ([`Stop::LinkFormNotShown`]). The answer is then read by the way's [`Ask`]
    /// ([`Ask::url_flow`], [`Ask::flow_form`]): a page still open is asked again, not counted
    /// as a re-ask; a decline or a cancel abandons the flow.
    async fn flow_in_rounds(
        &mut self,
        flows: &Flows,
        page: &str,
        message: &Text,
        principal: String,
        way: Way,
    ) -> Result<FlowOutcome, Stop> {
        let now = UnixTime::now();
        let span = self.span.clone();
        let Some(round) = RoundSlot::live(&mut self.round) else {
            return Err(Stop::Error(ErrorData::internal_error(
                "a URL flow in rounds needs protocol 2026-07-28",
                None,
            )));
        };
        spent(&span, round.spend().await)?;
        let flow = round.flow_id(&way.sealed_key(page))?;
        if flow.started {
            let begun = Flow::new(
                flow.id,
                page,
                principal.as_str(),
                self.call,
                message.as_ref(),
            )
            .expiring(now, flows.ttl())?;
            flows.store().begin(begun, now).await?;
            flow_event(&self.span, &flow.id, page, "begun");
        }
        let id = flow.id;
        // Only what the wait needs is kept through it: of the flow, its status and expiry.
        let (mut status, expires_at) = {
            let held = self.held(flows, &id, &principal, now).await?;
            (held.status().clone(), held.expires_at())
        };
        // Never read before it was asked: a link form's answer is a person's only if a round
        // asked it.
        let before_asked = self.before_asked && way == Way::Url;
        if status.is_open() && self.accepted(page, before_asked)? {
            let too_fast = match way {
                Way::LinkForm => self
                    .live_round()
                    .and_then(|round| round.answered_too_fast(0)),
                Way::Url => None,
            };
            if let Some((elapsed, threshold)) = too_fast {
                // Not armed: on 2026-07-28 the round's flows are abandoned as the call ends.
                let mut flow = AbandonUnlessOver {
                    flows: flows.clone(),
                    id,
                    principal,
                    armed: false,
                };
                return Err(self.not_shown(&mut flow, page, elapsed, threshold).await);
            }
            // The user agreed to open the page, or said they finished there: wait for it.
            let left = expires_at.as_secs().saturating_sub(now.as_secs());
            let bound = self.page_wait.min(Duration::from_secs(left));
            // The round is put away while the call waits: it is read again only after.
            self.park_round();
            let waited = self.wait_for_page(flows, &id, page, bound).await;
            status = match waited {
                Waited::Over(Ok(status)) => status,
                Waited::Over(Err(FlowError::Unknown)) => FlowStatus::Expired,
                Waited::Over(Err(error)) => return Err(error.into()),
                Waited::Cancelled => {
                    // The client gave the call up: nobody retries it.
                    let abandoned = flows
                        .store()
                        .abandon(&id, &principal, Abandonment::Cancelled, UnixTime::now())
                        .await;
                    return Ok(match abandoned {
                        Ok(flow) => FlowOutcome::of(UrlOutcome::Accept, flow.status())
                            .unwrap_or(FlowOutcome::Abandoned),
                        Err(_) => FlowOutcome::Abandoned,
                    });
                }
                // Still open at the bound (or at its expiry), or not waited for (too many
                // waiters): as it is now.
                Waited::StillOpen => self
                    .held(flows, &id, &principal, UnixTime::now())
                    .await?
                    .status()
                    .clone(),
            };
        }
        flow_status_event(&self.span, &id, page, &status);
        // The `answered` event says what the flow was by then: an accept of an expired one
        // is no connection.
        let over = flow_over(&status);
        let url = flows.url_of(&id)?;
        let outcome = match way {
            Way::Url => {
                // With the flow's `elicitationId` for a host whose row needs one on this
                // revision.
                let needs_id = self
                    .host
                    .as_ref()
                    .is_some_and(Host::url_needs_elicitation_id);
                let request = super::convert::url_question_for_host(
                    UrlRequest::with_url(message.clone(), url)?.with_name(page.to_owned()),
                    needs_id,
                    &id,
                );
                self.answer_noting(Ask::url_flow(page, request, status), over)
                    .await
            }
            Way::LinkForm => {
                let form = link_form_request(page, message, url.as_str(), false)?;
                let again = link_form_request(page, message, url.as_str(), true)?;
                let ask = Ask::flow_form(page, &form, &again, status);
                drop((form, again));
                match self.answer_noting(ask, over).await {
                    // Read fresh, too soon after the round that asked: as above.
                    Err(Stop::AutomaticConsent { automatic, .. }) => {
                        let mut flow = AbandonUnlessOver {
                            flows: flows.clone(),
                            id,
                            principal,
                            armed: false,
                        };
                        let (elapsed, threshold) = (automatic.elapsed(), automatic.threshold());
                        return Err(self.not_shown(&mut flow, page, elapsed, threshold).await);
                    }
                    read => read,
                }
            }
        }?;
        let declined = match outcome {
            FlowOutcome::Decline => Some(Abandonment::Declined),
            FlowOutcome::Cancel => Some(Abandonment::Dismissed),
            _ => None,
        };
        if let Some(why) = declined {
            // The page was refused in the client: it takes nothing from now on. The answer
            // stands whatever the store says.
            if let Ok(flow) = flows
                .store()
                .abandon(&id, &principal, why, UnixTime::now())
                .await
                && matches!(flow.status(), FlowStatus::Abandoned(_))
            {
                flow_event(&self.span, &id, page, "abandoned");
            }
        }
        Ok(outcome)
    }

    /// The flow `id` as the store holds it at `now`, checked to be this user's and this call's;
    /// one the store no longer has expired (and was evicted): never begun again, so it is not
    /// finished twice.
    async fn held(
        &self,
        flows: &Flows,
        id: &FlowId,
        principal: &str,
        now: UnixTime,
    ) -> Result<Flow, Stop> {
        match flows.store().get(id, now).await {
            Ok(held) if held.principal() == principal && held.call() == self.call => Ok(held),
            Ok(_) => Err(Stop::Error(flow_mismatch())),
            Err(FlowError::Unknown) => {
                let gone = Flow::new(*id, "", principal, self.call, "");
                Ok(gone.at(now))
            }
            Err(error) => Err(error.into()),
        }
    }

    /// 2026-07-28: whether this run's retry answers the question of the flow asked under `page`
    /// (a URL question or a link form) with an accept, before the answer is read; looked up by
    /// the question's key, with no question built ([`Round::flow_response`]), and with
    /// `before_asked`, also if no round asked it.
    fn accepted(&mut self, page: &str, before_asked: bool) -> Result<bool, Stop> {
        let Some(round) = self.live_round() else {
            return Ok(false);
        };
        Ok(round
            .flow_response(page, before_asked)?
            .is_some_and(|response| UrlOutcome::from_reply(response) == Ok(UrlOutcome::Accept)))
    }

    /// Waits for the flow's page to finish, at most `bound`, while the call is not cancelled,
    /// with the call's keep-alive. Every wait for a page is this one.
    ///
    /// The store's [`finished`](crate::url_mode::FlowStore::finished) does the waiting: the
    /// memory store's wakers, the Redis store's pub/sub (a `SUBSCRIBE` if needed and one `GET`,
    /// then no command until the flow's message). A flow that has as many waiters as its store
    /// allows is not waited for ([`FlowError::TooManyWaiters`]): [`Waited::StillOpen`] at once,
    /// and a log line.
    async fn wait_for_page(
        &mut self,
        flows: &Flows,
        id: &FlowId,
        page: &str,
        bound: Duration,
    ) -> Waited {
        let mut finished = flows.store().finished(id);
        let mut cancelled = pin!(self.context.ct.cancelled());
        let finished_or_cancelled = poll_fn(|cx| match finished.as_mut().poll(cx) {
            Poll::Ready(flow) => Poll::Ready(Some(flow)),
            Poll::Pending => cancelled.as_mut().poll(cx).map(|()| None),
        });
        let timed = tokio::time::timeout(bound, finished_or_cancelled);
        match keep_alive::during(self.keep_alive.as_mut(), &self.context, timed).await {
            Ok(Some(Err(FlowError::TooManyWaiters { max }))) => {
                tracing::warn!(
                    target: events::FLOW,
                    parent: &self.span,
                    flow = %ShortFlow(id),
                    page,
                    max,
                    "not waiting for the page: as many calls wait for it as the store allows"
                );
                Waited::StillOpen
            }
            Ok(Some(flow)) => Waited::Over(flow.map(|flow| flow.status().clone())),
            Ok(None) => Waited::Cancelled,
            Err(_) => Waited::StillOpen,
        }
    }

    /// [`url_flow`](Asker::url_flow) for the page declared as the type `T` (a derived
    /// [`SecretForm`](crate::page::SecretForm)): its page's name and its message, and its
    /// receipt read as `T`'s [`Receipt`](crate::page::SecretForm::Receipt), the type its sink
    /// returns (checked at compile time). The server serves that page with
    /// [`Pages::secret_form::<T>`](crate::page::Pages::secret_form).
    ///
    /// ```no_run
    /// # use mcp_elicit::Elicit;
    /// # use mcp_elicit::page::SecretString;
    /// # use mcp_elicit::rmcp::{Asker, ToolResponse, respond};
    /// # use mcp_elicit::url_mode::FlowOutcome;
    /// # use rmcp::model::{CallToolResult, ContentBlock};
    /// # use serde::{Deserialize, Serialize};
    /// #[derive(Serialize, Deserialize)]
    /// struct KeyEnding {
    ///     ending: String,
    /// }
    ///
    /// /// Your Example Co. API key
    /// #[derive(Elicit)]
    /// #[elicit(
    ///     mode = "url",
    ///     message = "Enter your Example Co. API key on our page, never in the chat.",
    ///     receipt = KeyEnding
    /// )]
    /// struct ApiKey {
    ///     #[elicit(title = "API key", min_length = 20)]
    ///     key: SecretString,
    /// }
    ///
    /// async fn connect_api_key(mut asker: Asker) -> ToolResponse {
    ///     respond(async {
    ///         let text = match asker.url_page::<ApiKey>().await? {
    ///             FlowOutcome::Completed(key) => format!("Connected the key ending {}.", key.ending),
    ///             _ => "Not connected.".to_owned(),
    ///         };
    ///         Ok(CallToolResult::success(vec![ContentBlock::text(text)]))
    ///     })
    ///     .await
    /// }
    /// ```
    ///
    /// # Errors
    /// As [`url_flow`](Asker::url_flow).
    #[cfg(feature = "page")]
    pub async fn url_page<T: crate::page::SecretForm>(
        &mut self,
    ) -> Result<FlowOutcome<T::Receipt>, Stop> {
        self.url_flow(T::secret_page().name(), T::message()).await
    }

    /// Before asking: whether the client declared `mode` (a [`Stop::CannotAsk`] if not), and
    /// whether `key` is new in this call. Each question has its own key, on every revision: on
    /// 2026-07-28 a second question under a key would read the first one's answer.
    fn start(&mut self, mode: Mode, key: &str) -> Result<(), Stop> {
        self.support.check(mode, self.revision).map_err(|cannot| {
            tracing::info!(
                target: events::ASK,
                parent: &self.span,
                key,
                mode = mode.as_str(),
                "cannot ask: the client did not declare this mode"
            );
            Stop::CannotAsk(match &self.hint {
                Some(hint) => cannot.with_hint(hint.clone()),
                None => cannot,
            })
        })?;
        // A call asks a few questions: a list, not a tree node per pending call.
        if self.keys.iter().any(|asked| asked == key) {
            return Err(Stop::Error(ErrorData::internal_error(
                format!(
                    "`{key}` is asked twice in one call: give each question its own name \
                     (`FormRequest::with_name`, `UrlRequest::with_name`)"
                ),
                None,
            )));
        }
        self.keys.push(key.to_owned());
        tracing::info!(target: events::ASK, parent: &self.span, key, mode = mode.as_str(), "ask");
        Ok(())
    }

    /// Before 2026-07-28: send `request`, and while its answers break its rules, send it again
    /// saying what was wrong; with [`Prefill::Kept`], each field whose answer kept its rules
    /// pre-filled ([`FormRequest::reasked_keeping`]).
    async fn ask_form<T, O>(
        &mut self,
        request: FormRequest<T>,
        prefill: Prefill,
        read: impl Fn(&FormRequest<T>, ElicitResult) -> Result<Elicitation<O>, ReplyError>,
    ) -> Result<Elicitation<O>, Stop> {
        let revision = self.revision;
        // A host that cannot draw a field kind is asked it in one it draws, and its answer is
        // put back in the form's shape before the form reads it (`hosts::adapt`).
        let kinds = self.adapt_to();
        let adaptation = kinds
            .and_then(|kinds| request.adapted(kinds))
            .map(|(_, a)| a);
        let params = |asked: &FormRequest<T>| match kinds.and_then(|kinds| asked.adapted(kinds)) {
            Some((sent, _)) => form_params(&sent, revision),
            None => form_params(asked, revision),
        };
        self.ask_legacy(
            request.name(),
            |unusable: Option<&Unusable>| match unusable {
                None => Ok(params(&request)?),
                Some(Unusable { error, content }) => {
                    Ok(params(&request.reasked_keeping(error, content.as_ref()))?)
                }
            },
            |mut result| {
                if let Some(adaptation) = &adaptation {
                    result.content = adaptation.restore(result.content.take());
                }
                // What the answer held, kept for the re-ask only if it is not used: `read`
                // moves the content into the form's fields.
                let content = match (prefill, &result.action) {
                    (Prefill::Kept, ElicitationAction::Accept) => result.content.clone(),
                    _ => None,
                };
                read(&request, result).map_err(|error| Unusable { error, content })
            },
            |asks, Unusable { error, .. }| {
                let explanation = request.explain(&error);
                Rejected::new(request.name(), asks, error, explanation)
            },
            || Elicitation::NoReply,
        )
        .await
    }

    /// Before 2026-07-28: send `params(None)` and read the answer; while answers cannot be used,
    /// send `params(Some(why))` at most `reasks` more times, then stop `rejected`.
    ///
    /// The params are built right before each send and moved into rmcp's request, so that a
    /// pending question holds one copy of them (rmcp's): no second copy of its schema is kept
    /// while the user answers, only what the answer's timing needs.
    async fn ask_legacy<O, E: Borrow<ReplyError>>(
        &mut self,
        name: &str,
        params: impl Fn(Option<&E>) -> Result<ElicitRequestParams, Stop>,
        read: impl Fn(ElicitResult) -> Result<O, E>,
        rejected: impl Fn(u32, E) -> Rejected,
        no_reply: impl Fn() -> O,
    ) -> Result<O, Stop> {
        let peer = self.context.peer.clone();
        let mut unusable = 0;
        // Boxed: most calls never hold one, and a pending call would hold its room.
        let mut why: Option<Box<E>> = None;
        loop {
            let (fields, asked) = {
                let sent = params(why.as_deref())?;
                let fields = match &sent {
                    ElicitRequestParams::FormElicitationParams {
                        requested_schema, ..
                    } => requested_schema.properties.len(),
                    _ => 0,
                };
                let asked = peer.create_elicitation_with_timeout(sent, Some(self.timeout));
                (fields, asked)
            };
            // Pinned here and lent on, so that rmcp's request is held once.
            let asked = pin!(asked);
            let started = tokio::time::Instant::now();
            let Some(result) = self.send(name, asked).await else {
                return Ok(no_reply());
            };
            let elapsed = started.elapsed();
            let action = result.action.clone();
            // Timed under the outcome its reading counted; every reading path counts one.
            let (read, counted) = observe::read_for_client(&self.client, || read(result));
            let outcome = counted.unwrap_or(match (&action, &read) {
                (_, Err(_)) => Outcome::Rejected,
                (ElicitationAction::Accept, Ok(_)) => Outcome::Accepted,
                (ElicitationAction::Decline, Ok(_)) => Outcome::Declined,
                (ElicitationAction::Cancel, Ok(_)) => Outcome::Cancelled,
                // An action rmcp may learn: this crate cannot read it.
                (_, Ok(_)) => Outcome::Rejected,
            });
            let timed =
                TimedAnswer::new(name, &self.client, outcome, elapsed, fields, self.too_fast);
            self.answered_too_fast = timed
                .too_fast
                .then(|| (elapsed, self.too_fast.threshold(fields)));
            tracing::info!(
                target: events::ASK,
                parent: &self.span,
                key = name,
                outcome = outcome.as_str(),
                elapsed_ms = elapsed.as_millis(),
                too_fast = timed.too_fast,
                "answered"
            );
            observe::timed(&timed);
            match read {
                Ok(outcome) => return Ok(outcome),
                Err(error) => {
                    unusable += 1;
                    if !Rejected::may_ask_again(unusable, self.reasks) {
                        tracing::warn!(
                            target: events::ASK,
                            parent: &self.span,
                            key = name,
                            asks = unusable,
                            rule = %error.borrow().rules(),
                            "rejected: every answer broke the form's rules"
                        );
                        return Err(self.rejected(rejected(unusable, error)));
                    }
                    tracing::info!(
                        target: events::ASK,
                        parent: &self.span,
                        key = name,
                        rule = %error.borrow().rules(),
                        "reasked"
                    );
                    why = Some(Box::new(error));
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

    /// 2026-07-28: one [`Ask`] of the round, form and URL questions read before they were
    /// asked if [`answerable_before_asked`](Asker::answerable_before_asked) says so (never
    /// consent: an `Ask` ignores it there).
    async fn answer<O>(&mut self, ask: Ask<O>) -> Result<O, Stop> {
        self.answer_noting(ask, None).await
    }

    /// [`answer`](Asker::answer), its `answered` event naming what its flow was by then
    /// (`flow_status="expired"`, say; [`flow_over`]).
    async fn answer_noting<O>(&mut self, ask: Ask<O>, flow: Option<&str>) -> Result<O, Stop> {
        let ask = if self.before_asked {
            ask.answerable_before_asked()
        } else {
            ask
        };
        self.answer_all_noting(ask, flow).await
    }

    /// 2026-07-28: several inputs in one round — a tuple of [`Ask`]s, sampling and roots
    /// requests among them — read from the retry, or the input-required result asking for every
    /// one that is missing. Each key is read once per call.
    ///
    /// # Errors
    /// A [`Stop`]: the input-required result, the rejected answers, or a protocol error — among
    /// them `-32021` if the client did not declare what a missing input needs, `-32602` for a
    /// state spent already (a replay, with a replay guard), and `-32600` before 2026-07-28,
    /// which has no rounds (ask one question at a time there).
    pub async fn answer_all<A: Asks>(&mut self, asks: A) -> Result<A::Output, Stop> {
        self.answer_all_noting(asks, None).await
    }

    /// [`answer_all`](Asker::answer_all), its `answered` event naming what `flow` was by then.
    async fn answer_all_noting<A: Asks>(
        &mut self,
        asks: A,
        flow: Option<&str>,
    ) -> Result<A::Output, Stop> {
        let client = self.client.clone();
        let span = self.span.clone();
        let Some(round) = self.round().await? else {
            return Err(Stop::Error(ErrorData::invalid_request(
                "several inputs in one round need protocol 2026-07-28",
                None,
            )));
        };
        let (answer, counted) = observe::read_for_client(&client, || round.answer(asks));
        for (key, rule) in round.unusable_answers() {
            tracing::info!(target: events::ASK, parent: &span, key, rule, "reasked");
        }
        let answer = match answer {
            Ok(answer) => answer,
            // The same legible stop as before 2026-07-28, timed from the round that asked.
            Err(MrtrError::AutomaticConsent(automatic)) => {
                return Err(Stop::AutomaticConsent {
                    automatic,
                    hint: self.hint.clone(),
                });
            }
            Err(error) => return Err(error.into()),
        };
        match answer {
            Answer::Ready(outcome) => {
                if let Some(counted) = counted {
                    tracing::info!(
                        target: events::ASK,
                        parent: &span,
                        outcome = counted.as_str(),
                        flow_status = flow,
                        "answered"
                    );
                }
                Ok(outcome)
            }
            Answer::Ask(result) => {
                tracing::info!(
                    target: events::ASK,
                    parent: &span,
                    keys = %Keys(&result),
                    "input required: the question goes back in the result"
                );
                Err(Stop::InputRequired(Box::new(input_required(&result)?)))
            }
            Answer::Rejected(rejected) => {
                tracing::warn!(
                    target: events::ASK,
                    parent: &span,
                    key = rejected.name(),
                    asks = rejected.asks(),
                    rule = %rejected.error().rules(),
                    "rejected: every answer broke the form's rules"
                );
                Err(self.rejected(rejected))
            }
        }
    }

    /// `elicitation/create` through the peer; `None` (recorded as no reply) on a timeout, a
    /// transport error or an error from the client.
    async fn send(
        &mut self,
        name: &str,
        asked: Pin<&mut impl Future<Output = Result<ElicitResult, ServiceError>>>,
    ) -> Option<ElicitResult> {
        observe::for_client(&self.client, || observe::asked(name));
        match keep_alive::during(self.keep_alive.as_mut(), &self.context, asked).await {
            Ok(result) => Some(result),
            Err(failure) => {
                observe::for_client(&self.client, || {
                    observe::answered(name, Outcome::NoReply);
                });
                tracing::info!(
                    target: events::ASK,
                    parent: &self.span,
                    key = name,
                    outcome = Outcome::NoReply.as_str(),
                    reason = failure_kind(&failure),
                    "answered"
                );
                self.failure = Some(failure);
                None
            }
        }
    }
}

/// 2026-07-28: an [`Asker`]'s round, live or put away while a retry waits for its page (it
/// holds less: [`ParkedRound`]).
enum RoundSlot {
    Live(Box<Round<'static, ()>>),
    Parked(ParkedRound<'static, ()>),
}

impl RoundSlot {
    /// [`Asker::live_round`], on the field alone (so the asker's other fields stay at hand).
    fn live(slot: &mut Option<Self>) -> Option<&mut Round<'static, ()>> {
        if let Some(Self::Parked(_)) = slot
            && let Some(Self::Parked(parked)) = slot.take()
        {
            *slot = Some(Self::Live(parked.resume()));
        }
        match slot.as_mut()? {
            Self::Live(round) => Some(round),
            Self::Parked(_) => None,
        }
    }
}

/// What a form asked again after an unusable answer pre-fills.
#[derive(Clone, Copy)]
enum Prefill {
    /// Each field whose answer kept its rules ([`FormRequest::reasked_keeping`]).
    Kept,
    /// Nothing: a consent form, whose every answer comes from the person, each time.
    Nothing,
}

/// Before 2026-07-28, an answer to a form that could not be used: why, and the content it
/// held (accepted, on a form that pre-fills), for the re-ask.
struct Unusable {
    error: ReplyError,
    content: Option<Value>,
}

/// What the log names of it: the rules broken.
impl Borrow<ReplyError> for Unusable {
    fn borrow(&self) -> &ReplyError {
        &self.error
    }
}

/// Before 2026-07-28, the open flow of a call that waits for its page: abandoned unless it is
/// over when the call ends, by [`now`](Self::now) or, when the call's future is dropped (the
/// client cancelled it), by a task spawned on the current tokio runtime (without one, the flow
/// stays open until it expires).
struct AbandonUnlessOver {
    flows: Flows,
    id: FlowId,
    principal: String,
    /// Whether the flow may still be open: cleared once the call read it over.
    armed: bool,
}

impl AbandonUnlessOver {
    /// Abandons the flow now because of `why`, if still open; the flow as it is after.
    async fn now(&mut self, why: Abandonment) -> Result<Flow, FlowError> {
        let flow = self
            .flows
            .store()
            .abandon(&self.id, &self.principal, why, UnixTime::now())
            .await;
        self.armed = false;
        flow
    }
}

impl Drop for AbandonUnlessOver {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let (flows, id, principal) = (
            self.flows.clone(),
            self.id,
            std::mem::take(&mut self.principal),
        );
        runtime.spawn(async move {
            // Nobody is left to tell: a store that cannot decide leaves the flow to expire.
            // A dropped call was given up by its client (cancelled, or its session ended).
            abandon_logged(
                &flows,
                &id,
                &principal,
                Abandonment::Cancelled,
                UnixTime::now(),
                "abandoned: the call was dropped",
            )
            .await;
        });
    }
}

/// 2026-07-28: a run that ends the call — its handler returns anything but an input-required
/// result (success, `isError`, an error), as [`Round::continues`] tells — abandons every flow
/// its state carries, so no page takes a secret for a call that is over. A run that could not
/// spend its state (a replayed `requestState`, with a replay guard) does not speak for the
/// call and abandons nothing. Done by a task spawned on the current tokio runtime, as the
/// handler's `Asker` is dropped (without a runtime, the flows stay open until they expire).
impl Drop for Asker {
    fn drop(&mut self) {
        // A handler dropped while its retry waits for a page ends the call too.
        let mut round = match self.round.take() {
            Some(RoundSlot::Live(round)) => round,
            Some(RoundSlot::Parked(parked)) => parked.resume(),
            None => return,
        };
        if round.continues() || round.flow_ids().next().is_none() {
            return;
        }
        let (Some(flows), Some(principal)) = (self.flows.take(), self.principal.take()) else {
            return;
        };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        runtime.spawn(async move {
            if round.spend().await.is_err() {
                return;
            }
            let now = UnixTime::now();
            for id in round.flow_ids() {
                // A flow over already is left as it is; a store that cannot decide leaves it to
                // expire.
                abandon_logged(
                    &flows,
                    &id,
                    &principal,
                    Abandonment::CallEnded,
                    now,
                    "abandoned: the call ended",
                )
                .await;
            }
        });
    }
}

/// How a flow's step is asked ([`Asker::way_to_ask`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Way {
    /// As a URL question.
    Url,
    /// As a link form: a form with no field whose message gives the page's URL.
    LinkForm,
}

/// What a link form's flow is sealed under, after its page's name: a page name is letters,
/// digits, `_` and `-` (`PageError`), so no URL question's key is this.
const LINK_FORM_KEY: &str = "#link-form";

impl Way {
    /// The mode its question is asked in.
    fn mode(self) -> Mode {
        match self {
            Way::Url => Mode::Url,
            Way::LinkForm => Mode::Form,
        }
    }

    /// 2026-07-28: the key the flow of the step asked under `page` is sealed under in the
    /// round's state ([`Round::flow_id`]): the page's name for a URL question, the page's name
    /// and [`LINK_FORM_KEY`] for a link form. The way a step was asked is read back from it
    /// ([`Round::sealed_flow`]), so a retry is read against the question it answers.
    fn sealed_key(self, page: &str) -> std::borrow::Cow<'_, str> {
        match self {
            Way::Url => std::borrow::Cow::Borrowed(page),
            Way::LinkForm => std::borrow::Cow::Owned(format!("{page}{LINK_FORM_KEY}")),
        }
    }
}

/// Before 2026-07-28: how long [`Asker::read_flow`] waits for an accepted step's page.
struct Wait {
    /// At most this long.
    bound: Duration,
    /// A page still open at the bound before this is asked again (a link form); `None`, or a
    /// page still open after it, is not finished, and its flow abandoned.
    again_until: Option<tokio::time::Instant>,
}

/// Why a flow whose question was not accepted is abandoned.
fn abandonment(answered: UrlOutcome) -> Abandonment {
    match answered {
        UrlOutcome::Decline => Abandonment::Declined,
        UrlOutcome::Cancel => Abandonment::Dismissed,
        _ => Abandonment::CallEnded,
    }
}

/// A link form: a form with no field (nowhere to type a secret), named after the page, whose
/// message is [`link_form_text`].
fn link_form_request(
    page: &str,
    message: &Text,
    url: &str,
    not_finished: bool,
) -> Result<FormRequest, Stop> {
    let text = link_form_text(message, url, not_finished);
    Ok(
        FormRequest::new(text, crate::schema::RequestedSchema::new(Vec::new())?)?
            .with_name(page.to_owned()),
    )
}

/// A link form's message: the step's own, what to do, the page's URL, and (asked again) that
/// the step is not finished yet. The real hosts' tests (`tests/hosts`) read this text on
/// screen: change it only with them.
fn link_form_text(message: &Text, url: &str, not_finished: bool) -> String {
    let again = if not_finished {
        "The step is not finished yet. "
    } else {
        ""
    };
    format!(
        "{again}{}\n\nOpen this page in your browser and finish there: {url}\n\nThen accept here \
         to say you finished; decline if you will not.",
        message.as_ref()
    )
}

/// How a wait for a page ended ([`Asker::wait_for_page`]).
enum Waited {
    /// The store woke with the flow over, its status (or said why it could not read it).
    Over(Result<FlowStatus, FlowError>),
    /// The client cancelled the call.
    Cancelled,
    /// The bound passed with the flow still open, or the flow had as many waiters as its store
    /// allows and this one did not wait.
    StillOpen,
}

/// Abandon flow `id` from a task that outlives its call (no span is left), and log it if this
/// abandoned it: a flow over already is left as it is, and a store that cannot decide leaves
/// it to expire.
async fn abandon_logged(
    flows: &Flows,
    id: &FlowId,
    principal: &str,
    why: Abandonment,
    now: UnixTime,
    what: &'static str,
) {
    if let Ok(flow) = flows.store().abandon(id, principal, why, now).await
        && matches!(flow.status(), FlowStatus::Abandoned(_))
    {
        tracing::info!(
            target: events::FLOW,
            flow = %ShortFlow(id),
            page = flow.page(),
            "{what}"
        );
    }
}

/// Whether the page finished the flow, with a value or a failure: what the completion
/// notification announces.
fn is_finished(status: &FlowStatus) -> bool {
    matches!(status, FlowStatus::Completed(_) | FlowStatus::Failed(_))
}

/// `notifications/elicitation/complete` for flow `id`, to this session's peer: the client that
/// asked, and no other. A client gone by now changes nothing for the tool.
async fn tell_complete(peer: &::rmcp::Peer<RoleServer>, id: &FlowId) {
    let done = ElicitationComplete::new(id.elicitation_id());
    // Boxed: sent once a call, it need not be part of every waiting call's future.
    let _ = Box::pin(peer.send_notification(completion_notification(&done))).await;
}

/// A round's `requestState` refused before anything is read: it did not open (forged, tampered,
/// expired, another principal's or call's) or was spent already (a replay). A warning: never the
/// state itself.
fn state_refused(span: &tracing::Span, error: &MrtrError) {
    let check = match error {
        MrtrError::Redeem(crate::state::RedeemError::AlreadyRedeemed) => "replay",
        MrtrError::Redeem(_) => "replay guard unavailable",
        _ => "state",
    };
    tracing::warn!(
        target: events::STATE,
        parent: span,
        check,
        error = %error,
        "request state refused"
    );
}

/// `spent`, logged if refused ([`state_refused`]).
fn spent(span: &tracing::Span, spent: Result<(), MrtrError>) -> Result<(), MrtrError> {
    if let Err(error) = &spent {
        state_refused(span, error);
    }
    spent
}

/// A step of a URL flow's life, as the asking call sees it.
fn flow_event(span: &tracing::Span, id: &FlowId, page: &str, what: &'static str) {
    tracing::info!(target: events::FLOW, parent: span, flow = %ShortFlow(id), page, "{what}");
}

/// What the asking call read of its flow: expired or finished (an open flow is no event).
fn flow_status_event(span: &tracing::Span, id: &FlowId, page: &str, status: &FlowStatus) {
    match status {
        FlowStatus::Expired => flow_event(span, id, page, "expired"),
        FlowStatus::Completed(_) => flow_event(span, id, page, "finished: completed"),
        FlowStatus::Failed(_) => flow_event(span, id, page, "finished: failed"),
        FlowStatus::Abandoned(_) => flow_event(span, id, page, "abandoned"),
        _ => {}
    }
}

/// What a flow was when its answer was read, if it was over: an accept reads as `accepted`
/// whatever became of the page, so the `answered` event names this beside it.
fn flow_over(status: &FlowStatus) -> Option<&'static str> {
    match status {
        FlowStatus::Expired => Some("expired"),
        FlowStatus::Completed(_) => Some("completed"),
        FlowStatus::Failed(_) => Some("failed"),
        FlowStatus::Abandoned(_) => Some("abandoned"),
        _ => None,
    }
}

/// Why a question got no reply, in a word: never the client's own words.
fn failure_kind(failure: &ServiceError) -> &'static str {
    match failure {
        ServiceError::Timeout { .. } => "timeout",
        ServiceError::Cancelled { .. } => "cancelled",
        ServiceError::McpError(_) => "client error",
        _ => "transport",
    }
}

/// The keys of an input-required result, for a log line.
struct Keys<'a>(&'a crate::mrtr::InputRequiredResult);

impl fmt::Display for Keys<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, key) in self.0.input_requests().keys().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            f.write_str(key)?;
        }
        Ok(())
    }
}

/// A flow the store holds for another principal or call than the one a sealed state names: the
/// store and the keys disagree (two fleets sharing one store). Refused, never read.
fn flow_mismatch() -> ErrorData {
    ErrorData::internal_error(
        "the URL flow in this request's state belongs to another user or call in the flow \
         store: refused",
        None,
    )
}

/// `notifications/elicitation/complete` as rmcp sends it: rmcp has no type of its own for it.
fn completion_notification(done: &ElicitationComplete) -> ::rmcp::model::ServerNotification {
    let params = serde_json::to_value(done)
        .ok()
        .and_then(|mut note| note.get_mut("params").map(Value::take));
    ::rmcp::model::ServerNotification::CustomNotification(::rmcp::model::CustomNotification::new(
        ElicitationComplete::METHOD,
        params,
    ))
}

#[cfg(test)]
mod send_check {
    fn is_send<T: Send>() {}

    /// rmcp's `#[prompt]` takes only `Send` parameters (its `#[tool]` does not ask).
    #[test]
    fn asker_is_send() {
        is_send::<super::Asker>();
    }
}
