//! Time as the state sees it: whole seconds since the Unix epoch, passed in explicitly.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// A point in time, in whole seconds since the Unix epoch.
///
/// Every operation that depends on the clock ([`StateKeys::seal`](super::StateKeys::seal),
/// [`StateKeys::open`](super::StateKeys::open), [`ReplayGuard::redeem`](super::ReplayGuard::redeem))
/// takes `now` as an argument instead of reading a clock itself, so expiry is tested by passing a
/// later `now`, never by sleeping. Production code passes [`UnixTime::now()`].
///
/// ```
/// # extern crate elicit_core as mcp_elicit;
/// use mcp_elicit::state::UnixTime;
///
/// let issued = UnixTime::from_secs(1_700_000_000);
/// assert_eq!(issued.as_secs(), 1_700_000_000);
/// assert!(UnixTime::now() > issued);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct UnixTime(u64);

impl UnixTime {
    /// The time `secs` seconds after the Unix epoch.
    #[must_use]
    pub const fn from_secs(secs: u64) -> Self {
        Self(secs)
    }

    /// Seconds since the Unix epoch.
    #[must_use]
    pub const fn as_secs(self) -> u64 {
        self.0
    }

    /// The system clock, truncated to whole seconds (a clock set before 1970 reads as the epoch).
    #[must_use]
    pub fn now() -> Self {
        Self::from(SystemTime::now())
    }

    /// `self + ttl`, with `ttl` rounded up to whole seconds; `None` if `ttl` is zero or the sum
    /// overflows. Rounding up keeps a sub-second TTL from producing a state that is born expired.
    pub(crate) fn plus_ttl(self, ttl: Duration) -> Option<Self> {
        let secs = ttl
            .as_secs()
            .checked_add(u64::from(ttl.subsec_nanos() > 0))?;
        if secs == 0 {
            return None;
        }
        self.0.checked_add(secs).map(Self)
    }
}

impl From<SystemTime> for UnixTime {
    /// Whole seconds since the epoch; a time before the epoch reads as the epoch.
    fn from(time: SystemTime) -> Self {
        Self(
            time.duration_since(UNIX_EPOCH)
                .map_or(0, |since| since.as_secs()),
        )
    }
}

impl std::fmt::Display for UnixTime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}s after the Unix epoch", self.0)
    }
}
