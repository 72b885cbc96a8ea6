//! [`Rounds`]: a server's multi round-trip setup, made once at start-up: the keys, the TTL, the
//! re-asks, and the replay guard that makes every round's state single use.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use serde::de::DeserializeOwned;

use super::error::MrtrError;
use super::retry::Retry;
use super::round::{Round, Shared};
use crate::state::{Binding, KeyError, ReplayGuard, StateKeys, UnixTime};

/// A server's multi round-trip setup: the keys its round state is sealed with, and how long a
/// round stays open. Build it once at start-up and share it; every replica built from the same
/// key material resumes every other replica's rounds.
///
/// ```
/// # extern crate elicit_core as mcp_elicit;
/// use std::time::Duration;
/// use mcp_elicit::mrtr::Rounds;
///
/// # // A test value; a server's comes from its secret store.
/// # unsafe { std::env::set_var("ELICIT_STATE_KEYS", format!("1:{}", "5a".repeat(32))) };
/// // ELICIT_STATE_KEYS="1:$(openssl rand -hex 32)" on every replica; "2:<new>,1:<old>" while
/// // rotating (see `StateKeys`).
/// let rounds = Rounds::from_env("ELICIT_STATE_KEYS")?.with_ttl(Duration::from_secs(300));
/// assert_eq!(rounds.ttl(), Duration::from_secs(300));
/// # Ok::<(), mcp_elicit::state::KeyError>(())
/// ```
#[derive(Clone)]
pub struct Rounds {
    pub(super) keys: StateKeys,
    pub(super) ttl: Duration,
    pub(super) reasks: u32,
    /// Where every resumed round's state is spent, if anywhere.
    pub(super) guard: Option<Arc<dyn ReplayGuard>>,
}

impl fmt::Debug for Rounds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Rounds")
            .field("keys", &self.keys)
            .field("ttl", &self.ttl)
            .field("reasks", &self.reasks)
            .field("replay_guard", &self.guard.is_some())
            .finish()
    }
}

impl Rounds {
    /// How long a round stays open unless [`with_ttl`](Rounds::with_ttl) says otherwise: time for
    /// a person to read and answer a form, plus clock skew between replicas.
    pub const DEFAULT_TTL: Duration = Duration::from_secs(600);

    /// How many times a question is asked again, unless [`with_reasks`](Rounds::with_reasks)
    /// says otherwise, after an answer that breaks its rules: once, saying what was wrong.
    pub const DEFAULT_REASKS: u32 = 1;

    /// Rounds sealed with `keys`, open for [`DEFAULT_TTL`](Rounds::DEFAULT_TTL).
    #[must_use]
    pub fn new(keys: StateKeys) -> Self {
        Self {
            keys,
            ttl: Self::DEFAULT_TTL,
            reasks: Self::DEFAULT_REASKS,
            guard: None,
        }
    }

    /// Makes every round's state single use: a run that resumes a state spends it in `guard`
    /// ([`Round::spend`]) before it reads a single answer, and a state presented again — the
    /// last one or any earlier round's, byte for byte or with other answers — is refused with
    /// [`RedeemError::AlreadyRedeemed`](crate::state::RedeemError::AlreadyRedeemed) (`-32602`).
    ///
    /// So, against a client that replays: the re-ask bound ([`with_reasks`](Rounds::with_reasks))
    /// holds, a decline stays final, and an answer from any round is acted on at most once. And
    /// every answer a run reads comes from a spent state: an answer a client sends before it was
    /// asked comes from no state, and nothing can make it single use (the same request may be
    /// sent again, or with other keys beside it), so a question that would read one
    /// ([`Ask::answerable_before_asked`](super::Ask::answerable_before_asked)) is refused with
    /// [`MrtrError::BeforeAskedWithReplayGuard`] (`-32603`, a server's configuration error). It
    /// costs one guard write per resumed round: a map insert in memory, one Redis command in a
    /// fleet (`RedisReplayGuard`).
    ///
    /// Without a guard a state can be presented again while it is open (its TTL): every round
    /// resumes as often as the client sends it.
    ///
    /// ```
    /// # extern crate elicit_core as mcp_elicit;
    /// use mcp_elicit::mrtr::Rounds;
    /// use mcp_elicit::state::MemoryReplayGuard;
    ///
    /// // One process; a fleet shares a `RedisReplayGuard` (feature `redis`) instead.
    /// let rounds = Rounds::generate()?.with_replay_guard(MemoryReplayGuard::new());
    /// assert!(rounds.has_replay_guard());
    /// # Ok::<(), mcp_elicit::state::KeyError>(())
    /// ```
    #[must_use]
    pub fn with_replay_guard(mut self, guard: impl ReplayGuard + 'static) -> Self {
        self.guard = Some(Arc::new(guard));
        self
    }

    /// Whether every round's state is single use ([`with_replay_guard`](Rounds::with_replay_guard)).
    #[must_use]
    pub fn has_replay_guard(&self) -> bool {
        self.guard.is_some()
    }

