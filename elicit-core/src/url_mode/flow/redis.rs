//! A flow store in Redis, shared by a fleet of replicas.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::future::poll_fn;
use std::pin::pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::task::{Poll, Waker};
use std::time::Duration;

use ::redis::aio::MultiplexedConnection;
use ::redis::{AsyncConnectionConfig, Client, ProtocolVersion, PushInfo, PushKind, RedisError};
use serde_json::Value;

use super::memory::room_for;
use super::{
    Abandonment, Claim, Flow, FlowError, FlowFuture, FlowId, FlowStore, MemoryFlowStore, wire,
};
use crate::state::{ParamsDigest, StateId, UnixTime};

/// The compare-and-set every change is written with: the new flow only over the very bytes the
/// decision was made on, then the news on the flow's channel. The rules stay in Rust
/// ([`Flow::opened`] and the others); the script only makes the read-decide-write atomic.
const COMPARE_AND_SET: &str = "\
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2], 'EXAT', ARGV[3])
  if ARGV[4] ~= '' then redis.call('PUBLISH', ARGV[4], 'done') end
  return 1
end
return 0";

/// The begin of a flow, with its principal's cap and the store's: the principal's index (a
/// sorted set of its flows' ids by expiry) and the store's (every flow's) drop the expired ones,
/// then the flow is written only if its id is new, the store holds fewer than its cap for this
/// principal (all of it for one holding few flows, all but the reserve for the others:
/// [`room_for`](super::memory::room_for), decided in Rust, both numbers handed here) and the
/// principal fewer than its own; it joins both indexes, each living as long as its
/// longest-lived flow's key. `KEYS`: the flow, the principal's index, the store's. `ARGV`: the
/// flow's JSON, its key's `EXAT`, now, the principal's cap, the flow's id, its expiry, the
/// clock-skew margin, the store's cap for a principal holding few, for the others, and how
/// many is few.
const BEGIN: &str = "\
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', ARGV[3])
if redis.call('EXISTS', KEYS[1]) == 1 then return 'exists' end
local held = redis.call('ZCARD', KEYS[2])
local room = tonumber(ARGV[9])
if held < tonumber(ARGV[10]) then room = tonumber(ARGV[8]) end
if redis.call('ZCARD', KEYS[3]) >= room then return 'store full' end
if held >= tonumber(ARGV[4]) then return 'full' end
redis.call('SET', KEYS[1], ARGV[1], 'EXAT', ARGV[2])
for i = 2, 3 do
  redis.call('ZADD', KEYS[i], ARGV[6], ARGV[5])
  local last = redis.call('ZRANGE', KEYS[i], -1, -1, 'WITHSCORES')
  redis.call('EXPIREAT', KEYS[i], math.max(1, tonumber(last[2]) + tonumber(ARGV[7])))
end
return 'ok'";

/// Ends a browser session ([`FlowStore::end_session`]): drops the principal's sessions that
/// would have expired from its index, refuses over the cap, and keeps the session until it
/// would have expired (its key expiring a clock-skew margin later). `KEYS`: the session, the
/// principal's index. `ARGV`: when it would have expired, its key's `EXAT`, now, the cap, the
/// session's id, the clock-skew margin.
const END_SESSION: &str = "\
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[3])
if redis.call('EXISTS', KEYS[1]) == 1 then return 'ok' end
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[4]) then return 'full' end
redis.call('SET', KEYS[1], ARGV[1], 'EXAT', ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[1], ARGV[5])
local last = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')
redis.call('EXPIREAT', KEYS[2], math.max(1, tonumber(last[2]) + tonumber(ARGV[6])))
return 'ok'";

