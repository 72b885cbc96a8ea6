//! [`Flows`]: where a server keeps its URL flows and where their pages live.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use super::{FlowId, FlowStore, MemoryFlowStore};
use crate::url::{ElicitationUrl, UrlError, UrlPolicy};

/// Where a server keeps its URL flows ([`FlowStore`]) and where the pages that finish them are
/// served: a flow's URL is this base followed by its [`FlowId`], and nothing else. Made once at
/// start-up, shared by the asking side and the pages; cheap to clone.
///
/// ```
/// # extern crate elicit_core as mcp_elicit;
/// use mcp_elicit::url_mode::{FlowId, Flows, MemoryFlowStore};
///
/// let flows = Flows::new(MemoryFlowStore::new(), "https://mcp.example.com/elicit/")?;
/// let id = FlowId::random()?;
/// assert_eq!(flows.url_of(&id)?.as_str(), format!("https://mcp.example.com/elicit/{id}"));
/// // No query, no fragment, and a base that ends in `/`: the flow id is all the URL adds.
/// assert!(Flows::new(MemoryFlowStore::new(), "https://mcp.example.com/elicit?user=7").is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct Flows {
    store: Arc<dyn FlowStore>,
    base: ElicitationUrl,
    ttl: Duration,
}

impl fmt::Debug for Flows {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Flows")
            .field("base", &self.base)
            .field("ttl", &self.ttl)
            .finish_non_exhaustive()
    }
}

/// Why a [`Flows`] base URL is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum FlowsError {
    /// The URL is refused by the URL policy.
    Url(UrlError),
    /// The base has a query or a fragment, or does not end in `/`: a flow's URL must hold its
    /// flow id and nothing else.
    NotABase,
}

impl fmt::Display for FlowsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FlowsError::Url(error) => fmt::Display::fmt(error, f),
            FlowsError::NotABase => f.write_str(
                "the pages' base URL must end in `/` and have no query or fragment: a flow's URL \
                 is the base and the flow id, nothing else",
            ),
        }
    }
}

impl std::error::Error for FlowsError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            FlowsError::Url(error) => Some(error),
            FlowsError::NotABase => None,
        }
    }
}

impl From<UrlError> for FlowsError {
    fn from(error: UrlError) -> Self {
        FlowsError::Url(error)
    }
}

impl Flows {
    /// Flows kept in `store`, whose pages are served under `base` (checked by the production
    /// URL policy: `https`, or `http` to loopback).
    ///
    /// # Errors
    /// [`FlowsError`]: the URL policy's refusal, or a base that is not one.
    pub fn new(store: impl FlowStore + 'static, base: impl AsRef<str>) -> Result<Self, FlowsError> {
        Self::with_base(store, ElicitationUrl::parse(base.as_ref())?)
    }

    /// [`new`](Flows::new) with a base already checked (e.g. under
    /// [`UrlPolicy::Development`]).
    ///
    /// # Errors
    /// [`FlowsError::NotABase`].
    pub fn with_base(
        store: impl FlowStore + 'static,
        base: ElicitationUrl,
    ) -> Result<Self, FlowsError> {
        let text = base.as_str();
        if !text.ends_with('/') || text.contains(['?', '#']) {
            return Err(FlowsError::NotABase);
        }
        Ok(Self {
            store: Arc::new(store),
            base,
            ttl: super::Flow::DEFAULT_TTL,
        })
    }

    /// Flows in a [`MemoryFlowStore`] for one user (its whole store is theirs), under `base`:
    /// a stdio server's.
    ///
    /// # Errors
    /// As [`new`](Flows::new).
    pub fn single_user(base: &str) -> Result<Self, FlowsError> {
        let store =
            MemoryFlowStore::new().with_max_per_principal(MemoryFlowStore::DEFAULT_MAX_FLOWS);
        Self::new(store, base)
    }

    /// Flows live `ttl` from when they are asked (default [`Flow::DEFAULT_TTL`](super::Flow::DEFAULT_TTL)).
    #[must_use]
    pub fn with_ttl(mut self, ttl: Duration) -> Self {
        self.ttl = ttl;
        self
    }

    /// How long a flow lives.
    #[must_use]
    pub fn ttl(&self) -> Duration {
        self.ttl
    }

    /// The store.
    #[must_use]
    pub fn store(&self) -> &Arc<dyn FlowStore> {
        &self.store
    }

    /// The base the pages are served under.
    #[must_use]
    pub fn base(&self) -> &ElicitationUrl {
        &self.base
    }

    /// The URL of flow `id`'s page: the base and the id.
    ///
    /// # Errors
    /// [`UrlError`] only if the base and id together pass a limit of the URL policy (a base of
    /// nearly [`MAX_URL_BYTES`](crate::limits::MAX_URL_BYTES)).
    pub fn url_of(&self, id: &FlowId) -> Result<ElicitationUrl, UrlError> {
        let policy = if self.base.scheme() == "https" || self.base.is_loopback() {
            UrlPolicy::Production
        } else {
            UrlPolicy::Development
        };
        ElicitationUrl::parse_with(&format!("{}{id}", self.base.as_str()), policy)
    }
}
