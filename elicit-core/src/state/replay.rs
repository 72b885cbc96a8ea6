//! Single use: the replay guard, which remembers which states have been redeemed.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::error::Error;
use std::fmt;
use std::future::{Future, ready};
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};

use super::error::RedeemError;
use super::{StateId, UnixTime};

#[cfg(feature = "redis")]
mod redis;
#[cfg(feature = "redis")]
pub use self::redis::RedisReplayGuard;

/// What [`ReplayGuard::redeem`] returns: a boxed future, `Send`, borrowing only the guard.
pub type RedeemFuture<'a> = Pin<Box<dyn Future<Output = Result<(), RedeemError>> + Send + 'a>>;

/// Enforces that a sealed state is acted on at most once, across every replica that shares the
/// guard.
///
/// Sealing bounds *where* and *how long* a state can be replayed (principal, request, expiry);
/// it cannot stop the same client presenting the same state twice within its TTL. The spec leaves
/// that to the server: where an operation must happen at most once (a payment, a one-time
/// redemption), redeem the state's [`StateId`] here before acting, and act only on `Ok(())`.
///
/// # Why a boxed future
/// A guard shared by a fleet of replicas lives in a network store (Redis), so redeeming is I/O,
/// and an rmcp server is async. The rest of this crate is synchronous and runtime-agnostic, so the
/// trait names no runtime: it returns a `Send` boxed future, which any executor can await, which
/// keeps the trait object-safe (`Arc<dyn ReplayGuard>` in a server's shared state), and which
/// costs one small allocation next to a network round trip. The in-memory guard's future is
/// already complete when returned, and [`MemoryReplayGuard::redeem_now`] offers it without any
/// future for synchronous callers. (An `async fn` in the trait would be neither object-safe nor
/// able to promise `Send` to a multi-threaded runtime.)
///
/// # Contract for implementations
/// - Atomic: of any number of concurrent `redeem` calls with the same id, at most one returns
///   `Ok(())`.
/// - Remember an id at least until `expires_at`: after that the state no longer opens, so the id
///   may be forgotten and memory stays bounded.
/// - Fail closed: when unsure (store unreachable, full), return [`RedeemError::Unavailable`],
///   never `Ok(())`.
///
/// ```
/// # extern crate elicit_core as mcp_elicit;
/// use std::time::Duration;
/// use mcp_elicit::state::{
///     Binding, MemoryReplayGuard, ParamsDigest, RedeemError, StateKeys, UnixTime,
/// };
/// use serde_json::json;
///
/// let keys = StateKeys::generate()?;
/// let guard = MemoryReplayGuard::new();
/// let binding = Binding {
///     principal: "user-8f3a",
///     method: "tools/call",
///     params_digest: ParamsDigest::of(&json!({ "name": "redeem_voucher", "arguments": { "code": "X1" } })),
/// };
/// let now = UnixTime::from_secs(1_800_000_000);
/// let text = keys.seal(&"voucher X1", &binding, Duration::from_secs(300), now)?;
///
/// let opened = keys.open::<String>(&text, &binding, now)?;
/// guard.redeem_now(opened.id(), opened.expires_at(), now)?; // first use: go ahead
///
/// let again = keys.open::<String>(&text, &binding, now)?; // still opens...
/// let replay = guard.redeem_now(again.id(), again.expires_at(), now); // ...but only once
/// assert!(matches!(replay, Err(RedeemError::AlreadyRedeemed)));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// In async code the same reads `opened.redeem_once(&guard, UnixTime::now()).await?`.
pub trait ReplayGuard: Send + Sync {
    /// Records `id` as redeemed until (at least) `expires_at`. `Ok(())` the first time;
    /// [`RedeemError::AlreadyRedeemed`] every later time. `now` is the caller's clock, for guards
    /// that keep time themselves (a network guard may use its own clock instead).
    fn redeem(&self, id: StateId, expires_at: UnixTime, now: UnixTime) -> RedeemFuture<'_>;
}

impl<G: ReplayGuard + ?Sized> ReplayGuard for Arc<G> {
    fn redeem(&self, id: StateId, expires_at: UnixTime, now: UnixTime) -> RedeemFuture<'_> {
        (**self).redeem(id, expires_at, now)
    }
}

impl<G: ReplayGuard + ?Sized> ReplayGuard for &G {
    fn redeem(&self, id: StateId, expires_at: UnixTime, now: UnixTime) -> RedeemFuture<'_> {
        (**self).redeem(id, expires_at, now)
    }
}

