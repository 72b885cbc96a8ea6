//! One run of a handler: the retry it was given, the state it resumes, and the answers it reads.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::future::Future as _;
use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::ask::{Asks, Unusable, sealed};
use super::capability::DeclaredCapabilities;
use super::error::MrtrError;
use super::result::{InputRequests, InputRequiredResult};
use super::retry::Retry;
use super::rounds::Rounds;
use crate::consent::AutomaticConsent;
use crate::hosts::FieldKinds;
use crate::outcome::Rejected;
use crate::requested::Text;
use crate::state::{Binding, ReplayGuard, StateId, UnixTime};

// What a URL flow's step asked in a form reads of a round ([`Round::sealed_flow`]).
mod flow_form;

/// The [`Rounds`] a round seals with: borrowed, or shared with the round's owner.
#[derive(Debug)]
pub(super) enum Shared<'r> {
    Borrowed(&'r Rounds),
    Owned(Arc<Rounds>),
}

impl std::ops::Deref for Shared<'_> {
    type Target = Rounds;
    fn deref(&self) -> &Rounds {
        match self {
            Shared::Borrowed(rounds) => rounds,
            Shared::Owned(rounds) => rounds,
        }
    }
}

/// A [`Binding`] the round owns.
#[derive(Debug)]
struct OwnedBinding {
    principal: Box<str>,
    /// A method MCP defines is not copied ([`KNOWN_METHODS`]).
    method: Cow<'static, str>,
    params_digest: crate::state::ParamsDigest,
}

/// The methods whose requests a handler answers with rounds: a round's binding names them
/// without a copy.
const KNOWN_METHODS: [&str; 3] = ["tools/call", "prompts/get", "resources/read"];

impl OwnedBinding {
    fn of(binding: &Binding<'_>) -> Self {
        Self {
            principal: binding.principal.into(),
            method: KNOWN_METHODS
                .into_iter()
                .find(|known| *known == binding.method)
                .map_or_else(|| Cow::Owned(binding.method.to_owned()), Cow::Borrowed),
            params_digest: binding.params_digest,
        }
    }

    fn borrow(&self) -> Binding<'_> {
        Binding {
            principal: &self.principal,
            method: &self.method,
            params_digest: self.params_digest,
        }
    }
}

impl<'r, S> Round<'r, S>
where
    S: DeserializeOwned,
{
    pub(super) fn start(
        rounds: Shared<'r>,
        retry: Retry<'_>,
        binding: Binding<'_>,
        now: UnixTime,
    ) -> Result<Self, MrtrError> {
        let (opened, envelope) = match retry.request_state {
            None => (None, Envelope::default()),
            Some(text) => {
                let opened = rounds.keys.open::<Envelope<S>>(text, &binding, now)?;
                let id = (opened.id(), opened.expires_at());
                (Some(id), opened.into_value())
            }
        };
        let reasks = rounds.reasks;
        // The call's correlation id: the first round's, carried by every later one.
        let correlation = envelope
            .correlation
            .map_or_else(CorrelationId::random, CorrelationId);
        let responses = retry.responses.to_owned_map();
        let spend = match (opened, rounds.guard.is_some()) {
            (Some((id, expires_at)), true) => Spend::Due { id, expires_at },
            (Some(_), false) => Spend::Unguarded,
            (None, _) => Spend::Nothing,
        };
        Ok(Round {
            rounds,
            binding: OwnedBinding::of(&binding),
            now,
            asked_at: envelope.asked_at,
            too_fast: crate::observe::TooFast::DEFAULT,
            capabilities: retry.capabilities,
            responses,
            resumed: opened.is_some(),
            spend,
            asked: envelope.asked,
            questions: envelope.questions,
            flows: envelope.flows,
            drawn: envelope.drawn,
            correlation,
            read_keys: BTreeSet::new(),
            carried: envelope.answers,
            state: envelope.state,
            reasks,
            rejections: envelope.rejections,
            rejected: None,
            automatic: None,
            missing: InputRequests::new(),
            missing_names: BTreeMap::new(),
            unusable: Vec::new(),
            continues: false,
        })
    }
}

/// What a round seals into `requestState`: which keys it asked, every usable answer so far, and
/// the handler's own state.
///
/// Answers travel in the state because a retry carries only the responses to the *last*
/// round's requests: a handler that runs from the top needs its earlier answers again, and an
/// answer that was final (a decline) must stay final.
#[derive(Serialize, Deserialize)]
struct Envelope<S> {
    #[serde(rename = "k")]
    asked: BTreeSet<String>,
    #[serde(rename = "a", default)]
    answers: BTreeMap<String, Value>,
    #[serde(rename = "s", default = "none")]
    state: Option<S>,
    /// How many answers to each key broke its rules so far (keys with none are left out).
    #[serde(rename = "r", default)]
    rejections: BTreeMap<String, u32>,
    /// The question each asked or answered key was asked as ([`question_of`]): an answer is
    /// read only for the same question.
    #[serde(rename = "q", default)]
    questions: BTreeMap<String, String>,
    /// The URL flow each URL question started ([`Round::flow_id`]), so that its URL is the same
    /// in every round.
    #[serde(rename = "f", default)]
    flows: BTreeMap<String, String>,
    /// When the round that sealed this state asked its questions: milliseconds since the Unix
    /// epoch on the clock of the replica that sealed it, to time the answers to them.
    #[serde(rename = "t", default)]
    asked_at: Option<u64>,
    /// The call's [`CorrelationId`] (absent in a state sealed before there was one: a new one).
    #[serde(rename = "c", default)]
    correlation: Option<u32>,
    /// The field kinds each form asked as a host draws it was adapted to
    /// ([`Ask::form_request_drawn`](super::Ask::form_request_drawn)), by key, as
    /// [`FieldKinds`]' three bits; a key with a question and no entry was sent as it is. A
    /// retry reads the answer against the schema its question had, whatever its client says.
    #[serde(rename = "d", default)]
    drawn: BTreeMap<String, u8>,
}

impl<S> Default for Envelope<S> {
    fn default() -> Self {
        Self {
            asked: BTreeSet::new(),
            answers: BTreeMap::new(),
            state: None,
            rejections: BTreeMap::new(),
            questions: BTreeMap::new(),
            flows: BTreeMap::new(),
            asked_at: None,
            correlation: None,
            drawn: BTreeMap::new(),
        }
    }
}

fn none<S>() -> Option<S> {
    None
}

#[derive(Serialize)]
struct EnvelopeRef<'a, S> {
    #[serde(rename = "k")]
    asked: Vec<&'a str>,
    #[serde(rename = "a")]
    answers: &'a BTreeMap<String, Value>,
    #[serde(rename = "s", skip_serializing_if = "Option::is_none")]
    state: Option<&'a S>,
    #[serde(rename = "r", skip_serializing_if = "BTreeMap::is_empty")]
    rejections: &'a BTreeMap<String, u32>,
    #[serde(rename = "q")]
    questions: BTreeMap<&'a str, &'a str>,
    #[serde(rename = "f", skip_serializing_if = "BTreeMap::is_empty")]
    flows: &'a BTreeMap<String, String>,
    #[serde(rename = "t", skip_serializing_if = "Option::is_none")]
    asked_at: Option<u64>,
    #[serde(rename = "c")]
    correlation: u32,
    #[serde(rename = "d", skip_serializing_if = "BTreeMap::is_empty")]
    drawn: BTreeMap<&'a str, u8>,
}

