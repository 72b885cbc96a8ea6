//! What a handler needs answered: [`Ask`], and several at once as a tuple ([`Asks`]).

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use serde_json::{Map, Value};

use super::result::elicit_request;
use crate::consent::{Consent, ConsentForm, consent_of};
use crate::elicit::Elicit;
use crate::hosts::{Adaptation, FieldKinds};
use crate::outcome::{Action, Elicitation, MalformedReply, ReplyError};
use crate::read::{FromContent, parse_with_schema};
use crate::request::{AdaptedQuestion, FormRequest};
use crate::requested::Text;
use crate::url_mode::{FlowOutcome, FlowStatus, UrlOutcome, UrlRequest};

// A URL flow's step asked in a form with no field ([`Ask::flow_form`]).
mod flow_form;

type Reader<O> = Box<dyn Fn(&Value) -> Result<O, Box<Unusable>> + Send + Sync>;

/// One input a handler needs: the key it is asked under, the input request to send while there
/// is no usable answer, and how an answer is read.
///
/// Pass it, or a tuple of up to six, to [`Round::answer`](super::Round::answer).
///
/// ```
/// # extern crate elicit_core as mcp_elicit;
/// use mcp_elicit::mrtr::Ask;
/// use mcp_elicit::{Elicitation, FormRequest, schema::{Property, RequestedSchema, StringSchema}};
/// use serde_json::{Map, Value, json};
///
/// let schema = RequestedSchema::new(vec![Property::new("name", StringSchema::new())])?;
/// let login: Ask<Elicitation<Map<String, Value>>> =
///     Ask::form_request("github_login", FormRequest::new("Your GitHub username?", schema)?);
/// let capital: Ask<Value> = Ask::sampling("capital_of_france", json!({
///     "messages": [{"role": "user", "content": {"type": "text", "text": "Capital of France?"}}],
///     "maxTokens": 100,
/// }));
/// assert_eq!(login.key(), "github_login");
/// assert_eq!(capital.request()["method"], "sampling/createMessage");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Ask<O> {
    key: String,
    request: Request,
    read: Reader<O>,
    /// The elicitation's name for the interrupt budget ([`crate::observe`]); `None` for
    /// sampling and roots, which are not questions to the user.
    name: Option<Text>,
    /// Whether an answer may be read before this question was asked (see
    /// [`answerable_before_asked`](Ask::answerable_before_asked)). Never for consent.
    before_asked: Unsolicited,
    /// How an answer that was read counts in the interrupt budget; `None`: by the client's
    /// action. A consent form counts its consent: accepted with a box unticked is a decline.
    counted: Option<fn(&O) -> crate::observe::Outcome>,
    /// For a form asked as a host draws it ([`Ask::form_request_drawn`]): what it was adapted
    /// to, and the same question for the kinds an earlier round sealed.
    drawn: Option<Drawn<O>>,
}

/// A form asked as a host draws it: the kinds it was adapted to (`None`: sent as it is), and
/// the same ask, under a key, adapted to other kinds.
struct Drawn<O> {
    adapted_to: Option<FieldKinds>,
    redraw: Box<dyn FnOnce(String, FieldKinds) -> Ask<O> + Send + Sync>,
}

/// Whether an ask reads answers to a question no earlier round asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unsolicited {
    /// Ignored (the default): only answers to what an earlier round asked are read.
    Ignored,
    /// Read, by the handler's explicit choice.
    Read,
    /// Ignored, and cannot be changed: consent comes only from a question actually asked.
    Never,
}

/// The note of a URL flow's question asked again because its page was still open when the
/// server stopped waiting for it: what the user can do, in any client (none has a button named
/// "accept" for a URL request).
const STILL_OPEN: &str = "the page is still open: finish the step there, then retry or continue";

