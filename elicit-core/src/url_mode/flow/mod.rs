//! URL flows: what a URL-mode question starts, bound to the user who was asked, for a page to
//! finish.
//!
//! The spec puts its hardest duties for URL mode on the server: the page must check that whoever
//! opened it is the user who was asked, by a means an attacker who edits the URL cannot defeat;
//! the URL must carry no user data; the interaction completes once. A [`Flow`] is the record that
//! makes those checks possible, and a [`FlowStore`] keeps it:
//!
//! - its [`FlowId`] is 128 random bits, the only thing the URL holds;
//! - it is bound to the [principal](Flow::principal) that was asked, the call that asked
//!   ([`Flow::call`]) and the page that finishes it ([`Flow::page`]);
//! - a store refuses to open or finish it for another principal, and binds it to the first
//!   browser that opens it ([`FlowStore::open`]): a second browser is refused;
//! - it finishes once, with a value or a failure, and expires; one submission of its page's form
//!   is [claimed](FlowStore::claim) before a sink sees it, so a sink sees a secret once, and only
//!   that claim may [finish](FlowStore::finish) it, while it holds ([`Claim`]);
//! - the asking side may [abandon](FlowStore::abandon) it when the call that asked is given up
//!   (cancelled, or returned without it): its page then refuses, and nothing is stored.
//!
//! ```
//! # extern crate elicit_core as mcp_elicit;
//! use std::time::Duration;
//! use mcp_elicit::state::{ParamsDigest, UnixTime};
//! use mcp_elicit::url_mode::{Flow, FlowError, FlowId, FlowStatus, FlowStore, MemoryFlowStore};
//! use serde_json::json;
//!
//! let store = MemoryFlowStore::new();
//! let now = UnixTime::from_secs(1_800_000_000);
//! let call = ParamsDigest::of(&json!({ "name": "connect_api_key" }));
//! let flow = Flow::new(FlowId::random()?, "api_key", "user-8f3a", call, "Enter your API key.")
//!     .expiring(now, Duration::from_secs(900))?;
//! let id = flow.id();
//! store.begin_now(flow, now)?;
//!
//! // Someone else opens the URL: refused, and the flow stays open for its owner.
//! assert!(matches!(store.open_now(&id, "user-0000", "browser-b", now), Err(FlowError::WrongUser)));
//! // Its owner opens it, in one browser; a second browser is refused.
//! store.open_now(&id, "user-8f3a", "browser-a", now)?;
//! assert!(matches!(store.open_now(&id, "user-8f3a", "browser-b", now), Err(FlowError::OpenedElsewhere)));
//! // The page claims one submission, hands it to its sink, and finishes the flow under that
//! // claim, once.
//! let claim = store.claim_now(&id, "user-8f3a", "browser-a", Duration::from_secs(60), now)?;
//! store.finish_now(&claim, Ok(json!({ "stored": true })), now)?;
//! assert!(matches!(store.finish_now(&claim, Ok(json!({})), now), Err(FlowError::Finished)));
//! assert_eq!(store.get_now(&id, now)?.status(), &FlowStatus::Completed(json!({ "stored": true })));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod flows;
mod memory;
#[cfg(feature = "redis")]
mod redis;
#[cfg(feature = "redis")]
mod wire;

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use serde::de::DeserializeOwned;
use serde_json::Value;

pub use flows::{Flows, FlowsError};
pub use memory::MemoryFlowStore;
#[cfg(feature = "redis")]
pub use redis::RedisFlowStore;

use super::ElicitationId;
use crate::state::{ParamsDigest, StateId, UnixTime};

/// A flow's id: 128 random bits from the operating system, written as 32 lowercase hex digits.
///
/// It is the only thing a flow's URL holds, and it grants nothing by itself: the page checks
/// who opened it. On 2025-11-25 it is also the request's `elicitationId`
/// ([`elicitation_id`](FlowId::elicitation_id)), so the completion notification names it.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct FlowId([u8; 16]);

impl FlowId {
    /// A fresh unguessable id.
    ///
    /// # Errors
    /// [`FlowError::NoRandomness`] if the operating system has no randomness to give.
    pub fn random() -> Result<Self, FlowError> {
        let mut bytes = [0u8; 16];
        getrandom::fill(&mut bytes).map_err(|_| FlowError::NoRandomness)?;
        Ok(Self(bytes))
    }

    /// An id as written by [`Display`](fmt::Display): exactly 32 lowercase hex digits. Anything
    /// else — an edited, cut or padded id — is refused.
    ///
    /// # Errors
    /// [`InvalidFlowId`] for any other text.
    pub fn parse(text: &str) -> Result<Self, InvalidFlowId> {
        let digits = text.as_bytes();
        if digits.len() != 32 {
            return Err(InvalidFlowId);
        }
        let mut bytes = [0u8; 16];
        for (byte, pair) in bytes.iter_mut().zip(digits.chunks_exact(2)) {
            let [high, low] = pair else {
                return Err(InvalidFlowId);
            };
            *byte = (nibble(*high)? << 4) | nibble(*low)?;
        }
        Ok(Self(bytes))
    }