/// The replay guard for a single server process: redeemed ids in a mutex-guarded map.
///
/// Memory stays bounded: an id is kept only until its state expires, and expired ids are purged
/// whenever the map has doubled since the last purge (amortised O(1) per redemption), and
/// whenever it is full. As a hard
/// cap against a burst of long-lived states, a guard holding
/// [`max_entries`](MemoryReplayGuard::with_max_entries) unexpired ids refuses further
/// redemptions with [`RedeemError::Unavailable`] rather than forget one early.
///
/// It does not survive a restart and is not shared between replicas: a fleet needs a shared guard
/// such as `RedisReplayGuard` (cargo feature `redis`).
///
/// ```
/// # extern crate elicit_core as mcp_elicit;
/// use mcp_elicit::state::{MemoryReplayGuard, RedeemError, StateId, UnixTime};
///
/// let guard = MemoryReplayGuard::new();
/// let id = StateId::from_bytes([1; 16]);
/// let (now, expires_at) = (UnixTime::from_secs(100), UnixTime::from_secs(400));
/// assert!(guard.redeem_now(id, expires_at, now).is_ok());
/// assert!(matches!(guard.redeem_now(id, expires_at, now), Err(RedeemError::AlreadyRedeemed)));
/// ```
pub struct MemoryReplayGuard {
    redeemed: Mutex<Redeemed>,
    max_entries: usize,
}

struct Redeemed {
    expiries: HashMap<StateId, UnixTime>,
    /// The map size at which expired entries are next purged.
    purge_at: usize,
}

/// Below this size the map is never purged: scanning it would cost more than it frees.
const MIN_PURGE_AT: usize = 1024;

impl MemoryReplayGuard {
    /// The default cap on unexpired redeemed ids: about a million, a few tens of MiB.
    pub const DEFAULT_MAX_ENTRIES: usize = 1 << 20;

    /// An empty guard holding at most [`DEFAULT_MAX_ENTRIES`](Self::DEFAULT_MAX_ENTRIES) ids.
    #[must_use]
    pub fn new() -> Self {
        Self::with_max_entries(Self::DEFAULT_MAX_ENTRIES)
    }

    /// An empty guard holding at most `max_entries` unexpired ids.
    #[must_use]
    pub fn with_max_entries(max_entries: usize) -> Self {
        Self {
            redeemed: Mutex::new(Redeemed {
                expiries: HashMap::new(),
                purge_at: MIN_PURGE_AT,
            }),
            max_entries,
        }
    }

    /// [`ReplayGuard::redeem`] without a future, for synchronous callers.
    ///
    /// # Errors
    /// [`RedeemError::AlreadyRedeemed`] if `id` was redeemed before;
    /// [`RedeemError::Unavailable`] if the guard is full of unexpired ids.
    pub fn redeem_now(
        &self,
        id: StateId,
        expires_at: UnixTime,
        now: UnixTime,
    ) -> Result<(), RedeemError> {
        // A panic while holding this lock cannot leave the map half-updated, so a poisoned lock
        // is still sound to use.
        let mut redeemed = self.redeemed.lock().unwrap_or_else(PoisonError::into_inner);
        let Redeemed { expiries, purge_at } = &mut *redeemed;
        if expiries.len() >= (*purge_at).min(self.max_entries) {
            expiries.retain(|_, expiry| *expiry > now);
            *purge_at = expiries.len().saturating_mul(2).max(MIN_PURGE_AT);
        }
        let len = expiries.len();
        match expiries.entry(id) {
            Entry::Occupied(_) => Err(RedeemError::AlreadyRedeemed),
            Entry::Vacant(_) if len >= self.max_entries => {
                Err(RedeemError::Unavailable(Box::new(GuardFull)))
            }
            Entry::Vacant(slot) => {
                slot.insert(expires_at);
                Ok(())
            }
        }
    }

    /// How many redeemed ids the guard holds, expired ones not yet purged included.
    #[must_use]
    pub fn len(&self) -> usize {
        self.redeemed
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .expiries
            .len()
    }

    /// Whether the guard holds no redeemed ids.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Default for MemoryReplayGuard {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for MemoryReplayGuard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MemoryReplayGuard")
            .field("len", &self.len())
            .field("max_entries", &self.max_entries)
            .finish()
    }
}

impl ReplayGuard for MemoryReplayGuard {
    fn redeem(&self, id: StateId, expires_at: UnixTime, now: UnixTime) -> RedeemFuture<'_> {
        Box::pin(ready(self.redeem_now(id, expires_at, now)))
    }
}

/// The cause of [`RedeemError::Unavailable`] from a full [`MemoryReplayGuard`].
#[derive(Debug)]
struct GuardFull;

impl fmt::Display for GuardFull {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the in-memory replay guard holds its maximum number of unexpired state ids")
    }
}

impl Error for GuardFull {}
