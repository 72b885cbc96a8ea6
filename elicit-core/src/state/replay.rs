//! Single use: the replay guard, which remembers which states have been redeemed.

use std::collections::{BTreeMap, HashMap, HashSet};
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
/// guard.redeem_now(opened.id(), binding.principal, opened.expires_at(), now)?; // first use
///
/// let again = keys.open::<String>(&text, &binding, now)?; // still opens...
/// let replay = guard.redeem_now(again.id(), binding.principal, again.expires_at(), now); // ...once
/// assert!(matches!(replay, Err(RedeemError::AlreadyRedeemed)));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// In async code the same reads `opened.redeem_once(&guard, binding.principal, now).await?`;
/// a multi round-trip server configures its guard once instead
/// ([`Rounds::with_replay_guard`](crate::mrtr::Rounds::with_replay_guard)), and every round's
/// state is spent for it.
pub trait ReplayGuard: Send + Sync {
    /// Records `id` as redeemed until (at least) `expires_at`. `Ok(())` the first time;
    /// [`RedeemError::AlreadyRedeemed`] every later time. `principal` is whose state it is (the
    /// [`Binding`](super::Binding)'s), for a guard that bounds what one principal may hold;
    /// `now` is the caller's clock, for guards that keep time themselves (a network guard may
    /// use its own clock instead).
    fn redeem(
        &self,
        id: StateId,
        principal: &str,
        expires_at: UnixTime,
        now: UnixTime,
    ) -> RedeemFuture<'_>;
}

impl<G: ReplayGuard + ?Sized> ReplayGuard for Arc<G> {
    fn redeem(
        &self,
        id: StateId,
        principal: &str,
        expires_at: UnixTime,
        now: UnixTime,
    ) -> RedeemFuture<'_> {
        (**self).redeem(id, principal, expires_at, now)
    }
}

impl<G: ReplayGuard + ?Sized> ReplayGuard for &G {
    fn redeem(
        &self,
        id: StateId,
        principal: &str,
        expires_at: UnixTime,
        now: UnixTime,
    ) -> RedeemFuture<'_> {
        (**self).redeem(id, principal, expires_at, now)
    }
}

/// The replay guard for a single server process: redeemed ids in a mutex-guarded map.
///
/// # What it keeps, and what it evicts
/// - An id is kept until its state expires, never less: forgetting it early would let the state
///   be replayed.
/// - Expired ids are evicted soonest-expiring first, a few on each redemption
///   ([`EVICT_PER_REDEEM`](MemoryReplayGuard::EVICT_PER_REDEEM)), from a queue ordered by expiry:
///   no redemption scans the whole guard, so one costs O(log n) however full the guard is, and
///   the expired backlog drains faster than redemptions add to it.
/// - Two caps, both failing closed with [`RedeemError::Unavailable`] rather than forgetting an
///   unexpired id: [`max_entries`](MemoryReplayGuard::with_max_entries) unexpired ids in all, and
///   [`max_per_principal`](MemoryReplayGuard::with_max_per_principal) for any one principal, so
///   that one user who redeems as fast as they can fills their own share, not the guard: the
///   others keep redeeming.
/// - Each id costs about 30 bytes while it is kept (BENCHMARKS.md §11, at 500 ids), more just
///   after a table grows: its first 8 bytes in a hash set, and again in the expiry queue with
///   its principal's number (each principal is kept once, while it holds ids). Two ids sharing
///   their first 8 bytes, about one chance in 10^13 per redemption with a million ids kept, make
///   the later one look redeemed: it is refused (fail closed), never let through; the bytes are
///   the server's randomness, which no client chooses.
/// - [`DEFAULT_MAX_ENTRIES`](Self::DEFAULT_MAX_ENTRIES) ids then hold some 40 MiB at the most.
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
/// assert!(guard.redeem_now(id, "user-8f3a", expires_at, now).is_ok());
/// assert!(matches!(
///     guard.redeem_now(id, "user-8f3a", expires_at, now),
///     Err(RedeemError::AlreadyRedeemed)
/// ));
/// ```
pub struct MemoryReplayGuard {
    redeemed: Mutex<Redeemed>,
    max_entries: usize,
    max_per_principal: usize,
}