/// Why an answer could not be used (unnameable outside this crate): the error, what was wrong in the user's words, and the
/// request to send if the question is asked again (`None`: the same request).
#[derive(Debug, Clone, PartialEq)]
pub struct Unusable {
    pub(crate) error: ReplyError,
    pub(crate) explanation: String,
    pub(crate) again: Option<Value>,
    /// Whether it counts against the round's re-ask bound: `false` for an answer that broke no
    /// rule (a URL flow's accept whose page is still open after the server waited for it).
    pub(crate) counted: bool,
}

impl Unusable {
    /// An answer to a question that is asked again as it was.
    fn unreadable(error: ReplyError) -> Box<Self> {
        Box::new(Self {
            explanation: crate::outcome::explain_without_schema(&error),
            error,
            again: None,
            counted: true,
        })
    }

    /// An answer to `form` that broke its rules: the form is asked again saying what was wrong,
    /// each field of `reply` that kept its rules pre-filled
    /// ([`FormRequest::reasked_keeping`]).
    fn of_form<T>(form: &FormRequest<T>, error: ReplyError, reply: &Value) -> Box<Self> {
        Box::new(Self {
            explanation: form.explain(&error),
            again: Some(elicit_request(
                &form.reasked_keeping(&error, reply.get("content")),
            )),
            error,
            counted: true,
        })
    }

    /// An answer to the consent form `form` that broke its rules: the form is asked again
    /// saying what was wrong, with nothing pre-filled (consent comes from the person, every
    /// time).
    fn of_consent_form<T>(form: &FormRequest<T>, error: ReplyError) -> Box<Self> {
        Box::new(Self {
            explanation: form.explain(&error),
            again: Some(elicit_request(&form.reasked(&error))),
            error,
            counted: true,
        })
    }
}

impl Unusable {
    /// An answer to an adapted `form` that broke its rules: `again` (the form asked again) is
    /// sent adapted as the first question was.
    fn of_adapted<T>(
        form: &FormRequest<T>,
        again: &FormRequest<T>,
        kinds: FieldKinds,
        error: ReplyError,
    ) -> Box<Self> {
        let again = match again.adapted(kinds) {
            Some((sent, _)) => elicit_request(&sent),
            None => elicit_request(again),
        };
        Box::new(Self {
            explanation: form.explain(&error),
            again: Some(again),
            error,
            counted: true,
        })
    }
}

/// A reply to an adapted form, its `content` in the form's shape ([`Adaptation::restore`]).
fn restored(adaptation: &Adaptation, reply: &Value) -> Value {
    let mut reply = reply.clone();
    if let Some(content) = reply.get_mut("content").and_then(Value::as_object_mut) {
        adaptation.restore_map(content);
    }
    reply
}

/// `form` as a host that draws `kinds` draws it, if it must be adapted for them: the adapted
/// input request and how to read its answer back. A derived form's is made once per
/// adaptation and borrowed from its type's cache ([`FormRequest::cached_adapted`]), as its
/// unadapted question is ([`asked`]); any other form's is made anew. `None`: sent as it is.
fn adapted_request<T>(
    form: &FormRequest<T>,
    kinds: FieldKinds,
) -> Option<(Request, Cow<'static, Adaptation>)> {
    if kinds.draws_all() {
        return None;
    }
    let cached = form.cached_adapted(kinds, |form| {
        form.adapted(kinds).map(|(sent, adaptation)| {
            let request = elicit_request(&sent);
            let question = question_of(&request);
            AdaptedQuestion {
                question: (request, question),
                adaptation,
            }
        })
    });
    match cached {
        Some(made) => made.map(|made| {
            (
                Request::Made(&made.question),
                Cow::Borrowed(&made.adaptation),
            )
        }),
        None => form.adapted(kinds).map(|(sent, adaptation)| {
            (
                Request::Owned(elicit_request(&sent)),
                Cow::Owned(adaptation),
            )
        }),
    }
}

