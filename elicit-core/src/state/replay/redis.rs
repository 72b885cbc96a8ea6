//! A replay guard in Redis, shared by a fleet of stateless replicas.

use std::fmt;
use std::time::Duration;

use ::redis::Value;
use ::redis::aio::{ConnectionLike, MultiplexedConnection};

use super::{RedeemFuture, ReplayGuard};
use crate::state::error::RedeemError;
use crate::state::{StateId, UnixTime};

/// A [`ReplayGuard`] in Redis (cargo feature `redis`): every replica pointing at the same Redis
/// shares one record of redeemed states.
///
/// Redeeming is one atomic command, `SET <prefix><state id> 1 NX EXAT <expiry>`: Redis sets the
/// key only if it is absent, so of any number of concurrent redemptions exactly one sees `OK`.
/// The key expires by itself, so Redis memory stays bounded by the states in flight. Needs Redis
/// 6.2 or later (`EXAT`).
///
/// The key outlives the state by a [clock-skew margin](RedisReplayGuard::with_clock_skew_margin)
/// (default five minutes): Redis expires keys by its own clock, and a replica whose clock runs
/// behind would otherwise still accept a state whose record Redis had already dropped.
///
/// Any Redis failure is [`RedeemError::Unavailable`]: the guard fails closed. A command whose
/// connection was lost is sent once more (so that, over a connection that reconnects, the first
/// redemption after Redis comes back does not fail); if the first had reached Redis, the second
/// is refused as [`RedeemError::AlreadyRedeemed`], never redeemed twice.
///
/// It keeps no per-principal count (that would be a second command per redemption): bound
/// Redis itself with `maxmemory` and the `noeviction` policy, so that a full Redis refuses the
/// `SET` and the guard fails closed. Never an evicting policy (`allkeys-lru`, `volatile-*`): it
/// would forget a redeemed id before its state expires, and the state could be replayed.
///
/// ```no_run
/// # extern crate elicit_core as mcp_elicit;
/// use mcp_elicit::state::{RedisReplayGuard, ReplayGuard};
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let client = redis::Client::open("redis://127.0.0.1:6379/")?;
/// let guard = RedisReplayGuard::new(client.get_multiplexed_async_connection().await?)
///     .with_key_prefix("my-server:request-state:");
/// // Share it: `Arc<dyn ReplayGuard>` in the server's state.
/// let guard: std::sync::Arc<dyn ReplayGuard> = std::sync::Arc::new(guard);
/// # let _ = guard;
/// # Ok(())
/// # }
/// ```
pub struct RedisReplayGuard<C = MultiplexedConnection> {
    connection: C,
    key_prefix: String,
    clock_skew_margin: Duration,
}

impl<C> RedisReplayGuard<C>
where
    C: ConnectionLike + Clone + Send + Sync,
{
    /// The key prefix used unless [`with_key_prefix`](Self::with_key_prefix) says otherwise.
    pub const DEFAULT_KEY_PREFIX: &'static str = "elicit:request-state:";
    /// The margin used unless [`with_clock_skew_margin`](Self::with_clock_skew_margin) says
    /// otherwise.
    pub const DEFAULT_CLOCK_SKEW_MARGIN: Duration = Duration::from_secs(300);

    /// A guard over `connection` (cloned for each redemption, as a `MultiplexedConnection` or a
    /// `ConnectionManager` is meant to be).
    pub fn new(connection: C) -> Self {
        Self {
            connection,
            key_prefix: Self::DEFAULT_KEY_PREFIX.to_owned(),
            clock_skew_margin: Self::DEFAULT_CLOCK_SKEW_MARGIN,
        }
    }

    /// Namespaces the guard's keys, e.g. per server when several share one Redis.
    #[must_use]
    pub fn with_key_prefix(mut self, key_prefix: impl Into<String>) -> Self {
        self.key_prefix = key_prefix.into();
        self
    }

    /// How long after a state's expiry Redis keeps its record (whole seconds): at least the
    /// largest difference between a replica's clock and Redis's.
    #[must_use]
    pub fn with_clock_skew_margin(mut self, margin: Duration) -> Self {
        self.clock_skew_margin = margin;
        self
    }
}

impl<C> ReplayGuard for RedisReplayGuard<C>
where
    C: ConnectionLike + Clone + Send + Sync,
{
    fn redeem(
        &self,
        id: StateId,
        _principal: &str,
        expires_at: UnixTime,
        _now: UnixTime,
    ) -> RedeemFuture<'_> {
        let mut connection = self.connection.clone();
        let key = format!("{}{id}", self.key_prefix);
        // `EXAT` must be positive; an expiry in the past is harmless (the state will not open).
        let expire_at = expires_at
            .as_secs()
            .saturating_add(self.clock_skew_margin.as_secs())
            .max(1);
        Box::pin(async move {
            let mut set = ::redis::cmd("SET");
            set.arg(key).arg(1).arg("NX").arg("EXAT").arg(expire_at);
            // A lost connection is tried once more: a connection that reconnects (redis's
            // `ConnectionManager`) has started to, and the first command after Redis is back
            // should not be the one that fails. If the first `SET` did reach Redis before the
            // connection broke, the second finds the key and the state is refused as spent:
            // the error is a refusal, never a second redemption.
            let reply: Value = match set.query_async(&mut connection).await {
                Err(error) if error.is_unrecoverable_error() => {
                    set.query_async(&mut connection).await
                }
                reply => reply,
            }
            .map_err(|error| RedeemError::Unavailable(Box::new(error)))?;
            match reply {
                Value::Okay => Ok(()),
                Value::SimpleString(text) if text == "OK" => Ok(()),
                Value::Nil => Err(RedeemError::AlreadyRedeemed),
                _ => Err(RedeemError::Unavailable(
                    "unexpected reply from Redis to SET NX".into(),
                )),
            }
        })
    }
}

impl<C> fmt::Debug for RedisReplayGuard<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedisReplayGuard")
            .field("key_prefix", &self.key_prefix)
            .field("clock_skew_margin", &self.clock_skew_margin)
            .finish_non_exhaustive()
    }
}