/// The outcome of asking: the answers are here, or the input-required result to return.
///
/// A handler runs from the top on every round; at each point where it needs input it reads
/// the answer or returns the result that asks for it — one expression, before anything is done:
///
/// ```
/// # extern crate elicit_core as mcp_elicit;
/// use mcp_elicit::mrtr::{Answer, Ask, InputRequiredResult, Retry, Round, Rounds};
/// use mcp_elicit::state::{Binding, ParamsDigest, UnixTime};
/// use mcp_elicit::{Elicitation, FormRequest, schema::{Property, RequestedSchema, StringSchema}};
/// use serde_json::json;
///
/// fn deploy(round: &mut Round<'_>) -> Result<String, InputRequiredResult> {
///     let schema = RequestedSchema::new(vec![Property::new("env", StringSchema::new())]).unwrap();
///     let form = FormRequest::new("Deploy `billing-api` where?", schema).unwrap();
///     let target = match round.answer(Ask::form_request("target", form)).unwrap() {
///         Answer::Ready(outcome) => outcome,
///         Answer::Ask(result) => return Err(result), // nothing has been done yet
///         Answer::Rejected(rejected) => return Ok(rejected.to_string()), // asked enough
///     };
///     Ok(match target {
///         Elicitation::Accept(content) => format!("deploying to {}", content["env"]),
///         _ => "nothing was deployed".to_owned(), // decline and cancel are final
///     })
/// }
///
/// let rounds = Rounds::generate()?;
/// let params = json!({ "name": "deploy",
///     "_meta": { "io.modelcontextprotocol/clientCapabilities": { "elicitation": {} } } });
/// let binding = Binding { principal: "u", method: "tools/call",
///     params_digest: ParamsDigest::of_request_params(&params) };
/// let mut round = rounds.round::<()>(Retry::from_params(&params)?, binding, UnixTime::now())?;
/// let asked = deploy(&mut round).unwrap_err();
/// assert_eq!(asked.input_requests().keys().collect::<Vec<_>>(), ["target"]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
#[must_use = "an `Answer::Ask` must be returned to the client, or the question is never asked"]
pub enum Answer<T> {
    /// Every answer is here: the tuple (or single value) of outcomes, in the order asked.
    Ready(T),
    /// Something is missing: return this result; the client retries with the answers.
    Ask(InputRequiredResult),
    /// Answers to a question kept breaking its rules and its re-asks
    /// ([`Rounds::with_reasks`]) are spent: stop, and tell the user why (its `Display`). Nothing
    /// more is asked in this call.
    Rejected(Rejected),
}

impl<T> Answer<T> {
    /// Whether the answers are here.
    #[must_use]
    pub fn is_ready(&self) -> bool {
        matches!(self, Self::Ready(_))
    }
}

/// One run of a handler: reads answers by key, asks for what is missing — everything missing
/// in one round — and carries the handler's typed state `S` from round to round.
///
/// Only answers to keys the previous round actually asked are read: `inputResponses` on a
/// request that carries no `requestState`, or under keys that were not asked, are ignored. So a
/// model cannot pre-fill a consent the user never gave; it has to come through the client's
/// prompt.
///
/// A decline or a cancel is a final answer, carried forward like any other: it is returned as
/// [`Elicitation::Decline`](crate::Elicitation::Decline) /
/// [`Cancel`](crate::Elicitation::Cancel) and never asked again. Only a missing or unusable
/// answer (unparsable, or breaking the form's rules) is asked for again.
pub struct Round<'r, S = ()> {
    rounds: Shared<'r>,
    binding: OwnedBinding,
    now: UnixTime,
    /// When the round this run resumes asked (milliseconds since the Unix epoch), if it said.
    asked_at: Option<u64>,
    /// How fast is faster than a person, for the answers read fresh in this run.
    too_fast: crate::observe::TooFast,
    capabilities: DeclaredCapabilities,
    responses: BTreeMap<String, Value>,
    /// Whether the request carried a `requestState` that opened.
    resumed: bool,
    /// What must be spent before anything is read, and whether it is.
    spend: Spend,
    asked: BTreeSet<String>,
    /// The question each key of `asked` and `carried` was asked as.
    questions: BTreeMap<String, String>,
    /// The URL flow of each URL question, by key, carried from round to round.
    flows: BTreeMap<String, String>,
    /// The field kinds each adapted form was sent for, by key ([`FieldKinds::bits`]), carried
    /// from round to round with its question.
    drawn: BTreeMap<String, u8>,
    /// The call's correlation id, carried from round to round.
    correlation: CorrelationId,
    /// Every key an `answer` of this run has read: each is read once per run.
    read_keys: BTreeSet<String>,
    carried: BTreeMap<String, Value>,
    state: Option<S>,
    /// Answers that broke their question's rules may be followed by this many re-asks.
    reasks: u32,
    /// Unusable answers per key so far, sealed into the next round.
    rejections: BTreeMap<String, u32>,
    /// A question whose re-asks are spent, in this run.
    rejected: Option<Box<Rejected>>,
    /// A consent accepted faster than a person can read it, in this run: not taken, and the
    /// run's `answer` fails with [`MrtrError::AutomaticConsent`].
    automatic: Option<Box<AutomaticConsent>>,
    missing: InputRequests,
    /// The elicitation names of the missing requests, counted as asked when they are sent.
    missing_names: BTreeMap<String, Text>,
    unusable: Vec<(String, String)>,
    /// Whether this run sealed an input-required result ([`Round::continues`]).
    continues: bool,
}