#[derive(Default)]
struct Redeemed {
    /// Each unexpired (or not yet evicted) id, by its first 8 bytes ([`Short`]).
    ids: HashSet<Short>,
    /// The same ids by their expiry (whole seconds, so states sealed in the same second share
    /// a bucket), soonest first, each with whose it is: what is evicted next.
    by_expiry: BTreeMap<UnixTime, Vec<(Short, PrincipalNo)>>,
    /// The principals holding ids, each with a number and a count.
    principals: Principals,
}

/// A redeemed id as the guard keeps it: its first 8 of 16 random bytes (what a collision does:
/// [`MemoryReplayGuard`]'s "What it keeps").
type Short = [u8; 8];

fn short(id: StateId) -> Short {
    let bytes = id.as_bytes();
    let mut short = [0; 8];
    short.copy_from_slice(&bytes[..8]);
    short
}

/// A principal's number among those holding ids: 4 bytes per id, not a pointer and a length.
type PrincipalNo = u32;

/// The principals holding ids: a number each (reused once they hold none), and how many each
/// holds.
#[derive(Default)]
struct Principals {
    numbers: HashMap<Arc<str>, PrincipalNo>,
    /// By number: the principal and how many ids it holds (`None`: a free number).
    held: Vec<Option<(Arc<str>, usize)>>,
    free: Vec<PrincipalNo>,
}

impl Principals {
    fn held(&self, principal: &str) -> usize {
        self.numbers
            .get(principal)
            .and_then(|&number| self.held.get(number as usize)?.as_ref())
            .map_or(0, |(_, held)| *held)
    }

    /// Counts one more id for `principal`: its number, or `None` if no number is left.
    fn add(&mut self, principal: &str) -> Option<PrincipalNo> {
        if let Some(&number) = self.numbers.get(principal) {
            if let Some(Some((_, held))) = self.held.get_mut(number as usize) {
                *held += 1;
            }
            return Some(number);
        }
        let number = match self.free.pop() {
            Some(number) => number,
            None => PrincipalNo::try_from(self.held.len()).ok()?,
        };
        let name: Arc<str> = Arc::from(principal);
        let entry = Some((Arc::clone(&name), 1));
        match self.held.get_mut(number as usize) {
            Some(free) => *free = entry,
            None => self.held.push(entry),
        }
        self.numbers.insert(name, number);
        Some(number)
    }

    /// Counts one id fewer for the principal numbered `number`; forgets it at none.
    fn remove(&mut self, number: PrincipalNo) {
        let Some(slot) = self.held.get_mut(number as usize) else {
            return;
        };
        if let Some((name, held)) = slot {
            *held = held.saturating_sub(1);
            if *held == 0 {
                self.numbers.remove(&**name);
                *slot = None;
                self.free.push(number);
            }
        }
    }
}

impl Redeemed {
    /// Evicts at most `most` ids that expired by `now`, soonest first.
    fn evict_expired(&mut self, now: UnixTime, most: usize) {
        for _ in 0..most {
            let Some(mut soonest) = self.by_expiry.first_entry() else {
                return;
            };
            if *soonest.key() > now {
                return;
            }
            let Some((id, principal)) = soonest.get_mut().pop() else {
                soonest.remove();
                continue;
            };
            if soonest.get().is_empty() {
                soonest.remove();
            }
            if self.ids.remove(&id) {
                self.principals.remove(principal);
            }
        }
    }
}

impl MemoryReplayGuard {
    /// The default cap on unexpired redeemed ids: about a million, some 40 MiB at the most.
    pub const DEFAULT_MAX_ENTRIES: usize = 1 << 20;

    /// The default cap on one principal's unexpired redeemed ids: a sixteenth of
    /// [`DEFAULT_MAX_ENTRIES`](Self::DEFAULT_MAX_ENTRIES). With the default 10-minute round TTL
    /// that is over a hundred rounds a second, for ten minutes, from one user.
    pub const DEFAULT_MAX_PER_PRINCIPAL: usize = Self::DEFAULT_MAX_ENTRIES / 16;

