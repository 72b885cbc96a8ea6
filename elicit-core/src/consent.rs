//! Consent the model cannot forge.
//!
//! A `confirm: bool` in a tool's input schema is theatre: the model fills the input schema, so it
//! can set the flag itself. Human consent must come from the person, through an elicitation. A
//! [`Consent<T>`] is a value that only an accepted reply to a consent form can produce: it cannot
//! be constructed, deserialized, defaulted or cloned outside this crate. Destructive functions take
//! it as a parameter, so code that mutates before asking does not compile.
//!
//! The whole pattern, with the derive, is in the `mcp-elicit` crate's README ("Consent the model
//! cannot forge").

use std::fmt;
use std::time::Duration;

use serde_json::Value;

use crate::elicit::Elicit;
use crate::outcome::{Elicitation, ReplyError, record_reply};
use crate::read::{parse_parts_with_schema, parse_with_schema};
use crate::request::FormRequest;

/// Proof that a person accepted the consent form `T`, carrying what they agreed to.
///
/// It has no public constructor and implements neither `Deserialize`, `Default` nor `Clone`:
/// the only way to get one is an accepted reply to a form marked `#[elicit(consent)]`, through
/// [`ConsentForm::consent_from_reply`] or [`FormRequest::parse_consent`]. A tool input struct
/// holding one cannot derive `Deserialize` (or a JSON schema), so the model can never supply it.
#[must_use = "consent is meant to be handed to the operation it authorizes"]
pub struct Consent<T> {
    terms: T,
    message: String,
}

impl<T> Consent<T> {
    pub(crate) fn grant(terms: T, message: &str) -> Self {
        Self {
            terms,
            message: message.to_owned(),
        }
    }

    /// What the person agreed to: the accepted form.
    pub fn terms(&self) -> &T {
        &self.terms
    }

    /// The message the person was shown when they agreed.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Check that what was agreed to is what the caller is about to do.
    pub fn ensure(&self, matches: impl FnOnce(&T) -> bool) -> Result<(), ConsentMismatch> {
        if matches(&self.terms) {
            Ok(())
        } else {
            Err(ConsentMismatch)
        }
    }

    /// Give up the proof and keep what was agreed to.
    pub fn into_terms(self) -> T {
        self.terms
    }
}

impl<T: fmt::Debug> fmt::Debug for Consent<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Consent")
            .field("terms", &self.terms)
            .field("message", &self.message)
            .finish()
    }
}

/// The consent given does not cover the operation about to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConsentMismatch;

impl fmt::Display for ConsentMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the consent given does not cover this operation; ask again for this one")
    }
}

impl std::error::Error for ConsentMismatch {}

/// A consent accepted faster than a person can read its form: an automatic answer (a host's
/// hook, an auto-approver) is not a person's consent, so it is not taken. Before 2026-07-28 the
/// time runs from sending the form to its answer; on 2026-07-28 from the round that asked (its
/// time sealed in the state) to the retry that answers
/// (`mrtr::MrtrError::AutomaticConsent`, feature `mrtr`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AutomaticConsent {
    form: String,
    elapsed: Duration,
    threshold: Duration,
}

impl AutomaticConsent {
    /// The consent form `form`, accepted `elapsed` after it was asked, where a person takes at
    /// least `threshold` ([`TooFast::threshold`](crate::observe::TooFast::threshold)).
    #[must_use]
    pub fn new(form: String, elapsed: Duration, threshold: Duration) -> Self {
        Self {
            form,
            elapsed,
            threshold,
        }
    }

    /// The consent form's name.
    pub fn form(&self) -> &str {
        &self.form
    }

    /// From asking the form to its acceptance.
    pub fn elapsed(&self) -> Duration {
        self.elapsed
    }

    /// The least time a person takes to answer it ([`TooFast::threshold`](crate::observe::TooFast::threshold)).
    pub fn threshold(&self) -> Duration {
        self.threshold
    }
}

