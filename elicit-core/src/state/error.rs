//! Why a state would not seal, would not open, or would not redeem — and the JSON-RPC error
//! each reason answers with (its code from the one table, [`JsonRpcError`]).
//!
//! No message here repeats the state text, its contents or a key: a `Display` is safe to log
//! and to send back to the client.

use std::error::Error;
use std::fmt;

use super::{KeyId, UnixTime};
use crate::jsonrpc::JsonRpcError;
use crate::limits::MAX_STATE_LEN;

/// Why [`StateKeys::open`](super::StateKeys::open) rejected a `requestState`.
///
/// Each check has its own variant, so a server can log precisely and decide what to do (e.g.
/// start the flow afresh on [`Expired`](StateError::Expired)). The checks run in this order, and
/// the first that fails is reported: size and encoding ([`Malformed`](StateError::Malformed)),
/// key id ([`UnknownKey`](StateError::UnknownKey)), authenticity
/// ([`Tampered`](StateError::Tampered)), then — on contents now known to be the server's own —
/// [`WrongPrincipal`](StateError::WrongPrincipal), [`WrongRequest`](StateError::WrongRequest),
/// [`Expired`](StateError::Expired) and [`Incompatible`](StateError::Incompatible).
///
/// Every variant answers with JSON-RPC `-32602` (Invalid params): in each case the client sent a
/// `requestState` this server will not act on, and the client can do nothing better than start
/// the request again without it. See [`StateError::to_jsonrpc_error`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum StateError {
    /// Not a sealed state at all: too long (checked before any decoding), too short, not
    /// base64url without padding, or a format version this crate does not read.
    Malformed(MalformedReason),
    /// Sealed under a key id that is not in this server's [`StateKeys`](super::StateKeys): a key
    /// removed by rotation, another deployment's key, or a forged header.
    UnknownKey {
        /// The key id named in the state's header.
        key_id: KeyId,
    },
    /// Authentication failed: some byte of the state was changed, or it was cut short.
    Tampered,
    /// Authentic, but sealed for another principal than the one presenting it.
    WrongPrincipal,
    /// Authentic, but sealed for another request: the method or the parameter digest differs.
    WrongRequest(RequestMismatch),
    /// Authentic and bound to this request, but past its expiry.
    Expired {
        /// When the state expired.
        expired_at: UnixTime,
    },
    /// Authentic and bound to this request, but its value does not deserialize as the type asked
    /// for — typically a deployment changed the state type while states were in flight.
    Incompatible,
}

/// Which size or encoding rule a [`StateError::Malformed`] state broke.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum MalformedReason {
    /// Longer than [`MAX_STATE_LEN`] characters.
    TooLong,
    /// Shorter than the smallest possible sealed state.
    TooShort,
    /// Not base64url without padding.
    NotBase64Url,
    /// A format version this crate does not read.
    UnsupportedVersion,
}

/// Which part of the request a [`StateError::WrongRequest`] state was not sealed for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RequestMismatch {
    /// The JSON-RPC method differs.
    Method,
    /// The digest of the salient parameters differs.
    Params,
}

impl StateError {
    /// The JSON-RPC error to answer with: `-32602` (Invalid params) for every variant, this
    /// error's `Display` as the message, no `data`.
    ///
    /// - `Malformed`, `Tampered`: the parameter is not a valid state.
    /// - `UnknownKey`: indistinguishable, to the client, from a forged state; the remedy (start
    ///   again) is the same.
    /// - `WrongPrincipal`, `WrongRequest`: the state is valid, but not for these params.
    /// - `Expired`, `Incompatible`: the state is no longer usable; a server that would rather
    ///   re-prompt answers with a fresh `InputRequiredResult` instead of an error.
    ///
    /// ```
    /// # extern crate elicit_core as mcp_elicit;
    /// use mcp_elicit::state::StateError;
    ///
    /// let error = StateError::Tampered.to_jsonrpc_error();
    /// assert_eq!((error.code(), error.message()), (-32602, "requestState failed authentication"));
    /// ```
    #[must_use]
    pub fn to_jsonrpc_error(&self) -> JsonRpcError {
        let code = match self {
            Self::Malformed(_)
            | Self::UnknownKey { .. }
            | Self::Tampered
            | Self::WrongPrincipal
            | Self::WrongRequest(_)
            | Self::Expired { .. }
            | Self::Incompatible => JsonRpcError::INVALID_PARAMS,
        };
        JsonRpcError::new(code, self.to_string(), None)
    }
}