/// [`Ask::form_request_drawn`]: `form` asked under `key` as a host that draws `kinds` draws it,
/// and able to ask it for other kinds ([`Drawn`]).
fn drawn_form<T>(key: String, form: Arc<FormRequest<T>>, kinds: FieldKinds) -> Ask<Elicitation<T>>
where
    T: FromContent + 'static,
{
    let again = Arc::clone(&form);
    let redraw = Box::new(move |key, kinds| drawn_form(key, again, kinds));
    let name = Some(form.name().to_owned().into());
    let Some((request, adaptation)) = adapted_request(&form, kinds) else {
        return Ask {
            key,
            request: asked(&form),
            name,
            before_asked: Unsolicited::Ignored,
            counted: None,
            drawn: Some(Drawn {
                adapted_to: None,
                redraw,
            }),
            read: Box::new(move |reply| {
                parse_with_schema(form.schema(), reply)
                    .map_err(|e| Unusable::of_form(&form, e, reply))
            }),
        };
    };
    Ask {
        key,
        request,
        name,
        before_asked: Unsolicited::Ignored,
        counted: None,
        drawn: Some(Drawn {
            adapted_to: Some(kinds),
            redraw,
        }),
        read: Box::new(move |reply| {
            let reply = restored(&adaptation, reply);
            parse_with_schema(form.schema(), &reply).map_err(|e| {
                let again = form.reasked_keeping(&e, reply.get("content"));
                Unusable::of_adapted(&form, &again, kinds, e)
            })
        }),
    }
}

/// [`Ask::consent_request_drawn`], as [`drawn_form`].
fn drawn_consent<T>(
    key: String,
    form: Arc<FormRequest<T>>,
    kinds: FieldKinds,
) -> Ask<Elicitation<Consent<T>>>
where
    T: ConsentForm + 'static,
{
    let again = Arc::clone(&form);
    let redraw = Box::new(move |key, kinds| drawn_consent(key, again, kinds));
    let name = Some(form.name().to_owned().into());
    let Some((request, adaptation)) = adapted_request(&form, kinds) else {
        return Ask {
            key,
            request: asked(&form),
            name,
            before_asked: Unsolicited::Never,
            counted: Some(Elicitation::outcome),
            drawn: Some(Drawn {
                adapted_to: None,
                redraw,
            }),
            read: Box::new(move |reply| {
                parse_with_schema(form.schema(), reply)
                    .map(|outcome| consent_of(outcome, form.message()))
                    .map_err(|e| Unusable::of_consent_form(&form, e))
            }),
        };
    };
    Ask {
        key,
        request,
        name,
        before_asked: Unsolicited::Never,
        counted: Some(Elicitation::outcome),
        drawn: Some(Drawn {
            adapted_to: Some(kinds),
            redraw,
        }),
        read: Box::new(move |reply| {
            let reply = restored(&adaptation, reply);
            parse_with_schema(form.schema(), &reply)
                .map(|outcome| consent_of(outcome, form.message()))
                .map_err(|e| Unusable::of_adapted(&form, &form.reasked(&e), kinds, e))
        }),
    }
}

impl<O> Drawn<O> {
    /// `ask` (whose `Drawn` this was) as the round it is read in has it sealed: asked again
    /// for the kinds an earlier round adapted its form to, if they are not the ones it was
    /// made for (a retry whose client would be given other kinds); else `ask` as it is. With
    /// the kinds it is sent adapted to (`None`: as it is), to seal.
    fn settle(self, ask: Ask<O>, round: &dyn sealed::Collect) -> (Ask<O>, Option<FieldKinds>) {
        let made_for = self.adapted_to.unwrap_or(FieldKinds::ALL);
        match round.drawn_as(&ask.key) {
            Some(sealed) if sealed != made_for => {
                let Ask {
                    key, before_asked, ..
                } = ask;
                let mut again = (self.redraw)(key, sealed);
                again.before_asked = before_asked;
                let adapted_to = again.drawn.take().and_then(|drawn| drawn.adapted_to);
                (again, adapted_to)
            }
            _ => (ask, self.adapted_to),
        }
    }
}

impl fmt::Display for Unusable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.error, f)
    }
}