/// A [`FlowStore`] in Redis (cargo feature `redis`): every replica pointing at the same Redis
/// (and [key prefix](RedisFlowStore::with_key_prefix)) sees the same flows, so a page served by
/// one replica finishes a flow a tool on another is waiting for.
///
/// # What it guarantees
/// - The rules are [`Flow`]'s, decided in Rust: a change reads the flow (`GET`), decides with
///   [`Flow::opened`], [`Flow::claimed`], [`Flow::finished`] or [`Flow::abandoned`], and writes
///   the result with a compare-and-set script that replaces the flow only if it still holds the
///   bytes the decision was made on. On a conflict it reads and decides again, at most
///   [`MAX_ATTEMPTS`](RedisFlowStore::MAX_ATTEMPTS) times. So of two concurrent `finish` (or
///   `claim`) calls, on any replicas, exactly one succeeds; the other is decided on the flow
///   the first wrote, and refused.
/// - A flow is one key, `<prefix><flow id>`, its JSON, expiring (`EXAT`) a
///   [clock-skew margin](RedisFlowStore::with_clock_skew_margin) after the flow does: a finished
///   flow is kept until then, for a 2026-07-28 retry to read.
/// - [`finished`](FlowStore::finished) wakes on another replica's `finish` or `abandon`: the
///   script publishes on `<prefix>done:<flow id>` in the same atomic step as the write. The
///   waiting side subscribes, then reads (so a finish between the two is not missed), and reads
///   again on each message; a flow still open at its expiry is read again then, and resolves
///   [`Expired`](super::FlowStatus::Expired).
/// - One connection per store (RESP3, multiplexed), opened on first use: commands and the
///   subscriptions of every waiting flow share it, so thousands of pending flows cost one TCP
///   connection, not one each. A flow's channel is subscribed while at least one task of this
///   store waits for it, and unsubscribed when the last one returns or is dropped.
/// - The tasks waiting are this process's: each waiting future holds its task's waker here until
///   it resolves or is dropped (then nothing of it is kept), and at most
///   [`max_waiters_per_flow`](RedisFlowStore::with_max_waiters_per_flow) wait for one flow in
///   one store at once; one more resolves at once with [`FlowError::TooManyWaiters`].
/// - Fail closed: any Redis failure (unreachable, timed out, refused, a key it did not write) is
///   [`FlowError::Unavailable`], never success. If the connection drops, every task waiting in
///   `finished` gets [`FlowError::Unavailable`] at once, rather than wait for a message that
///   cannot come; the next operation opens a new connection, so calling `finished` again
///   waits again.
///
/// - One principal holds at most [`max_per_principal`](RedisFlowStore::with_max_per_principal)
///   unexpired flows (default [`DEFAULT_MAX_PER_PRINCIPAL`](RedisFlowStore::DEFAULT_MAX_PER_PRINCIPAL),
///   as the memory store's), so one user cannot fill Redis for the others: `begin` refuses the
///   next with [`FlowError::PrincipalFull`], naming the cap, rather than forget one. Each
///   principal's flows are indexed under `<prefix>principal:<SHA-256 of the principal>`, a
///   sorted set by expiry, counted and written in the same script as the flow.
/// - The store holds at most [`max_flows`](RedisFlowStore::with_max_flows) unexpired flows in
///   all, on every replica together (default
///   [`DEFAULT_MAX_FLOWS`](RedisFlowStore::DEFAULT_MAX_FLOWS), as the memory store's), and
///   keeps the same reserve: the last eighth for principals that hold fewer than
///   [`FEW_FLOWS`](super::MemoryFlowStore::FEW_FLOWS) flows, so a user with none can start one
///   however many others fill their own caps; past it, [`FlowError::Full`]. Every flow is also
///   indexed under `<prefix>all`, by expiry, in the same script.
///
/// - A browser session signed out before it expired ([`end_session`](FlowStore::end_session))
///   is one key, `<prefix>ended:<session id>`, holding when it would have expired, and expiring
///   a clock-skew margin after that: a restart and every replica see it. One principal keeps at
///   most [`MemoryFlowStore::MAX_ENDED_SESSIONS_PER_PRINCIPAL`](super::MemoryFlowStore::MAX_ENDED_SESSIONS_PER_PRINCIPAL)
///   (indexed under `<prefix>ended-by:<SHA-256 of the principal>`, in the same script); over
///   it, the sign-out is refused ([`FlowError::Unavailable`]). There is no cap in all here, as
///   for flows: Redis's `maxmemory` bounds it.
///
/// # Round trips per operation
/// | operation | round trips |
/// |---|---|
/// | `begin` | 1: a script (`EVAL`) that drops expired flows from the principal's index and the store's, counts the rest, and writes the flow (`SET EXAT`) and its entry in both |
/// | `get` | 1: `GET` |
/// | `open`, `claim`, `finish`, `abandon` | 2: `GET`, then the script (`EVAL`), which writes and publishes; 2 more per conflict; 1 when nothing changes (a reload; abandoning a flow that is over) |
/// | `finished` | `SUBSCRIBE` (none if this store already listens to the flow) and a `GET`; a `GET` per message; `UNSUBSCRIBE` when the last waiter goes |
///
/// The first operation also connects (`HELLO 3`).
///
/// # Redis
/// Redis 6.2 or later (`EXAT`, RESP3). Bound Redis itself too, with `maxmemory` and the
/// `noeviction` policy, so that a full Redis refuses the write and the store fails closed. Never an
/// evicting policy (`allkeys-lru`, `volatile-*`): it would forget an open flow, and with it
/// a finished one's result or the claim that keeps a sink from seeing a secret twice.
///
/// Claims are leases ([`Flow::claimed`]): a replica that dies between claiming and finishing
/// holds the flow only until the lease runs out.
///
/// ```no_run
/// # extern crate elicit_core as mcp_elicit;
/// use mcp_elicit::url_mode::{Flows, RedisFlowStore};
///
/// # fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let client = redis::Client::open("redis://127.0.0.1:6379/")?;
/// let store = RedisFlowStore::new(client).with_key_prefix("my-server:flow:");
/// let flows = Flows::new(store, "https://mcp.example.com/elicit/")?;
/// # let _ = flows;
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct RedisFlowStore {
    hub: Arc<Hub>,
    clock_skew_margin: Duration,
    max_per_principal: usize,
    max_waiters: usize,
    max_flows: usize,
}