impl<S> fmt::Debug for Round<'_, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Round")
            .field("binding", &self.binding)
            .field("capabilities", &self.capabilities)
            .field("resumed", &self.is_resumed())
            .field("spend", &self.spend)
            .field("asked", &self.asked)
            .field("answered", &self.carried.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

impl<S> Round<'_, S>
where
    S: Serialize,
{
    /// Reads the answer to one [`Ask`](super::Ask), or a tuple of them, or builds the
    /// input-required result asking for every one that is missing — in one round.
    ///
    /// # Errors
    /// [`MrtrError::DuplicateKey`] if two asks share a key, in this call or an earlier `answer`
    /// of this run (each question has its own key: a loop asking one form per item names each,
    /// e.g. with [`FormRequest::with_name`](crate::FormRequest::with_name));
    /// [`MrtrError::MissingCapabilities`]
    /// (`-32021`) if an answer is missing and the client did not declare the capability to be
    /// asked for it; [`MrtrError::Seal`] if the round's state would not seal.
    pub fn answer<A: Asks>(&mut self, asks: A) -> Result<Answer<A::Output>, MrtrError> {
        self.spend.check()?;
        let mut keys = Vec::new();
        asks.keys(&mut keys);
        // What a replay guard promises holds only for answers read from a spent state.
        if let (Some(_), Some((key, _))) = (
            &self.rounds.guard,
            keys.iter().find(|(_, before_asked)| *before_asked),
        ) {
            return Err(MrtrError::BeforeAskedWithReplayGuard {
                key: (*key).to_owned(),
            });
        }
        let mut seen = BTreeSet::new();
        if let Some(key) = keys
            .into_iter()
            .map(|(key, _)| key)
            .find(|key| !seen.insert(*key) || self.read_keys.contains(*key))
        {
            return Err(MrtrError::DuplicateKey {
                key: key.to_owned(),
            });
        }
        self.read_keys
            .extend(seen.into_iter().map(ToOwned::to_owned));
        let collected = asks.collect(self);
        if let Some(automatic) = self.automatic.take() {
            // Nothing else is asked: the call ends here, and the consent is not carried.
            self.missing = InputRequests::new();
            self.missing_names.clear();
            return Err(MrtrError::AutomaticConsent(*automatic));
        }
        match collected {
            Some(answers) => Ok(Answer::Ready(answers)),
            None => match self.rejected.take() {
                Some(rejected) => {
                    let rejected = *rejected;
                    // Nothing else is asked: the call ends here.
                    self.missing = InputRequests::new();
                    self.missing_names.clear();
                    Ok(Answer::Rejected(rejected))
                }
                None => self.input_required().map(Answer::Ask),
            },
        }
    }

    /// A result carrying only `requestState` (this round's state and answers so far) and no
    /// input requests: the client may retry at once. For work that continues over several calls.
    ///
    /// # Errors
    /// [`MrtrError::Seal`] if the state would not seal.
    pub fn checkpoint(&mut self) -> Result<InputRequiredResult, MrtrError> {
        self.spend.check()?;
        self.input_required()
    }

    fn input_required(&mut self) -> Result<InputRequiredResult, MrtrError> {
        let requests = std::mem::take(&mut self.missing);
        requests.check_capabilities(&self.capabilities)?;
        let asked: Vec<&str> = requests.keys().collect();
        // The question of every answer carried forward and of every key asked now.
        let questions = self
            .questions
            .iter()
            .filter(|(key, _)| self.carried.contains_key(*key) || asked.contains(&key.as_str()))
            .map(|(key, question)| (key.as_str(), question.as_str()))
            .collect();
        let drawn = sealed_drawn(&self.drawn, &questions);
        let envelope = EnvelopeRef {
            asked,
            answers: &self.carried,
            state: self.state.as_ref(),
            rejections: &self.rejections,
            questions,
            flows: &self.flows,
            asked_at: millis_now(),
            correlation: self.correlation.0,
            drawn,
        };
        let sealed =
            self.rounds
                .keys
                .seal(&envelope, &self.binding.borrow(), self.rounds.ttl, self.now)?;
        let result = InputRequiredResult::new(requests, Some(sealed))?;
        self.continues = true;
        // The questions are going out: count them for the interrupt budget.
        for name in std::mem::take(&mut self.missing_names).values() {
            crate::observe::asked(name);
        }
        Ok(result)
    }
}

impl<S> Round<'_, S> {
    /// The handler's state from the previous round (or set by [`keep`](Round::keep) in this
    /// one); `None` on a first request, and before a state that must be spent is
    /// ([`spend`](Round::spend)).
    #[must_use]
    pub fn state(&self) -> Option<&S> {
        self.spend.check().ok()?;
        self.state.as_ref()
    }

    /// Sets the state to seal into any result this round returns, e.g. what the handler found
    /// before asking (the matching accounts), so the next round need not look it up again.
    /// Keep it small — it travels in every round — and keep secrets out of reach of a client by
    /// sealing a reference rather than the secret.
    pub fn keep(&mut self, state: S) {
        self.state = Some(state);
    }

    /// Takes the state out (`None` as [`state`](Round::state) says).
    pub fn take_state(&mut self) -> Option<S> {
        self.spend.check().ok()?;
        self.state.take()
    }

    /// The call's correlation id: made by its first round and sealed into every later one, so
    /// the logs of one call's rounds read together on whichever replica each ran. It names the
    /// call in logs only: it is not secret, and it is not unique enough to be a key.
    #[must_use]
    pub fn correlation(&self) -> CorrelationId {
        self.correlation
    }

    /// Whether this run resumes a round: the request carried a `requestState` that opened.
    #[must_use]
    pub fn is_resumed(&self) -> bool {
        self.resumed
    }

    /// The capabilities the client declared on this request: check them to degrade gracefully
    /// (complete without asking, or fail legibly) before asking.
    #[must_use]
    pub fn capabilities(&self) -> &DeclaredCapabilities {
        &self.capabilities
    }

    /// Asks a question at most `reasks` more times while its answers break its rules, for this
    /// run (the default is [`Rounds::with_reasks`]'s).
    pub fn set_reasks(&mut self, reasks: u32) {
        self.reasks = reasks;
    }

    /// How fast an answer read in this run must come to be counted as faster than a person
    /// ([`crate::observe::TooFast`]; [`TooFast::DEFAULT`](crate::observe::TooFast::DEFAULT)
    /// unless set). An answer is timed from the round that asked it, whose state carries the
    /// time it asked, to this run ([`crate::observe::timed`]); the rmcp `Asker` sets the
    /// server's `AskConfig::with_too_fast` here.
    pub fn set_too_fast(&mut self, too_fast: crate::observe::TooFast) {
        self.too_fast = too_fast;
    }

    /// The URL flow of the question asked under `key`: the one an earlier round started, or a
    /// new one, sealed into every later round's state. Its id goes in the page's URL, so the
    /// question (and its URL) is the same in every round, and the retry reads the answer to it.
    ///
    /// # Errors
    /// [`MrtrError::Unspent`] before a state that must be spent is; [`MrtrError::Flow`] if the
    /// operating system has no randomness to give.
    pub fn flow_id(&mut self, key: &str) -> Result<RoundFlow, MrtrError> {
        self.spend.check()?;
        // A carried id always reads back (the state is sealed, authenticated, and written
        // only here): one that did not would start a new flow, never fail.
        if let Some(id) = self
            .flows
            .get(key)
            .and_then(|id| crate::url_mode::FlowId::parse(id).ok())
        {
            return Ok(RoundFlow { id, started: false });
        }
        let id = crate::url_mode::FlowId::random().map_err(MrtrError::Flow)?;
        self.flows.insert(key.to_owned(), id.to_string());
        Ok(RoundFlow { id, started: true })
    }

    /// The answer this run would read for `ask`, without reading it: the client's response to
    /// exactly its question in this request, or an answer an earlier round carried; `None` if
    /// there is none (the question would be asked). Lets a handler decide what to do before the
    /// answer is read, e.g. wait for a URL flow's page when the answer is an accept.
    ///
    /// # Errors
    /// [`MrtrError::Unspent`] before a state that must be spent is.
    pub fn response_to<O>(&self, ask: &super::Ask<O>) -> Result<Option<&Value>, MrtrError> {
        self.spend.check()?;
        let key = ask.key();
        let (question, unasked) = ask.lookup_parts();
        let same_question = self.questions.get(key).map(String::as_str) == Some(&*question);
        if let Some(answer) = self.carried.get(key) {
            return Ok(same_question.then_some(answer));
        }
        let unasked = unasked && self.rounds.guard.is_none();
        if unasked || (self.asked.contains(key) && same_question) {
            return Ok(self.responses.get(key));
        }
        Ok(None)
    }

    /// [`response_to`](Round::response_to) for the URL flow asked under `key`
    /// ([`flow_id`](Round::flow_id)), looked up by its key alone, without its question: the
    /// client's response under `key` in this request if an earlier round asked `key` (or, with
    /// `before_asked` and no replay guard, if none did), or an answer an earlier round carried.
    /// The flow's id, sealed in the state under `key`, makes its URL the same in every round, so
    /// a handler can decide to wait for the page without building the question; the answer is
    /// then read with [`Ask::url_flow`](super::Ask::url_flow), which checks that it answers
    /// exactly that question.
    ///
    /// # Errors
    /// [`MrtrError::Unspent`] before a state that must be spent is.
    pub fn flow_response(
        &self,
        key: &str,
        before_asked: bool,
    ) -> Result<Option<&Value>, MrtrError> {
        self.spend.check()?;
        if let Some(answer) = self.carried.get(key) {
            return Ok(Some(answer));
        }
        let unasked = before_asked && self.rounds.guard.is_none();
        if unasked || self.asked.contains(key) {
            return Ok(self.responses.get(key));
        }
        Ok(None)
    }

    /// The URL flows this call's questions started, in this run or an earlier one (each key's
    /// [`flow_id`](Round::flow_id)): what the server abandons when the call ends without them.
    pub fn flow_ids(&self) -> impl Iterator<Item = crate::url_mode::FlowId> + '_ {
        self.flows
            .values()
            .filter_map(|id| crate::url_mode::FlowId::parse(id).ok())
    }

    /// Whether this run sealed a result that continues the call (an input-required result from
    /// [`answer`](Round::answer) or [`checkpoint`](Round::checkpoint)): the client retries.
    /// `false`: whatever the handler returns is the call's final result.
    #[must_use]
    pub fn continues(&self) -> bool {
        self.continues
    }

    /// Whether the state this run resumed is spent, or needs no spending (no replay guard, or
    /// nothing resumed): whether this run speaks for the call.
    #[must_use]
    pub fn is_spent(&self) -> bool {
        self.spend.check().is_ok()
    }

    /// Answers this run could not use (key, reason), for the server's log: the reason names
    /// each field and the rule it broke, never a value the client sent
    /// ([`ReplyError::rules`](crate::reply::ReplyError::rules)). Each was asked again, unless
    /// its re-asks were spent ([`Answer::Rejected`]).
    #[must_use]
    pub fn unusable_answers(&self) -> &[(String, String)] {
        &self.unusable
    }

    /// With a replay guard ([`Rounds::with_replay_guard`]): spends the state this run resumed,
    /// once per run, before anything is read from it. Until it is spent, [`answer`](Round::answer)
    /// and [`checkpoint`](Round::checkpoint) refuse ([`MrtrError::Unspent`], `-32603`) and
    /// [`state`](Round::state) is `None`. Of any number of runs presenting the same state,
    /// concurrently or one after another, exactly one spends it; every other gets
    /// [`MrtrError::Redeem`] with
    /// [`RedeemError::AlreadyRedeemed`](crate::state::RedeemError::AlreadyRedeemed) (`-32602`),
    /// or [`RedeemError::Unavailable`](crate::state::RedeemError::Unavailable) (`-32603`) if the
    /// guard cannot decide (it fails closed).
    ///
    /// `Ok(())` at once without a guard, on a first request, and when already spent. The rmcp
    /// `Asker` spends before its first question; a hand-written handler calls this first.
    ///
    /// # Errors
    /// [`MrtrError::Redeem`], as above. The round stays unspent, and keeps refusing.
    pub async fn spend(&mut self) -> Result<(), MrtrError> {
        let Spend::Due { id, expires_at } = self.spend else {
            return Ok(());
        };
        let Some(guard) = self.rounds.guard.clone() else {
            return Ok(());
        };
        guard
            .redeem(id, &self.binding.principal, expires_at, self.now)
            .await?;
        self.spend = Spend::Spent;
        Ok(())
    }

    /// [`spend`](Round::spend) for a synchronous handler, with a guard that decides without
    /// waiting ([`MemoryReplayGuard`](crate::state::MemoryReplayGuard)).
    ///
    /// # Errors
    /// As [`spend`](Round::spend); and [`MrtrError::Unspent`] if the guard would have to wait
    /// (a network guard, such as `RedisReplayGuard`): await [`spend`](Round::spend) there.
    pub fn spend_now(&mut self) -> Result<(), MrtrError> {
        let mut spending = std::pin::pin!(self.spend());
        let mut context = std::task::Context::from_waker(std::task::Waker::noop());
        match spending.as_mut().poll(&mut context) {
            std::task::Poll::Ready(spent) => spent,
            std::task::Poll::Pending => Err(MrtrError::Unspent),
        }
    }
}

