//! The interrupt budget: how often each elicitation asks, and how people answer.
//!
//! Every ask costs the user attention. Across a fleet, count per elicitation (its type name, or
//! `#[elicit(name = "...")]`) how often it was asked and how it ended:
//!
//! - a high **cancel** (dismissal) rate means the ask is confusing or badly timed: users close it
//!   without choosing — reword the message, ask fewer fields, or ask at a better moment;
//! - a high **decline** rate means users understand the ask and do not want the operation — the
//!   tool probably should not be offering it, or not by default;
//! - **no reply** counts asks that were never answered (timeouts, headless clients, clients that
//!   went away) — a tool that depends on them will stall;
//! - **rejected** counts accepted replies that broke the form's rules — a client that does not
//!   validate, or a schema that is hard to fill in.
//!
//! Outcomes are recorded by the parsing paths themselves ([`Elicit::from_reply`],
//! [`FormRequest::parse_reply`], the multi round-trip and `rmcp` helpers); *asked* and *no reply*
//! are recorded by the code that sends the request and waits for it — the crate's helpers do,
//! and code that sends requests itself calls [`asked`] and [`answered`].
//!
//! **Per client.** Every count carries the client that answered, as a label of bounded
//! cardinality: its `clientInfo.name` if the server allowed it ([`ClientNames`]), `"other"` for
//! any other name, `"unknown"` without one. Code that knows the client records inside
//! [`for_client`]; the `rmcp` integration does.
//!
//! **Time to answer.** Where the server sends the request and waits for the answer (before
//! 2026-07-28), it records how long the answer took ([`timed`], a [`TimedAnswer`]), and whether
//! it came faster than a person could have read the question ([`TooFast`]): the signature of a
//! client that declares elicitation and answers by itself. On 2026-07-28 nothing waits: the
//! round that asks seals the time it asked (milliseconds of the replica's clock) into its
//! `requestState`, and the retry that answers is timed from it, on whichever replica it lands
//! ([`Round::set_too_fast`](crate::mrtr::Round::set_too_fast) sets the threshold). The time then
//! includes both trips over the network, and clocks of replicas that disagree by more than a
//! few milliseconds shift it by as much.
//!
//! **Empty answers.** An accepted form whose content has nothing in it (`{}`, no content, or
//! only `null`s) although the form requires a field is counted on its own
//! ([`accepted_empty`]), as well as rejected: a host that auto-approves, or renders the form as
//! a yes/no dialog, sends that.
//!
//! Two sinks, both optional and both free when unused:
//! - an [`Observer`] callback, installed once with [`set_observer`];
//! - with the `metrics` feature, the [`metrics`](https://docs.rs/metrics) facade: counters
//!   `elicit_asked_total{elicitation, client}`, `elicit_answered_total{elicitation, outcome,
//!   client}`, `elicit_answered_too_fast_total{client, outcome}` and
//!   `elicit_accepted_empty_total{client}`, and the histogram
//!   `elicit_answer_seconds{client, outcome}`. Without a recorder installed, the facade does
//!   nothing.
//!
//! [`Elicit::from_reply`]: crate::Elicit::from_reply
//! [`FormRequest::parse_reply`]: crate::FormRequest::parse_reply

use std::cell::RefCell;
use std::fmt;
use std::sync::OnceLock;
use std::time::Duration;

/// How an asked elicitation ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Outcome {
    /// Accepted, and the content satisfied the form.
    Accepted,
    /// Explicitly declined.
    Declined,
    /// Dismissed without a choice.
    Cancelled,
    /// Never answered.
    NoReply,
    /// Accepted, but the reply was malformed or broke the form's rules.
    Rejected,
}