/// The store's connection and the tasks waiting on it, shared with the connection's push
/// handler (weakly) and with the unsubscriptions of dropped waiters.
struct Hub {
    client: Client,
    key_prefix: String,
    /// The connection and what it is subscribed to; an async lock, so that subscriptions and
    /// unsubscriptions reach Redis in the order they were decided.
    link: tokio::sync::Mutex<Link>,
    /// What the push handler changes: a plain lock, never held across an `await`.
    waits: Mutex<Waits>,
}

#[derive(Default)]
struct Link {
    connection: Option<MultiplexedConnection>,
    subscribed: HashSet<FlowId>,
}

#[derive(Default)]
struct Waits {
    /// The number of the current connection (each new one counts up); its push handler knows
    /// its own number, so a message or a drop of an old connection changes nothing.
    connection: u64,
    /// Whether the current connection is up: cleared when its push handler hears it drop.
    alive: bool,
    flows: HashMap<FlowId, Waiting>,
    /// The number the next waiting task gets: each holds its own place in its flow's `wakers`.
    next_waiter: u64,
}

struct Waiting {
    /// The tasks of this store waiting for the flow.
    tasks: usize,
    /// How many messages came on the flow's channel.
    messages: u64,
    /// The wakers of the tasks waiting for a message, each under its task's number.
    wakers: Vec<(u64, Waker)>,
}

/// Wakes every task waiting for a flow's message, emptying its list.
fn wake_all(wakers: &mut Vec<(u64, Waker)>) {
    wakers.drain(..).for_each(|(_, waker)| waker.wake());
}

impl RedisFlowStore {
    /// The key prefix used unless [`with_key_prefix`](Self::with_key_prefix) says otherwise.
    pub const DEFAULT_KEY_PREFIX: &'static str = "elicit:flow:";
    /// The margin used unless [`with_clock_skew_margin`](Self::with_clock_skew_margin) says
    /// otherwise.
    pub const DEFAULT_CLOCK_SKEW_MARGIN: Duration = Duration::from_secs(300);
    /// How many times a change reads, decides and tries to write before it gives up with
    /// [`FlowError::Unavailable`]: a flow changes a handful of times in its life, so more
    /// conflicts than this mean something other than this library writes its key.
    pub const MAX_ATTEMPTS: usize = 8;
    /// The default cap on one principal's flows: the memory store's
    /// ([`MemoryFlowStore::DEFAULT_MAX_PER_PRINCIPAL`](super::MemoryFlowStore::DEFAULT_MAX_PER_PRINCIPAL)).
    pub const DEFAULT_MAX_PER_PRINCIPAL: usize = super::MemoryFlowStore::DEFAULT_MAX_PER_PRINCIPAL;
    /// The default bound on the tasks of one store waiting for one flow at once: the memory
    /// store's ([`MemoryFlowStore::DEFAULT_MAX_WAITERS_PER_FLOW`](super::MemoryFlowStore::DEFAULT_MAX_WAITERS_PER_FLOW)).
    pub const DEFAULT_MAX_WAITERS_PER_FLOW: usize =
        super::MemoryFlowStore::DEFAULT_MAX_WAITERS_PER_FLOW;