/// A [`Round`] put away while its handler waits (for a URL flow's page, say): the same round,
/// what its maps held packed into one exact-size slice with an entry per key, so that a run that
/// waits holds a fraction of the memory an open round does (a map's node has room for eleven
/// entries, even for one; each map copies the key; an answer is a JSON object; a question's
/// digest and a flow's id are 32 hexadecimal digits, kept as their 16 bytes).
/// [`resume`](ParkedRound::resume) gives the round back as it was.
///
/// ```
/// # extern crate elicit_core as mcp_elicit;
/// use mcp_elicit::mrtr::{Retry, Rounds};
/// use mcp_elicit::state::{Binding, ParamsDigest, UnixTime};
/// use serde_json::json;
///
/// let rounds = Rounds::generate()?;
/// let params = json!({ "name": "connect",
///     "_meta": { "io.modelcontextprotocol/clientCapabilities": { "elicitation": { "url": {} } } } });
/// let binding = Binding { principal: "u", method: "tools/call",
///     params_digest: ParamsDigest::of_request_params(&params) };
/// let mut round = rounds.round::<()>(Retry::from_params(&params)?, binding, UnixTime::now())?;
/// let flow = round.flow_id("api_key")?.id;
/// let parked = round.park();
/// // ... wait for the page ...
/// let round = parked.resume();
/// assert_eq!(round.flow_ids().collect::<Vec<_>>(), [flow]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct ParkedRound<'r, S = ()> {
    /// One box, in place of the live round's: what a round holds besides its maps.
    parked: Box<Parked<'r, S>>,
}

