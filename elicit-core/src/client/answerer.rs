//! Who answers a request on the client's side: an [`Answerer`]. Two come with the crate: a
//! [`Scripted`] user, the test kit for server authors, and [`FnAnswerer`], a function the host
//! supplies (a GUI, a bot).

use std::collections::VecDeque;
use std::fmt;
use std::future::{Future, ready};
use std::sync::{Mutex, PoisonError};

use serde_json::{Map, Value};

use super::incoming::{Incoming, IncomingUrl, accepted, answer};
use crate::capabilities::Mode;
use crate::outcome::Action;

/// Answers the requests a server sends: with the user (a terminal, a GUI), a script, or a
/// function.
pub trait Answerer: Send + Sync {
    /// The modes it can answer, which the client declares: form, and URL if it can show a page
    /// and ask the user's consent to open it.
    fn modes(&self) -> &[Mode];

    /// The `ElicitResult` (JSON) to send for `request`, which `server` (its name, to show) sent;
    /// `None` sends nothing: before 2026-07-28 the server's own timeout decides, on 2026-07-28
    /// the call is never retried.
    fn answer(
        &self,
        server: &str,
        request: &Incoming,
    ) -> impl Future<Output = Option<Value>> + Send;

    /// The requests it met with a step for the other mode since this was last called, each
    /// once: a [`Scripted`] user whose script expected a form and was sent a URL request, or the
    /// reverse. The test kit fails the call with them. A host's answerer has a person or a
    /// function answering, not a script, and none: the default.
    fn take_wrong_modes(&self) -> Vec<WrongMode> {
        Vec::new()
    }

    /// The server reports the step on `page`'s page complete (2025-11-25's
    /// `notifications/elicitation/complete`): `page` is a URL request that `server` sent and this
    /// answerer accepted. The client matches the notification's `elicitationId` to it, and hands
    /// each page over at most once; a notification for a request never asked, not accepted, or
    /// completed already never reaches the answerer (the spec's client ignores it).
    ///
    /// An accepted page means only that the user agreed to open it: until this is called, or the
    /// call that asked returns, the step may still be going on. A host shows that it waits, says
    /// so here, and meanwhile lets the user retry or cancel the request that asked (the server
    /// may never send the notification). By default, nothing: an answerer that does not show
    /// the wait has nothing to end.
    fn completed(&self, server: &str, page: &IncomingUrl) {
        let _ = (server, page);
    }
}

/// A [`Scripted`] step that met a request of the other mode: [`Step::Accept`] (a form's) met a
/// URL request, or [`Step::OpenPage`] (a URL request's) met a form. The scripted user does not
/// accept it: it cancels, and records this for the test to fail on
/// ([`Answerer::take_wrong_modes`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WrongMode {
    /// The mode the step answers.
    pub step: Mode,
    /// The mode of the request it met.
    pub asked: Mode,
    /// The request's message.
    pub message: String,
}

impl fmt::Display for WrongMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (step, asked) = (request_of(self.step), request_of(self.asked));
        let answers = match self.step {
            Mode::Form => "`Step::Accept` answers a form; a URL request's is `Step::OpenPage`",
            Mode::Url => "`Step::OpenPage` answers a URL request; a form's is `Step::Accept`",
        };
        write!(
            f,
            "the script's step answers {step}, and the server sent {asked} ({:?}): it was \
             cancelled, not accepted ({answers})",
            self.message
        )
    }
}

/// "a form", "a URL request".
fn request_of(mode: Mode) -> &'static str {
    match mode {
        Mode::Form => "a form",
        Mode::Url => "a URL request",
    }
}

/// One answer of a [`Scripted`] user. An acceptance says which mode it answers: a form
/// ([`Accept`](Step::Accept)) or a URL request ([`OpenPage`](Step::OpenPage)). Met by a request
/// of the other mode, it does not accept: the user cancels, and the test kit fails the call
/// ([`WrongMode`]), so a test that expected a form fails when the server sends a page to open.
/// The other steps answer a request of either mode.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Step {
    /// Accept a form with this content, sent as it is — not checked, so that a test can send
    /// what a real client's checks would stop. A form's only: a URL request is not accepted.
    Accept(Map<String, Value>),
    /// Agree to open the page of a URL request (URL mode's accept: consent to open it, not that
    /// the user finished there). A URL request's only: a form is not accepted.
    OpenPage,
    /// Decline: the user said no.
    Decline,
    /// Cancel: the user dismissed the request.
    Cancel,
    /// Send nothing. Before 2026-07-28 the server waits until its own timeout; on 2026-07-28
    /// nothing waits on the server, and the client never retries the call.
    Silence,
    /// Send this JSON as the `ElicitResult`, whatever it is: a malformed reply.
    Raw(Value),
}

