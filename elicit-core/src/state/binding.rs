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
/// # extern crate elicit_core as mcp_elicit;
/// use mcp_elicit::state::{Binding, ParamsDigest};
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
    /// token; for a server with one user and no authentication, the server's own name for that
    /// user. `""` binds to no one: any client holding the state can then use it until it
    /// expires (rmcp's `AskConfig` never seals for a principal that
    /// [names no one](crate::url_mode::Flow::names_no_one)).
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
/// byte. It is written without recursion, so a value of any depth has a digest.
///
/// ```
/// # extern crate elicit_core as mcp_elicit;
/// use mcp_elicit::state::ParamsDigest;
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

/// One step of writing a value in canonical form.
enum Step<'v> {
    /// A value, whole.
    Value(&'v Value),
    /// A member name, as a JSON string.
    Key(&'v str),
    /// Punctuation.
    Text(&'static [u8]),
}

/// Write `value` in canonical form, leaving out the top-level members named in `skip`. Without
/// recursion: the steps still to take are on a list, so a value of any depth is written (one
/// built in code rather than parsed may nest deeper than the stack would allow).
fn write_canonical(out: &mut HashWriter, value: &Value, skip: &[&str]) {
    let mut steps = vec![Step::Value(value)];
    let mut skip = skip;
    while let Some(step) = steps.pop() {
        let value = match step {
            Step::Value(value) => value,
            Step::Key(key) => {
                write_json(out, key);
                continue;
            }
            Step::Text(text) => {
                out.0.update(text);
                continue;
            }
        };
        // Only the top-level value's members are skipped.
        let skip_here = std::mem::take(&mut skip);
        match value {
            Value::Null => out.0.update(b"null"),
            Value::Bool(true) => out.0.update(b"true"),
            Value::Bool(false) => out.0.update(b"false"),
            Value::Number(number) => write_number(out, number),
            Value::String(text) => write_json(out, text),
            Value::Array(items) => {
                out.0.update(b"[");
                // Pushed last first: the list is taken from its end.
                steps.push(Step::Text(b"]"));
                for (position, item) in items.iter().enumerate().rev() {
                    steps.push(Step::Value(item));
                    if position > 0 {
                        steps.push(Step::Text(b","));
                    }
                }
            }
            Value::Object(members) => {
                let mut members: Vec<(&String, &Value)> = members
                    .iter()
                    .filter(|(key, _)| !skip_here.contains(&key.as_str()))
                    .collect();
                // Sorted here rather than relying on `serde_json::Map` being a `BTreeMap`:
                // another crate in the build enabling `preserve_order` would silently make it
                // insertion-ordered.
                members.sort_unstable_by_key(|(key, _)| *key);
                out.0.update(b"{");
                steps.push(Step::Text(b"}"));
                for (position, (key, member)) in members.into_iter().enumerate().rev() {
                    steps.push(Step::Value(member));
                    steps.push(Step::Text(b":"));
                    steps.push(Step::Key(key));
                    if position > 0 {
                        steps.push(Step::Text(b","));
                    }
                }
            }
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

#[cfg(test)]
mod tests {
    use super::ParamsDigest;
    use serde_json::{Value, json};
    use sha2::{Digest, Sha256};

    fn hex(digest: ParamsDigest) -> String {
        digest
            .as_bytes()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    /// SHA-256 of the digest's label and `text`: the digest of a value whose canonical form is
    /// `text`.
    fn of_text(text: &str) -> ParamsDigest {
        let mut hasher = Sha256::new();
        hasher.update(super::DOMAIN);
        hasher.update(text.as_bytes());
        ParamsDigest::from_bytes(hasher.finalize().into())
    }

    fn samples() -> Vec<Value> {
        vec![
            json!(null),
            json!(true),
            json!(false),
            json!(0),
            json!(-0.0),
            json!(1.0),
            json!(-12.5),
            json!(1e300),
            json!(18446744073709551615u64),
            json!(-9223372036854775808i64),
            json!(9007199254740993.0),
            json!("é \"q\" \\ \n \u{1}"),
            json!([]),
            json!({}),
            json!([1, [2, [3, {}]], "x", null]),
            json!({"b": 1, "a": {"d": [true, false], "c": "x"}, "": []}),
            json!({"name": "pay", "arguments": {"amount": 10, "to": "bob"},
                   "requestState": "s", "inputResponses": {"a": 1}, "_meta": {"p": 7}}),
        ]
    }

    /// The digests of the canonical form as first released (written down from that code):
    /// what a sealed state carries, so any change to the form shows here.
    #[test]
    fn digests_are_the_released_ones() {
        const KNOWN: [(&str, &str); 17] = [
            (
                "52614a975c0d38e8843ab0f77e1376709dae8fa94fd8c143999a08584631a823",
                "52614a975c0d38e8843ab0f77e1376709dae8fa94fd8c143999a08584631a823",
            ),
            (
                "0de03064a99f86573a9f01aaf845bc138386a6008469e4d2942395575e2c62bd",
                "0de03064a99f86573a9f01aaf845bc138386a6008469e4d2942395575e2c62bd",
            ),
            (
                "3d805752a98fdbb0c4690445e6a7146868099c84da1f3008b87ec2bfd78e91d8",
                "3d805752a98fdbb0c4690445e6a7146868099c84da1f3008b87ec2bfd78e91d8",
            ),
            (
                "a2957da580059eff4cfb227a38b46be09a21ece2f948ee8e861c19d13484a427",
                "a2957da580059eff4cfb227a38b46be09a21ece2f948ee8e861c19d13484a427",
            ),
            (
                "a2957da580059eff4cfb227a38b46be09a21ece2f948ee8e861c19d13484a427",
                "a2957da580059eff4cfb227a38b46be09a21ece2f948ee8e861c19d13484a427",
            ),
            (
                "2a3157194e892571fae523c9287711f97c5622b789717ede893b67a3e79977c2",
                "2a3157194e892571fae523c9287711f97c5622b789717ede893b67a3e79977c2",
            ),
            (
                "d36578ca5f07bd8930ea777714ac1a09f3d77530277b8125a4bfb1bd0bf72099",
                "d36578ca5f07bd8930ea777714ac1a09f3d77530277b8125a4bfb1bd0bf72099",
            ),
            (
                "633b042507d2fb9baa440b7bf3ab19e6fa95d2777b53c17755dcc849c9a2aaa0",
                "633b042507d2fb9baa440b7bf3ab19e6fa95d2777b53c17755dcc849c9a2aaa0",
            ),
            (
                "367d63b2be2ee8ac5d83e9671aea82bcbe4795c05075b8c0e0d88ac87dd0c3bc",
                "367d63b2be2ee8ac5d83e9671aea82bcbe4795c05075b8c0e0d88ac87dd0c3bc",
            ),
            (
                "4075ddc27d2a7d764be86b573e6926eeb8131738509a1b526e7017c275b1977c",
                "4075ddc27d2a7d764be86b573e6926eeb8131738509a1b526e7017c275b1977c",
            ),
            (
                "b059ff13cfcd9cf793d66a70b4ec72d47ba7c653a4b67ed53089fec56dd49dbd",
                "b059ff13cfcd9cf793d66a70b4ec72d47ba7c653a4b67ed53089fec56dd49dbd",
            ),
            (
                "ef10f5a6c70aaca29cde564a1275dff737538875ed3eb14239ca73ce2fbeb7bf",
                "ef10f5a6c70aaca29cde564a1275dff737538875ed3eb14239ca73ce2fbeb7bf",
            ),
            (
                "280f807fdac299a184a34ad90ba156ebd00c5dfadca27e091437b343e12ed52a",
                "280f807fdac299a184a34ad90ba156ebd00c5dfadca27e091437b343e12ed52a",
            ),
            (
                "03e938c4f60c74248098013b21dcf38478df31d37d40d946d2c5770f9603928a",
                "03e938c4f60c74248098013b21dcf38478df31d37d40d946d2c5770f9603928a",
            ),
            (
                "639ac8f41bb27c548974e1d249348e5323f08fef4de4650d82e9df7a7bb8a1f4",
                "639ac8f41bb27c548974e1d249348e5323f08fef4de4650d82e9df7a7bb8a1f4",
            ),
            (
                "f2dbc6ef95b4487cdfa46474fb60740262409b23544b129e7b45dc7794705506",
                "f2dbc6ef95b4487cdfa46474fb60740262409b23544b129e7b45dc7794705506",
            ),
            (
                "e4ee4c31d7afdc6b28611de2ea1b0a0dec69426dbb86eea333dc617bc82d8ee6",
                "d4a45690b90aba06911c2a2e5c9e9c525c0c0b002417d5ebfeade6479fc79b6b",
            ),
        ];
        for (value, (of, of_params)) in samples().iter().zip(KNOWN) {
            assert_eq!(hex(ParamsDigest::of(value)), of, "{value}");
            assert_eq!(
                hex(ParamsDigest::of_request_params(value)),
                of_params,
                "{value}"
            );
        }
    }

    /// The digest is SHA-256 of the label and the canonical text: keys sorted, no whitespace,
    /// an integral float as an integer; `of_request_params` leaves out three top-level members.
    #[test]
    fn the_digest_is_of_the_canonical_text() {
        let value = json!({"b": 1.0, "a": {"d": [true, null], "c": "x"}, "": [], "_meta": 1});
        assert_eq!(
            ParamsDigest::of(&value),
            of_text(r#"{"":[],"_meta":1,"a":{"c":"x","d":[true,null]},"b":1}"#)
        );
        assert_eq!(
            ParamsDigest::of_request_params(&value),
            of_text(r#"{"":[],"a":{"c":"x","d":[true,null]},"b":1}"#)
        );
        // Only the top level is filtered.
        let nested = json!({"x": {"_meta": 1, "requestState": [2]}, "inputResponses": 3});
        assert_eq!(
            ParamsDigest::of_request_params(&nested),
            of_text(r#"{"x":{"_meta":1,"requestState":[2]}}"#)
        );
    }

    /// A value nested far deeper than `serde_json` parses (a server can build one in code): its
    /// digest is written without recursion, as its text would be.
    #[test]
    fn a_value_of_any_depth_has_a_digest() {
        const DEPTH: usize = 100_000;
        let mut value = json!(0);
        for level in 0..DEPTH {
            // Built by hand: `json!` would serialise the inner value again, recursively.
            value = if level % 2 == 0 {
                Value::Array(vec![value])
            } else {
                Value::Object(std::iter::once(("k".to_owned(), value)).collect())
            };
        }
        let mut text = String::new();
        for level in (0..DEPTH).rev() {
            text.push_str(if level % 2 == 0 { "[" } else { "{\"k\":" });
        }
        text.push('0');
        for level in 0..DEPTH {
            text.push(if level % 2 == 0 { ']' } else { '}' });
        }
        assert_eq!(ParamsDigest::of(&value), of_text(&text));
        // `Value`'s own drop recurses: take it apart level by level.
        loop {
            value = match value {
                Value::Array(mut items) => items.pop().unwrap_or_default(),
                Value::Object(mut members) => members.remove("k").unwrap_or_default(),
                _ => break,
            };
        }
    }
}