impl Ask<()> {
    /// A form-mode elicitation of the derived form `T`, with its own message: the answer is an
    /// [`Elicitation<T>`] — `Accept(value)`, `Decline` or `Cancel`, each final.
    #[must_use]
    pub fn form<T>(key: impl Into<String>) -> Ask<Elicitation<T>>
    where
        T: Elicit + 'static,
    {
        Self::form_request(key, T::form_request())
    }

    /// A form-mode elicitation of a [`FormRequest`] built at run time (a message naming what was
    /// found, options filled in, a hand-built schema); the answer is validated against exactly
    /// this form.
    #[must_use]
    pub fn form_request<T>(key: impl Into<String>, form: FormRequest<T>) -> Ask<Elicitation<T>>
    where
        T: FromContent + 'static,
    {
        Ask {
            key: key.into(),
            request: asked(&form),
            name: Some(form.name().to_owned().into()),
            before_asked: Unsolicited::Ignored,
            counted: None,
            drawn: None,
            read: Box::new(move |reply| {
                parse_with_schema(form.schema(), reply)
                    .map_err(|e| Unusable::of_form(&form, e, reply))
            }),
        }
    }

    /// [`form_request`](Ask::form_request), asked as a host that draws `kinds` can draw it
    /// ([`FormRequest::adapted`]): a field of a kind it does not draw is asked in one it does,
    /// and the answer is put back in the form's shape before this form reads it, by its own
    /// rules. A form the host draws whole is sent as [`form_request`](Ask::form_request) sends
    /// it, byte for byte; an adapted derived form is made once per adaptation (its type and
    /// the kinds it was adapted to) and cached apart from the unadapted question, never in its
    /// place.
    ///
    /// The form is sealed as it was sent: a round that asks it seals the kinds it was adapted
    /// to in the request state (nothing for a form sent as it is), and a later round reads the
    /// answer, and asks again, with the form adapted as the state says, whatever `kinds` the
    /// retry's client would be given. A client that calls itself another host on the retry
    /// (or none) is read against the schema its question had; an answer that does not fit that
    /// schema breaks the form's rules and is asked again, never read as another.
    #[must_use]
    pub fn form_request_drawn<T>(
        key: impl Into<String>,
        form: FormRequest<T>,
        kinds: FieldKinds,
    ) -> Ask<Elicitation<T>>
    where
        T: FromContent + 'static,
    {
        drawn_form(key.into(), Arc::new(form), kinds)
    }

    /// [`consent_request`](Ask::consent_request), asked as a host that draws `kinds` can draw
    /// it ([`form_request_drawn`](Ask::form_request_drawn), sealed as it was sent); nothing is
    /// pre-filled when it is asked again.
    #[must_use]
    pub fn consent_request_drawn<T>(
        key: impl Into<String>,
        form: FormRequest<T>,
        kinds: FieldKinds,
    ) -> Ask<Elicitation<Consent<T>>>
    where
        T: ConsentForm + 'static,
    {
        drawn_consent(key.into(), Arc::new(form), kinds)
    }

    /// A consent form (`#[elicit(consent)]`): the answer is an [`Elicitation`] of a
    /// [`Consent<T>`] — the only way, in a multi round-trip request, to obtain the proof a
    /// destructive function takes. An accepted form with an unticked confirmation is a decline.
    #[must_use]
    pub fn consent<T>(key: impl Into<String>) -> Ask<Elicitation<Consent<T>>>
    where
        T: ConsentForm + 'static,
    {
        Self::consent_request(key, T::form_request())
    }

    /// [`consent`](Ask::consent) with a request built at run time, e.g. a message naming the
    /// exact thing about to be destroyed; the consent carries that message.
    #[must_use]
    pub fn consent_request<T>(
        key: impl Into<String>,
        form: FormRequest<T>,
    ) -> Ask<Elicitation<Consent<T>>>
    where
        T: ConsentForm + 'static,
    {
        Ask {
            key: key.into(),
            request: asked(&form),
            name: Some(form.name().to_owned().into()),
            before_asked: Unsolicited::Never,
            counted: Some(Elicitation::outcome),
            drawn: None,
            read: Box::new(move |reply| {
                parse_with_schema(form.schema(), reply)
                    .map(|outcome| consent_of(outcome, form.message()))
                    .map_err(|e| Unusable::of_consent_form(&form, e))
            }),
        }
    }