    /// The default cap on flows in all: the memory store's
    /// ([`MemoryFlowStore::DEFAULT_MAX_FLOWS`](super::MemoryFlowStore::DEFAULT_MAX_FLOWS)).
    pub const DEFAULT_MAX_FLOWS: usize = super::MemoryFlowStore::DEFAULT_MAX_FLOWS;

    /// A store on the Redis `client` points at. It connects on first use, with RESP3 whatever
    /// the client's URL says (the subscriptions need it).
    #[must_use]
    pub fn new(client: Client) -> Self {
        let info = client.get_connection_info().clone();
        let resp3 = info
            .redis_settings()
            .clone()
            .set_protocol(ProtocolVersion::RESP3);
        // Only a client whose address cannot be opened again fails here; it would fail to
        // connect as well, and each operation says so.
        let client = Client::open(info.set_redis_settings(resp3)).unwrap_or(client);
        Self {
            hub: Arc::new(Hub::new(client, Self::DEFAULT_KEY_PREFIX.to_owned())),
            clock_skew_margin: Self::DEFAULT_CLOCK_SKEW_MARGIN,
            max_per_principal: Self::DEFAULT_MAX_PER_PRINCIPAL,
            max_waiters: Self::DEFAULT_MAX_WAITERS_PER_FLOW,
            max_flows: Self::DEFAULT_MAX_FLOWS,
        }
    }

    /// At most `max` tasks of this store (this process) waiting for one flow at once
    /// ([`DEFAULT_MAX_WAITERS_PER_FLOW`](Self::DEFAULT_MAX_WAITERS_PER_FLOW) unless set); one
    /// more resolves at once with [`FlowError::TooManyWaiters`]. The bound is per replica: the
    /// waiters are kept in each replica's memory.
    #[must_use]
    pub fn with_max_waiters_per_flow(mut self, max: usize) -> Self {
        self.max_waiters = max;
        self
    }

    /// At most `max` unexpired flows in all, on every replica together, the last eighth of them
    /// kept for principals that hold few ([`FEW_FLOWS`](super::MemoryFlowStore::FEW_FLOWS)).
    /// Every replica should say the same.
    #[must_use]
    pub fn with_max_flows(mut self, max: usize) -> Self {
        self.max_flows = max;
        self
    }

    /// At most `max` unexpired flows for any one principal, on every replica together (a
    /// single-user server may set it as high as it likes). Every replica should say the same.
    #[must_use]
    pub fn with_max_per_principal(mut self, max: usize) -> Self {
        self.max_per_principal = max;
        self
    }

    /// Namespaces the store's keys and channels, e.g. per server when several share one Redis.
    /// Every replica of one server must use the same prefix.
    #[must_use]
    pub fn with_key_prefix(mut self, key_prefix: impl Into<String>) -> Self {
        self.hub = Arc::new(Hub::new(self.hub.client.clone(), key_prefix.into()));
        self
    }

    /// How long after a flow's expiry Redis keeps it (whole seconds): at least the largest
    /// difference between a replica's clock and Redis's.
    #[must_use]
    pub fn with_clock_skew_margin(mut self, margin: Duration) -> Self {
        self.clock_skew_margin = margin;
        self
    }

    fn expire_at(&self, flow: &Flow) -> u64 {
        // `EXAT` must be positive.
        flow.expires_at()
            .as_secs()
            .saturating_add(self.clock_skew_margin.as_secs())
            .max(1)
    }

    /// The flow as stored, and the bytes it was read from; `None` if there is none.
    async fn read(
        &self,
        connection: &mut MultiplexedConnection,
        id: &FlowId,
    ) -> Result<Option<(Flow, Vec<u8>)>, FlowError> {
        let stored: Option<Vec<u8>> = ::redis::cmd("GET")
            .arg(self.hub.key(id))
            .query_async(connection)
            .await
            .map_err(|error| self.hub.failed(&error))?;
        let Some(bytes) = stored else {
            return Ok(None);
        };
        let flow = wire::from_json(&bytes).ok_or_else(|| {
            FlowError::Unavailable(
                "Redis holds something under a flow's key that is no flow".into(),
            )
        })?;
        Ok(Some((flow, bytes)))
    }