    /// How many expired ids each redemption evicts at most: more than the one it adds, so the
    /// guard never grows on expired ids, and few enough that no redemption waits on a purge.
    pub const EVICT_PER_REDEEM: usize = 8;

    /// An empty guard with the default caps.
    #[must_use]
    pub fn new() -> Self {
        Self::with_max_entries(Self::DEFAULT_MAX_ENTRIES)
    }

    /// An empty guard holding at most `max_entries` unexpired ids, and at most
    /// [`DEFAULT_MAX_PER_PRINCIPAL`](Self::DEFAULT_MAX_PER_PRINCIPAL) (or `max_entries`, if
    /// smaller) for any one principal.
    #[must_use]
    pub fn with_max_entries(max_entries: usize) -> Self {
        Self {
            redeemed: Mutex::new(Redeemed::default()),
            max_entries,
            max_per_principal: Self::DEFAULT_MAX_PER_PRINCIPAL.min(max_entries),
        }
    }

    /// At most `max_per_principal` unexpired ids for any one principal. A server with one user
    /// (`AskConfig::single_user`) may raise it to [`max_entries`](Self::with_max_entries).
    #[must_use]
    pub fn with_max_per_principal(mut self, max_per_principal: usize) -> Self {
        self.max_per_principal = max_per_principal;
        self
    }

    /// [`ReplayGuard::redeem`] without a future, for synchronous callers.
    ///
    /// # Errors
    /// [`RedeemError::AlreadyRedeemed`] if `id` was redeemed before;
    /// [`RedeemError::Unavailable`] if the guard, or `principal`'s share of it, is full of
    /// unexpired ids.
    pub fn redeem_now(
        &self,
        id: StateId,
        principal: &str,
        expires_at: UnixTime,
        now: UnixTime,
    ) -> Result<(), RedeemError> {
        // A panic while holding this lock cannot leave the maps half-updated (every update below
        // comes after the last fallible step), so a poisoned lock is still sound to use.
        let mut redeemed = self.redeemed.lock().unwrap_or_else(PoisonError::into_inner);
        redeemed.evict_expired(now, Self::EVICT_PER_REDEEM);
        let id = short(id);
        if redeemed.ids.contains(&id) {
            return Err(RedeemError::AlreadyRedeemed);
        }
        if redeemed.ids.len() >= self.max_entries {
            return Err(RedeemError::Unavailable(Box::new(GuardFull::All)));
        }
        if redeemed.principals.held(principal) >= self.max_per_principal {
            return Err(RedeemError::Unavailable(Box::new(GuardFull::Principal)));
        }
        let Some(number) = redeemed.principals.add(principal) else {
            return Err(RedeemError::Unavailable(Box::new(GuardFull::All)));
        };
        redeemed.ids.insert(id);
        redeemed
            .by_expiry
            .entry(expires_at)
            .or_default()
            .push((id, number));
        Ok(())
    }

    /// How many redeemed ids the guard holds, expired ones not yet evicted included.
    #[must_use]
    pub fn len(&self) -> usize {
        self.redeemed
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .ids
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
            .field("max_per_principal", &self.max_per_principal)
            .finish()
    }
}

impl ReplayGuard for MemoryReplayGuard {
    fn redeem(
        &self,
        id: StateId,
        principal: &str,
        expires_at: UnixTime,
        now: UnixTime,
    ) -> RedeemFuture<'_> {
        Box::pin(ready(self.redeem_now(id, principal, expires_at, now)))
    }
}

/// The cause of [`RedeemError::Unavailable`] from a full [`MemoryReplayGuard`].
#[derive(Debug)]
enum GuardFull {
    All,
    Principal,
}

impl fmt::Display for GuardFull {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::All => {
                "the in-memory replay guard holds its maximum number of unexpired state ids"
            }
            Self::Principal => {
                "this principal holds its maximum number of unexpired state ids in the \
                 in-memory replay guard"
            }
        })
    }
}

impl Error for GuardFull {}
