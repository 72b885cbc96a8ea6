//! The key material: key ids, secret keys, and the set of keys a server seals and opens with.

use std::fmt;

use aes_gcm_siv::{Aes256GcmSiv, KeyInit};
use zeroize::Zeroize;

use super::error::{HexKeyReason, KeyError, KeyListReason};

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
/// Generate it once with a CSPRNG (`openssl rand -hex 32`, or [`StateKey::generate`]), keep it
/// in the server's secret store, and give every replica the same key — usually as a key list
/// read by [`StateKeys::from_env`]. Use the key for nothing but request state. Its `Debug`
/// output is redacted and its bytes are wiped when it is dropped.
///
/// ```
/// # extern crate elicit_core as mcp_elicit;
/// use mcp_elicit::state::StateKey;
///
/// let key = StateKey::generate()?;
/// assert_eq!(format!("{key:?}"), "StateKey(<redacted>)");
/// # Ok::<(), mcp_elicit::state::KeyError>(())
/// ```
pub struct StateKey {
    bytes: [u8; StateKey::LEN],
}

impl StateKey {
    /// Length of a key in bytes.
    pub const LEN: usize = 32;

    /// A key from its 32 secret bytes, e.g. as your secret store hands them over. (A constant
    /// key in source code is for tests only: anyone who reads the code can forge states.)
    #[must_use]
    pub const fn from_bytes(bytes: [u8; Self::LEN]) -> Self {
        Self { bytes }
    }

    /// A key from 64 hex digits, either case, as `openssl rand -hex 32` prints them; ASCII
    /// whitespace around them (a trailing newline) is ignored.
    ///
    /// # Errors
    /// [`KeyError::MalformedHexKey`]: [`WrongLength`](HexKeyReason::WrongLength) with the
    /// number of characters found, or [`NotHexDigit`](HexKeyReason::NotHexDigit) with the
    /// position of the first character that is not a hex digit. Neither the error's `Display`
    /// nor its `Debug` repeats any of the text.
    ///
    /// ```
    /// # extern crate elicit_core as mcp_elicit;
    /// use mcp_elicit::state::{HexKeyReason, KeyError, StateKey};
    ///
    /// # fn secret_store(_: &str) -> String { format!("{}\n", "5a".repeat(32)) }
    /// let key = StateKey::from_hex(&secret_store("elicit-state-key"))?;
    /// # let _ = key;
    ///
    /// let short = StateKey::from_hex("5a5a5a").unwrap_err();
    /// assert_eq!(short, KeyError::MalformedHexKey(HexKeyReason::WrongLength { found: 6 }));
    /// assert_eq!(
    ///     short.to_string(),
    ///     "a state key must be 64 hex digits (32 bytes, e.g. from `openssl rand -hex 32`), \
    ///      found 6 characters",
    /// );
    /// # Ok::<(), KeyError>(())
    /// ```
    pub fn from_hex(hex: &str) -> Result<Self, KeyError> {
        Self::decode_hex(hex).map_err(KeyError::MalformedHexKey)
    }