    /// Reads the flow, decides with `decide`, and writes what it decided (the flow `written`
    /// finds in it) over what it read; again on a conflict. `publish`: whether waiters are told.
    async fn change<T>(
        &self,
        id: &FlowId,
        now: UnixTime,
        publish: bool,
        decide: impl Fn(Flow) -> Result<T, FlowError>,
        written: impl Fn(&T) -> &Flow,
    ) -> Result<T, FlowError> {
        let mut connection = self.hub.connection().await?;
        for _ in 0..Self::MAX_ATTEMPTS {
            let (flow, bytes) = self
                .read(&mut connection, id)
                .await?
                .ok_or(FlowError::Unknown)?;
            let before = flow.clone().at(now);
            let decided = decide(flow)?;
            let after = written(&decided);
            if *after == before {
                return Ok(decided);
            }
            let text = wire::to_json(after)
                .map_err(|error| FlowError::Unavailable(format!("a flow as JSON: {error}")))?;
            let channel = if publish {
                self.hub.channel(id)
            } else {
                String::new()
            };
            let swapped: i64 = ::redis::cmd("EVAL")
                .arg(COMPARE_AND_SET)
                .arg(1)
                .arg(self.hub.key(id))
                .arg(bytes)
                .arg(text)
                .arg(self.expire_at(after))
                .arg(channel)
                .query_async(&mut connection)
                .await
                .map_err(|error| self.hub.failed(&error))?;
            if swapped == 1 {
                return Ok(decided);
            }
        }
        Err(FlowError::Unavailable(format!(
            "the flow changed under each of {} attempts to change it",
            Self::MAX_ATTEMPTS
        )))
    }

    async fn wait_finished(&self, id: FlowId) -> Result<Flow, FlowError> {
        let watch = Watch::new(&self.hub, id, self.max_waiters)?;
        let connection_number = self.hub.subscribe(&id).await?;
        let mut connection = self.hub.connection().await?;
        loop {
            // Counted before the read: a message after it is not missed.
            let seen = self.hub.messages(&id);
            let now = UnixTime::now();
            let (flow, _) = self
                .read(&mut connection, &id)
                .await?
                .ok_or(FlowError::Unknown)?;
            let flow = flow.at(now);
            if !flow.status().is_open() {
                return Ok(flow);
            }
            let until_expiry =
                Duration::from_secs(flow.expires_at().as_secs().saturating_sub(now.as_secs()));
            self.hub
                .next_message(&id, watch.place, seen, connection_number, until_expiry)
                .await?;
        }
    }
}

impl Waits {
    /// The current connection is lost: every waiter is woken to report it.
    fn lose(&mut self) {
        self.alive = false;
        for waiting in self.flows.values_mut() {
            wake_all(&mut waiting.wakers);
        }
    }
}

impl Hub {
    fn new(client: Client, key_prefix: String) -> Self {
        Self {
            client,
            key_prefix,
            link: tokio::sync::Mutex::default(),
            waits: Mutex::default(),
        }
    }

    fn key(&self, id: &FlowId) -> String {
        format!("{}{id}", self.key_prefix)
    }

    /// The key of the store's index of every flow.
    fn all_key(&self) -> String {
        format!("{}all", self.key_prefix)
    }

    /// The key of `principal`'s index: its SHA-256, so any principal makes one bounded key.
    fn principal_key(&self, principal: &str) -> String {
        format!("{}principal:{}", self.key_prefix, principal_hex(principal))
    }

    /// The key of a signed-out browser session.
    fn ended_key(&self, session: &StateId) -> String {
        format!("{}ended:{session}", self.key_prefix)
    }

    /// The key of `principal`'s signed-out sessions' index (its SHA-256, as for flows).
    fn ended_by_key(&self, principal: &str) -> String {
        format!("{}ended-by:{}", self.key_prefix, principal_hex(principal))
    }

    fn channel(&self, id: &FlowId) -> String {
        format!("{}done:{id}", self.key_prefix)
    }

    fn waits(&self) -> MutexGuard<'_, Waits> {
        // Every change under this lock is a few assignments: a panic leaves it whole.
        self.waits.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// `error` as the store reports it; a connection that failed is opened anew next time.
    fn failed(&self, error: &RedisError) -> FlowError {
        if error.is_io_error() || error.is_connection_dropped() || error.is_timeout() {
            self.waits().lose();
        }
        FlowError::Unavailable(format!("Redis: {error}"))
    }

    /// The current connection, opened if there is none or it dropped.
    async fn connection(self: &Arc<Self>) -> Result<MultiplexedConnection, FlowError> {
        let mut link = self.link.lock().await;
        self.connected(&mut link).await
    }

