//! URL-mode elicitation: send the user to a page for something that must not pass through the
//! client — a credential, a payment, a third-party OAuth consent.
//!
//! The user's `accept` means only *consent to open the page*, never that anything on it was
//! done; so the outcome is its own type, [`UrlOutcome`], with no content, whose
//! [`Accept`](UrlOutcome::Accept) says exactly that. Whether the interaction finished is
//! something the server learns from its own page (and, in 2025-11-25, may announce with
//! [`ElicitationComplete`]).

#[cfg(feature = "mrtr")]
mod flow;
mod form;
mod id;
mod outcome;
mod request;
mod required;
#[cfg(test)]
mod tests;

use std::fmt;

#[cfg(feature = "redis")]
pub use flow::RedisFlowStore;
#[cfg(feature = "mrtr")]
pub use flow::{
    Abandonment, Claim, Flow, FlowError, FlowFuture, FlowId, FlowOutcome, FlowStatus, FlowStore,
    Flows, FlowsError, InvalidFlowId, MemoryFlowStore, ReceiptError,
};
pub use form::ElicitUrl;
pub use id::{ElicitationId, InvalidElicitationId};
pub use outcome::{ElicitationComplete, UrlOutcome};
pub use request::{RevisionedUrlRequest, UrlRequest};
pub use required::UrlElicitationRequired;

pub use crate::url::{ElicitationUrl, UrlError, UrlPolicy};

/// Why a URL-mode request could not be built: the URL (see [`UrlError`]), or the request around
/// it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum UrlRequestError {
    /// The URL is refused.
    Url(UrlError),
    /// The elicitation's message is empty.
    EmptyMessage,
    /// The operating system's random source failed, so no unguessable `elicitationId` could be
    /// made.
    NoRandomness,
}

impl fmt::Display for UrlRequestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UrlRequestError::Url(e) => fmt::Display::fmt(e, f),
            UrlRequestError::EmptyMessage => f.write_str(
                "the message is empty; say in one sentence why the user should open the page",
            ),
            UrlRequestError::NoRandomness => f.write_str(
                "the operating system's random source failed, so no unguessable elicitationId could be made; try again",
            ),
        }
    }
}

impl std::error::Error for UrlRequestError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            UrlRequestError::Url(e) => Some(e),
            _ => None,
        }
    }
}

impl From<UrlError> for UrlRequestError {
    fn from(e: UrlError) -> Self {
        UrlRequestError::Url(e)
    }
}

/// Record the outcome of a parsed URL-mode reply ([`crate::observe`]): a reply that could not be
/// used counts as rejected.
fn record_url_reply<E>(elicitation: &str, result: &Result<UrlOutcome, E>) {
    crate::observe::answered(
        elicitation,
        result
            .as_ref()
            .map_or(crate::observe::Outcome::Rejected, |o| o.outcome()),
    );
}