/// A parked round: every field of [`Round`] but its maps and what is empty in most runs that
/// wait, and what the maps held. Packed: what is the same in most runs (a method MCP defines,
/// the default too-fast threshold, a state already spent) is a byte here, anything else is in
/// `rare`.
struct Parked<'r, S> {
    rounds: Shared<'r>,
    principal: Box<str>,
    params_digest: crate::state::ParamsDigest,
    now: UnixTime,
    /// `Round::asked_at`, if `has_asked_at`.
    asked_at: u64,
    capabilities: DeclaredCapabilities,
    correlation: CorrelationId,
    reasks: u32,
    /// The binding's method: its index in [`KNOWN_METHODS`], or `u8::MAX` for one kept in
    /// `rare`.
    method: u8,
    has_asked_at: bool,
    resumed: bool,
    continues: bool,
    /// [`Spend`], unless `rare` has a state still due.
    spend: ParkedSpend,
    state: Option<S>,
    /// What a round that waits has not got in most runs (a rejection, requests not sent yet,
    /// unusable answers, a method MCP does not define, a threshold of its own, a state not yet
    /// spent): boxed once if it has any, else nothing.
    rare: Option<Box<ParkedRare>>,
    /// What the maps held, an entry per key, in key order.
    keys: Box<[ParkedKey]>,
}

/// A parked round's [`Spend`] but `Due`: a state still due is its id and expiry in
/// [`ParkedRare::due`], whatever this says.
#[derive(Clone, Copy)]
enum ParkedSpend {
    Nothing,
    Unguarded,
    Spent,
}

/// The fields of a parked [`Round`] that are empty (or the default) in most runs that wait.
#[derive(Default)]
struct ParkedRare {
    rejected: Option<Box<Rejected>>,
    missing: InputRequests,
    unusable: Vec<(String, String)>,
    /// A method not in [`KNOWN_METHODS`].
    method: Option<Box<str>>,
    /// A threshold other than [`TooFast::DEFAULT`](crate::observe::TooFast::DEFAULT).
    too_fast: Option<crate::observe::TooFast>,
    /// A state not spent yet: its id and expiry.
    due: Option<(StateId, UnixTime)>,
}

/// What a parked round's maps held for one key: the key kept once, not once per map; an
/// answer that is only an action kept as that action, and a question's digest and a flow's id
/// as their bytes. Anything else is in `odd`, boxed, only for the keys that have it.
struct ParkedKey {
    key: Box<str>,
    /// The question's digest, if `flags` has [`ParkedKey::QUESTION`].
    question: Hex16,
    /// The flow's id, if `flags` has [`ParkedKey::FLOW`].
    flow: Hex16,
    response: ParkedAnswer,
    carried: ParkedAnswer,
    /// [`ParkedKey::ASKED`], [`ParkedKey::READ`], [`ParkedKey::QUESTION`], [`ParkedKey::FLOW`].
    flags: u8,
    /// Unusable answers so far (a key has one from its first, so 0 is none).
    rejections: u32,
    /// The kinds its form was adapted to ([`FieldKinds::bits`]) with [`ParkedKey::DRAWN`]
    /// set; 0: none.
    drawn: u8,
    odd: Option<Box<OddKey>>,
}

/// What a parked key holds that does not pack: a question or a flow id that is not 32
/// lowercase hexadecimal digits, an answer that is more than an action, a request's name.
#[derive(Default)]
struct OddKey {
    question: Option<Box<str>>,
    flow: Option<Box<str>>,
    response: Option<Value>,
    carried: Option<Value>,
    missing_name: Option<Text>,
}

/// A parked answer: none, only an action (`{"action":"accept"}`, a URL question's answer, read
/// after the wait), or any other JSON, kept in the key's [`OddKey`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum ParkedAnswer {
    None,
    Action(ParkedAction),
    Json,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum ParkedAction {
    Accept,
    Decline,
    Cancel,
}

impl ParkedAction {
    const ALL: [Self; 3] = [Self::Accept, Self::Decline, Self::Cancel];

    /// The action as the wire spells it.
    fn name(self) -> &'static str {
        match self {
            Self::Accept => "accept",
            Self::Decline => "decline",
            Self::Cancel => "cancel",
        }
    }

    /// `{"action": <an action>}` and nothing else: that action.
    fn of(value: &Value) -> Option<Self> {
        let Value::Object(object) = value else {
            return None;
        };
        let Some(Value::String(action)) = object.get("action") else {
            return None;
        };
        Self::ALL
            .into_iter()
            .find(|known| object.len() == 1 && known.name() == action)
    }

    /// `{"action": <the action>}`.
    fn value(self) -> Value {
        let mut object = serde_json::Map::new();
        object.insert("action".to_owned(), Value::String(self.name().to_owned()));
        Value::Object(object)
    }
}

/// 32 lowercase hexadecimal digits (a question's digest, [`question_of`](super::ask), a flow's
/// id) as the 16 bytes they write: written back, the same text.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Hex16([u8; 16]);

impl Hex16 {
    fn parse(text: &str) -> Option<Self> {
        let digit = |c: u8| match c {
            b'0'..=b'9' => Some(c - b'0'),
            b'a'..=b'f' => Some(c - b'a' + 10),
            _ => None,
        };
        let text = text.as_bytes();
        if text.len() != 32 {
            return None;
        }
        let mut bytes = [0; 16];
        for (byte, pair) in bytes.iter_mut().zip(text.chunks_exact(2)) {
            let &[high, low] = pair else {
                return None;
            };
            *byte = digit(high)? << 4 | digit(low)?;
        }
        Some(Self(bytes))
    }

    fn text(self) -> String {
        use std::fmt::Write as _;
        let mut text = String::with_capacity(32);
        for byte in self.0 {
            let _ = write!(text, "{byte:02x}");
        }
        text
    }
}

impl ParkedKey {
    /// The key was asked.
    const ASKED: u8 = 1;
    /// The key was read in this run.
    const READ: u8 = 2;
    /// `question` holds the question's digest.
    const QUESTION: u8 = 4;
    /// `flow` holds the flow's id.
    const FLOW: u8 = 8;
    /// In `drawn`: the key's form was adapted.
    const DRAWN: u8 = 0x80;

    fn has(&self, flag: u8) -> bool {
        self.flags & flag != 0
    }

    /// `hex` in `field`, marked by `flag`, if there is one.
    fn set_hex(&mut self, hex: Option<Hex16>, flag: u8, field: fn(&mut Self) -> &mut Hex16) {
        if let Some(hex) = hex {
            *field(self) = hex;
            self.flags |= flag;
        }
    }

    fn new(key: String) -> Self {
        Self {
            key: key.into_boxed_str(),
            question: Hex16([0; 16]),
            flow: Hex16([0; 16]),
            response: ParkedAnswer::None,
            carried: ParkedAnswer::None,
            flags: 0,
            rejections: 0,
            drawn: 0,
            odd: None,
        }
    }

    fn odd(&mut self) -> &mut OddKey {
        self.odd.get_or_insert_with(Box::default)
    }

    /// Packs a question's digest or a flow's id: its bytes, or the text kept as it is.
    fn pack_hex(
        &mut self,
        text: String,
        odd: fn(&mut OddKey) -> &mut Option<Box<str>>,
    ) -> Option<Hex16> {
        let hex = Hex16::parse(&text);
        if hex.is_none() {
            *odd(self.odd()) = Some(text.into_boxed_str());
        }
        hex
    }

    fn pack_answer(
        &mut self,
        value: Value,
        odd: fn(&mut OddKey) -> &mut Option<Value>,
    ) -> ParkedAnswer {
        match ParkedAction::of(&value) {
            Some(action) => ParkedAnswer::Action(action),
            None => {
                *odd(self.odd()) = Some(value);
                ParkedAnswer::Json
            }
        }
    }