    async fn connected(
        self: &Arc<Self>,
        link: &mut Link,
    ) -> Result<MultiplexedConnection, FlowError> {
        let alive = self.waits().alive;
        if let Some(connection) = &link.connection
            && alive
        {
            return Ok(connection.clone());
        }
        link.connection = None;
        link.subscribed.clear();
        let number = self.waits().connection + 1;
        let hub = Arc::downgrade(self);
        let config = AsyncConnectionConfig::new().set_push_sender(move |push: PushInfo| {
            Hub::pushed(&hub, number, push);
            Ok::<(), ()>(())
        });
        let connection = self
            .client
            .get_multiplexed_async_connection_with_config(&config)
            .await
            .map_err(|error| FlowError::Unavailable(format!("Redis: {error}")))?;
        let mut waits = self.waits();
        waits.connection = number;
        waits.alive = true;
        drop(waits);
        link.connection = Some(connection.clone());
        Ok(connection)
    }

    /// What the connection numbered `number` pushed: a message on a flow's channel wakes its
    /// waiters; a drop wakes every waiter, to report it.
    fn pushed(hub: &Weak<Hub>, number: u64, push: PushInfo) {
        let Some(hub) = hub.upgrade() else {
            return;
        };
        let mut waits = hub.waits();
        if waits.connection != number {
            return;
        }
        match push.kind {
            PushKind::Disconnection => waits.lose(),
            PushKind::Message => {
                let channel = match push.data.first() {
                    Some(::redis::Value::BulkString(bytes)) => bytes.as_slice(),
                    _ => return,
                };
                let id = channel
                    .strip_prefix(hub.key_prefix.as_bytes())
                    .and_then(|rest| rest.strip_prefix(b"done:"))
                    .and_then(|id| std::str::from_utf8(id).ok())
                    .and_then(|id| FlowId::parse(id).ok());
                if let Some(waiting) = id.and_then(|id| waits.flows.get_mut(&id)) {
                    waiting.messages += 1;
                    wake_all(&mut waiting.wakers);
                }
            }
            _ => {}
        }
    }

    fn messages(&self, id: &FlowId) -> u64 {
        self.waits()
            .flows
            .get(id)
            .map_or(0, |waiting| waiting.messages)
    }

    /// Subscribes to the flow's channel if this store does not already listen to it; the
    /// number of the connection it listens on.
    async fn subscribe(self: &Arc<Self>, id: &FlowId) -> Result<u64, FlowError> {
        let mut link = self.link.lock().await;
        let mut connection = self.connected(&mut link).await?;
        let number = self.waits().connection;
        if !link.subscribed.contains(id) {
            connection
                .subscribe(self.channel(id))
                .await
                .map_err(|error| self.failed(&error))?;
            link.subscribed.insert(*id);
        }
        Ok(number)
    }

    /// Unsubscribes from the flow's channel if no task of this store waits for it any more (one
    /// may have begun to since the last left).
    async fn unsubscribe_if_unwatched(&self, id: FlowId) {
        let mut link = self.link.lock().await;
        if self.waits().flows.contains_key(&id) || !link.subscribed.remove(&id) {
            return;
        }
        let Some(connection) = &mut link.connection else {
            return;
        };
        // A failure leaves a subscription whose messages find no waiter; the connection's end
        // ends it.
        let _ = connection.unsubscribe(self.channel(&id)).await;
    }

    /// Waits for a message on the flow's channel after the `seen`th, or `timeout`, its waker
    /// kept under the waiting task's `place`.
    ///
    /// # Errors
    /// [`FlowError::Unavailable`] if the connection numbered `number` dropped.
    async fn next_message(
        &self,
        id: &FlowId,
        place: u64,
        seen: u64,
        number: u64,
        timeout: Duration,
    ) -> Result<(), FlowError> {
        let mut timer = pin!(tokio::time::sleep(timeout));
        poll_fn(|context| {
            let mut waits = self.waits();
            if waits.connection != number || !waits.alive {
                return Poll::Ready(Err(FlowError::Unavailable(
                    "the connection to Redis dropped while waiting for the flow: wait again".into(),
                )));
            }
            let Some(waiting) = waits.flows.get_mut(id) else {
                return Poll::Ready(Ok(()));
            };
            if waiting.messages != seen || timer.as_mut().poll(context).is_ready() {
                return Poll::Ready(Ok(()));
            }
            let waker = context.waker();
            match waiting
                .wakers
                .iter_mut()
                .find(|(number, _)| *number == place)
            {
                Some((_, kept)) if kept.will_wake(waker) => {}
                Some((_, kept)) => kept.clone_from(waker),
                None => waiting.wakers.push((place, waker.clone())),
            }
            Poll::Pending
        })
        .await
    }
}

