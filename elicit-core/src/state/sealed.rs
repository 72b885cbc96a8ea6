//! Sealing and opening: the wire format of a `requestState`.
//!
//! ```text
//! text      = base64url-no-pad(sealed)                       at most MAX_STATE_LEN characters
//! sealed    = header || nonce || ciphertext || tag
//! header    = version (1 byte, 0x01) || key id (u32, big-endian)   in the clear, the AAD
//! nonce     = 12 random bytes                                      AES-256-GCM-SIV (RFC 8452)
//! tag       = 16 bytes                                             POLYVAL, encrypted
//! plaintext = state id (16 random bytes)
//!          || issued at (u64 BE, Unix seconds) || expires at (u64 BE, Unix seconds)
//!          || params digest (32 bytes)
//!          || principal length (u16 BE) || principal (UTF-8)
//!          || method length (u16 BE) || method (UTF-8)
//!          || value (JSON)
//! ```
//!
//! The header is authenticated as associated data, so the key id is bound to the state as
//! firmly as anything inside it, without being repeated there. The nonce is random (96 bits).
//! AES-GCM-SIV derives a fresh key for every nonce, and it is nonce-misuse resistant: were a
//! nonce ever drawn twice under one key, that would reveal only whether the two states are
//! identical, never a key stream or a forgery (RFC 8452).

use std::time::Duration;

use aes_gcm_siv::aead::AeadInOut;
use aes_gcm_siv::{Nonce, Tag};
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::error::{MalformedReason, RequestMismatch, SealError, StateError};
use super::{Binding, KeyId, ParamsDigest, RedeemFuture, ReplayGuard, StateKeys, UnixTime};

use crate::limits::MAX_STATE_LEN;

const VERSION: u8 = 1;
const HEADER_LEN: usize = 1 + 4;
const NONCE_LEN: usize = 12;
const TAG_LEN: usize = 16;
const STATE_ID_LEN: usize = 16;
/// State id, issued at, expires at, params digest, two length prefixes.
const FIXED_PLAINTEXT_LEN: usize = STATE_ID_LEN + 8 + 8 + ParamsDigest::LEN + 2 + 2;
/// The shortest text that can hold a header, a nonce and a tag.
const MIN_STATE_LEN: usize = (4 * (HEADER_LEN + NONCE_LEN + TAG_LEN)).div_ceil(3);
/// Room for a typical state value before the buffer has to grow.
const VALUE_CAPACITY_HINT: usize = 256;

/// Identifies one sealed state: 128 random bits drawn when it was sealed, the key under which a
/// [`ReplayGuard`] records that it has been redeemed. Shown as 32 lowercase hex digits.
///
/// ```
/// # extern crate elicit_core as mcp_elicit;
/// use mcp_elicit::state::StateId;
///
/// let id = StateId::from_bytes([0xab; 16]);
/// assert_eq!(id.to_string(), "abababababababababababababababab");
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct StateId([u8; STATE_ID_LEN]);

impl StateId {
    /// Length of a state id in bytes.
    pub const LEN: usize = STATE_ID_LEN;

    /// A state id from its bytes (for a [`ReplayGuard`]'s own tests).
    #[must_use]
    pub const fn from_bytes(bytes: [u8; Self::LEN]) -> Self {
        Self(bytes)
    }

    /// The id's bytes.
    #[must_use]
    pub const fn as_bytes(&self) -> &[u8; Self::LEN] {
        &self.0
    }
}

impl std::fmt::Display for StateId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.iter().try_for_each(|byte| write!(f, "{byte:02x}"))
    }
}

impl std::fmt::Debug for StateId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "StateId({self})")
    }
}

/// A state that [`StateKeys::open`] verified: the value, and what a [`ReplayGuard`] needs to
/// enforce single use.
///
/// Opening proves the state is the server's own, unexpired, and bound to this principal and
/// request; it does not prove it is the first use. For an operation that must happen at most once,
/// [`redeem_once`](Opened::redeem_once) it before acting.
#[derive(Clone, Debug)]
pub struct Opened<S> {
    value: S,
    id: StateId,
    issued_at: UnixTime,
    expires_at: UnixTime,
    key_id: KeyId,
}