    /// A URL-mode elicitation: the answer is a [`UrlOutcome`]. `Accept` means the user agreed
    /// to open the page, not that they finished there: on the retry, check your own record of
    /// the interaction, and ask again (under a new key) if it is not complete.
    #[must_use]
    pub fn url(key: impl Into<String>, request: UrlRequest) -> Ask<UrlOutcome> {
        Ask {
            key: key.into(),
            request: Request::Owned(elicit_request(&request)),
            name: Some(request.name().to_owned().into()),
            before_asked: Unsolicited::Ignored,
            counted: None,
            drawn: None,
            read: Box::new(move |reply| {
                UrlOutcome::from_reply(reply).map_err(Unusable::unreadable)
            }),
        }
    }

    /// A URL-mode elicitation that started a flow ([`Round::flow_id`](super::Round::flow_id)),
    /// read with the flow's `status` as the server's [`FlowStore`](crate::url_mode::FlowStore)
    /// has it now: the answer is a [`FlowOutcome`] ([`FlowOutcome::of`]: a page that finished
    /// is read as it finished, whatever the client answered).
    ///
    /// An accept whose step is still open is not an answer yet, and not a bad one: read it only
    /// after waiting for the page (as the rmcp `Asker` does, within its bound). If the step is
    /// still open, the question is asked again with the same URL and a note that the page is
    /// still open; that re-ask does not count against the round's re-ask bound
    /// ([`Rounds::with_reasks`](super::Rounds::with_reasks)), which is for answers that break
    /// rules. The flow's expiry, and the client's patience, bound it instead.
    #[must_use]
    pub fn url_flow(
        key: impl Into<String>,
        request: UrlRequest,
        status: FlowStatus,
    ) -> Ask<FlowOutcome> {
        let again = elicit_request(&request.noted(STILL_OPEN));
        Ask {
            key: key.into(),
            request: Request::Owned(elicit_request(&request)),
            name: Some(request.name().to_owned().into()),
            before_asked: Unsolicited::Ignored,
            counted: None,
            drawn: None,
            read: flow_reader(status, again),
        }
    }

    /// A `sampling/createMessage` request; `params` (its `CreateMessageRequestParams`) is passed
    /// through as given, and the answer is the client's `CreateMessageResult` as JSON.
    #[must_use]
    pub fn sampling(key: impl Into<String>, params: Value) -> Ask<Value> {
        Self::raw(key, "sampling/createMessage", Some(params))
    }

    /// A `roots/list` request; the answer is the client's `ListRootsResult` as JSON.
    #[must_use]
    pub fn roots(key: impl Into<String>) -> Ask<Value> {
        Self::raw(key, "roots/list", None)
    }

    fn raw(key: impl Into<String>, method: &str, params: Option<Value>) -> Ask<Value> {
        let mut request = Map::from_iter([("method".to_owned(), Value::from(method))]);
        if let Some(params) = params {
            request.insert("params".to_owned(), params);
        }
        Ask {
            key: key.into(),
            request: Request::Owned(Value::Object(request)),
            name: None,
            before_asked: Unsolicited::Ignored,
            counted: None,
            drawn: None,
            read: Box::new(|response| match response {
                Value::Object(_) => Ok(response.clone()),
                _ => Err(Unusable::unreadable(ReplyError::Malformed(
                    MalformedReply::NotAnObject,
                ))),
            }),
        }
    }
}

impl<O> Ask<O> {
    /// The key this input is asked under.
    #[must_use]
    pub fn key(&self) -> &str {
        &self.key
    }