    fn decode_hex(hex: &str) -> Result<Self, HexKeyReason> {
        let hex = hex.trim_ascii();
        let found = hex.chars().count();
        if found != 2 * Self::LEN {
            return Err(HexKeyReason::WrongLength { found });
        }
        // Decoded in place, with no buffer of our own: on an error, `Drop` wipes the part
        // already written.
        let mut key = Self {
            bytes: [0; Self::LEN],
        };
        let mut digits = (1..).zip(hex.chars());
        for byte in &mut key.bytes {
            // Two digits a byte: the length check above leaves exactly enough.
            for (position, digit) in digits.by_ref().take(2) {
                let nibble = digit
                    .to_digit(16)
                    .ok_or(HexKeyReason::NotHexDigit { position })?;
                *byte = (*byte << 4) | nibble as u8;
            }
        }
        Ok(key)
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
/// A server usually reads them at start-up with [`StateKeys::from_env`], from a key list such
/// as `ELICIT_STATE_KEYS="1:<64 hex digits>"` (the key from `openssl rand -hex 32`), the same on
/// every replica. Two `StateKeys` built from the same key material, in different processes,
/// open each other's states: nothing else is shared. A single process that never restarts in
/// the middle of a round can use [`StateKeys::generate`] instead.
///
/// **Rotation** is three deployments: add the new key as an accepted (non-primary) key
/// everywhere (`"1:<old>,2:<new>"`); make it the primary (`"2:<new>,1:<old>"`: states sealed by
/// the old key still open); once the longest TTL has passed, remove the old key (`"2:<new>"`:
/// its states now fail with [`StateError::UnknownKey`](super::StateError::UnknownKey)).
///
/// `Debug` shows the key ids, never the keys.
///
/// ```
/// # extern crate elicit_core as mcp_elicit;
/// use mcp_elicit::state::{KeyId, StateKeys};
///
/// # // A test value; a server's comes from its secret store.
/// # let (new, old) = ("b7".repeat(32), "a1".repeat(32));
/// # unsafe { std::env::set_var("ELICIT_STATE_KEYS", format!("2:{new},1:{old}")) };
/// // ELICIT_STATE_KEYS="2:<new>,1:<old>": key 2 seals; states sealed under key 1 still open.
/// let keys = StateKeys::from_env("ELICIT_STATE_KEYS")?;
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
    ///     (KeyId::new(1), StateKey::generate()?),
    ///     (KeyId::new(1), StateKey::generate()?),
    /// ]);
    /// assert_eq!(twice.unwrap_err(), KeyError::DuplicateKeyId(KeyId::new(1)));
    /// # Ok::<(), KeyError>(())
    /// ```
    pub fn new<I>(keys: I) -> Result<Self, KeyError>
    where
        I: IntoIterator<Item = (KeyId, StateKey)>,
    {
        let mut keys = keys.into_iter();
        let (primary_id, primary_key) = keys.next().ok_or(KeyError::NoKeys)?;
        let mut set = Self::single(primary_id, primary_key);
        for (id, key) in keys {
            set.accept(id, key)?;
        }
        Ok(set)
    }

    /// The key set written as `<key id>:<64 hex digits>[,<key id>:<64 hex digits>...]`: key ids
    /// are `u32` in decimal, keys as [`StateKey::from_hex`] reads them, and ASCII whitespace
    /// around an item, a key id or a key is ignored. As with [`StateKeys::new`], **the first
    /// item is the primary** (it seals); every item opens. `"2:<new>,1:<old>"` is the middle
    /// step of a rotation.
    ///
    /// # Errors
    /// [`KeyError::NoKeys`] for empty (or all-whitespace) text; [`KeyError::MalformedKeyList`]
    /// naming the first bad item (from 1) and the rule it broke ([`KeyListReason`]);
    /// [`KeyError::DuplicateKeyId`] if two items share a key id. No error repeats any of the
    /// text.
    ///
    /// ```
    /// # extern crate elicit_core as mcp_elicit;
    /// use mcp_elicit::state::{HexKeyReason, KeyError, KeyId, KeyListReason, StateKeys};
    ///
    /// # let (new, old) = ("b7".repeat(32), "a1".repeat(32));
    /// let keys = StateKeys::parse(&format!("2:{new}, 1:{old}"))?;
    /// assert_eq!(keys.key_ids().collect::<Vec<_>>(), [KeyId::new(2), KeyId::new(1)]);
    ///
    /// let cut_short = StateKeys::parse(&format!("2:{new},1:{}", &old[1..])).unwrap_err();
    /// assert_eq!(cut_short, KeyError::MalformedKeyList {
    ///     item: 2,
    ///     reason: KeyListReason::Key(HexKeyReason::WrongLength { found: 63 }),
    /// });
    /// assert_eq!(
    ///     cut_short.to_string(),
    ///     "state key list: item 2 has a key that must be 64 hex digits \
    ///      (32 bytes, e.g. from `openssl rand -hex 32`), found 63 characters",
    /// );
    /// # Ok::<(), KeyError>(())
    /// ```
    pub fn parse(list: &str) -> Result<Self, KeyError> {
        if list.trim_ascii().is_empty() {
            return Err(KeyError::NoKeys);
        }
        let mut set: Option<Self> = None;
        for (item, text) in (1..).zip(list.split(',')) {
            let (id, key) =
                parse_item(text).map_err(|reason| KeyError::MalformedKeyList { item, reason })?;
            match &mut set {
                None => set = Some(Self::single(id, key)),
                Some(set) => set.accept(id, key)?,
            }
        }
        set.ok_or(KeyError::NoKeys)
    }

    /// [`StateKeys::parse`] of the environment variable `var`: how a server gets its keys
    /// from a secret store without putting them in code or on a command line. The text read is
    /// wiped once parsed (the process environment itself keeps its copy).
    ///
    /// # Errors
    /// [`KeyError::EnvVarNotSet`] or [`KeyError::EnvVarNotUnicode`], naming `var`; otherwise
    /// those of [`StateKeys::parse`].
    ///
    /// ```
    /// # extern crate elicit_core as mcp_elicit;
    /// use mcp_elicit::state::{KeyError, KeyId, StateKeys};
    ///
    /// # unsafe { std::env::set_var("ELICIT_STATE_KEYS", format!("1:{}", "5a".repeat(32))) };
    /// // ELICIT_STATE_KEYS="1:$(openssl rand -hex 32)", the same on every replica.
    /// let keys = StateKeys::from_env("ELICIT_STATE_KEYS")?;
    /// assert_eq!(keys.primary_key_id(), KeyId::new(1));
    ///
    /// let unset = StateKeys::from_env("NO_SUCH_VARIABLE").unwrap_err();
    /// assert_eq!(unset, KeyError::EnvVarNotSet { var: "NO_SUCH_VARIABLE".into() });
    /// # Ok::<(), KeyError>(())
    /// ```
    pub fn from_env(var: &str) -> Result<Self, KeyError> {
        let value = std::env::var_os(var).ok_or_else(|| KeyError::EnvVarNotSet {
            var: var.to_owned(),
        })?;
        match value.into_string() {
            Ok(mut list) => {
                let keys = Self::parse(&list);
                list.zeroize();
                keys
            }
            Err(not_unicode) => {
                not_unicode.into_encoded_bytes().zeroize();
                Err(KeyError::EnvVarNotUnicode {
                    var: var.to_owned(),
                })
            }
        }
    }

    /// One fresh random key, with a random id, for a server that runs as a single process.
    /// States sealed with it die with the process: after a restart, and on any other replica,
    /// they fail as [`StateError::UnknownKey`](super::StateError::UnknownKey) (the id is not
    /// theirs), and the client starts its request again. A fleet of replicas cannot share
    /// generated keys; it, and a server that may restart in the middle of a round, reads one key
    /// list on every replica with [`StateKeys::from_env`] instead.
    ///
    /// # Errors
    /// [`KeyError::RandomnessUnavailable`] if the operating system has no randomness to give.
    ///
    /// ```
    /// # extern crate elicit_core as mcp_elicit;
    /// use mcp_elicit::state::StateKeys;
    ///
    /// let (this_run, next_run) = (StateKeys::generate()?, StateKeys::generate()?);
    /// # let _ = (this_run, next_run);
    /// # Ok::<(), mcp_elicit::state::KeyError>(())
    /// ```
    pub fn generate() -> Result<Self, KeyError> {
        let mut id = [0; 4];
        getrandom::fill(&mut id).map_err(|_| KeyError::RandomnessUnavailable)?;
        Ok(Self::single(
            KeyId::new(u32::from_le_bytes(id)),
            StateKey::generate()?,
        ))
    }

    /// A key set of one key, which both seals and opens.
    ///
    /// ```
    /// # extern crate elicit_core as mcp_elicit;
    /// use mcp_elicit::state::{KeyId, StateKey, StateKeys};
    ///
    /// let keys = StateKeys::single(KeyId::new(1), StateKey::generate()?);
    /// assert_eq!(keys.primary_key_id(), KeyId::new(1));
    /// # Ok::<(), mcp_elicit::state::KeyError>(())
    /// ```
    #[must_use]
    pub fn single(id: KeyId, key: StateKey) -> Self {
        Self {
            primary: (id, key.cipher()),
            previous: Vec::new(),
        }
    }

    /// Adds `key` as one that opens but does not seal.
    fn accept(&mut self, id: KeyId, key: StateKey) -> Result<(), KeyError> {
        if self.cipher_for(id).is_some() {
            return Err(KeyError::DuplicateKeyId(id));
        }
        self.previous.push((id, key.cipher()));
        Ok(())
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

/// One item of a key list, `<key id>:<64 hex digits>`.
fn parse_item(item: &str) -> Result<(KeyId, StateKey), KeyListReason> {
    let item = item.trim_ascii();
    if item.is_empty() {
        return Err(KeyListReason::EmptyItem);
    }
    let (id, key) = item.split_once(':').ok_or(KeyListReason::MissingColon)?;
    let id = id.trim_ascii();
    // Digits only: `u32::from_str` would also take a sign.
    if id.is_empty() || !id.bytes().all(|b| b.is_ascii_digit()) {
        return Err(KeyListReason::InvalidKeyId);
    }
    let id = id.parse().map_err(|_| KeyListReason::InvalidKeyId)?;
    let key = StateKey::decode_hex(key).map_err(KeyListReason::Key)?;
    Ok((KeyId::new(id), key))
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::super::{Binding, ParamsDigest, StateError, UnixTime};
    use super::{HexKeyReason, KeyError, KeyId, KeyListReason, StateKey, StateKeys};

    /// 32 bytes no error message could contain by chance, and their hex.
    const BYTES: [u8; 32] = [
        0x7e, 0x3f, 0xa9, 0x5c, 0x01, 0xd2, 0x8b, 0x64, 0xf0, 0x1e, 0xc7, 0x39, 0x52, 0xab, 0x0d,
        0x96, 0x4e, 0xe1, 0x27, 0xb8, 0x6a, 0x13, 0xfc, 0x85, 0x3d, 0x70, 0x9e, 0xc4, 0x0b, 0x5f,
        0xa2, 0xe6,
    ];
    const HEX: &str = "7e3fa95c01d28b64f01ec73952ab0d964ee127b86a13fc853d709ec40b5fa2e6";
    const OTHER_HEX: &str = "1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b";

    fn binding() -> Binding<'static> {
        Binding {
            principal: "user-1",
            method: "tools/call",
            params_digest: ParamsDigest::of(&serde_json::json!({ "name": "t" })),
        }
    }

    /// `opener` opens a state `sealer` sealed.
    fn opens(sealer: &StateKeys, opener: &StateKeys) -> Result<(), StateError> {
        let now = UnixTime::from_secs(1_800_000_000);
        let text = sealer
            .seal(&1_u8, &binding(), Duration::from_secs(60), now)
            .expect("seals");
        opener.open::<u8>(&text, &binding(), now).map(|_| ())
    }

    /// Neither the message nor the `Debug` of `error` holds 6 characters in a row of `input`.
    fn assert_no_echo(input: &str, error: &KeyError) {
        let shown = format!("{error} {error:?}");
        let chars: Vec<char> = input.chars().filter(|c| !c.is_whitespace()).collect();
        for window in chars.windows(6) {
            let window: String = window.iter().collect();
            assert!(!shown.contains(&window), "{shown:?} repeats {window:?}");
        }
    }

    fn hex_error(input: &str) -> KeyError {
        let error = StateKey::from_hex(input).expect_err(input);
        assert_no_echo(input, &error);
        error
    }

    fn list_error(input: &str) -> KeyError {
        let error = StateKeys::parse(input).expect_err(input);
        assert_no_echo(input, &error);
        error
    }

    fn list_item_error(item: usize, reason: KeyListReason) -> KeyError {
        KeyError::MalformedKeyList { item, reason }
    }

    #[test]
    fn from_hex_reads_64_hex_digits_in_either_case() {
        assert_eq!(StateKey::from_hex(HEX).expect("lower").bytes, BYTES);
        assert_eq!(
            StateKey::from_hex(&HEX.to_uppercase())
                .expect("upper")
                .bytes,
            BYTES
        );
        let mixed: String = HEX
            .chars()
            .enumerate()
            .map(|(i, c)| {
                if i % 2 == 0 {
                    c.to_ascii_uppercase()
                } else {
                    c
                }
            })
            .collect();
        assert_eq!(StateKey::from_hex(&mixed).expect("mixed").bytes, BYTES);
    }

    #[test]
    fn from_hex_round_trips_every_byte_value() {
        for first in 0..=u8::MAX {
            let mut bytes = BYTES;
            bytes[0] = first;
            bytes[31] = first.wrapping_mul(7);
            let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
            assert_eq!(StateKey::from_hex(&hex).expect("hex").bytes, bytes);
        }
    }

    #[test]
    fn from_hex_ignores_surrounding_ascii_whitespace() {
        for input in [
            format!("{HEX}\n"),
            format!("  {HEX}\t"),
            format!("\r\n{HEX}\r\n"),
        ] {
            assert_eq!(StateKey::from_hex(&input).expect("trimmed").bytes, BYTES);
        }
    }

    #[test]
    fn from_hex_refuses_any_other_length_and_says_how_many_characters_it_found() {
        let wrong_length = |found| KeyError::MalformedHexKey(HexKeyReason::WrongLength { found });
        assert_eq!(hex_error(""), wrong_length(0));
        assert_eq!(hex_error(" \n "), wrong_length(0));
        assert_eq!(hex_error(&HEX[1..]), wrong_length(63));
        assert_eq!(hex_error(&format!("{HEX}0")), wrong_length(65));
        assert_eq!(hex_error(&format!("0x{HEX}")), wrong_length(66));
        // Whitespace inside the key is not trimmed, nor is whitespace beyond ASCII.
        assert_eq!(
            hex_error(&format!("{} {}", &HEX[..32], &HEX[32..])),
            wrong_length(65)
        );
        assert_eq!(hex_error(&format!("\u{a0}{HEX}")), wrong_length(65));
        // Characters, not bytes.
        assert_eq!(hex_error(&"é".repeat(40)), wrong_length(40));
        assert_eq!(
            hex_error(&HEX[1..]).to_string(),
            "a state key must be 64 hex digits (32 bytes, e.g. from `openssl rand -hex 32`), \
             found 63 characters"
        );
    }

    #[test]
    fn from_hex_names_the_position_of_the_first_character_that_is_not_a_hex_digit() {
        let not_hex = |position| KeyError::MalformedHexKey(HexKeyReason::NotHexDigit { position });
        let with = |position: usize, replacement: &str| {
            let mut text: Vec<String> = HEX.chars().map(String::from).collect();
            text[position - 1] = replacement.to_owned();
            text.concat()
        };
        assert_eq!(hex_error(&with(1, "g")), not_hex(1));
        assert_eq!(hex_error(&with(64, "z")), not_hex(64));
        assert_eq!(hex_error(&with(17, " ")), not_hex(17));
        assert_eq!(hex_error(&with(9, "é")), not_hex(9));
        let two = {
            let mut text: Vec<char> = with(40, "x").chars().collect();
            text[50] = 'y';
            text.into_iter().collect::<String>()
        };
        assert_eq!(hex_error(&two), not_hex(40));
        // Counted from the first character after leading whitespace.
        assert_eq!(hex_error(&format!("  {}", with(3, "-"))), not_hex(3));
        assert_eq!(
            hex_error(&with(5, "q")).to_string(),
            "a state key must be 64 hex digits, but character 5 is not one (0-9, a-f, A-F)"
        );
    }

    #[test]
    fn a_key_list_is_primary_first_and_every_key_opens() {
        let keys = StateKeys::parse(&format!("2:{HEX},1:{OTHER_HEX}")).expect("list");
        assert_eq!(keys.primary_key_id(), KeyId::new(2));
        assert_eq!(
            keys.key_ids().collect::<Vec<_>>(),
            [KeyId::new(2), KeyId::new(1)]
        );
        let new = StateKeys::single(KeyId::new(2), StateKey::from_bytes(BYTES));
        let old = StateKeys::single(KeyId::new(1), StateKey::from_bytes([0x1b; 32]));
        // It seals with the first key, and opens what either key sealed.
        assert_eq!(opens(&keys, &new), Ok(()));
        assert_eq!(opens(&new, &keys), Ok(()));
        assert_eq!(opens(&old, &keys), Ok(()));
        assert_eq!(
            opens(&keys, &old),
            Err(StateError::UnknownKey {
                key_id: KeyId::new(2)
            })
        );
    }

    #[test]
    fn a_key_list_of_one_item_is_one_key() {
        let keys = StateKeys::parse(&format!("4294967295:{HEX}")).expect("one");
        assert_eq!(keys.key_ids().collect::<Vec<_>>(), [KeyId::new(u32::MAX)]);
        let zero = StateKeys::parse(&format!("0:{HEX}")).expect("id 0");
        assert_eq!(zero.primary_key_id(), KeyId::new(0));
    }

    #[test]
    fn a_key_list_allows_ascii_whitespace_around_items_ids_and_keys() {
        let keys = StateKeys::parse(&format!(" 2 : {HEX} ,\n\t1:{OTHER_HEX}\n")).expect("list");
        assert_eq!(
            keys.key_ids().collect::<Vec<_>>(),
            [KeyId::new(2), KeyId::new(1)]
        );
    }

    #[test]
    fn an_empty_key_list_has_no_keys() {
        assert_eq!(list_error(""), KeyError::NoKeys);
        assert_eq!(list_error(" \n\t"), KeyError::NoKeys);
    }

    #[test]
    fn a_key_list_item_may_not_be_empty() {
        let empty = |item| list_item_error(item, KeyListReason::EmptyItem);
        assert_eq!(list_error(","), empty(1));
        assert_eq!(list_error(&format!(",1:{HEX}")), empty(1));
        assert_eq!(list_error(&format!("1:{HEX},")), empty(2));
        assert_eq!(list_error(&format!("1:{HEX}, ,2:{OTHER_HEX}")), empty(2));
        assert_eq!(
            list_error(&format!("1:{HEX},")).to_string(),
            "state key list: item 2 is empty; write `<key id>:<64 hex digits>`, items separated \
             by single commas"
        );
    }

    #[test]
    fn a_key_list_item_needs_a_colon_between_id_and_key() {
        let missing = |item| list_item_error(item, KeyListReason::MissingColon);
        assert_eq!(list_error(HEX), missing(1));
        assert_eq!(list_error(&format!("1:{HEX},2 {OTHER_HEX}")), missing(2));
        assert_eq!(
            list_error(HEX).to_string(),
            "state key list: item 1 has no `:`; write `<key id>:<64 hex digits>`, e.g. `1:` and \
             the key"
        );
    }

    #[test]
    fn a_key_id_is_a_u32_in_decimal_digits() {
        let invalid = |item| list_item_error(item, KeyListReason::InvalidKeyId);
        for id in ["", " ", "x", "-1", "+1", "1.0", "0x1", "4294967296", "١"] {
            // (The message may well contain `4294967296`'s digits: it names the largest id.)
            let error = StateKeys::parse(&format!("{id}:{HEX}")).expect_err(id);
            assert_no_echo(HEX, &error);
            assert_eq!(error, invalid(1), "{id:?}");
        }
        assert_eq!(list_error(&format!("1:{HEX},two:{OTHER_HEX}")), invalid(2));
        // Keys written the wrong way round: the key id is refused, not repeated.
        assert_eq!(list_error(&format!("{HEX}:1")), invalid(1));
        assert_eq!(
            list_error(&format!("{HEX}:1")).to_string(),
            "state key list: item 1 has a key id that is not a decimal number from 0 to \
             4294967295"
        );
    }

    #[test]
    fn a_key_list_item_holds_a_key_of_64_hex_digits() {
        assert_eq!(
            list_error(&format!("1:{HEX},2:{}", &OTHER_HEX[2..])),
            list_item_error(
                2,
                KeyListReason::Key(HexKeyReason::WrongLength { found: 62 })
            )
        );
        assert_eq!(
            list_error(&format!("1:{}g", &HEX[1..])),
            list_item_error(
                1,
                KeyListReason::Key(HexKeyReason::NotHexDigit { position: 64 })
            )
        );
        assert_eq!(
            list_error(&format!("1:{HEX}:{OTHER_HEX}")),
            list_item_error(
                1,
                KeyListReason::Key(HexKeyReason::WrongLength { found: 129 })
            )
        );
        assert_eq!(
            list_error(&format!("1:{}g", &HEX[1..])).to_string(),
            "state key list: item 1 has a key that must be 64 hex digits, but character 64 is \
             not one (0-9, a-f, A-F)"
        );
    }

    #[test]
    fn a_key_list_gives_every_key_its_own_id() {
        assert_eq!(
            list_error(&format!("1:{HEX},2:{OTHER_HEX},1:{OTHER_HEX}")),
            KeyError::DuplicateKeyId(KeyId::new(1))
        );
        assert_eq!(
            list_error(&format!("7:{HEX}, 7:{HEX}")),
            KeyError::DuplicateKeyId(KeyId::new(7))
        );
    }

    #[test]
    fn a_key_list_reports_its_first_bad_item() {
        assert_eq!(
            list_error(&format!("1:{HEX},x:{OTHER_HEX},,")),
            list_item_error(2, KeyListReason::InvalidKeyId)
        );
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config {
            cases: 512,
            failure_persistence: None,
            ..Default::default()
        })]

        /// Text made of what key lists are made of, and a few things they are not: parsing
        /// never panics, and an error never repeats 8 characters in a row of the text.
        #[test]
        fn parsing_any_key_list_never_panics_nor_repeats_it(
            text in "([0-9a-fA-F]{0,70}|[0-9]{1,11}:|[,: \t\n]|[g-zé+-]){0,8}"
        ) {
            if let Err(error) = StateKeys::parse(&text) {
                let shown = format!("{error} {error:?}");
                let chars: Vec<char> = text.chars().collect();
                for window in chars.windows(8) {
                    let window: String = window.iter().collect();
                    proptest::prop_assert!(
                        !shown.contains(&window),
                        "{} repeats {:?}",
                        shown,
                        window
                    );
                }
            }
            let _ = StateKey::from_hex(&text);
        }
    }

    #[test]
    fn generated_keys_are_fresh_and_open_nothing_else() {
        let one = StateKeys::generate().expect("randomness");
        let two = StateKeys::generate().expect("randomness");
        assert_eq!(one.key_ids().count(), 1);
        assert_eq!(opens(&one, &one), Ok(()));
        // Another process's key: its id is not ours (a 1 in 2^32 chance that it is, and then the
        // key is not: tampered).
        let other = opens(&one, &two);
        assert!(
            matches!(
                other,
                Err(StateError::UnknownKey { .. } | StateError::Tampered)
            ),
            "{other:?}"
        );
        if one.primary_key_id() != two.primary_key_id() {
            assert!(
                matches!(other, Err(StateError::UnknownKey { .. })),
                "{other:?}"
            );
        }
    }
}