    fn unpack_hex(
        &mut self,
        hex: Option<Hex16>,
        odd: fn(&mut OddKey) -> &mut Option<Box<str>>,
    ) -> Option<String> {
        match hex {
            Some(hex) => Some(hex.text()),
            None => self
                .odd
                .as_deref_mut()
                .and_then(|o| odd(o).take())
                .map(String::from),
        }
    }

    fn unpack_answer(
        &mut self,
        answer: ParkedAnswer,
        odd: fn(&mut OddKey) -> &mut Option<Value>,
    ) -> Option<Value> {
        match answer {
            ParkedAnswer::None => None,
            ParkedAnswer::Action(action) => Some(action.value()),
            ParkedAnswer::Json => self.odd.as_deref_mut().and_then(|o| odd(o).take()),
        }
    }
}

/// Packs one of a round's maps into the parked keys: `set` writes each value into its key's
/// entry.
fn pack<V>(
    keys: &mut BTreeMap<String, ParkedKey>,
    map: impl IntoIterator<Item = (String, V)>,
    set: impl Fn(&mut ParkedKey, V),
) {
    for (key, value) in map {
        let parked = match keys.entry(key) {
            std::collections::btree_map::Entry::Occupied(entry) => entry.into_mut(),
            std::collections::btree_map::Entry::Vacant(entry) => {
                let key = entry.key().clone();
                entry.insert(ParkedKey::new(key))
            }
        };
        set(parked, value);
    }
}

/// Unpacks one of a round's maps from the parked keys: `get` takes each key's value, if it has
/// one.
fn unpack<V, M: FromIterator<(String, V)>>(
    keys: &mut [ParkedKey],
    mut get: impl FnMut(&mut ParkedKey) -> Option<V>,
) -> M {
    keys.iter_mut()
        .filter_map(|parked| get(parked).map(|value| (String::from(&*parked.key), value)))
        .collect()
}

impl<S> fmt::Debug for ParkedRound<'_, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ParkedRound")
            .field("principal", &self.parked.principal)
            .field("keys", &self.parked.keys.len())
            .finish_non_exhaustive()
    }
}

impl<'r, S> Round<'r, S> {
    /// Puts the round away while its handler waits: see [`ParkedRound`].
    #[must_use = "a parked round is resumed, or the round is lost"]
    pub fn park(self) -> ParkedRound<'r, S> {
        let Round {
            rounds,
            binding,
            now,
            asked_at,
            too_fast,
            capabilities,
            responses,
            resumed,
            spend,
            asked,
            questions,
            flows,
            drawn,
            correlation,
            read_keys,
            carried,
            state,
            reasks,
            rejections,
            rejected,
            // Read by the `answer` that set it: none is left to park.
            automatic: _,
            missing,
            missing_names,
            unusable,
            continues,
        } = self;
        let mut keys = BTreeMap::new();
        let flag = |set: fn(&mut ParkedKey)| move |parked: &mut ParkedKey, ()| set(parked);
        let keyed = |key| (key, ());
        pack(&mut keys, responses, |k, v| {
            k.response = k.pack_answer(v, |o| &mut o.response)
        });
        pack(&mut keys, carried, |k, v| {
            k.carried = k.pack_answer(v, |o| &mut o.carried)
        });
        pack(&mut keys, questions, |k, v| {
            let hex = k.pack_hex(v, |o| &mut o.question);
            k.set_hex(hex, ParkedKey::QUESTION, |k| &mut k.question);
        });
        pack(&mut keys, flows, |k, v| {
            let hex = k.pack_hex(v, |o| &mut o.flow);
            k.set_hex(hex, ParkedKey::FLOW, |k| &mut k.flow);
        });
        pack(
            &mut keys,
            asked.into_iter().map(keyed),
            flag(|k| k.flags |= ParkedKey::ASKED),
        );
        pack(
            &mut keys,
            read_keys.into_iter().map(keyed),
            flag(|k| k.flags |= ParkedKey::READ),
        );
        pack(&mut keys, rejections, |k, count| k.rejections = count);
        pack(&mut keys, drawn, |k, bits| {
            k.drawn = ParkedKey::DRAWN | bits
        });
        pack(&mut keys, missing_names, |k, name| {
            k.odd().missing_name = Some(name)
        });
        let OwnedBinding {
            principal,
            method,
            params_digest,
        } = binding;
        let (method, odd_method) = match KNOWN_METHODS.iter().position(|known| *known == method) {
            // Three methods: the index fits.
            #[allow(clippy::cast_possible_truncation)]
            Some(index) => (index as u8, None),
            None => (u8::MAX, Some(String::from(method).into_boxed_str())),
        };
        let (spend, due) = match spend {
            Spend::Nothing => (ParkedSpend::Nothing, None),
            Spend::Unguarded => (ParkedSpend::Unguarded, None),
            Spend::Due { id, expires_at } => (ParkedSpend::Nothing, Some((id, expires_at))),
            Spend::Spent => (ParkedSpend::Spent, None),
        };
        let rare = ParkedRare {
            rejected,
            missing,
            unusable,
            method: odd_method,
            too_fast: (too_fast != crate::observe::TooFast::DEFAULT).then_some(too_fast),
            due,
        };
        let rare = (rare.rejected.is_some()
            || !rare.missing.is_empty()
            || !rare.unusable.is_empty()
            || rare.method.is_some()
            || rare.too_fast.is_some()
            || rare.due.is_some())
        .then(|| Box::new(rare));
        ParkedRound {
            parked: Box::new(Parked {
                rounds,
                principal,
                params_digest,
                now,
                asked_at: asked_at.unwrap_or(0),
                capabilities,
                correlation,
                reasks,
                method,
                has_asked_at: asked_at.is_some(),
                resumed,
                continues,
                spend,
                state,
                rare,
                keys: keys.into_values().collect(),
            }),
        }
    }
}