impl fmt::Display for AutomaticConsent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the consent `{}` was accepted {} ms after it was asked, faster than a person can \
             read it (at least {} ms): an automatic answer is not the user's consent, so it was \
             not taken; the user must answer the form themselves",
            self.form,
            self.elapsed.as_millis(),
            self.threshold.as_millis()
        )
    }
}

impl std::error::Error for AutomaticConsent {}

/// A form whose acceptance is consent. `#[derive(Elicit)]` with `#[elicit(consent)]` implements
/// it: consent is granted when the reply is accepted, valid, and every field marked
/// `#[elicit(consent)]` (a confirmation checkbox) is `true`. An accepted form with an unticked
/// checkbox is a decline.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a consent form",
    label = "consent is asked with a form marked `#[elicit(consent)]`",
    note = "add `#[elicit(consent)]` to the struct, and a `bool` field marked `#[elicit(consent)]` the user ticks"
)]
pub trait ConsentForm: Elicit {
    /// Whether the accepted form grants consent (every confirmation checkbox ticked).
    fn granted(&self) -> bool;

    /// Read a reply to this form as consent. Recorded for the interrupt budget
    /// ([`crate::observe`]) as what it is: an accepted form with a box left unticked is a
    /// decline.
    fn consent_from_reply(reply: &Value) -> Result<Elicitation<Consent<Self>>, ReplyError> {
        recorded_consent(
            Self::name(),
            Self::message(),
            parse_with_schema(Self::requested_schema(), reply),
        )
    }
}

/// A reply to the consent form `name`, read as consent to `message`, and recorded for the
/// interrupt budget as what it is (an accepted form with a box left unticked is a decline).
fn recorded_consent<T: ConsentForm>(
    name: &str,
    message: &str,
    read: Result<Elicitation<T>, ReplyError>,
) -> Result<Elicitation<Consent<T>>, ReplyError> {
    let result = read.map(|outcome| consent_of(outcome, message));
    record_reply(name, &result);
    result
}

pub(crate) fn consent_of<T: ConsentForm>(
    outcome: Elicitation<T>,
    message: &str,
) -> Elicitation<Consent<T>> {
    match outcome {
        Elicitation::Accept(terms) if terms.granted() => {
            Elicitation::Accept(Consent::grant(terms, message))
        }
        Elicitation::Accept(_) | Elicitation::Decline => Elicitation::Decline,
        Elicitation::Cancel => Elicitation::Cancel,
        Elicitation::NoReply => Elicitation::NoReply,
    }
}

impl<T: ConsentForm> FormRequest<T> {
    /// Read the reply to this request (with its run-time message and options) as consent.
    ///
    /// Recorded for the interrupt budget ([`crate::observe`]) as what it is: an accepted form with
    /// a box left unticked is a decline.
    pub fn parse_consent(&self, reply: &Value) -> Result<Elicitation<Consent<T>>, ReplyError> {
        recorded_consent(
            self.name(),
            self.message(),
            parse_with_schema(self.schema(), reply),
        )
    }

    /// [`parse_consent`](FormRequest::parse_consent) of a reply an SDK has already split into
    /// its action and `content` (see [`FormRequest::parse_parts`]).
    pub fn parse_consent_parts(
        &self,
        action: crate::outcome::Action,
        content: Option<Value>,
    ) -> Result<Elicitation<Consent<T>>, ReplyError> {
        recorded_consent(
            self.name(),
            self.message(),
            parse_parts_with_schema(self.schema(), action, content),
        )
    }
}

/// Whether a consent checkbox (`bool` or `Option<bool>`) is ticked: only `true` counts.
pub fn ticked<T: crate::field::kinds::BoolField + Ticked>(value: &T) -> bool {
    value.is_ticked()
}

/// A confirmation checkbox's value.
pub trait Ticked {
    /// `true` only when the box was ticked.
    fn is_ticked(&self) -> bool;
}

impl Ticked for bool {
    fn is_ticked(&self) -> bool {
        *self
    }
}

impl<T: Ticked> Ticked for Option<T> {
    fn is_ticked(&self) -> bool {
        self.as_ref().is_some_and(Ticked::is_ticked)
    }
}
