//! The user's answer: the three actions, the typed outcome, and parsing a client's `ElicitResult`.

use std::fmt;

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};

use crate::observe::{self, Outcome};
use crate::violation::Violations;

use crate::limits::MAX_REPLY_BYTES;

/// What the user did, as the client reports it in `ElicitResult.action`.
///
/// It serializes as its wire name and deserializes from one (an unknown name is an error
/// listing the three); written by hand, so that serde's derive is not built for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Action {
    /// The user submitted the form (or, in URL mode, consented to open the page).
    Accept,
    /// The user explicitly refused.
    Decline,
    /// The user dismissed the request without choosing.
    Cancel,
}

impl Action {
    /// The wire name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Action::Accept => "accept",
            Action::Decline => "decline",
            Action::Cancel => "cancel",
        }
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Action {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Action {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Name;
        impl Visitor<'_> for Name {
            type Value = Action;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("`accept`, `decline` or `cancel`")
            }
            fn visit_str<E: de::Error>(self, name: &str) -> Result<Action, E> {
                action_named(name).map_err(|_| E::unknown_variant(name, ACTION_NAMES))
            }
        }
        deserializer.deserialize_str(Name)
    }
}

/// The wire names of [`Action`], in declaration order.
const ACTION_NAMES: &[&str] = &["accept", "decline", "cancel"];

/// The outcome of asking: a typed, validated value, or one of the ways a person can say no —
/// including saying nothing at all.
///
/// Silence is never acceptance: [`Elicitation::NoReply`] is its own variant, so a `match` must
/// decide what no answer means, and [`accepted`](Elicitation::accepted) returns `None` for it.
///
/// ```
/// # extern crate elicit_core as mcp_elicit;
/// use mcp_elicit::Elicitation;
/// fn describe(outcome: Elicitation<String>) -> String {
///     match outcome {
///         Elicitation::Accept(env) => format!("deploying to {env}"),
///         Elicitation::Decline => "the user declined; nothing was deployed".into(),
///         Elicitation::Cancel => "the question was dismissed; ask again later".into(),
///         Elicitation::NoReply => "no answer arrived; nothing was deployed".into(),
///     }
/// }
/// assert_eq!(describe(Elicitation::NoReply), "no answer arrived; nothing was deployed");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[must_use = "an elicitation outcome must be handled: decline, cancel and no reply are not acceptance"]
pub enum Elicitation<T> {
    /// The user accepted and the content satisfied every rule of the form.
    Accept(T),
    /// The user explicitly declined.
    Decline,
    /// The user dismissed the request without choosing.
    Cancel,
    /// No answer arrived: the request timed out, the client failed it, or the client went away.
    /// Parsing a reply never produces this; the code that waits for the reply does.
    NoReply,
}

impl<T> Elicitation<T> {
    /// How this outcome counts in the interrupt budget ([`crate::observe`]).
    pub fn outcome(&self) -> Outcome {
        match self {
            Elicitation::Accept(_) => Outcome::Accepted,
            Elicitation::Decline => Outcome::Declined,
            Elicitation::Cancel => Outcome::Cancelled,
            Elicitation::NoReply => Outcome::NoReply,
        }
    }

    /// The action the client reported, or `None` for [`Elicitation::NoReply`].
    pub fn action(&self) -> Option<Action> {
        match self {
            Elicitation::Accept(_) => Some(Action::Accept),
            Elicitation::Decline => Some(Action::Decline),
            Elicitation::Cancel => Some(Action::Cancel),
            Elicitation::NoReply => None,
        }
    }

    /// The accepted value; `None` for every other outcome.
    pub fn accepted(self) -> Option<T> {
        match self {
            Elicitation::Accept(value) => Some(value),
            _ => None,
        }
    }

    /// Whether the user accepted.
    pub fn is_accepted(&self) -> bool {
        matches!(self, Elicitation::Accept(_))
    }

    /// Borrow the accepted value.
    pub fn as_ref(&self) -> Elicitation<&T> {
        match self {
            Elicitation::Accept(value) => Elicitation::Accept(value),
            Elicitation::Decline => Elicitation::Decline,
            Elicitation::Cancel => Elicitation::Cancel,
            Elicitation::NoReply => Elicitation::NoReply,
        }
    }

