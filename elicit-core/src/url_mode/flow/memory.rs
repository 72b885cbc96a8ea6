//! The flow store for a single server process.

use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, HashMap};
use std::future::{Future, ready};
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use serde_json::Value;

use super::{Abandonment, Claim, Flow, FlowError, FlowFuture, FlowId, FlowStore};
use crate::state::{StateId, UnixTime};

/// The flow store for one server process (a stdio server, or a single HTTP replica): flows in a
/// mutex-guarded map, and the wakers of the tools waiting for them.
///
/// # What it keeps, and what it evicts
/// - A flow is kept until it expires, finished or not.
/// - Expired flows are evicted oldest first, a few on each [`begin`](FlowStore::begin)
///   ([`EVICT_PER_BEGIN`](MemoryFlowStore::EVICT_PER_BEGIN)), from a queue ordered by expiry.
/// - Two caps refuse new flows with [`FlowError::Full`] rather than forget an unexpired one:
///   [`max_flows`](MemoryFlowStore::with_max_flows) in all, and
///   [`max_per_principal`](MemoryFlowStore::with_max_per_principal) for any one user, so one
///   user cannot fill the store for the others.
/// - The last eighth of `max_flows` ([`RESERVE_DIVISOR`](MemoryFlowStore::RESERVE_DIVISOR)) is
///   kept for principals that hold fewer than [`FEW_FLOWS`](MemoryFlowStore::FEW_FLOWS) flows:
///   however many principals fill their own caps, a user with none can still start one. Many
///   accounts can still fill it all (with the default caps, 896 at 64 flows fill the seven
///   eighths anyone may take, then 2,048 more at four each the reserve): SECURITY.md says so.
///
/// # Who waits
/// Each [`finished`](FlowStore::finished) future that waits holds one place in its flow's
/// waiting list, with its task's waker, until it resolves or is dropped (a retry that gave up at
/// its bound leaves nothing behind). A flow has at most
/// [`max_waiters_per_flow`](MemoryFlowStore::with_max_waiters_per_flow) places: one more
/// resolves at once with [`FlowError::TooManyWaiters`] rather than wait.
///
/// It does not survive a restart and is not shared between replicas.
///
/// # Signed-out sessions
/// The pages' sessions signed out before they expired ([`end_session`](FlowStore::end_session))
/// are kept, each until it would have expired (some 100 B each), in a map of their own: at most
/// [`max_ended_sessions`](MemoryFlowStore::with_max_ended_sessions) in all, and
/// [`MAX_ENDED_SESSIONS_PER_PRINCIPAL`](MemoryFlowStore::MAX_ENDED_SESSIONS_PER_PRINCIPAL) for
/// any one principal. Over either, a sign-out is refused ([`FlowError::Unavailable`]) rather
/// than forget one: the sign-out page says the session could not be ended. One user who signs
/// in and out again and again so fills only their own share; the shares of 1,024 principals
/// fill the whole. Those expired are forgotten at each sign-out.
#[derive(Clone)]
pub struct MemoryFlowStore {
    inner: Arc<Mutex<Flows>>,
    max_flows: usize,
    max_per_principal: usize,
    max_waiters: usize,
    ended: Arc<Mutex<EndedSessions>>,
    max_ended_sessions: usize,
}

/// The sessions signed out before they expired, each until it would have expired.
#[derive(Default)]
struct EndedSessions {
    /// Each session, its principal and when it would have expired.
    until: HashMap<StateId, (Arc<str>, UnixTime)>,
    by_expiry: BTreeMap<UnixTime, Vec<StateId>>,
    per_principal: HashMap<Arc<str>, usize>,
}

impl EndedSessions {
    /// Forgets every session that would have expired by `now`.
    fn forget_expired(&mut self, now: UnixTime) {
        while let Some(soonest) = self.by_expiry.first_entry() {
            if *soonest.key() > now {
                return;
            }
            for session in soonest.remove() {
                if let Some((principal, _)) = self.until.remove(&session)
                    && let Entry::Occupied(mut count) = self.per_principal.entry(principal)
                {
                    *count.get_mut() = count.get().saturating_sub(1);
                    if *count.get() == 0 {
                        count.remove();
                    }
                }
            }
        }
    }
}