    /// The id as the 2025-11-25 `elicitationId` of the URL request that starts the flow.
    #[must_use]
    pub fn elicitation_id(&self) -> ElicitationId {
        ElicitationId::from_flow(&self.to_string())
    }

    /// The id's bytes.
    #[must_use]
    pub const fn as_bytes(&self) -> &[u8; 16] {
        &self.0
    }
}

fn nibble(digit: u8) -> Result<u8, InvalidFlowId> {
    match digit {
        b'0'..=b'9' => Ok(digit - b'0'),
        b'a'..=b'f' => Ok(digit - b'a' + 10),
        _ => Err(InvalidFlowId),
    }
}

impl fmt::Display for FlowId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.iter().try_for_each(|byte| write!(f, "{byte:02x}"))
    }
}

/// The first 4 digits only: enough to tell flows apart in a log.
impl fmt::Debug for FlowId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [a, b, ..] = self.0;
        write!(f, "FlowId({a:02x}{b:02x}…)")
    }
}

/// Text that is not a [`FlowId`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InvalidFlowId;

impl fmt::Display for InvalidFlowId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a flow id is exactly 32 lowercase hex digits")
    }
}

impl std::error::Error for InvalidFlowId {}

/// The outcome of a URL question that started a [`Flow`]: what the *step* came to, not only
/// whether the user agreed to open the page. There is no `Accept`: agreeing to open the page is
/// never read as done.
///
/// `R` is the receipt the page's sink returned, read as the server's own type: the store keeps
/// it as JSON (so it crosses replicas), and [`receipt`](FlowOutcome::receipt) reads it back as
/// `R`. Untyped code reads `FlowOutcome` (`R` = [`Value`]).
#[derive(Debug, Clone, PartialEq)]
#[must_use = "only `Completed` means the step on the page was done"]
#[non_exhaustive]
pub enum FlowOutcome<R = Value> {
    /// The page finished the step: the receipt its sink handed back (never the secret).
    Completed(R),
    /// The user opened the page, and the step there failed: why, in words the user may read.
    Failed(String),
    /// The user agreed to open the page, and the step was not finished before the flow expired.
    Expired,
    /// The user agreed to open the page, and the step was not finished while the tool waited
    /// (before 2026-07-28: the server's timeout; the flow is then
    /// [abandoned](FlowStatus::Abandoned), so its page no longer takes the step).
    NotFinished,
    /// The user agreed to open the page, and the call that asked was given up before the step
    /// was finished: the flow was [abandoned](FlowStatus::Abandoned) (the read of a flow some
    /// other call abandoned).
    Abandoned,
    /// The user declined to open the page.
    Decline,
    /// The user dismissed the request.
    Cancel,
    /// No answer arrived.
    NoReply,
}

impl FlowOutcome {
    /// The outcome of a URL question answered `outcome` while its flow is `status`: `None` for
    /// an accept whose step is still open (wait, or ask again).
    ///
    /// A page that finished is read as it finished, whatever the client answered: once the
    /// page has [completed](FlowStatus::Completed) (or [failed](FlowStatus::Failed)), a decline,
    /// a cancel or no reply that arrives after it reads as the page's result. The user did the
    /// step on the page, signed in, in the browser that opened it; the sink has the secret
    /// already, and nothing can take it back from there. Reading the late decline instead
    /// would have the tool say that nothing was stored while it was (the URL mode guide,
    /// "A page finished before the client answered").
    #[must_use]
    pub fn of(outcome: super::UrlOutcome, status: &FlowStatus) -> Option<Self> {
        use super::UrlOutcome;
        Some(match (status, outcome) {
            (FlowStatus::Completed(value), _) => FlowOutcome::Completed(value.clone()),
            (FlowStatus::Failed(why), _) => FlowOutcome::Failed(why.clone()),
            (_, UrlOutcome::Decline) => FlowOutcome::Decline,
            (_, UrlOutcome::Cancel) => FlowOutcome::Cancel,
            (_, UrlOutcome::NoReply) => FlowOutcome::NoReply,
            (FlowStatus::Expired, UrlOutcome::Accept) => FlowOutcome::Expired,
            (FlowStatus::Abandoned(_), UrlOutcome::Accept) => FlowOutcome::Abandoned,
            (FlowStatus::Pending | FlowStatus::Opened, UrlOutcome::Accept) => return None,
        })
    }