    /// Read an answer to this question even when no earlier round asked it — a retry without
    /// `requestState`, or with one from a round that did not ask this key.
    ///
    /// By default such answers are ignored: an answer should follow its question, so nothing
    /// reaches the handler that the user was not shown. Opt in only for a question whose answer
    /// a client may legitimately give up front (a stateless server that re-derives everything
    /// from the request). It has no effect on [`consent`](Ask::consent) asks: consent comes
    /// only from a question that was actually asked. Such an answer comes from no state, so a
    /// replay guard cannot make it single use: on rounds with one
    /// ([`Rounds::with_replay_guard`](super::Rounds::with_replay_guard)) this ask is refused
    /// ([`MrtrError::BeforeAskedWithReplayGuard`](super::MrtrError::BeforeAskedWithReplayGuard)).
    #[must_use]
    pub fn answerable_before_asked(mut self) -> Self {
        if self.before_asked != Unsolicited::Never {
            self.before_asked = Unsolicited::Read;
        }
        self
    }

    /// The input request sent while there is no usable answer (`{"method": .., "params": ..}`).
    #[must_use]
    pub fn request(&self) -> &Value {
        self.request.value()
    }

    /// What identifies its question ([`question_of`]), and whether it reads an answer sent
    /// before it was asked: what a round looks its answer up by.
    pub(crate) fn lookup_parts(&self) -> (String, bool) {
        (
            self.request.question(),
            self.before_asked == Unsolicited::Read,
        )
    }

    pub(crate) fn read(&self, response: &Value) -> Result<O, Box<Unusable>> {
        (self.read)(response)
    }

    pub(crate) fn into_parts(self) -> (String, Cow<'static, Value>, Option<Text>) {
        (self.key, self.request.into_cow(), self.name)
    }
}

impl<O> fmt::Debug for Ask<O> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Ask")
            .field("key", &self.key)
            .field("request", self.request.value())
            .finish_non_exhaustive()
    }
}

/// One [`Ask`] or a tuple of up to six: everything a step of a handler needs, asked in one
/// round. The output is the answer, or the tuple of answers in the same order.
///
/// Sealed: implemented for `Ask<O>` and tuples of `Ask`s only.
pub trait Asks: sealed::Sealed {
    /// What the answers read as: `O` for `Ask<O>`, `(A, B, ..)` for a tuple.
    type Output;

    /// Each key, and whether its ask reads an answer sent before it was asked.
    #[doc(hidden)]
    fn keys<'a>(&'a self, keys: &mut Vec<(&'a str, bool)>);

    #[doc(hidden)]
    fn collect(self, round: &mut dyn sealed::Collect) -> Option<Self::Output>;
}

pub(crate) mod sealed {
    use std::borrow::Cow;

    use serde_json::Value;

    use super::{Ask, Unusable};
    use crate::requested::Text;

    pub trait Sealed {}

    /// What a round offers the asks it reads: an answer's lookup, and the record of what is
    /// still missing.
    pub trait Collect {
        /// The answer to `key`, if the client gave one to exactly `question` (or an earlier
        /// round carried one forward), and whether it is fresh: given in this request, not
        /// carried. A fresh answer is taken out of the retry (`answer` reads each key once per
        /// run); a carried one is copied, as it may be carried on. With `unasked`, an answer to
        /// a key no earlier round asked is read too.
        fn lookup(&mut self, key: &str, question: &str, unasked: bool) -> Option<(Value, bool)>;
        /// `response` is a usable answer to `key`, asked as `question`: carry it into any later
        /// round.
        fn usable(&mut self, key: String, question: String, response: Value);
        /// The answer to `key` (an elicitation named `name`) could not be used. `true`: ask
        /// again (the round counts it against its re-asks); `false`: the re-asks are spent, and
        /// the round ends rejected.
        fn unusable(&mut self, key: &str, name: Option<&Text>, why: Box<Unusable>) -> bool;
        /// `key` has no usable answer: send `request` (an elicitation named `name`), which asks
        /// `question`.
        fn missing(
            &mut self,
            key: String,
            question: String,
            request: Cow<'static, Value>,
            name: Option<Text>,
        );
        /// A fresh answer to the elicitation `name`, a form of `fields` fields (0: a URL
        /// question), came to `outcome`: counted, and timed from the round that asked it.
        fn answered(&mut self, name: &str, outcome: crate::observe::Outcome, fields: usize);
        /// The field kinds the form asked under `key` was adapted to by the earlier round that
        /// asked it, as its state sealed them: [`FieldKinds::ALL`](crate::hosts::FieldKinds::ALL)
        /// for one it asked as it was; `None` if no earlier round asked `key`.
        fn drawn_as(&self, key: &str) -> Option<crate::hosts::FieldKinds>;
        /// The form asked (or answered) under `key` was sent adapted to `kinds` (`None`: as it
        /// was, or not a form asked as a host draws it): sealed with its question.
        fn drew(&mut self, key: &str, kinds: Option<crate::hosts::FieldKinds>);
        /// A fresh acceptance of the consent form `name`, of `fields` fields: whether it is
        /// taken (`false`: sooner after the round that asked than a person can read it; the
        /// round's `answer` says so, and nothing is carried).
        fn consented(&mut self, name: &str, fields: usize) -> bool;
    }

