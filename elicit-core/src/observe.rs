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
//! Two sinks, both optional and both free when unused:
//! - an [`Observer`] callback, installed once with [`set_observer`];
//! - with the `metrics` feature, the [`metrics`](https://docs.rs/metrics) facade: counters
//!   `elicit_asked_total{elicitation}` and `elicit_answered_total{elicitation, outcome}`.
//!   Without a recorder installed, the facade does nothing.
//!
//! [`Elicit::from_reply`]: crate::Elicit::from_reply
//! [`FormRequest::parse_reply`]: crate::FormRequest::parse_reply

use std::fmt;
use std::sync::OnceLock;

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

/// Record that `elicitation` was sent to the user.
pub fn asked(elicitation: &str) {
    if let Some(observer) = OBSERVER.get() {
        observer.asked(elicitation);
    }
    #[cfg(feature = "metrics")]
    metrics::counter!("elicit_asked_total", "elicitation" => elicitation.to_owned()).increment(1);
}

/// Record how `elicitation` ended.
pub fn answered(elicitation: &str, outcome: Outcome) {
    if let Some(observer) = OBSERVER.get() {
        observer.answered(elicitation, outcome);
    }
    #[cfg(feature = "metrics")]
    metrics::counter!(
        "elicit_answered_total",
        "elicitation" => elicitation.to_owned(),
        "outcome" => outcome.as_str()
    )
    .increment(1);
}