    /// The outcome with its receipt read as `R` (the page's sink's own type, which the store
    /// keeps as JSON); every other outcome as it is.
    ///
    /// ```
    /// # extern crate elicit_core as mcp_elicit;
    /// use mcp_elicit::url_mode::FlowOutcome;
    /// use serde_json::json;
    ///
    /// #[derive(Debug, serde::Deserialize)]
    /// struct KeyEnding {
    ///     ending: String,
    /// }
    ///
    /// let read = FlowOutcome::Completed(json!({ "ending": "4f2a" })).receipt::<KeyEnding>("api_key");
    /// assert!(matches!(read, Ok(FlowOutcome::Completed(key)) if key.ending == "4f2a"));
    /// let wrong = FlowOutcome::Completed(json!({ "end": 4 })).receipt::<KeyEnding>("api_key");
    /// assert!(wrong.unwrap_err().to_string().contains("api_key"));
    /// ```
    ///
    /// # Errors
    /// [`ReceiptError`], naming the page and `R`, for a receipt that does not read as `R` (a
    /// page served with another sink than the tool expects, or a receipt type changed while
    /// flows were open).
    pub fn receipt<R: DeserializeOwned>(self, page: &str) -> Result<FlowOutcome<R>, ReceiptError> {
        Ok(match self {
            FlowOutcome::Completed(value) => {
                FlowOutcome::Completed(R::deserialize(value).map_err(|error| ReceiptError {
                    page: page.to_owned(),
                    receipt: std::any::type_name::<R>(),
                    reason: error.to_string(),
                })?)
            }
            FlowOutcome::Failed(why) => FlowOutcome::Failed(why),
            FlowOutcome::Expired => FlowOutcome::Expired,
            FlowOutcome::NotFinished => FlowOutcome::NotFinished,
            FlowOutcome::Abandoned => FlowOutcome::Abandoned,
            FlowOutcome::Decline => FlowOutcome::Decline,
            FlowOutcome::Cancel => FlowOutcome::Cancel,
            FlowOutcome::NoReply => FlowOutcome::NoReply,
        })
    }
}

/// A page's receipt that does not read as the type the tool asked for
/// ([`FlowOutcome::receipt`]): the page, the type, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReceiptError {
    page: String,
    receipt: &'static str,
    reason: String,
}

impl ReceiptError {
    /// The page whose receipt it was.
    #[must_use]
    pub fn page(&self) -> &str {
        &self.page
    }

    /// The type it was read as (its Rust name).
    #[must_use]
    pub fn receipt(&self) -> &str {
        self.receipt
    }
}

impl fmt::Display for ReceiptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the receipt of the page `{}` does not read as `{}`: {} (serve the page with a sink \
             that returns that type)",
            self.page, self.receipt, self.reason
        )
    }
}

impl std::error::Error for ReceiptError {}

/// Where a flow is.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum FlowStatus {
    /// Asked; no page has been opened for it yet.
    Pending,
    /// Its owner opened the page, in one browser; not finished.
    Opened,
    /// The page finished: the value it handed back (never the secret itself: a receipt, such as
    /// "stored, ending in …4f2a").
    Completed(Value),
    /// The page could not finish (the provider refused, the vault was down): why, in words the
    /// user may read.
    Failed(String),
    /// Not finished before it expired.
    Expired,
    /// Ended by the asking side before it was finished ([`FlowStore::abandon`]), and why: the
    /// user declined or dismissed the question, or the call that asked was cancelled or ended
    /// without it. Its page refuses, saying why, and nothing is stored.
    Abandoned(Abandonment),
}

/// Why the asking side ended a flow before its page finished it ([`FlowStore::abandon`]): what
/// its page says when it refuses ([`FlowError::Abandoned`]). Every store keeps it with the flow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Abandonment {
    /// The user declined the question in their MCP client.
    Declined,
    /// The user dismissed the question in their MCP client (a cancel).
    Dismissed,
    /// The client cancelled the call that asked (`notifications/cancelled`), or gave it up.
    Cancelled,
    /// The call that asked ended without the step: it returned its result, an `isError`
    /// result or an error, or stopped waiting for the page.
    CallEnded,
}

impl Abandonment {
    /// The reason as one word, as the stores write it: `declined`, `dismissed`, `cancelled`,
    /// `call_ended`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Abandonment::Declined => "declined",
            Abandonment::Dismissed => "dismissed",
            Abandonment::Cancelled => "cancelled",
            Abandonment::CallEnded => "call_ended",
        }
    }

    /// The reason [`as_str`](Abandonment::as_str) writes; `None` for any other text.
    #[must_use]
    pub fn parse(text: &str) -> Option<Self> {
        [
            Abandonment::Declined,
            Abandonment::Dismissed,
            Abandonment::Cancelled,
            Abandonment::CallEnded,
        ]
        .into_iter()
        .find(|reason| reason.as_str() == text)
    }
}

impl FlowStatus {
    /// Whether the flow can still be opened or finished.
    #[must_use]
    pub fn is_open(&self) -> bool {
        matches!(self, FlowStatus::Pending | FlowStatus::Opened)
    }
}

/// A URL flow: its id, whom and what it is for, until when, and where it is.
#[derive(Debug, Clone, PartialEq)]
pub struct Flow {
    id: FlowId,
    page: Arc<str>,
    principal: Arc<str>,
    call: ParamsDigest,
    message: Arc<str>,
    expires_at: UnixTime,
    status: FlowStatus,
    browser: Option<Arc<str>>,
    claimed_until: Option<UnixTime>,
    /// How many claims were made on it: the number of the last, which alone may finish it.
    claims: u64,
}