impl<S> Opened<S> {
    /// The state value.
    pub fn value(&self) -> &S {
        &self.value
    }

    /// The state value, taken out.
    pub fn into_value(self) -> S {
        self.value
    }

    /// The state's unique id, the key for a [`ReplayGuard`].
    pub fn id(&self) -> StateId {
        self.id
    }

    /// When the state was sealed.
    pub fn issued_at(&self) -> UnixTime {
        self.issued_at
    }

    /// When the state expires; a [`ReplayGuard`] keeps its record at least until then.
    pub fn expires_at(&self) -> UnixTime {
        self.expires_at
    }

    /// The key that sealed the state. A state sealed under a key other than
    /// [`StateKeys::primary_key_id`] predates the last rotation.
    pub fn key_id(&self) -> KeyId {
        self.key_id
    }

    /// Records this state as redeemed in `guard`, failing with
    /// [`RedeemError::AlreadyRedeemed`](super::RedeemError::AlreadyRedeemed) if it already was.
    /// Shorthand for `guard.redeem(self.id(), principal, self.expires_at(), now)`, where
    /// `principal` is the [`Binding`]'s the state opened for.
    pub fn redeem_once<'g, G>(
        &self,
        guard: &'g G,
        principal: &str,
        now: UnixTime,
    ) -> RedeemFuture<'g>
    where
        G: ReplayGuard + ?Sized,
    {
        guard.redeem(self.id, principal, self.expires_at, now)
    }
}