#[derive(Default)]
struct Flows {
    flows: HashMap<FlowId, Held>,
    by_expiry: BTreeMap<UnixTime, Vec<FlowId>>,
    per_principal: HashMap<Arc<str>, usize>,
    /// The number the next waiting future gets: each holds its own place in `waiting`.
    next_waiter: u64,
}

struct Held {
    flow: Flow,
    /// The futures waiting in `finished`, each by its number, with its task's waker.
    waiting: Vec<(u64, Waker)>,
}

/// Wakes every waiter of a flow, emptying its list (each woken future finds the flow over).
fn wake_all(waiting: &mut Vec<(u64, Waker)>) {
    waiting.drain(..).for_each(|(_, waker)| waker.wake());
}

impl Flows {
    fn evict_expired(&mut self, now: UnixTime, most: usize) {
        for _ in 0..most {
            let Some(mut soonest) = self.by_expiry.first_entry() else {
                return;
            };
            if *soonest.key() > now {
                return;
            }
            let Some(id) = soonest.get_mut().pop() else {
                soonest.remove();
                continue;
            };
            if soonest.get().is_empty() {
                soonest.remove();
            }
            if let Some(held) = self.flows.remove(&id) {
                // Whoever waits sees it expired.
                let mut waiting = held.waiting;
                wake_all(&mut waiting);
                if let Entry::Occupied(mut count) =
                    self.per_principal.entry(Arc::from(held.flow.principal()))
                {
                    *count.get_mut() = count.get().saturating_sub(1);
                    if *count.get() == 0 {
                        count.remove();
                    }
                }
            }
        }
    }
}

/// How many flows a store capped at `max_flows` in all may hold when a principal that holds
/// `held` begins one: all of them for a principal holding few
/// ([`FEW_FLOWS`](MemoryFlowStore::FEW_FLOWS)), all but the reserve
/// ([`RESERVE_DIVISOR`](MemoryFlowStore::RESERVE_DIVISOR)) for the others. The one statement of
/// the reserve: both stores decide by it (the Redis store hands both numbers to its script).
pub(super) const fn room_for(max_flows: usize, held: usize) -> usize {
    if held < MemoryFlowStore::FEW_FLOWS {
        max_flows
    } else {
        max_flows.saturating_sub(max_flows.div_ceil(MemoryFlowStore::RESERVE_DIVISOR))
    }
}

impl Default for MemoryFlowStore {
    fn default() -> Self {
        Self::new()
    }
}

impl MemoryFlowStore {
    /// The default cap on flows held: 65,536 (each some hundreds of bytes).
    pub const DEFAULT_MAX_FLOWS: usize = 1 << 16;
    /// The default cap on one user's flows: 64 pages waiting at once is already more than a
    /// person opens.
    pub const DEFAULT_MAX_PER_PRINCIPAL: usize = 64;
    /// How many expired flows each `begin` evicts at most: more than it adds, so the backlog
    /// drains, and never a scan of the whole store.
    pub const EVICT_PER_BEGIN: usize = 8;
    /// The default bound on the futures waiting for one flow at once: a call waits once at a
    /// time (before 2026-07-28, its watch and then its wait; on 2026-07-28, its retry), so
    /// eight leaves room for a client that sends one retry several times at once, and no more.
    pub const DEFAULT_MAX_WAITERS_PER_FLOW: usize = 8;
    /// A principal that holds fewer flows than this may take the store's reserve: one eighth of
    /// its cap in all ([`RESERVE_DIVISOR`](Self::RESERVE_DIVISOR)), which principals holding
    /// more never take. So a user with none can start one (up to four) while others fill their
    /// own caps. The Redis store (`RedisFlowStore`, feature `redis`) keeps the same reserve.
    pub const FEW_FLOWS: usize = 4;
    /// The store's cap in all, divided by this and rounded up, is kept for principals that hold
    /// fewer than [`FEW_FLOWS`](Self::FEW_FLOWS): an eighth.
    pub const RESERVE_DIVISOR: usize = 8;

    /// An empty store with the default caps.
    #[must_use]
    pub fn new() -> Self {
        Self {
            inner: Arc::default(),
            max_flows: Self::DEFAULT_MAX_FLOWS,
            max_per_principal: Self::DEFAULT_MAX_PER_PRINCIPAL,
            max_waiters: Self::DEFAULT_MAX_WAITERS_PER_FLOW,
            ended: Arc::default(),
            max_ended_sessions: Self::DEFAULT_MAX_ENDED_SESSIONS,
        }
    }