impl<'r, S> ParkedRound<'r, S> {
    /// The round as it was when it was [parked](Round::park).
    #[must_use]
    pub fn resume(self) -> Box<Round<'r, S>> {
        let Parked {
            rounds,
            principal,
            params_digest,
            now,
            asked_at,
            capabilities,
            correlation,
            reasks,
            method,
            has_asked_at,
            resumed,
            continues,
            spend,
            state,
            rare,
            keys,
        } = *self.parked;
        let ParkedRare {
            rejected,
            missing,
            unusable,
            method: odd_method,
            too_fast,
            due,
        } = rare.map(|rare| *rare).unwrap_or_default();
        let method = KNOWN_METHODS.get(usize::from(method)).map_or_else(
            || Cow::Owned(odd_method.map(String::from).unwrap_or_default()),
            |known| Cow::Borrowed(*known),
        );
        let spend = match (due, spend) {
            (Some((id, expires_at)), _) => Spend::Due { id, expires_at },
            (None, ParkedSpend::Nothing) => Spend::Nothing,
            (None, ParkedSpend::Unguarded) => Spend::Unguarded,
            (None, ParkedSpend::Spent) => Spend::Spent,
        };
        let binding = OwnedBinding {
            principal,
            method,
            params_digest,
        };
        let asked_at = has_asked_at.then_some(asked_at);
        let too_fast = too_fast.unwrap_or(crate::observe::TooFast::DEFAULT);
        let mut keys = keys;
        let keys = &mut *keys;
        // A rejection count is at least 1: 0 is none.
        let rejections = unpack(keys, |k| (k.rejections > 0).then_some(k.rejections));
        Box::new(Round {
            rounds,
            binding,
            now,
            asked_at,
            too_fast,
            capabilities,
            responses: unpack(keys, |k| k.unpack_answer(k.response, |o| &mut o.response)),
            resumed,
            spend,
            asked: unpack::<(), BTreeMap<_, _>>(keys, |k| k.has(ParkedKey::ASKED).then_some(()))
                .into_keys()
                .collect(),
            questions: unpack(keys, |k| {
                let hex = k.has(ParkedKey::QUESTION).then_some(k.question);
                k.unpack_hex(hex, |o| &mut o.question)
            }),
            flows: unpack(keys, |k| {
                let hex = k.has(ParkedKey::FLOW).then_some(k.flow);
                k.unpack_hex(hex, |o| &mut o.flow)
            }),
            drawn: unpack(keys, |k| {
                (k.drawn & ParkedKey::DRAWN != 0).then_some(k.drawn & !ParkedKey::DRAWN)
            }),
            correlation,
            read_keys: unpack::<(), BTreeMap<_, _>>(keys, |k| k.has(ParkedKey::READ).then_some(()))
                .into_keys()
                .collect(),
            carried: unpack(keys, |k| k.unpack_answer(k.carried, |o| &mut o.carried)),
            state,
            reasks,
            rejections,
            rejected,
            automatic: None,
            missing,
            missing_names: unpack(keys, |k| k.odd.as_deref_mut()?.missing_name.take()),
            unusable,
            continues,
        })
    }
}

/// A short name for one call's rounds in logs ([`Round::correlation`]): 32 random bits, written
/// as 8 hexadecimal digits. Made by the call's first round and carried, sealed, in every later
/// round's `requestState`, so every replica that runs a round of the call logs the same one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CorrelationId(u32);

impl CorrelationId {
    /// A new one; `0` if the operating system has no randomness to give (it only names logs).
    fn random() -> Self {
        Self(getrandom::u32().unwrap_or(0))
    }
}

impl fmt::Display for CorrelationId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:08x}", self.0)
    }
}

/// A URL question's flow in a round ([`Round::flow_id`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RoundFlow {
    /// The flow's id, the same in every round of the call.
    pub id: crate::url_mode::FlowId,
    /// Whether this run started it: no earlier round did, so the server begins it in its store
    /// now. A carried flow the store no longer knows expired: it is never begun again.
    pub started: bool,
}

/// Whether the state a run resumed is spent.
#[derive(Clone, Copy, Debug)]
enum Spend {
    /// A first request: nothing resumed.
    Nothing,
    /// Resumed, with no replay guard configured: nothing to spend.
    Unguarded,
    /// Resumed, and to be spent in the guard before anything is read.
    Due { id: StateId, expires_at: UnixTime },
    /// Resumed and spent by this run.
    Spent,
}

impl Spend {
    fn check(self) -> Result<(), MrtrError> {
        match self {
            Self::Due { .. } => Err(MrtrError::Unspent),
            Self::Nothing | Self::Unguarded | Self::Spent => Ok(()),
        }
    }
}

/// The adaptations to seal: those of the keys whose question is sealed (asked now, or of an
/// answer carried forward).
fn sealed_drawn<'a>(
    drawn: &'a BTreeMap<String, u8>,
    questions: &BTreeMap<&str, &str>,
) -> BTreeMap<&'a str, u8> {
    drawn
        .iter()
        .filter(|(key, _)| questions.contains_key(key.as_str()))
        .map(|(key, bits)| (key.as_str(), *bits))
        .collect()
}

/// Now, in milliseconds since the Unix epoch; `None` on a clock set before it.
fn millis_now() -> Option<u64> {
    let since = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?;
    u64::try_from(since.as_millis()).ok()
}

impl<S> sealed::Collect for Round<'_, S> {
    fn answered(&mut self, name: &str, outcome: crate::observe::Outcome, fields: usize) {
        crate::observe::answered(name, outcome);
        if let (Some(asked_at), Some(now)) = (self.asked_at, millis_now()) {
            // A replica whose clock is behind the asking one's reads no time at all.
            let elapsed = std::time::Duration::from_millis(now.saturating_sub(asked_at));
            crate::observe::timed_in_scope(name, outcome, elapsed, fields, self.too_fast);
        }
    }

    fn consented(&mut self, name: &str, fields: usize) -> bool {
        // The retry's arrival, against the asking time the state sealed: one wall clock each
        // (SECURITY.md, "Consent"). None sealed, or a reading clock behind the sealing one's,
        // reads no time at all: the consent is not taken.
        // The rule is `answered_too_fast`'s, one place for consent and the link form.
        let Some((elapsed, threshold)) = self.answered_too_fast(fields) else {
            return true;
        };
        if self.automatic.is_none() {
            self.automatic = Some(Box::new(AutomaticConsent::new(
                name.to_owned(),
                elapsed,
                threshold,
            )));
        }
        false
    }

    fn lookup(&mut self, key: &str, question: &str, unasked: bool) -> Option<(Value, bool)> {
        let same_question = self.questions.get(key).map(String::as_str) == Some(question);
        if let Some(answer) = self.carried.get(key) {
            // An answer to another question asked under this key is not an answer to this one.
            return same_question.then(|| (answer.clone(), false));
        }
        // With a replay guard `answer` refuses an ask that reads unasked answers: every answer
        // read comes from a spent state.
        let unasked = unasked && self.rounds.guard.is_none();
        if unasked || (self.asked.contains(key) && same_question) {
            // Taken, not copied: `answer` reads each key once per run.
            return self.responses.remove(key).map(|fresh| (fresh, true));
        }
        None
    }

    fn drawn_as(&self, key: &str) -> Option<FieldKinds> {
        match self.drawn.get(key) {
            Some(bits) => Some(FieldKinds::from_bits(*bits)),
            // Asked (or answered) as it was.
            None => self.questions.contains_key(key).then_some(FieldKinds::ALL),
        }
    }

    fn drew(&mut self, key: &str, kinds: Option<FieldKinds>) {
        match kinds {
            Some(kinds) => {
                self.drawn.insert(key.to_owned(), kinds.bits());
            }
            None => {
                self.drawn.remove(key);
            }
        }
    }

    fn usable(&mut self, key: String, question: String, response: Value) {
        self.questions.insert(key.clone(), question);
        self.carried.insert(key, response);
    }

    fn unusable(&mut self, key: &str, name: Option<&Text>, why: Box<Unusable>) -> bool {
        // The rules broken, never the value: this is for logs.
        self.unusable
            .push((key.to_owned(), why.error.rules().to_string()));
        // An answer that broke no rule (a page still open) is asked again, uncounted.
        if !why.counted {
            return true;
        }
        let count = self.rejections.entry(key.to_owned()).or_default();
        *count = count.saturating_add(1);
        if Rejected::may_ask_again(*count, self.reasks) {
            return true;
        }
        if self.rejected.is_none() {
            let name = name.map_or(key, |name| name);
            let Unusable {
                error, explanation, ..
            } = *why;
            self.rejected = Some(Box::new(Rejected::new(name, *count, error, explanation)));
        }
        false
    }

    fn missing(
        &mut self,
        key: String,
        question: String,
        request: Cow<'static, Value>,
        name: Option<Text>,
    ) {
        // Keys are unique within a run (`answer` refuses a repeat). An answer carried under this
        // key answered another question: it is dropped, and this question asked.
        self.carried.remove(&key);
        self.questions.insert(key.clone(), question);
        if let Some(name) = name {
            self.missing_names.insert(key.clone(), name);
        }
        self.missing.replace(key, request);
    }
}