impl StateKeys {
    /// Seals `state` under the primary key, bound to `binding`, to expire `ttl` after `now`
    /// (rounded up to whole seconds). The result is the `requestState` text: base64url without
    /// padding, at most [`MAX_STATE_LEN`] characters.
    ///
    /// Choose the TTL to cover the time a user needs to answer plus clock skew between replicas;
    /// minutes, not hours.
    ///
    /// # Errors
    /// [`SealError`]: the value does not serialize, the result would be too large, the TTL is
    /// zero, the principal or method is over 65,535 bytes, or the OS has no randomness.
    ///
    /// ```
    /// # extern crate elicit_core as mcp_elicit;
    /// use std::time::Duration;
    /// use mcp_elicit::state::{Binding, ParamsDigest, StateKeys, UnixTime};
    /// use serde_json::json;
    ///
    /// let keys = StateKeys::generate()?;
    /// let binding = Binding {
    ///     principal: "user-8f3a",
    ///     method: "tools/call",
    ///     params_digest: ParamsDigest::of(&json!({ "name": "deploy" })),
    /// };
    /// let text = keys.seal(&("step", 2), &binding, Duration::from_secs(600), UnixTime::now())?;
    /// assert!(text.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn seal<S>(
        &self,
        state: &S,
        binding: &Binding<'_>,
        ttl: Duration,
        now: UnixTime,
    ) -> Result<String, SealError>
    where
        S: Serialize + ?Sized,
    {
        let expires_at = now.plus_ttl(ttl).ok_or(SealError::InvalidTtl)?;
        let principal_len =
            u16::try_from(binding.principal.len()).map_err(|_| SealError::BindingTooLong)?;
        let method_len =
            u16::try_from(binding.method.len()).map_err(|_| SealError::BindingTooLong)?;

        // One system call for both: each costs a syscall, and this is on every seal.
        let mut random = [0; NONCE_LEN + STATE_ID_LEN];
        getrandom::fill(&mut random).map_err(|_| SealError::RandomnessUnavailable)?;
        let (nonce, state_id) = random.split_at(NONCE_LEN);
        let nonce: [u8; NONCE_LEN] = nonce
            .try_into()
            .map_err(|_| SealError::RandomnessUnavailable)?;

        let (key_id, cipher) = &self.primary;
        let header = header(*key_id);

        let mut sealed = Vec::with_capacity(
            HEADER_LEN
                + NONCE_LEN
                + FIXED_PLAINTEXT_LEN
                + binding.principal.len()
                + binding.method.len()
                + VALUE_CAPACITY_HINT
                + TAG_LEN,
        );
        sealed.extend_from_slice(&header);
        sealed.extend_from_slice(&nonce);
        let plaintext_start = sealed.len();
        sealed.extend_from_slice(state_id);
        sealed.extend_from_slice(&now.as_secs().to_be_bytes());
        sealed.extend_from_slice(&expires_at.as_secs().to_be_bytes());
        sealed.extend_from_slice(binding.params_digest.as_bytes());
        sealed.extend_from_slice(&principal_len.to_be_bytes());
        sealed.extend_from_slice(binding.principal.as_bytes());
        sealed.extend_from_slice(&method_len.to_be_bytes());
        sealed.extend_from_slice(binding.method.as_bytes());
        serde_json::to_writer(&mut sealed, state).map_err(SealError::Serialize)?;

        let len = base64::encoded_len(sealed.len() + TAG_LEN, false).unwrap_or(usize::MAX);
        if len > MAX_STATE_LEN {
            return Err(SealError::TooLarge { len });
        }

        let (_, plaintext) = sealed.split_at_mut(plaintext_start);
        let tag = cipher
            .encrypt_inout_detached(&Nonce::from(nonce), &header, plaintext.into())
            .map_err(|_| SealError::TooLarge { len })?;
        sealed.extend_from_slice(&tag);
        Ok(URL_SAFE_NO_PAD.encode(&sealed))
    }

    /// Opens a `requestState` sealed by [`seal`](StateKeys::seal) under any of these keys, checks
    /// it against `binding` and `now`, and deserializes its value as `S`.
    ///
    /// The text is treated as attacker-controlled: its length is checked before anything is
    /// decoded, no input makes this panic, and every way of failing has its own [`StateError`]
    /// variant (see there for the order of the checks). For single use, follow with
    /// [`Opened::redeem_once`].
    ///
    /// # Errors
    /// [`StateError`], whose [`to_jsonrpc_error`](StateError::to_jsonrpc_error) is the answer to send.
    ///
    /// ```
    /// # extern crate elicit_core as mcp_elicit;
    /// use std::time::Duration;
    /// use mcp_elicit::state::{Binding, ParamsDigest, StateError, StateKeys, UnixTime};
    /// use serde_json::json;
    ///
    /// let keys = StateKeys::generate()?;
    /// let binding = Binding {
    ///     principal: "user-8f3a",
    ///     method: "tools/call",
    ///     params_digest: ParamsDigest::of(&json!({ "name": "deploy" })),
    /// };
    /// let now = UnixTime::from_secs(1_800_000_000);
    /// let text = keys.seal(&vec![1, 2, 3], &binding, Duration::from_secs(600), now)?;
    ///
    /// let opened = keys.open::<Vec<u8>>(&text, &binding, now)?;
    /// assert_eq!(opened.value(), &[1, 2, 3]);
    /// assert_eq!(opened.expires_at(), UnixTime::from_secs(1_800_000_600));
    ///
    /// let someone_else = Binding { principal: "user-0000", ..binding };
    /// assert_eq!(keys.open::<Vec<u8>>(&text, &someone_else, now).unwrap_err(), StateError::WrongPrincipal);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn open<S>(
        &self,
        text: &str,
        binding: &Binding<'_>,
        now: UnixTime,
    ) -> Result<Opened<S>, StateError>
    where
        S: DeserializeOwned,
    {
        let malformed = StateError::Malformed;
        if text.len() > MAX_STATE_LEN {
            return Err(malformed(MalformedReason::TooLong));
        }
        if text.len() < MIN_STATE_LEN {
            return Err(malformed(MalformedReason::TooShort));
        }
        let mut sealed = URL_SAFE_NO_PAD
            .decode(text)
            .map_err(|_| malformed(MalformedReason::NotBase64Url))?;

        let (&mut header, rest) = sealed
            .split_first_chunk_mut::<HEADER_LEN>()
            .ok_or(malformed(MalformedReason::TooShort))?;
        let [version, key_id @ ..] = header;
        if version != VERSION {
            return Err(malformed(MalformedReason::UnsupportedVersion));
        }
        let key_id = KeyId::new(u32::from_be_bytes(key_id));
        let cipher = self
            .cipher_for(key_id)
            .ok_or(StateError::UnknownKey { key_id })?;

        let (nonce, rest) = rest
            .split_first_chunk_mut::<NONCE_LEN>()
            .ok_or(malformed(MalformedReason::TooShort))?;
        let (ciphertext, tag) = rest
            .split_last_chunk_mut::<TAG_LEN>()
            .ok_or(malformed(MalformedReason::TooShort))?;
        cipher
            .decrypt_inout_detached(
                &Nonce::from(*nonce),
                &header,
                ciphertext.into(),
                &Tag::from(*tag),
            )
            .map_err(|_| StateError::Tampered)?;

        // From here on the bytes are the server's own; a layout that does not parse means a
        // state this version cannot read.
        let plaintext = Plaintext::parse(ciphertext).ok_or(StateError::Incompatible)?;
        if plaintext.principal != binding.principal.as_bytes() {
            return Err(StateError::WrongPrincipal);
        }
        if plaintext.method != binding.method.as_bytes() {
            return Err(StateError::WrongRequest(RequestMismatch::Method));
        }
        if plaintext.params_digest != binding.params_digest.as_bytes() {
            return Err(StateError::WrongRequest(RequestMismatch::Params));
        }
        if now >= plaintext.expires_at {
            return Err(StateError::Expired {
                expired_at: plaintext.expires_at,
            });
        }
        let value =
            serde_json::from_slice(plaintext.value).map_err(|_| StateError::Incompatible)?;
        Ok(Opened {
            value,
            id: plaintext.id,
            issued_at: plaintext.issued_at,
            expires_at: plaintext.expires_at,
            key_id,
        })
    }
}

