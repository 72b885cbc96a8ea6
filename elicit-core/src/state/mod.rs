//! Sealed, typed `requestState` for multi round-trip requests, and the replay guard.
//!
//! A server that answers with an `InputRequiredResult` carries whatever it must remember in
//! `requestState`, which the client echoes back on its retry. The spec requires the server to
//! treat that echo as attacker-controlled, to protect its integrity, and recommends binding it
//! to the principal, the originating request and a short expiry; single use it leaves to the
//! server. This module does all of that:
//!
//! - [`StateKeys::seal`] turns any `S: Serialize` into an opaque base64url string, encrypted and
//!   authenticated with AES-256-GCM-SIV and bound to a [`Binding`] (principal, method,
//!   [`ParamsDigest`]) and an expiry.
//! - [`StateKeys::open`] checks every one of those and hands back an [`Opened<S>`], or a
//!   [`StateError`] naming the check that failed, with its JSON-RPC error code.
//! - [`StateKeys`] holds several keys, so keys rotate without breaking states in flight;
//!   [`StateKeys::from_env`] reads them as `<key id>:<64 hex digits>[,...]`, and
//!   [`StateKeys::generate`] makes one for a single process.
//! - A [`ReplayGuard`] ([`MemoryReplayGuard`], or `RedisReplayGuard` for a fleet) makes an
//!   opened state redeemable once.
//!
//! The wire format is described in the source of the `sealed` module; clients must treat it as
//! opaque, and so should servers: it may change with the version byte.
//!
//! ```
//! # extern crate elicit_core as mcp_elicit;
//! use std::time::Duration;
//! use mcp_elicit::state::{Binding, MemoryReplayGuard, ParamsDigest, StateKeys, UnixTime};
//! use serde::{Deserialize, Serialize};
//! use serde_json::json;
//!
//! #[derive(Serialize, Deserialize, Debug, PartialEq)]
//! struct Checkout { cart: u64, step: u8 }
//!
//! # // A test value; a server's comes from its secret store.
//! # unsafe { std::env::set_var("ELICIT_STATE_KEYS", format!("1:{}", "5a".repeat(32))) };
//! // Once, at start-up: the same keys on every replica, e.g. ELICIT_STATE_KEYS="1:<64 hex
//! // digits>" from `openssl rand -hex 32`; "2:<new>,1:<old>" while rotating.
//! let keys = StateKeys::from_env("ELICIT_STATE_KEYS")?;
//! let guard = MemoryReplayGuard::new();
//!
//! // First round: the tool needs input. Bind the state to who asked and what they asked.
//! let params = json!({ "name": "checkout", "arguments": { "cart": 7 } });
//! let binding = Binding {
//!     principal: "user-8f3a",
//!     method: "tools/call",
//!     params_digest: ParamsDigest::of_request_params(&params),
//! };
//! let now = UnixTime::now();
//! let request_state = keys.seal(&Checkout { cart: 7, step: 1 }, &binding, Duration::from_secs(600), now)?;
//!
//! // The retry: same principal, same method, same params plus `inputResponses`/`requestState`.
//! let retry = json!({
//!     "name": "checkout", "arguments": { "cart": 7 },
//!     "inputResponses": { "confirm": { "action": "accept" } },
//!     "requestState": request_state,
//! });
//! let binding = Binding { params_digest: ParamsDigest::of_request_params(&retry), ..binding };
//! let opened = keys.open::<Checkout>(&request_state, &binding, now)?;
//! guard.redeem_now(opened.id(), binding.principal, opened.expires_at(), now)?; // charge once
//! assert_eq!(opened.into_value(), Checkout { cart: 7, step: 1 });
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod binding;
mod error;
mod keys;
mod replay;
mod sealed;
mod time;

pub use self::binding::{Binding, ParamsDigest};
pub use self::error::{
    HexKeyReason, KeyError, KeyListReason, MalformedReason, RedeemError, RequestMismatch,
    SealError, StateError,
};
pub use self::keys::{KeyId, StateKey, StateKeys};
#[cfg(feature = "redis")]
pub use self::replay::RedisReplayGuard;
pub use self::replay::{MemoryReplayGuard, RedeemFuture, ReplayGuard};
pub use self::sealed::{Opened, StateId};
pub use self::time::UnixTime;