impl fmt::Display for StateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Malformed(MalformedReason::TooLong) => write!(
                f,
                "requestState is malformed: longer than {MAX_STATE_LEN} characters"
            ),
            Self::Malformed(MalformedReason::TooShort) => {
                f.write_str("requestState is malformed: too short to be a sealed state")
            }
            Self::Malformed(MalformedReason::NotBase64Url) => {
                f.write_str("requestState is malformed: not base64url without padding")
            }
            Self::Malformed(MalformedReason::UnsupportedVersion) => {
                f.write_str("requestState is malformed: unsupported format version")
            }
            Self::UnknownKey { key_id } => write!(
                f,
                "requestState was sealed with key id {key_id}, which this server does not accept"
            ),
            Self::Tampered => f.write_str("requestState failed authentication"),
            Self::WrongPrincipal => f.write_str("requestState was issued to a different principal"),
            Self::WrongRequest(RequestMismatch::Method) => {
                f.write_str("requestState was issued for a different method")
            }
            Self::WrongRequest(RequestMismatch::Params) => {
                f.write_str("requestState was issued for a request with different parameters")
            }
            Self::Expired { .. } => f.write_str("requestState has expired"),
            Self::Incompatible => {
                f.write_str("requestState does not hold the kind of state this server expects")
            }
        }
    }
}

impl Error for StateError {}

/// Why [`StateKeys::seal`](super::StateKeys::seal) could not seal a state. Each is the server's
/// own problem, so each answers with JSON-RPC `-32603` (Internal error).
#[derive(Debug)]
#[non_exhaustive]
pub enum SealError {
    /// The state value failed to serialize to JSON (e.g. a map with non-string keys).
    Serialize(serde_json::Error),
    /// The sealed state would be longer than [`MAX_STATE_LEN`] characters,
    /// and so would be refused when it came back. Keep large data server-side and seal a
    /// reference to it.
    TooLarge {
        /// Length of the sealed text, in characters.
        len: usize,
    },
    /// The TTL was zero, or the expiry it gives is past the end of time.
    InvalidTtl,
    /// The principal or the method is longer than 65,535 bytes.
    BindingTooLong,
    /// The operating system's random number generator failed.
    RandomnessUnavailable,
}

impl SealError {
    /// `-32603` (Internal error): a state that cannot be sealed is never the client's fault.
    /// The message is this error's `Display`; there is no `data`.
    #[must_use]
    pub fn to_jsonrpc_error(&self) -> JsonRpcError {
        JsonRpcError::new(JsonRpcError::INTERNAL_ERROR, self.to_string(), None)
    }
}

impl fmt::Display for SealError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Serialize(_) => f.write_str("request state failed to serialize"),
            Self::TooLarge { len } => write!(
                f,
                "sealed request state would be {len} characters, over the limit of {MAX_STATE_LEN}"
            ),
            Self::InvalidTtl => f.write_str("request state TTL must be non-zero and finite"),
            Self::BindingTooLong => {
                f.write_str("request state principal or method is longer than 65535 bytes")
            }
            Self::RandomnessUnavailable => f.write_str("no randomness available to seal state"),
        }
    }
}

impl Error for SealError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match self {
            Self::Serialize(error) => Some(error),
            _ => None,
        }
    }
}

/// Why a [`StateKeys`](super::StateKeys) or a [`StateKey`](super::StateKey) could not be made.
///
/// No message, and no `Debug` output, holds key material: a bad key is described by its length
/// or by the position of its first bad character, never by its text. A `Display` is safe to log.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum KeyError {
    /// No keys were given (or the key list is empty); at least the primary key is needed.
    NoKeys,
    /// Two keys were given the same key id.
    DuplicateKeyId(KeyId),
    /// The operating system's random number generator failed.
    RandomnessUnavailable,
    /// A key given as hex ([`StateKey::from_hex`](super::StateKey::from_hex)) is not 64 hex
    /// digits.
    MalformedHexKey(HexKeyReason),
    /// An item of a key list ([`StateKeys::parse`](super::StateKeys::parse)) is not
    /// `<key id>:<64 hex digits>`.
    MalformedKeyList {
        /// Which item, counting from 1.
        item: usize,
        /// The rule it broke.
        reason: KeyListReason,
    },
    /// The environment variable [`StateKeys::from_env`](super::StateKeys::from_env) reads is not
    /// set.
    EnvVarNotSet {
        /// The variable's name.
        var: String,
    },
    /// The environment variable [`StateKeys::from_env`](super::StateKeys::from_env) reads is not
    /// valid Unicode (and so cannot be a key list).
    EnvVarNotUnicode {
        /// The variable's name.
        var: String,
    },
}

