//! The key material: key ids, secret keys, and the set of keys a server seals and opens with.

use std::fmt;

use aes_gcm_siv::{Aes256GcmSiv, KeyInit};
use zeroize::Zeroize;

use super::error::KeyError;

/// Names a [`StateKey`] on the wire, so opening picks the key without trial decryption.
///
/// A `u32` rather than a string: it sits in the clear header of every sealed state at a fixed
/// width (4 bytes, big-endian), so the header needs no length prefix and no parsing beyond
/// reading four bytes. Any numbering works; a counter or a date such as `20260728` both
/// read well in an operator's configuration. Key ids are not secret.
///
/// ```
/// # extern crate elicit_core as mcp_elicit;
/// use mcp_elicit::state::KeyId;
///
/// let id = KeyId::new(20260728);
/// assert_eq!(id.get(), 20260728);
/// assert_eq!(id.to_string(), "20260728");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct KeyId(u32);

impl KeyId {
    /// The key id `id`.
    #[must_use]
    pub const fn new(id: u32) -> Self {
        Self(id)
    }

    /// The number this key id stands for.
    #[must_use]
    pub const fn get(self) -> u32 {
        self.0
    }
}

impl From<u32> for KeyId {
    fn from(id: u32) -> Self {
        Self(id)
    }
}

impl fmt::Display for KeyId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

/// A 256-bit secret key for sealing request state (AES-256-GCM-SIV).
///
/// Generate it once with a CSPRNG ([`StateKey::generate`], or `openssl rand 32`), keep it in the
/// server's secret store, and give every replica the same bytes. Use the key for nothing but
/// request state. Its `Debug` output is redacted and its bytes are wiped when it is dropped.
///
/// ```
/// # extern crate elicit_core as mcp_elicit;
/// use mcp_elicit::state::StateKey;
///
/// let key = StateKey::from_bytes([7; 32]);
/// assert_eq!(format!("{key:?}"), "StateKey(<redacted>)");
/// ```
pub struct StateKey {
    bytes: [u8; StateKey::LEN],
}

impl StateKey {
    /// Length of a key in bytes.
    pub const LEN: usize = 32;

    /// A key from its 32 secret bytes.
    #[must_use]
    pub const fn from_bytes(bytes: [u8; Self::LEN]) -> Self {
        Self { bytes }
    }

    /// A fresh random key from the operating system's CSPRNG.
    ///
    /// # Errors
    /// [`KeyError::RandomnessUnavailable`] if the operating system has no randomness to give.
    ///
    /// ```
    /// # extern crate elicit_core as mcp_elicit;
    /// use mcp_elicit::state::StateKey;
    ///
    /// let key = StateKey::generate()?;
    /// # let _ = key;
    /// # Ok::<(), mcp_elicit::state::KeyError>(())
    /// ```
    pub fn generate() -> Result<Self, KeyError> {
        let mut bytes = [0; Self::LEN];
        getrandom::fill(&mut bytes).map_err(|_| KeyError::RandomnessUnavailable)?;
        Ok(Self { bytes })
    }

    fn cipher(&self) -> Aes256GcmSiv {
        Aes256GcmSiv::new(&self.bytes.into())
    }
}

impl fmt::Debug for StateKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("StateKey(<redacted>)")
    }
}

impl Drop for StateKey {
    fn drop(&mut self) {
        self.bytes.zeroize();
    }
}