impl Outcome {
    /// The label value used for metrics.
    pub const fn as_str(self) -> &'static str {
        match self {
            Outcome::Accepted => "accepted",
            Outcome::Declined => "declined",
            Outcome::Cancelled => "cancelled",
            Outcome::NoReply => "no_reply",
            Outcome::Rejected => "rejected",
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Receives every ask and every outcome. Implementations must be cheap and must not block: they
/// run on the request path.
///
/// ```
/// # extern crate elicit_core as mcp_elicit;
/// use std::sync::atomic::{AtomicU64, Ordering};
/// use mcp_elicit::observe::{Observer, Outcome};
///
/// struct Dismissals(AtomicU64);
/// impl Observer for Dismissals {
///     fn answered(&self, _elicitation: &str, outcome: Outcome) {
///         if outcome == Outcome::Cancelled {
///             self.0.fetch_add(1, Ordering::Relaxed);
///         }
///     }
/// }
/// // Once, at startup: mcp_elicit::observe::set_observer(Dismissals(AtomicU64::new(0)));
/// ```
pub trait Observer: Send + Sync + 'static {
    /// An elicitation was sent to the user.
    fn asked(&self, elicitation: &str) {
        let _ = elicitation;
    }
    /// An elicitation ended.
    fn answered(&self, elicitation: &str, outcome: Outcome) {
        let _ = (elicitation, outcome);
    }
    /// An elicitation was sent to the user of `client` (a [`ClientLabel`]'s text: an allowed
    /// name, `"other"` or `"unknown"`). By default, [`asked`](Observer::asked).
    fn asked_by(&self, elicitation: &str, client: &str) {
        let _ = client;
        self.asked(elicitation);
    }
    /// An elicitation sent to the user of `client` ended. By default,
    /// [`answered`](Observer::answered).
    fn answered_by(&self, elicitation: &str, client: &str, outcome: Outcome) {
        let _ = client;
        self.answered(elicitation, outcome);
    }
    /// An answer came back, this long after the request was sent: where the server waits for
    /// it (before 2026-07-28), and from the round that asked to the retry that answered (on
    /// 2026-07-28). Nothing by default.
    fn timed(&self, answer: &TimedAnswer<'_>) {
        let _ = answer;
    }
    /// The client `client` accepted a form with empty content (no field the form names, or
    /// each `null`) although the form requires a field: what a client that answers by itself
    /// sends. The answer is also counted as [`Outcome::Rejected`] by
    /// [`answered_by`](Observer::answered_by). Nothing by default.
    fn accepted_empty(&self, client: &str) {
        let _ = client;
    }
}

static OBSERVER: OnceLock<Box<dyn Observer>> = OnceLock::new();

/// [`set_observer`] was already called.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ObserverAlreadySet;

impl fmt::Display for ObserverAlreadySet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an elicitation observer is already installed; it can be set once per process")
    }
}

impl std::error::Error for ObserverAlreadySet {}

/// Install the process-wide observer. It can be set once.
pub fn set_observer(observer: impl Observer) -> Result<(), ObserverAlreadySet> {
    OBSERVER
        .set(Box::new(observer))
        .map_err(|_| ObserverAlreadySet)
}

/// Record that `elicitation` was sent to the user, of the client [`for_client`] names
/// (`"unknown"` outside it).
pub fn asked(elicitation: &str) {
    let client = current_client();
    if let Some(observer) = OBSERVER.get() {
        observer.asked_by(elicitation, &client);
    }
    #[cfg(feature = "metrics")]
    metrics::counter!(
        "elicit_asked_total",
        "elicitation" => elicitation.to_owned(),
        "client" => client
    )
    .increment(1);
}

/// Record how `elicitation` ended, for the client [`for_client`] names (`"unknown"` outside it).
pub fn answered(elicitation: &str, outcome: Outcome) {
    note_answered(outcome);
    // The client is named only for whoever counts answers: every reply read passes here, so
    // with no observer (and no `metrics`) an answer copies no label (BENCHMARKS.md, issue 42).
    let observer = OBSERVER.get();
    if observer.is_none() && !cfg!(feature = "metrics") {
        return;
    }
    let client = current_client();
    if let Some(observer) = observer {
        observer.answered_by(elicitation, &client, outcome);
    }
    #[cfg(feature = "metrics")]
    metrics::counter!(
        "elicit_answered_total",
        "elicitation" => elicitation.to_owned(),
        "outcome" => outcome.as_str(),
        "client" => client
    )
    .increment(1);
}