    /// Transform the accepted value, keeping every other outcome.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Elicitation<U> {
        match self {
            Elicitation::Accept(value) => Elicitation::Accept(f(value)),
            Elicitation::Decline => Elicitation::Decline,
            Elicitation::Cancel => Elicitation::Cancel,
            Elicitation::NoReply => Elicitation::NoReply,
        }
    }
}

/// Why a reply could not be read as an outcome.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ReplyError {
    /// The reply is not an `ElicitResult`: not JSON, not an object, no valid `action`, or an
    /// accepted form whose `content` is not an object.
    Malformed(MalformedReply),
    /// The user accepted, but the content breaks rules of the form. Every violation is listed.
    Invalid(Violations),
    /// The user accepted a URL question whose step on the page is not finished (a URL flow:
    /// `Ask::url_flow`): agreeing to open a page is not finishing there.
    NotFinished,
}

/// What is wrong with a malformed reply.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum MalformedReply {
    /// The text is not JSON (the parser's position, never the text itself).
    NotJson {
        /// Line of the first error.
        line: usize,
        /// Column of the first error.
        column: usize,
    },
    /// Larger than [`MAX_REPLY_BYTES`].
    TooLarge {
        /// The size received.
        bytes: usize,
    },
    /// The reply is not a JSON object.
    NotAnObject,
    /// No `action` member.
    MissingAction,
    /// `action` is not `accept`, `decline` or `cancel`.
    UnknownAction,
    /// An accepted form's `content` is present but not an object.
    ContentNotAnObject,
}

impl ReplyError {
    /// What was wrong, naming each field and the rule it broke and never a value the client
    /// sent: for logs (the re-ask events of the rmcp `Asker`, and `mrtr::Round::unusable_answers`).
    ///
    /// ```
    /// # extern crate elicit_core as mcp_elicit;
    /// use mcp_elicit::reply::ReplyError;
    /// use mcp_elicit::schema::{Rule, Violation, Violations};
    ///
    /// let error = ReplyError::Invalid(
    ///     Violations::from_vec(vec![Violation {
    ///         property: "plan".into(),
    ///         rule: Rule::NotAnOption { value: "hunter2".into() },
    ///     }])
    ///     .unwrap(),
    /// );
    /// assert_eq!(error.rules().to_string(), "`plan` must be one of the choices offered");
    /// ```
    ///
    pub fn rules(&self) -> impl fmt::Display + '_ {
        RulesBroken(self)
    }
}

/// [`ReplyError::rules`].
struct RulesBroken<'a>(&'a ReplyError);

impl fmt::Display for RulesBroken<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            ReplyError::Malformed(m) => write!(f, "malformed elicitation reply: {m}"),
            ReplyError::Invalid(violations) => {
                for (i, violation) in violations.into_iter().enumerate() {
                    if i > 0 {
                        f.write_str("; ")?;
                    }
                    write!(f, "`{}` {}", violation.property, violation.rule.for_user())?;
                }
                Ok(())
            }
            ReplyError::NotFinished => f.write_str("the step on the page is not finished"),
        }
    }
}

impl fmt::Display for ReplyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReplyError::Malformed(m) => write!(f, "malformed elicitation reply: {m}"),
            ReplyError::Invalid(v) => fmt::Display::fmt(v, f),
            ReplyError::NotFinished => {
                f.write_str("the page was accepted, but the step on it is not finished")
            }
        }
    }
}

impl fmt::Display for MalformedReply {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MalformedReply::NotJson { line, column } => {
                write!(f, "not valid JSON (line {line}, column {column})")
            }
            MalformedReply::TooLarge { bytes } => write!(
                f,
                "{bytes} bytes is larger than the {MAX_REPLY_BYTES}-byte limit for a reply"
            ),
            MalformedReply::NotAnObject => f.write_str("an ElicitResult must be a JSON object"),
            MalformedReply::MissingAction => f.write_str("`action` is required"),
            MalformedReply::UnknownAction => {
                f.write_str("`action` must be \"accept\", \"decline\" or \"cancel\"")
            }
            MalformedReply::ContentNotAnObject => {
                f.write_str("`content` of an accepted form must be an object")
            }
        }
    }
}

impl std::error::Error for ReplyError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ReplyError::Invalid(v) => Some(v),
            ReplyError::Malformed(_) | ReplyError::NotFinished => None,
        }
    }
}