/// `principal`'s SHA-256 in hex: a principal's keys, bounded whatever the principal.
fn principal_hex(principal: &str) -> String {
    ParamsDigest::of(&serde_json::Value::from(principal))
        .as_bytes()
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// A task's wait for a flow: counted while it lives, so the flow's channel is listened to; when
/// it goes (returned, or its future dropped) its waker goes with it, and when the last goes the
/// channel is unsubscribed.
struct Watch {
    hub: Arc<Hub>,
    id: FlowId,
    /// The task's number: its place in the flow's `wakers`.
    place: u64,
}

impl Watch {
    /// # Errors
    /// [`FlowError::TooManyWaiters`] if `max` tasks of this store wait for the flow already.
    fn new(hub: &Arc<Hub>, id: FlowId, max: usize) -> Result<Self, FlowError> {
        let mut waits = hub.waits();
        let place = waits.next_waiter;
        let waiting = waits.flows.entry(id).or_insert_with(|| Waiting {
            tasks: 0,
            messages: 0,
            wakers: Vec::new(),
        });
        if waiting.tasks >= max {
            if waiting.tasks == 0 {
                waits.flows.remove(&id);
            }
            return Err(FlowError::TooManyWaiters { max });
        }
        waiting.tasks += 1;
        waits.next_waiter = place.wrapping_add(1);
        Ok(Self {
            hub: Arc::clone(hub),
            id,
            place,
        })
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        let mut waits = self.hub.waits();
        let Some(waiting) = waits.flows.get_mut(&self.id) else {
            return;
        };
        let place = self.place;
        waiting.wakers.retain(|(number, _)| *number != place);
        waiting.tasks = waiting.tasks.saturating_sub(1);
        if waiting.tasks > 0 {
            return;
        }
        waits.flows.remove(&self.id);
        drop(waits);
        // Dropped outside a runtime (the store's connection needs one, so only at the end of a
        // program): the subscription ends with the connection.
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let (hub, id) = (Arc::clone(&self.hub), self.id);
            runtime.spawn(async move { hub.unsubscribe_if_unwatched(id).await });
        }
    }
}