/// Record how long an answer took ([`TimedAnswer`]): with the `metrics` feature, a sample of the
/// histogram `elicit_answer_seconds{client, outcome}` and, if it came too fast,
/// `elicit_answered_too_fast_total{client, outcome}`. The outcome itself is counted by
/// [`answered`], where the answer is read.
pub fn timed(answer: &TimedAnswer<'_>) {
    if let Some(observer) = OBSERVER.get() {
        observer.timed(answer);
    }
    #[cfg(feature = "metrics")]
    {
        metrics::histogram!(
            "elicit_answer_seconds",
            "client" => answer.client.to_owned(),
            "outcome" => answer.outcome.as_str()
        )
        .record(answer.elapsed.as_secs_f64());
        if answer.too_fast {
            metrics::counter!(
                "elicit_answered_too_fast_total",
                "client" => answer.client.to_owned(),
                "outcome" => answer.outcome.as_str()
            )
            .increment(1);
        }
    }
}

/// Record that the client [`for_client`] names accepted a form with empty content where the
/// form requires a field: with the `metrics` feature, `elicit_accepted_empty_total{client}`.
/// The reader of replies calls it; the answer's outcome is counted by [`answered`] as always.
pub fn accepted_empty() {
    let client = current_client();
    if let Some(observer) = OBSERVER.get() {
        observer.accepted_empty(&client);
    }
    #[cfg(feature = "metrics")]
    metrics::counter!("elicit_accepted_empty_total", "client" => client).increment(1);
}

/// [`timed`], for the client [`for_client`] names (`"unknown"` outside it): an answer to a
/// 2026-07-28 round, timed from the round that asked.
#[cfg(feature = "mrtr")]
pub(crate) fn timed_in_scope(
    elicitation: &str,
    outcome: Outcome,
    elapsed: Duration,
    fields: usize,
    too_fast: TooFast,
) {
    let client = current_client();
    timed(&TimedAnswer {
        elicitation,
        client: &client,
        outcome,
        elapsed,
        too_fast: too_fast.is_too_fast(elapsed, fields),
    });
}

thread_local! {
    /// The scope [`for_client`] opened on this thread.
    static SCOPE: RefCell<Option<Scope>> = const { RefCell::new(None) };
}

/// What [`for_client`] names, and what was answered inside it.
struct Scope {
    client: String,
    /// The outcome [`answered`] recorded last in this scope.
    answered: Option<Outcome>,
}

/// Run `record` with `client` as the client of every ask and answer it records on this thread
/// ([`asked`], [`answered`], and the parsing paths that call them): a synchronous closure, so
/// the label never leaks into another task. Nested calls restore the outer client.
///
/// ```
/// # extern crate elicit_core as mcp_elicit;
/// use mcp_elicit::observe::{self, ClientNames};
///
/// let clients = ClientNames::new(["Claude Code"]);
/// let client = clients.label(Some("claude-code"));
/// observe::for_client(&client, || observe::asked("DeployTarget"));
/// ```
pub fn for_client<R>(client: &ClientLabel, record: impl FnOnce() -> R) -> R {
    read_for_client(client, record).0
}

/// [`for_client`], and the outcome `read` recorded ([`answered`]; the last one if several,
/// `None` if none): to time an answer ([`TimedAnswer`]) under the outcome its reading counted
/// (a consent form accepted with a box unticked is counted, and timed, as declined).
///
/// ```
/// # extern crate elicit_core as mcp_elicit;
/// use mcp_elicit::observe::{self, ClientNames, Outcome};
///
/// let client = ClientNames::new(["cursor"]).label(Some("Cursor"));
/// let ((), outcome) = observe::read_for_client(&client, || {
///     observe::answered("DeployTarget", Outcome::Cancelled);
/// });
/// assert_eq!(outcome, Some(Outcome::Cancelled));
/// ```
pub fn read_for_client<R>(client: &ClientLabel, read: impl FnOnce() -> R) -> (R, Option<Outcome>) {
    /// The outer scope, until it is put back: by [`now`](Restore::now), or however `read`
    /// ends (a panic included).
    struct Restore(Option<Option<Scope>>);
    impl Restore {
        /// Puts the outer scope back; what this one answered.
        fn now(&mut self) -> Option<Outcome> {
            let outer = self.0.take()?;
            let inner = SCOPE.with(|scope| std::mem::replace(&mut *scope.borrow_mut(), outer));
            inner.and_then(|inner| inner.answered)
        }
    }
    impl Drop for Restore {
        fn drop(&mut self) {
            let _ = self.now();
        }
    }
    let scope = Scope {
        client: client.0.clone(),
        answered: None,
    };
    let outer = SCOPE.with(|current| current.borrow_mut().replace(scope));
    let mut restore = Restore(Some(outer));
    let value = read();
    let answered = restore.now();
    (value, answered)
}