impl Flow {
    /// The longest a flow lives unless told otherwise ([`expiring`](Flow::expiring)): time to
    /// open a page, sign in and finish a step.
    pub const DEFAULT_TTL: Duration = Duration::from_secs(15 * 60);

    /// How long a [claim](Flow::claimed) holds unless told otherwise: longer than a sink takes
    /// (a vault's write, an OAuth code exchange with its HTTP timeout), short enough that a user
    /// whose submission died with its replica may send the form again a minute later.
    pub const DEFAULT_CLAIM_LEASE: Duration = Duration::from_secs(60);

    /// A pending flow `id` for `principal` (the `AskConfig`'s: the single user's name, or the one
    /// each request names; never one that [names no one](Flow::names_no_one)), finished by the
    /// page named `page`, started by the call whose digest is `call`, asking with
    /// `message`. It expires [`DEFAULT_TTL`](Flow::DEFAULT_TTL) after the epoch until
    /// [`expiring`](Flow::expiring) sets when.
    #[must_use]
    pub fn new(
        id: FlowId,
        page: impl Into<Arc<str>>,
        principal: impl Into<Arc<str>>,
        call: ParamsDigest,
        message: impl Into<Arc<str>>,
    ) -> Self {
        Self {
            id,
            page: page.into(),
            principal: principal.into(),
            call,
            message: message.into(),
            expires_at: UnixTime::from_secs(0),
            status: FlowStatus::Pending,
            browser: None,
            claimed_until: None,
            claims: 0,
        }
    }

    /// The flow expiring `ttl` after `now`.
    ///
    /// # Errors
    /// [`FlowError::Ttl`] if `ttl` is zero or the time overflows.
    pub fn expiring(mut self, now: UnixTime, ttl: Duration) -> Result<Self, FlowError> {
        self.expires_at = now.plus_ttl(ttl).ok_or(FlowError::Ttl)?;
        Ok(self)
    }

    /// The id, the only thing in its URL.
    #[must_use]
    pub fn id(&self) -> FlowId {
        self.id
    }

    /// The name of the page that finishes it.
    #[must_use]
    pub fn page(&self) -> &str {
        &self.page
    }

    /// Whom it was asked of.
    #[must_use]
    pub fn principal(&self) -> &str {
        &self.principal
    }

    /// Whether `principal` names no one: it is empty, or only white space (Unicode's). Such a
    /// principal is never a user whose flows could be opened, whichever side names it: the
    /// asking side refuses it as a single user (`AskConfig::single_user`), the pages as a single
    /// user (`SingleUser::named`) and as any identity's verdict, with a page of their own.
    ///
    /// ```
    /// # extern crate elicit_core as mcp_elicit;
    /// use mcp_elicit::url_mode::Flow;
    ///
    /// assert!(Flow::names_no_one(""));
    /// assert!(Flow::names_no_one(" \t\u{3000}"));
    /// assert!(!Flow::names_no_one("ada"));
    /// ```
    #[must_use]
    pub fn names_no_one(principal: &str) -> bool {
        principal.trim().is_empty()
    }

    /// The digest of the call (name and arguments) that asked.
    #[must_use]
    pub fn call(&self) -> ParamsDigest {
        self.call
    }

    /// The message the user was asked with, for the page to show.
    #[must_use]
    pub fn message(&self) -> &str {
        &self.message
    }

    /// When it expires.
    #[must_use]
    pub fn expires_at(&self) -> UnixTime {
        self.expires_at
    }

    /// Where it is.
    #[must_use]
    pub fn status(&self) -> &FlowStatus {
        &self.status
    }

    /// The browser that opened it (the page's own opaque name for a browser session), if any.
    #[must_use]
    pub fn browser(&self) -> Option<&str> {
        self.browser.as_deref()
    }

    /// Until when a submission holds the flow ([`Flow::claimed`]), if one ever claimed it: a
    /// time in the past is a lease that ran out.
    #[must_use]
    pub fn claimed_until(&self) -> Option<UnixTime> {
        self.claimed_until
    }

    /// How many claims were made on the flow ([`Claim::number`] of the last one).
    #[must_use]
    pub fn claims(&self) -> u64 {
        self.claims
    }

    /// The flow as seen at `now`: [`Expired`](FlowStatus::Expired) once past its expiry and
    /// not finished.
    #[must_use]
    pub fn at(mut self, now: UnixTime) -> Self {
        if self.status.is_open() && now >= self.expires_at {
            self.status = FlowStatus::Expired;
        }
        self
    }

    /// Opening by `principal` in `browser`, as every store decides it: the owner only; the
    /// first browser binds the flow.
    ///
    /// # Errors
    /// As [`FlowStore::open`].
    pub fn opened(
        mut self,
        principal: &str,
        browser: &str,
        now: UnixTime,
    ) -> Result<Self, FlowError> {
        self = self.at(now);
        self.check(principal, browser)?;
        if self.status == FlowStatus::Pending {
            self.status = FlowStatus::Opened;
            self.browser = Some(browser.into());
        }
        Ok(self)
    }