impl Step {
    /// Accept a form with `content` (a JSON object; anything else is accepted with no content).
    pub fn accept(content: Value) -> Self {
        match content {
            Value::Object(content) => Step::Accept(content),
            _ => Step::Accept(Map::new()),
        }
    }

    /// The mode it answers, if it answers only one.
    fn mode(&self) -> Option<Mode> {
        match self {
            Step::Accept(_) => Some(Mode::Form),
            Step::OpenPage => Some(Mode::Url),
            Step::Decline | Step::Cancel | Step::Silence | Step::Raw(_) => None,
        }
    }

    /// What it sends for `request`, or the [`WrongMode`] it met (and sends a cancel for).
    fn reply(&self, request: &Incoming) -> Result<Option<Value>, WrongMode> {
        let asked = match request {
            Incoming::Form(_) => Mode::Form,
            Incoming::Url(_) => Mode::Url,
        };
        if let Some(step) = self.mode()
            && step != asked
        {
            return Err(WrongMode {
                step,
                asked,
                message: request.message().to_owned(),
            });
        }
        Ok(match self {
            Step::Accept(content) => Some(accepted(content.clone())),
            Step::OpenPage => Some(answer(Action::Accept)),
            Step::Decline => Some(answer(Action::Decline)),
            Step::Cancel => Some(answer(Action::Cancel)),
            Step::Silence => None,
            Step::Raw(value) => Some(value.clone()),
        })
    }
}

/// Which requests a rule of a [`Scripted`] user answers.
#[derive(Debug, Clone)]
enum Matching {
    /// Its message contains this text.
    Message(String),
    /// It is a form with a property of this name.
    Field(String),
    /// It is a URL request.
    Url,
}

impl Matching {
    fn matches(&self, request: &Incoming) -> bool {
        match (self, request) {
            (Matching::Message(text), request) => request.message().contains(text.as_str()),
            (Matching::Field(name), Incoming::Form(form)) => form.schema().property(name).is_some(),
            (Matching::Url, Incoming::Url(_)) => true,
            _ => false,
        }
    }
}

/// A scripted user: answers by rule (by message, by field, URL requests), or else the next
/// answer in order, or else [`otherwise`](Scripted::otherwise) (by default
/// [`Step::Cancel`]: a user with nothing left to say dismisses the question). It records every
/// request it saw, for a test to assert on what was asked.
///
/// ```
/// # extern crate elicit_core as mcp_elicit;
/// use mcp_elicit::Revision;
/// use mcp_elicit::client::{Answerer, Scripted, Step, read_request};
/// use serde_json::json;
///
/// let user = Scripted::new()
///     .when_message("Drop", Step::Decline)
///     .then(Step::accept(json!({"replicas": 3})));
/// let form = read_request(&json!({"mode": "form", "message": "How many?", "requestedSchema":
///     {"type": "object", "properties": {"replicas": {"type": "integer"}}}}), Revision::V2025_11_25)?;
/// let sent = now(user.answer("ops", &form));
/// assert_eq!(sent, Some(json!({"action": "accept", "content": {"replicas": 3}})));
/// assert_eq!(user.seen().len(), 1);
/// # /// A scripted answer is ready at once.
/// # fn now<F: std::future::Future>(f: F) -> F::Output {
/// #     let mut f = std::pin::pin!(f);
/// #     let waker = std::task::Waker::noop();
/// #     match f.as_mut().poll(&mut std::task::Context::from_waker(waker)) {
/// #         std::task::Poll::Ready(v) => v,
/// #         std::task::Poll::Pending => unreachable!("a scripted answer is ready at once"),
/// #     }
/// # }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct Scripted {
    rules: Vec<(Matching, Step)>,
    queue: Mutex<VecDeque<Step>>,
    otherwise: Step,
    modes: Vec<Mode>,
    seen: Mutex<Vec<(String, Incoming)>>,
    wrong_modes: Mutex<Vec<WrongMode>>,
    completions: Mutex<Vec<(String, IncomingUrl)>>,
}

impl Default for Scripted {
    fn default() -> Self {
        Self::new()
    }
}