    /// At most `max` unexpired flows in all.
    #[must_use]
    pub fn with_max_flows(mut self, max: usize) -> Self {
        self.max_flows = max;
        self
    }

    /// At most `max` unexpired flows for any one principal (a single-user server may set this to
    /// its [`max_flows`](Self::with_max_flows)).
    #[must_use]
    pub fn with_max_per_principal(mut self, max: usize) -> Self {
        self.max_per_principal = max;
        self
    }

    /// At most `max` futures waiting for one flow at once
    /// ([`DEFAULT_MAX_WAITERS_PER_FLOW`](Self::DEFAULT_MAX_WAITERS_PER_FLOW) unless set); one
    /// more resolves at once with [`FlowError::TooManyWaiters`]. Each waiting future holds its
    /// task's waker (and so keeps its task's allocation) until the flow is over or the future is
    /// dropped: the bound is what one flow can keep alive.
    #[must_use]
    pub fn with_max_waiters_per_flow(mut self, max: usize) -> Self {
        self.max_waiters = max;
        self
    }

    fn lock(&self) -> MutexGuard<'_, Flows> {
        // A panic while holding the lock left every flow whole (each change is one assignment).
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// [`FlowStore::begin`], without a future.
    ///
    /// # Errors
    /// [`FlowError::Exists`], [`FlowError::Full`], [`FlowError::PrincipalFull`].
    pub fn begin_now(&self, flow: Flow, now: UnixTime) -> Result<(), FlowError> {
        let mut flows = self.lock();
        flows.evict_expired(now, Self::EVICT_PER_BEGIN);
        if flows.flows.contains_key(&flow.id()) {
            return Err(FlowError::Exists);
        }
        let principal: Arc<str> = Arc::from(flow.principal());
        let held = flows.per_principal.get(&principal).copied().unwrap_or(0);
        if flows.flows.len() >= room_for(self.max_flows, held) {
            return Err(FlowError::Full);
        }
        if held >= self.max_per_principal {
            return Err(FlowError::PrincipalFull {
                max: self.max_per_principal,
            });
        }
        *flows.per_principal.entry(principal).or_default() += 1;
        flows
            .by_expiry
            .entry(flow.expires_at())
            .or_default()
            .push(flow.id());
        flows.flows.insert(
            flow.id(),
            Held {
                flow,
                waiting: Vec::new(),
            },
        );
        Ok(())
    }

    /// [`FlowStore::get`], without a future.
    ///
    /// # Errors
    /// [`FlowError::Unknown`].
    pub fn get_now(&self, id: &FlowId, now: UnixTime) -> Result<Flow, FlowError> {
        let flows = self.lock();
        let held = flows.flows.get(id).ok_or(FlowError::Unknown)?;
        Ok(held.flow.clone().at(now))
    }

    /// [`FlowStore::open`], without a future.
    ///
    /// # Errors
    /// As [`Flow::opened`], and [`FlowError::Unknown`].
    pub fn open_now(
        &self,
        id: &FlowId,
        principal: &str,
        browser: &str,
        now: UnixTime,
    ) -> Result<Flow, FlowError> {
        let mut flows = self.lock();
        let held = flows.flows.get_mut(id).ok_or(FlowError::Unknown)?;
        let opened = held.flow.clone().opened(principal, browser, now)?;
        held.flow = opened.clone();
        Ok(opened)
    }

    /// [`FlowStore::claim`], without a future.
    ///
    /// # Errors
    /// As [`Flow::claimed`], and [`FlowError::Unknown`].
    pub fn claim_now(
        &self,
        id: &FlowId,
        principal: &str,
        browser: &str,
        lease: Duration,
        now: UnixTime,
    ) -> Result<Claim, FlowError> {
        let mut flows = self.lock();
        let held = flows.flows.get_mut(id).ok_or(FlowError::Unknown)?;
        let claim = held.flow.clone().claimed(principal, browser, lease, now)?;
        held.flow = claim.flow().clone();
        Ok(claim)
    }

