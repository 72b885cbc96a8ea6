//! What a sealed state is bound to: who asked, and which request they asked.

use std::fmt;
use std::io;

use serde_json::Value;
use sha2::{Digest, Sha256};

/// The request a state belongs to: sealed into the state by [`StateKeys::seal`] and compared,
/// field by field, by [`StateKeys::open`]. A state presented by another principal, on another
/// method, or with other parameters is rejected, so it cannot be replayed across users or
/// requests (MRTR server requirement 5).
///
/// [`StateKeys::seal`]: super::StateKeys::seal
/// [`StateKeys::open`]: super::StateKeys::open
///
/// ```
/// use elicit_core::state::{Binding, ParamsDigest};
/// use serde_json::json;
///
/// let params = json!({ "name": "book_flight", "arguments": { "to": "LIS" } });
/// let binding = Binding {
///     principal: "user-8f3a",
///     method: "tools/call",
///     params_digest: ParamsDigest::of_request_params(&params),
/// };
/// # let _ = binding;
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Binding<'a> {
    /// The authenticated principal making the request, e.g. the OAuth `sub` claim of the access
    /// token. Use `""` only for a server without authentication, where there is no one to bind
    /// to (any client holding the state can then use it until it expires).
    pub principal: &'a str,
    /// The JSON-RPC method of the request, e.g. `"tools/call"`.
    pub method: &'a str,
    /// A digest of the request's salient parameters; see [`ParamsDigest`].
    pub params_digest: ParamsDigest,
}

/// A SHA-256 digest of the parameters that identify a request, e.g. a tool's name and arguments.
///
/// The retry of a request carries `inputResponses` and `requestState`, and may carry a different
/// `_meta` (progress token and the like); none of those identify the request, so they **must
/// not** be part of the digest, or the retry would never match. [`ParamsDigest::of_request_params`]
/// leaves those three top-level fields out for you; [`ParamsDigest::of`] hashes exactly the
/// value it is given, for a server that picks the salient parameters itself.
///
/// The value is hashed in a canonical form: object keys sorted, no whitespace, an integral
/// floating-point number written as an integer (`1.0` and `1` digest alike), so a client that
/// re-serialises the same arguments with keys in another order still matches. The form is stable
/// across versions of this crate that read the same state version; it is not RFC 8785 byte for
/// byte. Values parsed by `serde_json` are at most 128 levels deep, which bounds the recursion.
///
/// ```
/// use elicit_core::state::ParamsDigest;
/// use serde_json::json;
///
/// let first = json!({ "name": "pay", "arguments": { "amount": 10, "to": "bob" } });
/// let retry = json!({
///     "arguments": { "to": "bob", "amount": 10.0 },
///     "name": "pay",
///     "requestState": "…",
///     "inputResponses": { "confirm": { "action": "accept" } },
///     "_meta": { "progressToken": 7 },
/// });
/// assert_eq!(ParamsDigest::of_request_params(&first), ParamsDigest::of_request_params(&retry));
///
/// let other = json!({ "name": "pay", "arguments": { "amount": 1000, "to": "bob" } });
/// assert_ne!(ParamsDigest::of_request_params(&first), ParamsDigest::of_request_params(&other));
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct ParamsDigest([u8; ParamsDigest::LEN]);

/// Top-level request parameters that change between a request and its retry.
const NOT_SALIENT: [&str; 3] = ["inputResponses", "requestState", "_meta"];

/// Prefixed to every digest, so it cannot collide with a SHA-256 of the same bytes taken for
/// another purpose, and so a change of canonical form is a change of label.
const DOMAIN: &[u8] = b"elicit/params-digest/v1\n";

impl ParamsDigest {
    /// Length of a digest in bytes.
    pub const LEN: usize = 32;

    /// The digest of `value`, exactly as given.
    #[must_use]
    pub fn of(value: &Value) -> Self {
        Self::hash(value, &[])
    }

    /// The digest of a request's `params` object without its `inputResponses`, `requestState`
    /// and `_meta` members, which differ between a request and its retry. A `params` that is not
    /// an object is hashed as it is.
    #[must_use]
    pub fn of_request_params(params: &Value) -> Self {
        Self::hash(params, &NOT_SALIENT)
    }

    /// A digest the server computed itself, by whatever means.
    #[must_use]
    pub const fn from_bytes(bytes: [u8; Self::LEN]) -> Self {
        Self(bytes)
    }

    /// The digest's bytes.
    #[must_use]
    pub const fn as_bytes(&self) -> &[u8; Self::LEN] {
        &self.0
    }

    fn hash(value: &Value, skip_top_level: &[&str]) -> Self {
        let mut hasher = HashWriter(Sha256::new());
        hasher.0.update(DOMAIN);
        write_canonical(&mut hasher, value, skip_top_level);
        Self(hasher.0.finalize().into())
    }
}

impl fmt::Debug for ParamsDigest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ParamsDigest(")?;
        self.0.iter().try_for_each(|byte| write!(f, "{byte:02x}"))?;
        f.write_str(")")
    }
}

/// Feeds what `serde_json` writes straight into the hash, without an intermediate buffer.
struct HashWriter(Sha256);

impl io::Write for HashWriter {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.0.update(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The largest magnitude up to which every integer is exactly representable as an `f64`.
const MAX_EXACT_F64_INTEGER: f64 = 9_007_199_254_740_992.0;

fn write_canonical(out: &mut HashWriter, value: &Value, skip: &[&str]) {
    match value {
        Value::Null => out.0.update(b"null"),
        Value::Bool(true) => out.0.update(b"true"),
        Value::Bool(false) => out.0.update(b"false"),
        Value::Number(number) => write_number(out, number),
        Value::String(text) => write_json(out, text),
        Value::Array(items) => {
            out.0.update(b"[");
            for (position, item) in items.iter().enumerate() {
                if position > 0 {
                    out.0.update(b",");
                }
                write_canonical(out, item, &[]);
            }
            out.0.update(b"]");
        }
        Value::Object(members) => {
            let mut members: Vec<(&String, &Value)> = members
                .iter()
                .filter(|(key, _)| !skip.contains(&key.as_str()))
                .collect();
            // Sorted here rather than relying on `serde_json::Map` being a `BTreeMap`: another
            // crate in the build enabling `preserve_order` would silently make it insertion-ordered.
            members.sort_unstable_by_key(|(key, _)| *key);
            out.0.update(b"{");
            for (position, (key, member)) in members.into_iter().enumerate() {
                if position > 0 {
                    out.0.update(b",");
                }
                write_json(out, key);
                out.0.update(b":");
                write_canonical(out, member, &[]);
            }
            out.0.update(b"}");
        }
    }
}

fn write_number(out: &mut HashWriter, number: &serde_json::Number) {
    if let Some(float) = number.as_f64().filter(|_| number.is_f64())
        && float.fract() == 0.0
        && float.abs() <= MAX_EXACT_F64_INTEGER
    {
        // Exact: within this magnitude every integer is an f64. `-0.0` becomes `0`.
        write_json(out, &(float as i64));
        return;
    }
    write_json(out, number);
}

fn write_json<T: serde::Serialize + ?Sized>(out: &mut HashWriter, value: &T) {
    // Writing a string or number into a writer that never fails cannot fail.
    let _ = serde_json::to_writer(out, value);
}