/// The keys a server seals request state with and accepts it under: one primary key, which
/// seals, plus any number of older keys that still open what they sealed.
///
/// **Rotation** is three deployments: add the new key as an accepted (non-primary) key
/// everywhere; make it the primary (states sealed by the old key still open); once the longest
/// TTL has passed, remove the old key (its states now fail with
/// [`StateError::UnknownKey`](super::StateError::UnknownKey)). Two `StateKeys` built from the
/// same key material, in different processes, open each other's states: nothing else is shared.
///
/// `Debug` shows the key ids, never the keys.
///
/// ```
/// # extern crate elicit_core as mcp_elicit;
/// use mcp_elicit::state::{KeyId, StateKey, StateKeys};
///
/// // Key 2 is the primary; states sealed under key 1 still open.
/// let keys = StateKeys::new([
///     (KeyId::new(2), StateKey::from_bytes([2; 32])),
///     (KeyId::new(1), StateKey::from_bytes([1; 32])),
/// ])?;
/// assert_eq!(keys.primary_key_id(), KeyId::new(2));
/// assert_eq!(keys.key_ids().collect::<Vec<_>>(), [KeyId::new(2), KeyId::new(1)]);
/// assert_eq!(format!("{keys:?}"), "StateKeys { primary: KeyId(2), accepted: [KeyId(2), KeyId(1)], .. }");
/// # Ok::<(), mcp_elicit::state::KeyError>(())
/// ```
#[derive(Clone)]
pub struct StateKeys {
    pub(super) primary: (KeyId, Aes256GcmSiv),
    /// Keys that open but no longer seal. Rotation keeps this to one or two entries, so a
    /// linear scan beats any map.
    pub(super) previous: Vec<(KeyId, Aes256GcmSiv)>,
}

impl StateKeys {
    /// The key set from `(key id, key)` pairs: **the first pair is the primary** (it seals);
    /// every pair opens.
    ///
    /// # Errors
    /// [`KeyError::NoKeys`] if `keys` is empty; [`KeyError::DuplicateKeyId`] if two pairs share a
    /// key id (which key would open such states would be ambiguous).
    ///
    /// ```
    /// # extern crate elicit_core as mcp_elicit;
    /// use mcp_elicit::state::{KeyError, KeyId, StateKey, StateKeys};
    ///
    /// let none: [(KeyId, StateKey); 0] = [];
    /// assert_eq!(StateKeys::new(none).unwrap_err(), KeyError::NoKeys);
    ///
    /// let twice = StateKeys::new([
    ///     (KeyId::new(1), StateKey::from_bytes([1; 32])),
    ///     (KeyId::new(1), StateKey::from_bytes([2; 32])),
    /// ]);
    /// assert_eq!(twice.unwrap_err(), KeyError::DuplicateKeyId(KeyId::new(1)));
    /// ```
    pub fn new<I>(keys: I) -> Result<Self, KeyError>
    where
        I: IntoIterator<Item = (KeyId, StateKey)>,
    {
        let mut keys = keys.into_iter();
        let (primary_id, primary_key) = keys.next().ok_or(KeyError::NoKeys)?;
        let mut set = Self::single(primary_id, primary_key);
        for (id, key) in keys {
            if set.cipher_for(id).is_some() {
                return Err(KeyError::DuplicateKeyId(id));
            }
            set.previous.push((id, key.cipher()));
        }
        Ok(set)
    }

    /// A key set of one key, which both seals and opens.
    ///
    /// ```
    /// # extern crate elicit_core as mcp_elicit;
    /// use mcp_elicit::state::{KeyId, StateKey, StateKeys};
    ///
    /// let keys = StateKeys::single(KeyId::new(1), StateKey::from_bytes([1; 32]));
    /// assert_eq!(keys.primary_key_id(), KeyId::new(1));
    /// ```
    #[must_use]
    pub fn single(id: KeyId, key: StateKey) -> Self {
        Self {
            primary: (id, key.cipher()),
            previous: Vec::new(),
        }
    }

    /// The id of the key that seals.
    #[must_use]
    pub fn primary_key_id(&self) -> KeyId {
        self.primary.0
    }

    /// Every key id that opens, the primary first.
    pub fn key_ids(&self) -> impl Iterator<Item = KeyId> + '_ {
        std::iter::once(self.primary.0).chain(self.previous.iter().map(|(id, _)| *id))
    }

    /// The cipher for `id`, if it is one of ours.
    pub(super) fn cipher_for(&self, id: KeyId) -> Option<&Aes256GcmSiv> {
        if self.primary.0 == id {
            return Some(&self.primary.1);
        }
        self.previous
            .iter()
            .find_map(|(known, cipher)| (*known == id).then_some(cipher))
    }
}

impl fmt::Debug for StateKeys {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        struct Ids<'a>(&'a StateKeys);
        impl fmt::Debug for Ids<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_list().entries(self.0.key_ids()).finish()
            }
        }
        f.debug_struct("StateKeys")
            .field("primary", &self.primary.0)
            .field("accepted", &Ids(self))
            .finish_non_exhaustive()
    }
}