/// Which rule a key given as hex broke ([`KeyError::MalformedHexKey`], or
/// [`KeyListReason::Key`] inside a key list). Surrounding ASCII whitespace is not counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum HexKeyReason {
    /// Not 64 characters long.
    WrongLength {
        /// How many characters there are.
        found: usize,
    },
    /// 64 characters long, but one is not a hex digit (`0-9`, `a-f`, `A-F`).
    NotHexDigit {
        /// The first such character's position, counting characters from 1.
        position: usize,
    },
}

/// Which rule an item of a key list broke ([`KeyError::MalformedKeyList`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum KeyListReason {
    /// Nothing (or only whitespace) between two commas, or after a trailing comma.
    EmptyItem,
    /// No `:` between the key id and the key.
    MissingColon,
    /// The key id is not a decimal number from 0 to 4294967295 (a `u32`).
    InvalidKeyId,
    /// The key is not 64 hex digits.
    Key(HexKeyReason),
}

impl fmt::Display for HexKeyReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::WrongLength { found } => write!(
                f,
                "must be 64 hex digits (32 bytes, e.g. from `openssl rand -hex 32`), \
                 found {found} characters"
            ),
            Self::NotHexDigit { position } => write!(
                f,
                "must be 64 hex digits, but character {position} is not one (0-9, a-f, A-F)"
            ),
        }
    }
}

impl fmt::Display for KeyListReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::EmptyItem => f.write_str(
                "is empty; write `<key id>:<64 hex digits>`, items separated by single commas",
            ),
            Self::MissingColon => {
                f.write_str("has no `:`; write `<key id>:<64 hex digits>`, e.g. `1:` and the key")
            }
            Self::InvalidKeyId => {
                f.write_str("has a key id that is not a decimal number from 0 to 4294967295")
            }
            Self::Key(reason) => write!(f, "has a key that {reason}"),
        }
    }
}

impl fmt::Display for KeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NoKeys => {
                f.write_str("no state keys given; at least one (the primary) is needed")
            }
            Self::DuplicateKeyId(id) => write!(
                f,
                "state key id {id} is given twice; every key needs its own id"
            ),
            Self::RandomnessUnavailable => {
                f.write_str("no randomness available to generate a state key")
            }
            Self::MalformedHexKey(reason) => write!(f, "a state key {reason}"),
            Self::MalformedKeyList { item, reason } => {
                write!(f, "state key list: item {item} {reason}")
            }
            Self::EnvVarNotSet { var } => write!(
                f,
                "environment variable `{var}` is not set; it must hold the state keys as \
                 `<key id>:<64 hex digits>[,<key id>:<64 hex digits>...]`"
            ),
            Self::EnvVarNotUnicode { var } => write!(
                f,
                "environment variable `{var}` is not valid Unicode; it must hold the state keys \
                 as `<key id>:<64 hex digits>[,<key id>:<64 hex digits>...]`"
            ),
        }
    }
}

impl Error for KeyError {}

/// Why a [`ReplayGuard`](super::ReplayGuard) refused to redeem a state.
#[derive(Debug)]
#[non_exhaustive]
pub enum RedeemError {
    /// The state was redeemed before: this presentation is a replay. JSON-RPC `-32602`.
    AlreadyRedeemed,
    /// The guard could not decide (e.g. Redis unreachable, or the in-memory guard full), so it
    /// refuses: a single-use operation must fail closed. JSON-RPC `-32603`. The cause is the
    /// [`source`](Error::source), kept out of the message because it may name infrastructure.
    Unavailable(Box<dyn Error + Send + Sync + 'static>),
}

impl RedeemError {
    /// `-32602` (Invalid params) for [`AlreadyRedeemed`](RedeemError::AlreadyRedeemed), the
    /// client's doing; `-32603` (Internal error) for [`Unavailable`](RedeemError::Unavailable),
    /// the server's. The message is this error's `Display` (never the cause); there is no
    /// `data`.
    ///
    /// ```
    /// # extern crate elicit_core as mcp_elicit;
    /// use mcp_elicit::state::RedeemError;
    ///
    /// assert_eq!(RedeemError::AlreadyRedeemed.to_jsonrpc_error().code(), -32602);
    /// ```
    #[must_use]
    pub fn to_jsonrpc_error(&self) -> JsonRpcError {
        let code = match self {
            Self::AlreadyRedeemed => JsonRpcError::INVALID_PARAMS,
            Self::Unavailable(_) => JsonRpcError::INTERNAL_ERROR,
        };
        JsonRpcError::new(code, self.to_string(), None)
    }
}

impl fmt::Display for RedeemError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::AlreadyRedeemed => f.write_str("requestState has already been used"),
            Self::Unavailable(_) => f.write_str("the replay guard is unavailable"),
        }
    }
}

impl Error for RedeemError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match self {
            Self::AlreadyRedeemed => None,
            Self::Unavailable(cause) => Some(&**cause),
        }
    }
}