impl ReplyError {
    /// The violations of an accepted but invalid reply.
    pub fn violations(&self) -> Option<&Violations> {
        match self {
            ReplyError::Invalid(v) => Some(v),
            ReplyError::Malformed(_) | ReplyError::NotFinished => None,
        }
    }
}

impl From<Violations> for ReplyError {
    fn from(v: Violations) -> Self {
        ReplyError::Invalid(v)
    }
}

/// Every answer to a question broke its rules, and the re-asks are spent: the question is not
/// asked again. The tool stops and says why; nothing it guards was done.
///
/// Its `Display` is written for the person who answered ("… after 2 tries: Replicas must be at
/// most 10"), never quoting what the client sent: an rmcp handler returns it as an `isError`
/// tool result as it is.
#[derive(Debug, Clone, PartialEq)]
pub struct Rejected {
    name: String,
    asks: u32,
    explanation: String,
    error: ReplyError,
}

impl Rejected {
    /// The question named `name` ([`FormRequest::name`](crate::FormRequest::name)) was asked
    /// `asks` times; the last answer broke its rules with `error`, which `explanation` puts in
    /// words for the user ([`FormRequest::explain`](crate::FormRequest::explain)).
    pub fn new(
        name: impl Into<String>,
        asks: u32,
        error: ReplyError,
        explanation: impl Into<String>,
    ) -> Self {
        Self {
            name: name.into(),
            asks,
            explanation: explanation.into(),
            error,
        }
    }

    /// A question with no form to explain its rules by (URL mode, sampling): the last reply
    /// could not be read.
    pub fn unreadable(name: impl Into<String>, asks: u32, error: ReplyError) -> Self {
        let explanation = explain_without_schema(&error);
        Self::new(name, asks, error, explanation)
    }

    /// Whether a question whose answers were unusable `unusable` times in a row may be asked
    /// again, with `reasks` re-asks allowed: the one place the bound is written.
    pub const fn may_ask_again(unusable: u32, reasks: u32) -> bool {
        unusable <= reasks
    }

    /// The name of the question ([`crate::observe`] reports it under this name).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// How many times it was asked.
    pub fn asks(&self) -> u32 {
        self.asks
    }

    /// What was wrong with the last answer, in the user's words.
    pub fn explanation(&self) -> &str {
        &self.explanation
    }

    /// The last answer's error, every violation with its property and rule.
    pub fn error(&self) -> &ReplyError {
        &self.error
    }
}

impl fmt::Display for Rejected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let tries = if self.asks == 1 { "try" } else { "tries" };
        write!(
            f,
            "The answer could not be used after {} {tries}: {}",
            self.asks, self.explanation
        )
    }
}

impl std::error::Error for Rejected {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}

/// Why an answer was not used, for the user, when there is no form to name fields by: a reply
/// that could not be read, or (rarely) broken rules named by property.
pub(crate) fn explain_without_schema(error: &ReplyError) -> String {
    match error {
        ReplyError::Malformed(malformed) => {
            format!("the client's reply could not be read ({malformed}).")
        }
        ReplyError::Invalid(violations) => {
            let rules: Vec<String> = violations
                .as_slice()
                .iter()
                .map(|v| format!("{} {}", v.property, v.rule.for_user()))
                .collect();
            format!("{}.", rules.join("; "))
        }
        ReplyError::NotFinished => {
            "the step on the page is not finished yet: finish it there, then retry or continue."
                .to_owned()
        }
    }
}

/// The action a string `action` names: the one place that spells them.
pub(crate) fn action_named(action: &str) -> Result<Action, ReplyError> {
    match action {
        "accept" => Ok(Action::Accept),
        "decline" => Ok(Action::Decline),
        "cancel" => Ok(Action::Cancel),
        _ => Err(ReplyError::Malformed(MalformedReply::UnknownAction)),
    }
}

/// Record the outcome of a parsed reply under `elicitation` ([`crate::observe`]): a reply that
/// could not be used counts as rejected.
pub(crate) fn record_reply<T, E>(elicitation: &str, result: &Result<Elicitation<T>, E>) {
    observe::answered(
        elicitation,
        result
            .as_ref()
            .map_or(Outcome::Rejected, Elicitation::outcome),
    );
}