/// The client [`for_client`] names, or `"unknown"`. Copied out, so an observer may record too.
fn current_client() -> String {
    SCOPE.with(|scope| {
        scope.borrow().as_ref().map_or_else(
            || ClientNames::UNKNOWN.to_owned(),
            |scope| scope.client.clone(),
        )
    })
}

/// Notes `outcome` as answered in the current [`for_client`] scope, if any.
fn note_answered(outcome: Outcome) {
    SCOPE.with(|scope| {
        if let Some(scope) = scope.borrow_mut().as_mut() {
            scope.answered = Some(outcome);
        }
    });
}

/// The clients counted by name: an allow-list the server sets, so that the `client` label has at
/// most as many values as the list has names, plus `"other"` and `"unknown"`, whatever clients
/// send.
///
/// A client's `clientInfo.name` is normalized before it is matched, and so is each name of the
/// list: surrounding white space is dropped, letters are lowercased, and every run of
/// characters other than ASCII letters and digits becomes one `-` (none at either end): `"Claude
/// Code"`, `"claude_code"` and `" CLAUDE-CODE "` are all `claude-code`. The label is the
/// normalized name. A name longer than [`MAX_NAME_LEN`](Self::MAX_NAME_LEN) bytes is `"other"`
/// unread; no `clientInfo`, or a name with no letter or digit, is `"unknown"`.
///
/// The list is empty by default: every named client is `"other"` until the server names the
/// hosts it wants to tell apart. No list of well-known hosts is built in: names change, and a
/// server knows which clients its users run.
///
/// ```
/// # extern crate elicit_core as mcp_elicit;
/// use mcp_elicit::observe::ClientNames;
///
/// let clients = ClientNames::new(["Claude Code", "cursor"]);
/// assert_eq!(clients.label(Some("claude_code")).as_str(), "claude-code");
/// assert_eq!(clients.label(Some("Cursor")).as_str(), "cursor");
/// assert_eq!(clients.label(Some("my-own-client")).as_str(), "other");
/// assert_eq!(clients.label(None).as_str(), "unknown");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClientNames {
    /// Normalized, without duplicates, without the reserved labels.
    allowed: Vec<String>,
}

impl ClientNames {
    /// The label of a client whose name is not on the list.
    pub const OTHER: &'static str = "other";
    /// The label of a client that sent no name.
    pub const UNKNOWN: &'static str = "unknown";
    /// The longest client name read, in bytes: a longer one is `"other"` without being read.
    pub const MAX_NAME_LEN: usize = 128;

    /// The list of `names`, each normalized as the clients' names are. A name that normalizes to
    /// nothing, to `"other"` or to `"unknown"` is left out: it could not be told apart.
    pub fn new<I>(names: I) -> Self
    where
        I: IntoIterator,
        I::Item: AsRef<str>,
    {
        let mut allowed: Vec<String> = Vec::new();
        for name in names {
            let Some(name) = Self::normalize(name.as_ref()) else {
                continue;
            };
            if name != Self::OTHER && name != Self::UNKNOWN && !allowed.contains(&name) {
                allowed.push(name);
            }
        }
        Self { allowed }
    }

    /// The allowed names, normalized.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.allowed.iter().map(String::as_str)
    }

    /// `name` normalized (see the type's documentation); `None` if it has no ASCII letter or
    /// digit, or is longer than [`MAX_NAME_LEN`](Self::MAX_NAME_LEN) bytes.
    pub fn normalize(name: &str) -> Option<String> {
        if name.len() > Self::MAX_NAME_LEN {
            return None;
        }
        let mut normalized = String::with_capacity(name.len());
        for c in name.trim().chars().flat_map(char::to_lowercase) {
            if c.is_ascii_alphanumeric() {
                normalized.push(c);
            } else if !normalized.is_empty() && !normalized.ends_with('-') {
                normalized.push('-');
            }
        }
        while normalized.ends_with('-') {
            normalized.pop();
        }
        (!normalized.is_empty()).then_some(normalized)
    }

    /// The label of a client that sent `client_name` (its `clientInfo.name`; `None` without
    /// `clientInfo`).
    pub fn label(&self, client_name: Option<&str>) -> ClientLabel {
        let Some(name) = client_name else {
            return ClientLabel(Self::UNKNOWN.to_owned());
        };
        if name.len() > Self::MAX_NAME_LEN {
            return ClientLabel(Self::OTHER.to_owned());
        }
        match Self::normalize(name) {
            None => ClientLabel(Self::UNKNOWN.to_owned()),
            Some(name) if self.allowed.contains(&name) => ClientLabel(name),
            Some(_) => ClientLabel(Self::OTHER.to_owned()),
        }
    }
}

