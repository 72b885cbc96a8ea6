//! What a URL flow's step asked in a form needs of a round: which way an earlier round asked
//! it, and how soon its answer came. Kept apart from the round's own code.

use std::time::Duration;

use super::{MrtrError, Round, millis_now};
use crate::url_mode::FlowId;

impl<S> Round<'_, S> {
    /// The URL flow an earlier round sealed under `key` ([`flow_id`](Round::flow_id)), without
    /// starting one: `None` if no round did. A handler that asks one flow in two ways seals
    /// each way under a key of its own, and reads here which way was asked, whatever the retry
    /// says of its client.
    ///
    /// # Errors
    /// [`MrtrError::Unspent`] before a state that must be spent is.
    pub fn sealed_flow(&self, key: &str) -> Result<Option<FlowId>, MrtrError> {
        self.spend.check()?;
        Ok(self.flows.get(key).and_then(|id| FlowId::parse(id).ok()))
    }

    /// Whether an answer read now, to a form of `fields` fields asked by the round this run
    /// resumes, comes sooner than a person can read it ([`set_too_fast`](Round::set_too_fast)):
    /// the time since the asking time sealed in the state, and the least a person takes. The
    /// rule a consent is read by: no time sealed, or a clock behind the sealing one's, reads as
    /// no time at all (too fast: it fails closed).
    #[must_use]
    pub fn answered_too_fast(&self, fields: usize) -> Option<(Duration, Duration)> {
        let elapsed = match (self.asked_at, millis_now()) {
            (Some(asked_at), Some(now)) => Duration::from_millis(now.saturating_sub(asked_at)),
            _ => Duration::ZERO,
        };
        self.too_fast
            .is_too_fast(elapsed, fields)
            .then(|| (elapsed, self.too_fast.threshold(fields)))
    }
}