    /// Finishing under `claim`, as every store decides it: only an opened flow, only under the
    /// claim that holds it now — the last one made ([`Claim::number`]), and before it runs out
    /// ([`Claim::until`]). A claim that ran out cannot finish the flow, whether or not another
    /// submission claimed it since: a sink still working past its claim's end may be racing a
    /// second one, and its result is refused rather than written over the other's.
    ///
    /// # Errors
    /// As [`FlowStore::finish`]: [`FlowError::Finished`], [`FlowError::Expired`],
    /// [`FlowError::Abandoned`] for a flow that is over; [`FlowError::ClaimLapsed`] for a claim
    /// that is not the flow's, ran out, or was followed by another.
    pub fn finished(
        mut self,
        claim: &Claim,
        result: Result<Value, String>,
        now: UnixTime,
    ) -> Result<Self, FlowError> {
        self = self.held_by(claim, now)?;
        self.status = match result {
            Ok(value) => FlowStatus::Completed(value),
            Err(why) => FlowStatus::Failed(why),
        };
        Ok(self)
    }

    /// Releasing `claim` without finishing the flow, as every store decides it: the sink asked
    /// the user to try again, so the flow stays opened, unclaimed, and the next submission may
    /// claim it at once. Only under the claim that holds it now, as
    /// [`finished`](Flow::finished). The count of [`claims`](Flow::claims) stays: it counts
    /// the submissions that reached a sink, which bounds how often a page asks again.
    ///
    /// # Errors
    /// As [`Flow::finished`].
    pub fn released(self, claim: &Claim, now: UnixTime) -> Result<Self, FlowError> {
        let mut flow = self.held_by(claim, now)?;
        flow.claimed_until = None;
        Ok(flow)
    }

    /// The flow at `now`, if `claim` holds it: the last claim made, before it runs out, on an
    /// opened flow of the claim's owner and browser.
    fn held_by(mut self, claim: &Claim, now: UnixTime) -> Result<Self, FlowError> {
        self = self.at(now);
        if self.id != claim.flow.id {
            return Err(FlowError::ClaimLapsed);
        }
        self.check(
            claim.flow.principal(),
            claim.flow.browser().unwrap_or_default(),
        )?;
        if self.status != FlowStatus::Opened {
            return Err(FlowError::NotOpened);
        }
        let holds =
            self.claims == claim.number() && self.claimed_until.is_some_and(|until| now < until);
        if !holds {
            return Err(FlowError::ClaimLapsed);
        }
        Ok(self)
    }

    /// Claiming by `principal` in `browser` for `lease`, as every store decides it: the one
    /// submission that may hand the flow's result to a sink, so a sink sees a flow's secret once
    /// however many requests (on however many replicas) carry the same form. Only an opened flow,
    /// only by its owner in the browser that opened it, and only while no other claim holds. The
    /// [`Claim`] holds the flow as claimed, which the store writes, and is what
    /// [finishes](Flow::finished) it.
    ///
    /// A claim is a lease, not a lock: if the replica that claimed dies before it finishes, the
    /// claim runs out at [`Claim::until`] (`now` plus `lease`, in the store's whole seconds) and
    /// the user may send the form again. A sink must therefore be given up *before* its claim's
    /// `until`, on the same clock: past it a second submission may claim the flow and reach a
    /// sink while the first still runs. The library's pages cut a sink a second before `until`
    /// and fail the flow under the claim; a lease should stay above the sink's own timeouts.
    ///
    /// # Errors
    /// As [`Flow::opened`], and: [`FlowError::NotOpened`] for a flow not opened yet;
    /// [`FlowError::Claimed`] while another claim holds; [`FlowError::Ttl`] for a zero lease.
    pub fn claimed(
        mut self,
        principal: &str,
        browser: &str,
        lease: Duration,
        now: UnixTime,
    ) -> Result<Claim, FlowError> {
        self = self.at(now);
        self.check(principal, browser)?;
        if self.status != FlowStatus::Opened {
            return Err(FlowError::NotOpened);
        }
        if self.claimed_until.is_some_and(|until| now < until) {
            return Err(FlowError::Claimed);
        }
        self.claimed_until = Some(now.plus_ttl(lease).ok_or(FlowError::Ttl)?);
        self.claims = self.claims.checked_add(1).ok_or(FlowError::Claimed)?;
        Ok(Claim { flow: self })
    }