impl Scripted {
    /// A user with nothing to say yet, who can answer forms and URL requests.
    pub fn new() -> Self {
        Self {
            rules: Vec::new(),
            queue: Mutex::new(VecDeque::new()),
            otherwise: Step::Cancel,
            modes: vec![Mode::Form, Mode::Url],
            seen: Mutex::new(Vec::new()),
            wrong_modes: Mutex::new(Vec::new()),
            completions: Mutex::new(Vec::new()),
        }
    }

    /// Answer only these modes (the client declares only these): a form-only client, say.
    #[must_use]
    pub fn answering(mut self, modes: &[Mode]) -> Self {
        self.modes = modes.to_vec();
        self
    }

    /// The next answer, in order, to a request no rule answers.
    #[must_use]
    pub fn then(self, step: Step) -> Self {
        self.queue
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push_back(step);
        self
    }

    /// Answer every request whose message contains `text` with `step` (rules are tried in the
    /// order they were added, before the answers in order).
    #[must_use]
    pub fn when_message(mut self, text: impl Into<String>, step: Step) -> Self {
        self.rules.push((Matching::Message(text.into()), step));
        self
    }

    /// Answer every form with a property named `name` with `step`.
    #[must_use]
    pub fn when_field(mut self, name: impl Into<String>, step: Step) -> Self {
        self.rules.push((Matching::Field(name.into()), step));
        self
    }

    /// Answer every URL request with `step` ([`Step::OpenPage`] to agree to open the page).
    #[must_use]
    pub fn when_url(mut self, step: Step) -> Self {
        self.rules.push((Matching::Url, step));
        self
    }

    /// The answer when no rule matches and no answer is left in order (by default
    /// [`Step::Cancel`]).
    #[must_use]
    pub fn otherwise(mut self, step: Step) -> Self {
        self.otherwise = step;
        self
    }

    /// Every request it was sent, with the name of the server that sent it, in order.
    pub fn seen(&self) -> Vec<(String, Incoming)> {
        self.seen
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Every page whose step the server reported complete ([`Answerer::completed`]), with the
    /// name of the server that sent it, in order: a test asserts that its server sends
    /// `notifications/elicitation/complete`, for the page it asked, once.
    pub fn completions(&self) -> Vec<(String, IncomingUrl)> {
        self.completions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn step_for(&self, request: &Incoming) -> Step {
        if let Some((_, step)) = self.rules.iter().find(|(rule, _)| rule.matches(request)) {
            return step.clone();
        }
        self.queue
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop_front()
            .unwrap_or_else(|| self.otherwise.clone())
    }
}

impl Answerer for Scripted {
    fn modes(&self) -> &[Mode] {
        &self.modes
    }

    fn answer(
        &self,
        server: &str,
        request: &Incoming,
    ) -> impl Future<Output = Option<Value>> + Send {
        self.seen
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push((server.to_owned(), request.clone()));
        ready(match self.step_for(request).reply(request) {
            Ok(reply) => reply,
            Err(wrong) => {
                self.wrong_modes
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push(wrong);
                Some(answer(Action::Cancel))
            }
        })
    }

    fn take_wrong_modes(&self) -> Vec<WrongMode> {
        std::mem::take(
            &mut *self
                .wrong_modes
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
        )
    }

    fn completed(&self, server: &str, page: &IncomingUrl) {
        self.completions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push((server.to_owned(), page.clone()));
    }
}

/// An answerer that is a function of the server's name and the request: the `ElicitResult` to
/// send, or `None` for none. For a GUI or a bot that answers at once.
pub struct FnAnswerer<F> {
    answer: F,
    modes: Vec<Mode>,
}

impl<F> FnAnswerer<F>
where
    F: Fn(&str, &Incoming) -> Option<Value> + Send + Sync,
{
    /// `answer` answers forms and URL requests.
    pub fn new(answer: F) -> Self {
        Self {
            answer,
            modes: vec![Mode::Form, Mode::Url],
        }
    }

    /// Answer only these modes.
    #[must_use]
    pub fn answering(mut self, modes: &[Mode]) -> Self {
        self.modes = modes.to_vec();
        self
    }
}

impl<F> Answerer for FnAnswerer<F>
where
    F: Fn(&str, &Incoming) -> Option<Value> + Send + Sync,
{
    fn modes(&self) -> &[Mode] {
        &self.modes
    }

    fn answer(
        &self,
        server: &str,
        request: &Incoming,
    ) -> impl Future<Output = Option<Value>> + Send {
        ready((self.answer)(server, request))
    }
}