    /// [`FlowStore::finish`], without a future.
    ///
    /// # Errors
    /// As [`Flow::finished`], and [`FlowError::Unknown`].
    pub fn finish_now(
        &self,
        claim: &Claim,
        result: Result<Value, String>,
        now: UnixTime,
    ) -> Result<Flow, FlowError> {
        let mut flows = self.lock();
        let held = flows.flows.get_mut(&claim.id()).ok_or(FlowError::Unknown)?;
        let finished = held.flow.clone().finished(claim, result, now)?;
        held.flow = finished.clone();
        wake_all(&mut held.waiting);
        Ok(finished)
    }

    /// [`FlowStore::release`], without a future: nobody waiting is woken.
    ///
    /// # Errors
    /// As [`Flow::released`], and [`FlowError::Unknown`].
    pub fn release_now(&self, claim: &Claim, now: UnixTime) -> Result<Flow, FlowError> {
        let mut flows = self.lock();
        let held = flows.flows.get_mut(&claim.id()).ok_or(FlowError::Unknown)?;
        let released = held.flow.clone().released(claim, now)?;
        held.flow = released.clone();
        Ok(released)
    }

    /// [`FlowStore::abandon`], without a future.
    ///
    /// # Errors
    /// As [`Flow::abandoned`], and [`FlowError::Unknown`].
    pub fn abandon_now(
        &self,
        id: &FlowId,
        principal: &str,
        why: Abandonment,
        now: UnixTime,
    ) -> Result<Flow, FlowError> {
        let mut flows = self.lock();
        let held = flows.flows.get_mut(id).ok_or(FlowError::Unknown)?;
        let abandoned = held.flow.clone().abandoned(principal, why, now)?;
        held.flow = abandoned.clone();
        wake_all(&mut held.waiting);
        Ok(abandoned)
    }
}

/// The signed-out sessions ([`FlowStore::end_session`]).
impl MemoryFlowStore {
    /// The default cap on signed-out sessions kept ([`FlowStore::end_session`]): 65,536 (some
    /// 100 B each, some 6 MiB in all).
    pub const DEFAULT_MAX_ENDED_SESSIONS: usize = 1 << 16;
    /// The most signed-out sessions kept for one principal: 64. Over it, that principal's
    /// sign-out is refused until one of them would have expired: signing in and out again and
    /// again fills one's own share only.
    pub const MAX_ENDED_SESSIONS_PER_PRINCIPAL: usize = 64;

    /// At most `max` signed-out sessions kept in all (default
    /// [`DEFAULT_MAX_ENDED_SESSIONS`](Self::DEFAULT_MAX_ENDED_SESSIONS)).
    #[must_use]
    pub fn with_max_ended_sessions(mut self, max: usize) -> Self {
        self.max_ended_sessions = max;
        self
    }

    /// [`FlowStore::end_session`], without a future.
    ///
    /// # Errors
    /// [`FlowError::Unavailable`] when the store keeps as many signed-out sessions as it may,
    /// in all or for `principal`.
    pub fn end_session_now(
        &self,
        session: &StateId,
        principal: &str,
        until: UnixTime,
        now: UnixTime,
    ) -> Result<(), FlowError> {
        let mut ended = self.ended.lock().unwrap_or_else(PoisonError::into_inner);
        ended.forget_expired(now);
        if until <= now || ended.until.contains_key(session) {
            return Ok(());
        }
        let principal: Arc<str> = Arc::from(principal);
        let held = ended.per_principal.get(&principal).copied().unwrap_or(0);
        if held >= Self::MAX_ENDED_SESSIONS_PER_PRINCIPAL {
            return Err(FlowError::Unavailable(format!(
                "this principal has signed out of {held} sessions that have not expired yet, \
                 the most the store keeps for one"
            )));
        }
        if ended.until.len() >= self.max_ended_sessions {
            return Err(FlowError::Unavailable(format!(
                "the store keeps {} signed-out sessions that have not expired yet, the most it \
                 may",
                ended.until.len()
            )));
        }
        ended
            .until
            .insert(*session, (Arc::clone(&principal), until));
        ended.by_expiry.entry(until).or_default().push(*session);
        *ended.per_principal.entry(principal).or_insert(0) += 1;
        Ok(())
    }

    /// [`FlowStore::session_ended`], without a future.
    #[must_use]
    pub fn session_ended_now(&self, session: &StateId, now: UnixTime) -> bool {
        let ended = self.ended.lock().unwrap_or_else(PoisonError::into_inner);
        ended
            .until
            .get(session)
            .is_some_and(|(_, until)| *until > now)
    }
}