    /// Abandoning by `principal` because of `why`, as every store decides it: only by the
    /// flow's owner; an open flow becomes [`Abandoned`](FlowStatus::Abandoned) with `why`, and
    /// a flow already over (completed, failed, expired or abandoned) is left as it is, so the
    /// caller reads what it came to (a page that finished as the call was given up keeps its
    /// result; the first reason a flow was abandoned for stays).
    ///
    /// # Errors
    /// [`FlowError::WrongUser`] for anyone but the flow's owner.
    pub fn abandoned(
        mut self,
        principal: &str,
        why: Abandonment,
        now: UnixTime,
    ) -> Result<Self, FlowError> {
        self = self.at(now);
        if *self.principal != *principal {
            return Err(FlowError::WrongUser);
        }
        if self.status.is_open() {
            self.status = FlowStatus::Abandoned(why);
        }
        Ok(self)
    }

    /// Whether `principal` in `browser` may act on the flow as it is.
    fn check(&self, principal: &str, browser: &str) -> Result<(), FlowError> {
        if *self.principal != *principal {
            return Err(FlowError::WrongUser);
        }
        match &self.status {
            FlowStatus::Expired => return Err(FlowError::Expired),
            FlowStatus::Abandoned(why) => return Err(FlowError::Abandoned(*why)),
            FlowStatus::Completed(_) | FlowStatus::Failed(_) => return Err(FlowError::Finished),
            FlowStatus::Pending | FlowStatus::Opened => {}
        }
        match &self.browser {
            Some(bound) if **bound != *browser => Err(FlowError::OpenedElsewhere),
            _ => Ok(()),
        }
    }
}

/// A submission's hold on a flow: what [`FlowStore::claim`] returns, and what
/// [`FlowStore::finish`] takes, so only the submission that holds the flow may finish it (a
/// fencing token).
///
/// Made only by [`Flow::claimed`]: a store cannot finish a flow without claiming it first.
/// Its [`number`](Claim::number) rises with each claim of the flow; only the last claim, and
/// only until its [`until`](Claim::until), finishes the flow. A sink that writes elsewhere (a
/// vault) may keep the number beside what it wrote and refuse a lower one: the same fence, in
/// its own store.
#[derive(Debug, Clone, PartialEq)]
#[must_use = "only the claim finishes the flow"]
pub struct Claim {
    /// The flow as claimed: its `claims` is this claim's number, its `claimed_until` this
    /// claim's end.
    flow: Flow,
}

impl Claim {
    /// The claimed flow's id.
    #[must_use]
    pub fn id(&self) -> FlowId {
        self.flow.id
    }

    /// The flow as claimed: what the store writes.
    #[must_use]
    pub fn flow(&self) -> &Flow {
        &self.flow
    }

    /// The claim's number: 1 for the flow's first claim, rising by one with each.
    #[must_use]
    pub fn number(&self) -> u64 {
        self.flow.claims
    }

    /// When the claim runs out, in the store's whole seconds: give its sink up before then (on
    /// the clock the store's `now` was read from); the flow may be finished under it only
    /// before then.
    #[must_use]
    pub fn until(&self) -> UnixTime {
        self.flow.claimed_until.unwrap_or(self.flow.expires_at)
    }
}

/// Why a flow could not be begun, read, opened or finished. Each names the rule it keeps.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum FlowError {
    /// No such flow: never begun, edited, or forgotten after it expired.
    Unknown,
    /// The flow is for another user: nothing is shown or accepted, and it stays open for its
    /// owner.
    WrongUser,
    /// Another browser opened the flow first: only that browser may finish it.
    OpenedElsewhere,
    /// The flow was finished already: it finishes once.
    Finished,
    /// The flow expired before it was finished.
    Expired,
    /// The asking side ended the flow before it was finished, for the reason it holds (the
    /// user declined or dismissed the question, the call was cancelled or ended): ask again
    /// from the client.
    Abandoned(Abandonment),
    /// The page was not opened (in this browser) before being submitted.
    NotOpened,
    /// Another submission of the flow's form is being handed to the server ([`Flow::claimed`]):
    /// only one is, so the server sees the secret once.
    Claimed,
    /// A [`Claim`] that no longer holds the flow tried to finish it: it ran out (and perhaps
    /// another submission claimed the flow since), or is another flow's. Nothing was changed.
    ClaimLapsed,
    /// A flow with this id exists already.
    Exists,
    /// The store holds as many unexpired flows as it may in all: it refuses new ones rather than
    /// forget open ones.
    Full,
    /// The flow's principal holds as many unexpired flows as the store allows one principal
    /// (`max`): it refuses new ones rather than forget open ones, so one user cannot fill the
    /// store for the others.
    PrincipalFull {
        /// The store's cap on one principal's flows.
        max: usize,
    },
    /// The flow has as many tasks waiting for it in
    /// [`FlowStore::finished`] as the store lets one flow hold (`max`): this one does not wait
    /// (a retry over the bound is asked again at once), so that retries of one open flow cannot
    /// keep more than `max` tasks alive.
    TooManyWaiters {
        /// The store's bound on one flow's waiters.
        max: usize,
    },
    /// A flow's TTL is zero or its expiry overflows.
    Ttl,
    /// The operating system's random source failed.
    NoRandomness,
    /// The store could not decide (unreachable, timed out): nothing was changed, and nothing
    /// may be taken as done.
    Unavailable(String),
}