#[cfg(test)]
mod parked {
    use serde_json::json;

    use super::*;
    use crate::state::ParamsDigest;

    fn round(rounds: &Rounds) -> Round<'_, ()> {
        let params = json!({ "name": "connect",
            "_meta": { "io.modelcontextprotocol/clientCapabilities": { "elicitation": { "url": {} } } } });
        let binding = Binding {
            principal: "u",
            method: "tools/call",
            params_digest: ParamsDigest::of_request_params(&params),
        };
        let retry = Retry::from_params(&params).unwrap();
        rounds.round(retry, binding, UnixTime::now()).unwrap()
    }

    /// What a retry accepting a URL question holds while it waits packs with nothing boxed
    /// besides the key: the question's digest and the flow's id as bytes, the accept as its
    /// action, no box for what is empty (BENCHMARKS.md §11).
    #[test]
    fn a_waiting_url_question_packs_into_its_entry_alone() {
        let rounds = Rounds::generate().unwrap();
        let mut round = round(&rounds);
        let question = "0123456789abcdef0123456789abcdef".to_owned();
        round.flow_id("api_key").unwrap();
        round.asked.insert("api_key".to_owned());
        round
            .questions
            .insert("api_key".to_owned(), question.clone());
        round
            .responses
            .insert("api_key".to_owned(), json!({ "action": "accept" }));
        let flows = round.flows.clone();
        let parked = round.park();
        assert!(parked.parked.rare.is_none(), "nothing rare is boxed");
        let [key] = &*parked.parked.keys else {
            panic!("one entry for one key");
        };
        assert!(key.odd.is_none(), "nothing of the key is boxed");
        assert_eq!(key.response, ParkedAnswer::Action(ParkedAction::Accept));
        assert!(std::mem::size_of::<ParkedKey>() <= 64);
        assert_eq!(
            KNOWN_METHODS[usize::from(parked.parked.method)],
            "tools/call"
        );
        assert!(std::mem::size_of::<Parked<'_, ()>>() <= 128);
        let round = parked.resume();
        assert!(matches!(round.binding.method, Cow::Borrowed("tools/call")));
        assert_eq!(round.questions["api_key"], question);
        assert_eq!(round.flows, flows);
        assert_eq!(round.responses["api_key"], json!({ "action": "accept" }));
        assert!(round.asked.contains("api_key"));
    }

    /// Whatever does not pack comes back exactly: text that is not lowercase hexadecimal,
    /// answers with more than an action, counts, names, keys read, the rare parts.
    #[test]
    fn a_parked_round_resumes_exactly_what_did_not_pack() {
        let rounds = Rounds::generate().unwrap();
        let mut round = round(&rounds);
        let upper = "0123456789ABCDEF0123456789ABCDEF".to_owned();
        round.questions.insert("a".to_owned(), upper.clone());
        round.questions.insert("b".to_owned(), "short".to_owned());
        round
            .flows
            .insert("b".to_owned(), "not a flow id".to_owned());
        round.carried.insert(
            "a".to_owned(),
            json!({ "action": "accept", "content": { "x": 1 } }),
        );
        round
            .carried
            .insert("c".to_owned(), json!({ "action": "decline" }));
        round
            .responses
            .insert("b".to_owned(), json!({ "action": "launch" }));
        round.responses.insert("d".to_owned(), json!("cancel"));
        round.asked.extend(["b".to_owned(), "d".to_owned()]);
        round.read_keys.insert("a".to_owned());
        round.rejections.insert("b".to_owned(), 2);
        round
            .missing_names
            .insert("d".to_owned(), Text::from("Window"));
        round.unusable.push(("b".to_owned(), "rule".to_owned()));
        round.drawn.insert("a".to_owned(), 0);
        round.drawn.insert("b".to_owned(), 5);
        // Every map and list a parked round packs, as the live round holds them.
        let maps = |round: &Round<'_>| {
            (
                round.questions.clone(),
                round.flows.clone(),
                round.carried.clone(),
                round.responses.clone(),
                round.asked.clone(),
                round.read_keys.clone(),
                round.rejections.clone(),
                round.missing_names.clone(),
                round.unusable.clone(),
                round.drawn.clone(),
            )
        };
        let before = maps(&round);
        let round = round.park().resume();
        assert_eq!(maps(&round), before);
    }

    /// What a parked round keeps as a byte, or in its rare box, comes back as it was: a method
    /// MCP does not define, a threshold of the server's own, a state not spent yet, when the
    /// last round asked, the flags.
    #[test]
    fn a_parked_round_resumes_its_binding_spend_and_settings() {
        let rounds = Rounds::generate().unwrap();
        let mut round = round(&rounds);
        let slow = crate::observe::TooFast::new(
            std::time::Duration::from_secs(5),
            std::time::Duration::from_millis(1),
        );
        round.set_too_fast(slow);
        round.binding.method = Cow::Owned("example/custom".to_owned());
        let id = StateId::from_bytes([7; 16]);
        round.spend = Spend::Due {
            id,
            expires_at: UnixTime::from_secs(99),
        };
        round.asked_at = Some(1_800_000_000_123);
        round.resumed = true;
        round.continues = true;
        round.reasks = 3;
        let round = round.park().resume();
        assert_eq!(round.binding.method, "example/custom");
        assert_eq!(&*round.binding.principal, "u");
        assert_eq!(round.too_fast, slow);
        assert!(
            matches!(round.spend, Spend::Due { id: due, expires_at } if due == id && expires_at == UnixTime::from_secs(99))
        );
        assert_eq!(round.asked_at, Some(1_800_000_000_123));
        assert!(round.resumed && round.continues);
        assert_eq!(round.reasks, 3);

        let mut round = round;
        round.spend = Spend::Spent;
        round.asked_at = None;
        round.resumed = false;
        round.set_too_fast(crate::observe::TooFast::DEFAULT);
        round.binding.method = Cow::Borrowed("prompts/get");
        let parked = round.park();
        assert!(parked.parked.rare.is_none(), "nothing rare");
        let round = parked.resume();
        assert!(matches!(round.spend, Spend::Spent));
        assert_eq!(round.asked_at, None);
        assert!(!round.resumed);
        assert_eq!(round.binding.method, "prompts/get");
    }
}