fn header(key_id: KeyId) -> [u8; HEADER_LEN] {
    let [a, b, c, d] = key_id.get().to_be_bytes();
    [VERSION, a, b, c, d]
}

/// The decrypted contents, borrowed from the decryption buffer.
struct Plaintext<'a> {
    id: StateId,
    issued_at: UnixTime,
    expires_at: UnixTime,
    params_digest: &'a [u8; ParamsDigest::LEN],
    principal: &'a [u8],
    method: &'a [u8],
    value: &'a [u8],
}

impl<'a> Plaintext<'a> {
    fn parse(bytes: &'a [u8]) -> Option<Self> {
        let (id, rest) = bytes.split_first_chunk::<STATE_ID_LEN>()?;
        let (issued_at, rest) = rest.split_first_chunk::<8>()?;
        let (expires_at, rest) = rest.split_first_chunk::<8>()?;
        let (params_digest, rest) = rest.split_first_chunk::<{ ParamsDigest::LEN }>()?;
        let (principal, rest) = length_prefixed(rest)?;
        let (method, value) = length_prefixed(rest)?;
        Some(Self {
            id: StateId(*id),
            issued_at: UnixTime::from_secs(u64::from_be_bytes(*issued_at)),
            expires_at: UnixTime::from_secs(u64::from_be_bytes(*expires_at)),
            params_digest,
            principal,
            method,
            value,
        })
    }
}

fn length_prefixed(bytes: &[u8]) -> Option<(&[u8], &[u8])> {
    let (len, rest) = bytes.split_first_chunk::<2>()?;
    rest.split_at_checked(usize::from(u16::from_be_bytes(*len)))
}