impl fmt::Display for FlowError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FlowError::Unknown => "no such flow: the link is wrong, edited or too old",
            FlowError::WrongUser => {
                "this page was opened for another user: sign in as the user who was asked"
            }
            FlowError::OpenedElsewhere => {
                "this page was opened in another browser first: finish it there"
            }
            FlowError::Finished => "this step was finished already: it finishes once",
            FlowError::Expired => "this step expired before it was finished: ask again",
            FlowError::Abandoned(Abandonment::Declined) => {
                "you declined this request in your MCP client, so this page takes nothing: ask \
                 again there to continue"
            }
            FlowError::Abandoned(Abandonment::Dismissed) => {
                "this request was dismissed in your MCP client, so this page takes nothing: ask \
                 again there to continue"
            }
            FlowError::Abandoned(Abandonment::Cancelled) => {
                "the request for this page was cancelled: go back to your MCP client and ask again"
            }
            FlowError::Abandoned(Abandonment::CallEnded) => {
                "the call that asked for this page has ended, so this page takes nothing: go back \
                 to your MCP client and ask again"
            }
            FlowError::NotOpened => "this page was not opened in this browser before it was sent",
            FlowError::Claimed => {
                "this form is being saved from another request: wait a minute, then reload the page"
            }
            FlowError::ClaimLapsed => {
                "this form's turn to be saved ran out before it was saved: reload the page and send it again"
            }
            FlowError::Exists => "a flow with this id exists already",
            FlowError::Full => "too many steps are waiting to be finished: finish or let one expire",
            FlowError::Ttl => "a flow's lifetime must be more than zero and end before the clock overflows",
            FlowError::NoRandomness => {
                "the operating system's random source failed, so no flow id could be made; try again"
            }
            FlowError::PrincipalFull { max } => {
                return write!(
                    f,
                    "too many steps are waiting to be finished for this user (at most {max}): finish or let one expire"
                );
            }
            FlowError::TooManyWaiters { max } => {
                return write!(
                    f,
                    "too many calls wait for this step at once (at most {max}): this one does not wait"
                );
            }
            FlowError::Unavailable(why) => return write!(f, "the flow store could not decide: {why}"),
        })
    }
}

impl std::error::Error for FlowError {}

/// What a [`FlowStore`]'s methods return: a boxed future, `Send`, borrowing only the store (the
/// same shape as [`ReplayGuard`](crate::state::ReplayGuard)'s, for the same reasons: a fleet's
/// store is a network store, and the trait stays object-safe and runtime-free).
pub type FlowFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, FlowError>> + Send + 'a>>;

/// Keeps flows, for the asking side (the tool) and the page.
///
/// # Contract for implementations
/// - Decide with [`Flow::opened`], [`Flow::claimed`], [`Flow::finished`] and
///   [`Flow::abandoned`], and write what they decide atomically with the read it was decided
///   on (a lock, or a compare-and-set of the very bytes read). The races this rules out, each
///   checked on every store by `elicit-core/tests/flow_stores.rs`:
///   - two browsers opening one flow: the first to `open` binds it, the other is refused;
///   - two submissions of one form (a double click, a retry, two replicas behind a balancer):
///     of two concurrent `claim` calls at most one succeeds, so one sink sees the secret;
///   - a claim that ran out while its sink still worked: another submission may then claim,
///     and the first one's `finish` is refused ([`FlowError::ClaimLapsed`]), because only the
///     last claim, before its [`until`](Claim::until), finishes the flow (a fencing token);
///   - two finishes of one flow: at most one succeeds, and a finished flow stays finished;
///   - a finish racing an `abandon`: whichever is written first wins, and the other reads the
///     flow as it is;
///   - a release under a claim that ran out or was followed: refused as its finish would be,
///     so it never frees a flow another submission holds.
/// - Decide on the caller's `now`: the pages read it from the clock they cut a sink by, so a
///   claim's end and its sink's deadline are one instant. Replicas' clocks must agree well
///   within a second (NTP): the pages cut a sink a second before its claim runs out.
/// - Keep a flow at least until it expires, finished or not: a 2026-07-28 retry reads the
///   finished value after the page is done.
/// - Refuse rather than forget: when full, [`FlowError::Full`] or
///   [`FlowError::PrincipalFull`]; when unsure, [`FlowError::Unavailable`], never success.
pub trait FlowStore: Send + Sync {
    /// Records a new pending flow.
    fn begin(&self, flow: Flow, now: UnixTime) -> FlowFuture<'_, ()>;

    /// The flow as it is at `now` ([`Flow::at`]).
    fn get(&self, id: &FlowId, now: UnixTime) -> FlowFuture<'_, Flow>;

    /// `principal` opens the flow's page in `browser` ([`Flow::opened`]); the flow as opened.
    fn open(
        &self,
        id: &FlowId,
        principal: &str,
        browser: &str,
        now: UnixTime,
    ) -> FlowFuture<'_, Flow>;