    /// Ask a question again at most `reasks` times while its answers break its rules (`0`:
    /// never). Each time, the form's message first says what was wrong
    /// ([`FormRequest::reasked`](crate::FormRequest::reasked)). The count travels in the sealed
    /// state, so a client cannot reset it. When it is spent, [`Round::answer`] returns
    /// [`Answer::Rejected`](super::Answer::Rejected).
    #[must_use]
    pub fn with_reasks(mut self, reasks: u32) -> Self {
        self.reasks = reasks;
        self
    }

    /// How many times a question is asked again after answers that break its rules.
    #[must_use]
    pub fn reasks(&self) -> u32 {
        self.reasks
    }

    /// Rounds sealed with the key list in the environment variable `var` (see
    /// [`StateKeys::from_env`]): `<key id>:<64 hex digits>[,...]`, the primary first. The way
    /// for a fleet of replicas, or a server that restarts, to resume every round.
    ///
    /// # Errors
    /// Those of [`StateKeys::from_env`]: the variable is not set or not Unicode, or the list is
    /// malformed (the error names the item and the rule, never the key).
    ///
    /// ```
    /// # extern crate elicit_core as mcp_elicit;
    /// use mcp_elicit::mrtr::Rounds;
    /// use mcp_elicit::state::KeyId;
    ///
    /// # let (new, old) = ("b7".repeat(32), "a1".repeat(32));
    /// # unsafe { std::env::set_var("ELICIT_STATE_KEYS", format!("2:{new},1:{old}")) };
    /// // ELICIT_STATE_KEYS="2:<new>,1:<old>": rounds sealed under key 1 still resume.
    /// let rounds = Rounds::from_env("ELICIT_STATE_KEYS")?;
    /// assert_eq!(rounds.keys().primary_key_id(), KeyId::new(2));
    /// # Ok::<(), mcp_elicit::state::KeyError>(())
    /// ```
    pub fn from_env(var: &str) -> Result<Self, KeyError> {
        Ok(Self::new(StateKeys::from_env(var)?))
    }

    /// Rounds sealed with one fresh random key ([`StateKeys::generate`]), for a server that
    /// runs as one process: a round in flight when the process stops cannot be resumed by
    /// its successor, nor by any other replica (the client starts the request again).
    ///
    /// # Errors
    /// [`KeyError::RandomnessUnavailable`] if the operating system has no randomness to give.
    ///
    /// ```
    /// # extern crate elicit_core as mcp_elicit;
    /// use mcp_elicit::mrtr::Rounds;
    ///
    /// let rounds = Rounds::generate()?;
    /// assert_eq!(rounds.ttl(), Rounds::DEFAULT_TTL);
    /// # Ok::<(), mcp_elicit::state::KeyError>(())
    /// ```
    pub fn generate() -> Result<Self, KeyError> {
        Ok(Self::new(StateKeys::generate()?))
    }

    /// How long the state of a round stays valid after it is sent. Nothing the handler reserved
    /// should outlive it.
    #[must_use]
    pub fn with_ttl(mut self, ttl: Duration) -> Self {
        self.ttl = ttl;
        self
    }

    /// The TTL of a round.
    #[must_use]
    pub fn ttl(&self) -> Duration {
        self.ttl
    }

    /// The keys rounds are sealed with.
    #[must_use]
    pub fn keys(&self) -> &StateKeys {
        &self.keys
    }

    /// Starts a run of a handler on `retry`: the first request, or a retry carrying
    /// `inputResponses` and the `requestState` an earlier round sent. `binding` names who is
    /// asking and which request (rebuilt from this request; see [`Binding`]); `now` is the clock.
    ///
    /// # Errors
    /// [`MrtrError::State`] if the `requestState` does not open — forged, tampered, sealed for
    /// another principal or request, expired, or from a removed key — each its own
    /// [`StateError`](crate::state::StateError), all JSON-RPC `-32602`.
    pub fn round<'r, S>(
        &'r self,
        retry: Retry<'_>,
        binding: Binding<'_>,
        now: UnixTime,
    ) -> Result<Round<'r, S>, MrtrError>
    where
        S: DeserializeOwned,
    {
        Round::start(Shared::Borrowed(self), retry, binding, now)
    }

    /// [`round`](Rounds::round) for a round that owns everything it holds: kept past the request
    /// it was made from, e.g. by a handler's extractor that lives as long as the handler.
    ///
    /// # Errors
    /// As [`round`](Rounds::round).
    pub fn round_shared<S>(
        self: Arc<Self>,
        retry: Retry<'_>,
        binding: Binding<'_>,
        now: UnixTime,
    ) -> Result<Round<'static, S>, MrtrError>
    where
        S: DeserializeOwned,
    {
        Round::start(Shared::Owned(self), retry, binding, now)
    }
}