/// A client's label, made only by [`ClientNames::label`]: an allowed name, `"other"` or
/// `"unknown"`, so that what is recorded under it stays bounded.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ClientLabel(String);

impl ClientLabel {
    /// The label's text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Default for ClientLabel {
    /// `"unknown"`.
    fn default() -> Self {
        ClientLabel(ClientNames::UNKNOWN.to_owned())
    }
}

impl fmt::Display for ClientLabel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// How fast is faster than a person: a floor, plus a time for each field of the form. An answer
/// that comes back sooner than [`threshold`](Self::threshold) after the request was sent was not
/// given by someone who read the question.
///
/// The default ([`DEFAULT`](Self::DEFAULT)) is 1 s plus 250 ms a field. The floor is the least a
/// person needs to notice a dialog and reach a button: a choice reaction to something seen
/// takes about half a second, and moving to a key or a button takes more. Each field adds the
/// time to glance at its label (a word or two, at about four words a second). Both are set low
/// on purpose: a client that answers by itself does it in milliseconds, so a low threshold
/// misses none of them and counts no quick person. A URL question has no fields: the floor.
///
/// ```
/// # extern crate elicit_core as mcp_elicit;
/// use std::time::Duration;
/// use mcp_elicit::observe::TooFast;
///
/// let too_fast = TooFast::DEFAULT;
/// assert_eq!(too_fast.threshold(4), Duration::from_secs(2));
/// assert!(too_fast.is_too_fast(Duration::from_millis(30), 0));
/// assert!(!too_fast.is_too_fast(Duration::from_secs(3), 4));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooFast {
    floor: Duration,
    per_field: Duration,
}

impl TooFast {
    /// 1 s, plus 250 ms a field.
    pub const DEFAULT: TooFast = TooFast::new(Duration::from_secs(1), Duration::from_millis(250));

    /// `floor`, plus `per_field` for each field. Zero for both counts nothing as too fast.
    pub const fn new(floor: Duration, per_field: Duration) -> Self {
        Self { floor, per_field }
    }

    /// The least time a person takes to answer a form of `fields` fields.
    pub fn threshold(&self, fields: usize) -> Duration {
        let fields = u32::try_from(fields).unwrap_or(u32::MAX);
        self.floor
            .saturating_add(self.per_field.saturating_mul(fields))
    }

    /// Whether an answer `elapsed` after the request, to a form of `fields` fields, came faster
    /// than a person could give it.
    pub fn is_too_fast(&self, elapsed: Duration, fields: usize) -> bool {
        elapsed < self.threshold(fields)
    }
}

impl Default for TooFast {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// An answer, timed from the request to its answer: where the server sent the request and
/// waited for it (before 2026-07-28), or from the round that asked to the retry that answered
/// (on 2026-07-28). Recorded by [`timed`].
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct TimedAnswer<'a> {
    /// The elicitation's name.
    pub elicitation: &'a str,
    /// The client's label ([`ClientLabel::as_str`]).
    pub client: &'a str,
    /// How it ended.
    pub outcome: Outcome,
    /// From sending the request to its answer.
    pub elapsed: Duration,
    /// Whether it came faster than a person could have read the question ([`TooFast`]).
    pub too_fast: bool,
}

impl<'a> TimedAnswer<'a> {
    /// `elicitation`, answered by `client` with `outcome` `elapsed` after it was sent to a form
    /// of `fields` fields (0 for a URL question), judged by `too_fast`.
    pub fn new(
        elicitation: &'a str,
        client: &'a ClientLabel,
        outcome: Outcome,
        elapsed: Duration,
        fields: usize,
        too_fast: TooFast,
    ) -> Self {
        Self {
            elicitation,
            client: client.as_str(),
            outcome,
            elapsed,
            too_fast: too_fast.is_too_fast(elapsed, fields),
        }
    }
}