impl FlowStore for MemoryFlowStore {
    fn end_session(
        &self,
        session: &StateId,
        principal: &str,
        until: UnixTime,
        now: UnixTime,
    ) -> FlowFuture<'_, ()> {
        Box::pin(ready(self.end_session_now(session, principal, until, now)))
    }

    fn session_ended(&self, session: &StateId, now: UnixTime) -> FlowFuture<'_, bool> {
        Box::pin(ready(Ok(self.session_ended_now(session, now))))
    }

    fn begin(&self, flow: Flow, now: UnixTime) -> FlowFuture<'_, ()> {
        Box::pin(ready(self.begin_now(flow, now)))
    }

    fn get(&self, id: &FlowId, now: UnixTime) -> FlowFuture<'_, Flow> {
        Box::pin(ready(self.get_now(id, now)))
    }

    fn open(
        &self,
        id: &FlowId,
        principal: &str,
        browser: &str,
        now: UnixTime,
    ) -> FlowFuture<'_, Flow> {
        Box::pin(ready(self.open_now(id, principal, browser, now)))
    }

    fn claim(
        &self,
        id: &FlowId,
        principal: &str,
        browser: &str,
        lease: Duration,
        now: UnixTime,
    ) -> FlowFuture<'_, Claim> {
        Box::pin(ready(self.claim_now(id, principal, browser, lease, now)))
    }

    fn finish(
        &self,
        claim: &Claim,
        result: Result<Value, String>,
        now: UnixTime,
    ) -> FlowFuture<'_, Flow> {
        Box::pin(ready(self.finish_now(claim, result, now)))
    }

    fn release(&self, claim: &Claim, now: UnixTime) -> FlowFuture<'_, Flow> {
        Box::pin(ready(self.release_now(claim, now)))
    }

    fn abandon(
        &self,
        id: &FlowId,
        principal: &str,
        why: Abandonment,
        now: UnixTime,
    ) -> FlowFuture<'_, Flow> {
        Box::pin(ready(self.abandon_now(id, principal, why, now)))
    }

    fn finished(&self, id: &FlowId) -> FlowFuture<'_, Flow> {
        Box::pin(Finished {
            store: self,
            id: *id,
            place: None,
        })
    }
}

/// [`FlowStore::finished`] for the memory store: ready once the flow is finished, abandoned or
/// expired (or gone: evicted after it expired), or at once if the flow has as many waiters as it
/// may hold. While it waits it holds its place (`place`) in the flow's waiting list; dropped, it
/// gives the place, and its waker, back.
struct Finished<'a> {
    store: &'a MemoryFlowStore,
    id: FlowId,
    place: Option<u64>,
}

impl Future for Finished<'_> {
    type Output = Result<Flow, FlowError>;

    fn poll(mut self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<Self::Output> {
        let store = self.store;
        let max = store.max_waiters;
        let mut flows = store.lock();
        let next = flows.next_waiter;
        let Some(held) = flows.flows.get_mut(&self.id) else {
            return Poll::Ready(Err(FlowError::Unknown));
        };
        let flow = held.flow.clone().at(UnixTime::now());
        if !flow.status().is_open() {
            if let Some(place) = self.place.take() {
                held.waiting.retain(|(number, _)| *number != place);
            }
            return Poll::Ready(Ok(flow));
        }
        let waker = context.waker();
        let kept = self
            .place
            .and_then(|place| held.waiting.iter_mut().find(|(number, _)| *number == place));
        if let Some((_, kept)) = kept {
            if !kept.will_wake(waker) {
                kept.clone_from(waker);
            }
            return Poll::Pending;
        }
        // A new waiter, or one whose place a wake emptied while the flow stays open (it takes
        // a place again, within the bound like any other).
        if held.waiting.len() >= max {
            self.place = None;
            return Poll::Ready(Err(FlowError::TooManyWaiters { max }));
        }
        held.waiting.push((next, waker.clone()));
        flows.next_waiter = next.wrapping_add(1);
        self.place = Some(next);
        Poll::Pending
    }
}

impl Drop for Finished<'_> {
    fn drop(&mut self) {
        let Some(place) = self.place else {
            return;
        };
        if let Some(held) = self.store.lock().flows.get_mut(&self.id) {
            held.waiting.retain(|(number, _)| *number != place);
        }
    }
}