    impl<O> Sealed for Ask<O> {}
}

impl<O> Asks for Ask<O> {
    type Output = O;

    fn keys<'a>(&'a self, keys: &mut Vec<(&'a str, bool)>) {
        keys.push((&self.key, self.before_asked == Unsolicited::Read));
    }

    fn collect(mut self, round: &mut dyn sealed::Collect) -> Option<O> {
        // A drawn form is read, and asked again, as the state sealed it.
        let adapted_to = match self.drawn.take() {
            Some(drawn) => {
                let (settled, adapted_to) = drawn.settle(self, round);
                self = settled;
                adapted_to
            }
            None => None,
        };
        let unasked = self.before_asked == Unsolicited::Read;
        let question = self.request.question();
        if let Some((response, fresh)) = round.lookup(&self.key, &question, unasked) {
            let read = self.read(&response);
            // Count each answer once, when it arrives; carried answers were counted then.
            if let (true, Some(name)) = (fresh, &self.name) {
                let outcome = match (&read, self.counted) {
                    (Ok(answer), Some(counted)) => counted(answer),
                    // An accept whose page is still open is the user's accept.
                    _ => outcome_of(
                        &response,
                        read.as_ref().map_or_else(|why| !why.counted, |_| true),
                    ),
                };
                let fields = fields_of(self.request.value());
                round.answered(name, outcome, fields);
                // A consent is a person's only if it came as slowly as a person gives one.
                if self.before_asked == Unsolicited::Never
                    && outcome == crate::observe::Outcome::Accepted
                    && !round.consented(name, fields)
                {
                    return None;
                }
            }
            match read {
                Ok(answer) => {
                    round.drew(&self.key, adapted_to);
                    round.usable(self.key, question, response);
                    return Some(answer);
                }
                Err(why) => {
                    let again = why.again.clone();
                    if !round.unusable(&self.key, self.name.as_ref(), why) {
                        return None;
                    }
                    let (key, request, name) = self.into_parts();
                    let request = again.map_or(request, Cow::Owned);
                    round.drew(&key, adapted_to);
                    round.missing(key, question, request, name);
                    return None;
                }
            }
        }
        let (key, request, name) = self.into_parts();
        round.drew(&key, adapted_to);
        round.missing(key, question, request, name);
        None
    }
}

/// The input request an [`Ask`] sends while there is no usable answer.
enum Request {
    /// A derived form's, with its question ([`question_of`]): made once per type (and per
    /// adaptation, [`adapted_request`]), and borrowed
    /// from there, so a round that reads the answer never copies it and one that asks hands it
    /// on as it is.
    Made(&'static (Value, String)),
    /// Any other, whose question is digested when the answer is looked up.
    Owned(Value),
}

impl Request {
    fn value(&self) -> &Value {
        match self {
            Self::Made((request, _)) => request,
            Self::Owned(request) => request,
        }
    }

    fn question(&self) -> String {
        match self {
            Self::Made((_, question)) => question.clone(),
            Self::Owned(request) => question_of(request),
        }
    }