impl FlowStore for RedisFlowStore {
    fn begin(&self, flow: Flow, now: UnixTime) -> FlowFuture<'_, ()> {
        Box::pin(async move {
            let text = wire::to_json(&flow)
                .map_err(|error| FlowError::Unavailable(format!("a flow as JSON: {error}")))?;
            let mut connection = self.hub.connection().await?;
            let reply: String = ::redis::cmd("EVAL")
                .arg(BEGIN)
                .arg(3)
                .arg(self.hub.key(&flow.id()))
                .arg(self.hub.principal_key(flow.principal()))
                .arg(self.hub.all_key())
                .arg(text)
                .arg(self.expire_at(&flow))
                .arg(now.as_secs())
                .arg(self.max_per_principal)
                .arg(flow.id().to_string())
                .arg(flow.expires_at().as_secs())
                .arg(self.clock_skew_margin.as_secs())
                .arg(room_for(self.max_flows, 0))
                .arg(room_for(self.max_flows, MemoryFlowStore::FEW_FLOWS))
                .arg(MemoryFlowStore::FEW_FLOWS)
                .query_async(&mut connection)
                .await
                .map_err(|error| self.hub.failed(&error))?;
            match reply.as_str() {
                "ok" => Ok(()),
                "exists" => Err(FlowError::Exists),
                "store full" => Err(FlowError::Full),
                "full" => Err(FlowError::PrincipalFull {
                    max: self.max_per_principal,
                }),
                _ => Err(FlowError::Unavailable(
                    "unexpected reply from Redis to a flow's begin".into(),
                )),
            }
        })
    }

    fn get(&self, id: &FlowId, now: UnixTime) -> FlowFuture<'_, Flow> {
        let id = *id;
        Box::pin(async move {
            let mut connection = self.hub.connection().await?;
            let (flow, _) = self
                .read(&mut connection, &id)
                .await?
                .ok_or(FlowError::Unknown)?;
            Ok(flow.at(now))
        })
    }

    fn open(
        &self,
        id: &FlowId,
        principal: &str,
        browser: &str,
        now: UnixTime,
    ) -> FlowFuture<'_, Flow> {
        let (id, principal, browser) = (*id, principal.to_owned(), browser.to_owned());
        Box::pin(async move {
            self.change(
                &id,
                now,
                false,
                |flow| flow.opened(&principal, &browser, now),
                |flow| flow,
            )
            .await
        })
    }

    fn claim(
        &self,
        id: &FlowId,
        principal: &str,
        browser: &str,
        lease: Duration,
        now: UnixTime,
    ) -> FlowFuture<'_, Claim> {
        let (id, principal, browser) = (*id, principal.to_owned(), browser.to_owned());
        Box::pin(async move {
            self.change(
                &id,
                now,
                false,
                |flow| flow.claimed(&principal, &browser, lease, now),
                Claim::flow,
            )
            .await
        })
    }

    fn finish(
        &self,
        claim: &Claim,
        result: Result<Value, String>,
        now: UnixTime,
    ) -> FlowFuture<'_, Flow> {
        let claim = claim.clone();
        Box::pin(async move {
            self.change(
                &claim.id(),
                now,
                true,
                |flow| flow.finished(&claim, result.clone(), now),
                |flow| flow,
            )
            .await
        })
    }

    fn release(&self, claim: &Claim, now: UnixTime) -> FlowFuture<'_, Flow> {
        let claim = claim.clone();
        Box::pin(async move {
            // Nobody waiting is woken: the flow is still open.
            self.change(
                &claim.id(),
                now,
                false,
                |flow| flow.released(&claim, now),
                |flow| flow,
            )
            .await
        })
    }

    fn abandon(
        &self,
        id: &FlowId,
        principal: &str,
        why: Abandonment,
        now: UnixTime,
    ) -> FlowFuture<'_, Flow> {
        let (id, principal) = (*id, principal.to_owned());
        Box::pin(async move {
            self.change(
                &id,
                now,
                true,
                |flow| flow.abandoned(&principal, why, now),
                |flow| flow,
            )
            .await
        })
    }

    fn finished(&self, id: &FlowId) -> FlowFuture<'_, Flow> {
        let id = *id;
        Box::pin(self.wait_finished(id))
    }

    fn end_session(
        &self,
        session: &StateId,
        principal: &str,
        until: UnixTime,
        now: UnixTime,
    ) -> FlowFuture<'_, ()> {
        let (key, index) = (
            self.hub.ended_key(session),
            self.hub.ended_by_key(principal),
        );
        let session = *session;
        Box::pin(async move {
            if until <= now {
                return Ok(());
            }
            let max = super::MemoryFlowStore::MAX_ENDED_SESSIONS_PER_PRINCIPAL;
            let mut connection = self.hub.connection().await?;
            let reply: String = ::redis::cmd("EVAL")
                .arg(END_SESSION)
                .arg(2)
                .arg(key)
                .arg(index)
                .arg(until.as_secs())
                .arg(
                    until
                        .as_secs()
                        .saturating_add(self.clock_skew_margin.as_secs())
                        .max(1),
                )
                .arg(now.as_secs())
                .arg(max)
                .arg(session.to_string())
                .arg(self.clock_skew_margin.as_secs())
                .query_async(&mut connection)
                .await
                .map_err(|error| self.hub.failed(&error))?;
            match reply.as_str() {
                "ok" => Ok(()),
                "full" => Err(FlowError::Unavailable(format!(
                    "this principal has signed out of {max} sessions that have not expired \
                     yet, the most the store keeps for one"
                ))),
                _ => Err(FlowError::Unavailable(
                    "unexpected reply from Redis to a session's end".into(),
                )),
            }
        })
    }

    fn session_ended(&self, session: &StateId, now: UnixTime) -> FlowFuture<'_, bool> {
        let key = self.hub.ended_key(session);
        Box::pin(async move {
            let mut connection = self.hub.connection().await?;
            let until: Option<u64> = ::redis::cmd("GET")
                .arg(key)
                .query_async(&mut connection)
                .await
                .map_err(|error| self.hub.failed(&error))?;
            Ok(until.is_some_and(|until| until > now.as_secs()))
        })
    }
}

impl fmt::Debug for RedisFlowStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedisFlowStore")
            .field("key_prefix", &self.hub.key_prefix)
            .field("clock_skew_margin", &self.clock_skew_margin)
            .field("max_per_principal", &self.max_per_principal)
            .field("max_flows", &self.max_flows)
            .finish_non_exhaustive()
    }
}