    /// `principal` in `browser` claims the flow for one submission, for `lease`
    /// ([`Flow::claimed`]): call it before handing a result to a sink, hand it over only on
    /// `Ok`, and give the sink up before [`Claim::until`]. The claim is what
    /// [`finish`](FlowStore::finish) takes.
    fn claim(
        &self,
        id: &FlowId,
        principal: &str,
        browser: &str,
        lease: Duration,
        now: UnixTime,
    ) -> FlowFuture<'_, Claim>;

    /// The submission holding `claim` finishes its flow ([`Flow::finished`]): with the value for
    /// the tool, or why it failed; refused once the claim ran out or another followed it. Wakes
    /// whoever waits in [`finished`](FlowStore::finished).
    fn finish(
        &self,
        claim: &Claim,
        result: Result<Value, String>,
        now: UnixTime,
    ) -> FlowFuture<'_, Flow>;

    /// The submission holding `claim` lets the flow go unfinished ([`Flow::released`]): its
    /// sink asked the user to try again. The flow stays open and unclaimed; nobody waiting in
    /// [`finished`](FlowStore::finished) is woken.
    fn release(&self, claim: &Claim, now: UnixTime) -> FlowFuture<'_, Flow>;

    /// `principal` (the asking side, no browser) ends the flow before it is finished, because of
    /// `why` ([`Flow::abandoned`]), which the store keeps with the flow for its page to say.
    /// The flow as it is after: a flow already over is left as it is and returned. Wakes
    /// whoever waits in [`finished`](FlowStore::finished).
    fn abandon(
        &self,
        id: &FlowId,
        principal: &str,
        why: Abandonment,
        now: UnixTime,
    ) -> FlowFuture<'_, Flow>;

    /// Resolves when the flow is finished (or abandoned), or on a poll after it expired. Never resolves for a
    /// flow that stays open: race it against a deadline.
    ///
    /// A store keeps what a waiting future needs to be woken (its task's waker) only while the
    /// future lives: dropped, it leaves nothing behind. It bounds how many futures wait for one
    /// flow at once; one more resolves at once with [`FlowError::TooManyWaiters`].
    fn finished(&self, id: &FlowId) -> FlowFuture<'_, Flow>;

    /// `principal` signed out of the pages' browser session `session` (the [`StateId`] of its
    /// sealed cookie), which would have expired at `until`: keep it ended until then, so that
    /// a copy of its cookie, in any browser and on any replica that shares this store, opens
    /// nothing. Kept for no longer than `until`; each store bounds how many it keeps (a store
    /// that cannot keep one more refuses, and the sign-out says so).
    fn end_session(
        &self,
        session: &StateId,
        principal: &str,
        until: UnixTime,
        now: UnixTime,
    ) -> FlowFuture<'_, ()>;

    /// Whether the browser session `session` was ended ([`end_session`](FlowStore::end_session))
    /// and would not yet have expired at `now`.
    fn session_ended(&self, session: &StateId, now: UnixTime) -> FlowFuture<'_, bool>;
}

impl<S: FlowStore + ?Sized> FlowStore for Arc<S> {
    fn begin(&self, flow: Flow, now: UnixTime) -> FlowFuture<'_, ()> {
        (**self).begin(flow, now)
    }
    fn get(&self, id: &FlowId, now: UnixTime) -> FlowFuture<'_, Flow> {
        (**self).get(id, now)
    }
    fn open(
        &self,
        id: &FlowId,
        principal: &str,
        browser: &str,
        now: UnixTime,
    ) -> FlowFuture<'_, Flow> {
        (**self).open(id, principal, browser, now)
    }
    fn claim(
        &self,
        id: &FlowId,
        principal: &str,
        browser: &str,
        lease: Duration,
        now: UnixTime,
    ) -> FlowFuture<'_, Claim> {
        (**self).claim(id, principal, browser, lease, now)
    }
    fn finish(
        &self,
        claim: &Claim,
        result: Result<Value, String>,
        now: UnixTime,
    ) -> FlowFuture<'_, Flow> {
        (**self).finish(claim, result, now)
    }
    fn release(&self, claim: &Claim, now: UnixTime) -> FlowFuture<'_, Flow> {
        (**self).release(claim, now)
    }
    fn abandon(
        &self,
        id: &FlowId,
        principal: &str,
        why: Abandonment,
        now: UnixTime,
    ) -> FlowFuture<'_, Flow> {
        (**self).abandon(id, principal, why, now)
    }
    fn finished(&self, id: &FlowId) -> FlowFuture<'_, Flow> {
        (**self).finished(id)
    }
    fn end_session(
        &self,
        session: &StateId,
        principal: &str,
        until: UnixTime,
        now: UnixTime,
    ) -> FlowFuture<'_, ()> {
        (**self).end_session(session, principal, until, now)
    }
    fn session_ended(&self, session: &StateId, now: UnixTime) -> FlowFuture<'_, bool> {
        (**self).session_ended(session, now)
    }
}

#[cfg(test)]
mod tests;