    fn into_cow(self) -> Cow<'static, Value> {
        match self {
            Self::Made((request, _)) => Cow::Borrowed(request),
            Self::Owned(request) => Cow::Owned(request),
        }
    }
}

/// A form's input request: made once per derived type (an unchanged form asks the same every
/// time), anew for a form built or changed at run time.
fn asked<T>(form: &FormRequest<T>) -> Request {
    let made = form.cached_question(|form| {
        let request = elicit_request(form);
        let question = question_of(&request);
        (request, question)
    });
    match made {
        Some(made) => Request::Made(made),
        None => Request::Owned(elicit_request(form)),
    }
}

/// What identifies a question: a digest of the input request as first asked (method, message,
/// schema, URL). An answer is read only for the question it answered, so an answer carried under
/// a key cannot be read for another question asked under the same key in a later round (the
/// same consent form with a message naming another table). 128 bits, in hex, to keep the sealed
/// state small.
fn question_of(request: &Value) -> String {
    use std::fmt::Write as _;
    let digest = crate::state::ParamsDigest::of(request);
    let mut hex = String::with_capacity(32);
    for byte in digest.as_bytes().iter().take(16) {
        let _ = write!(hex, "{byte:02x}");
    }
    hex
}

/// How many fields the form an input request asks has (0 for a URL question), for the time a
/// person needs to answer it ([`crate::observe::TooFast`]).
fn fields_of(request: &Value) -> usize {
    request
        .get("params")
        .and_then(|params| params.get("requestedSchema"))
        .and_then(|schema| schema.get("properties"))
        .and_then(Value::as_object)
        .map_or(0, Map::len)
}

/// The interrupt-budget outcome of a fresh answer that was (`usable`) or was not read.
fn outcome_of(response: &Value, usable: bool) -> crate::observe::Outcome {
    use crate::observe::Outcome;
    let action = crate::read::read_value(None, response).map(|reply| reply.action);
    match (usable, action) {
        (false, _) => Outcome::Rejected,
        (true, Ok(Ok(Action::Decline))) => Outcome::Declined,
        (true, Ok(Ok(Action::Cancel))) => Outcome::Cancelled,
        (true, _) => Outcome::Accepted,
    }
}

macro_rules! tuple_asks {
    ($($name:ident)+) => {
        impl<$($name: Asks),+> sealed::Sealed for ($($name,)+) {}

        impl<$($name: Asks),+> Asks for ($($name,)+) {
            type Output = ($($name::Output,)+);

            #[allow(non_snake_case)]
            fn keys<'a>(&'a self, keys: &mut Vec<(&'a str, bool)>) {
                let ($($name,)+) = self;
                $($name.keys(keys);)+
            }

            #[allow(non_snake_case)]
            fn collect(self, round: &mut dyn sealed::Collect) -> Option<Self::Output> {
                let ($($name,)+) = self;
                // Every ask is read before any is judged, so every missing answer is asked for
                // in the same round.
                $(let $name = $name.collect(round);)+
                Some(($($name?,)+))
            }
        }
    };
}

tuple_asks!(A);
tuple_asks!(A B);
tuple_asks!(A B C);
tuple_asks!(A B C D);
tuple_asks!(A B C D E);
tuple_asks!(A B C D E F);

/// How a flow's step is read, whichever way it was asked ([`Ask::url_flow`],
/// [`Ask::flow_form`]): the answer with the flow's `status` as the store has it
/// ([`FlowOutcome::of`]); an accept whose step is still open is asked again as `again`, not
/// counted against the re-ask bound.
fn flow_reader(status: FlowStatus, again: Value) -> Reader<FlowOutcome> {
    Box::new(move |reply| {
        let outcome = UrlOutcome::from_reply(reply).map_err(Unusable::unreadable)?;
        FlowOutcome::of(outcome, &status).ok_or_else(|| {
            Box::new(Unusable {
                error: ReplyError::NotFinished,
                explanation: crate::outcome::explain_without_schema(&ReplyError::NotFinished),
                again: Some(again.clone()),
                counted: false,
            })
        })
    })
}
