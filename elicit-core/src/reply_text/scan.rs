//! A reader for the common shape of a reply, by hand: the bytes are looked at once, without
//! `serde_json`'s deserializer and visitors around every token.
//!
//! It reads what clients send (an object whose `content` members are strings, numbers, booleans,
//! `null` or arrays of strings, whatever whitespace between the tokens) and fills the slots
//! exactly as the `serde_json` reader beside it would: a string is borrowed from the text, or
//! decoded when it holds escapes (a quote, a newline in free text), as `serde_json` decodes them.
//! Anything else it does not decide: an escape in a member name or the action, a `\u` escape
//! of a surrogate outside a valid pair, a raw control character, an object or a mixed array as
//! a `content` member, nesting deeper than [`MAX_DEPTH`], a non-object reply, and every syntax
//! error. It then empties the slots and returns `None`, and the `serde_json` reader reads the
//! text from the start and decides, with its own error and position. So what is valid JSON,
//! what each member holds, and every error are still `serde_json`'s answers; this reader only
//! answers first where the answer is plain.
//!
//! Numbers: [`plain_number`] settles the common ones (integers, short decimals) exactly as
//! `serde_json` would; any other is handed, as its own text, to `serde_json` itself, so its value
//! and its range error are `serde_json`'s.

use std::borrow::Cow;

use serde::Deserialize;

use super::{Content, clear, fill, property_index};
use crate::field::Slot;
use crate::reply::{Action, MalformedReply, ReplyError, action_named};
use crate::schema::{Property, RequestedSchema};
use crate::text::same_bytes;

/// How deep a value the reader skips (an unknown member's) may nest before it leaves the text
/// to `serde_json`, whose own limit is 128.
const MAX_DEPTH: u32 = 64;

/// Read `text` as a reply whose `content` members named by `schema` go into `fields` (all
/// absent on entry): its action and what its `content` was. `None`: not read here; `fields` are
/// all absent again.
///
/// The answer is two bytes, returned in a register: a larger one (the action as a slot) was
/// written in parts and read back whole, a store-forwarding stall.
pub(super) fn scan_reply<'de>(
    schema: &RequestedSchema,
    text: &'de str,
    fields: &mut [Slot<'de>],
) -> Option<(ActionRead, Content)> {
    let mut scanner = Scanner { text, pos: 0 };
    let reply = scanner
        .reply(schema, fields)
        .filter(|_| scanner.next_token().is_none());
    if reply.is_none() {
        fields.iter_mut().for_each(clear);
    }
    reply
}

/// A reply's `action` member, as [`action_of`](crate::reply::action_of) reads it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum ActionRead {
    Named(Action),
    /// Absent or `null`.
    Missing,
    /// Another string, or not a string.
    Unknown,
}

impl ActionRead {
    /// The action, or the error [`action_of`](crate::reply::action_of) gives.
    pub(super) fn action(self) -> Result<Action, ReplyError> {
        match self {
            ActionRead::Named(action) => Ok(action),
            ActionRead::Missing => Err(ReplyError::Malformed(MalformedReply::MissingAction)),
            ActionRead::Unknown => Err(ReplyError::Malformed(MalformedReply::UnknownAction)),
        }
    }
}

struct Scanner<'de> {
    text: &'de str,
    /// The next byte to read. Always at a character boundary: the reader stops only before or
    /// after ASCII bytes.
    pos: usize,
}

/// Where, in `word` (eight bytes, the first in the low bits), the first byte is that a string's
/// plain run cannot hold: `"`, `\` or a control character. The first flagged byte is always a
/// true one (flags past it may be false: a borrow), and the byte loop after it re-checks.
#[inline]
fn special_byte(word: u64) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // A byte of `x` is below `n` (n <= 0x80): its high bit in `(x - n) & !x & HIGH`.
    let below = |x: u64, n: u64| x.wrapping_sub(ONES * n) & !x & HIGH;
    let flags = below(word ^ (ONES * u64::from(b'"')), 1)
        | below(word ^ (ONES * u64::from(b'\\')), 1)
        | below(word, 0x20);
    (flags != 0).then(|| flags.trailing_zeros() as usize / 8)
}

/// `10^0` to `10^22`: the powers of ten an `f64` holds exactly.
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// Whether `b` can be part of a JSON number. None of these bytes can follow a number in valid
/// JSON, so a number is the whole run of them (or the text is invalid).
#[inline]
fn in_number(b: u8) -> bool {
    matches!(b, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E')
}

/// The JSON number at the start of `text`, and its length in bytes, when this settles its value
/// exactly as `serde_json` does; `None` for anything else (not a number, or one left to
/// `serde_json`). One pass over the bytes: the digits are summed as they are checked. The
/// caller still checks that the number ends where this stops (no [`in_number`] byte follows).
///
/// - An integer that fits a `u64` once its sign is dropped: `serde_json` reads it as a `u64`,
///   or as an `i64` when negative, or as an `f64` when negative and beyond `i64` or `-0`. So
///   does this, by the same rule.
/// - A fraction or an exponent: `serde_json` reads an `f64`. When all its digits make an
///   integer of at most 2^53 and the power of ten is within ±22, both factors are exact
///   doubles, and one multiplication or division gives the correctly rounded value: what
///   `serde_json` gives, with or without its `float_roundtrip` feature. Other such numbers are
///   left to it.
fn plain_number(text: &[u8]) -> Option<(serde_json::Number, usize)> {
    let digit = |i: usize| {
        text.get(i)
            .and_then(|b| b.checked_sub(b'0'))
            .filter(|d| *d < 10)
    };
    let negative = text.first() == Some(&b'-');
    let int_start = usize::from(negative);
    let mut i = int_start;
    let mut significand: u64 = 0;
    while let Some(d) = digit(i) {
        significand = significand.checked_mul(10)?.checked_add(u64::from(d))?;
        i += 1;
    }
    // At least one digit, and no leading zero.
    if i == int_start || (i - int_start > 1 && text.get(int_start) == Some(&b'0')) {
        return None;
    }
    let mut frac_len = 0usize;
    if text.get(i) == Some(&b'.') {
        i += 1;
        while let Some(d) = digit(i) {
            significand = significand.checked_mul(10)?.checked_add(u64::from(d))?;
            frac_len += 1;
            i += 1;
        }
        if frac_len == 0 {
            return None;
        }
    }
    let mut exponent = 0i32;
    let has_exponent = matches!(text.get(i), Some(b'e' | b'E'));
    if has_exponent {
        i += 1;
        let sign = match text.get(i) {
            Some(b'-') => -1,
            Some(b'+') => 1,
            _ => 0,
        };
        if sign != 0 {
            i += 1;
        }
        // At most three digits: beyond ±22 this leaves the number to `serde_json` anyway.
        let digits_start = i;
        while let Some(d) = digit(i) {
            if i - digits_start == 3 {
                return None;
            }
            exponent = exponent * 10 + i32::from(d);
            i += 1;
        }
        if i == digits_start {
            return None;
        }
        if sign < 0 {
            exponent = -exponent;
        }
    }
    if frac_len == 0 && !has_exponent {
        if !negative {
            return Some((significand.into(), i));
        }
        // `serde_json`'s own rule, to the bit.
        #[allow(clippy::cast_possible_wrap)]
        let n = (significand as i64).wrapping_neg();
        if n < 0 {
            return Some((n.into(), i));
        }
        #[allow(clippy::cast_precision_loss)]
        return serde_json::Number::from_f64(-(significand as f64)).map(|n| (n, i));
    }
    if significand > 1 << 53 {
        return None;
    }
    #[allow(clippy::cast_possible_wrap, clippy::cast_possible_truncation)]
    let exponent = exponent - frac_len as i32;
    let power = *POW10.get(exponent.unsigned_abs() as usize)?;
    #[allow(clippy::cast_precision_loss)]
    let magnitude = significand as f64;
    let x = if exponent >= 0 {
        magnitude * power
    } else {
        magnitude / power
    };
    serde_json::Number::from_f64(if negative { -x } else { x }).map(|n| (n, i))
}

impl<'de> Scanner<'de> {
    /// The next byte that is not JSON whitespace, not consumed; `None` at the end.
    #[inline]
    fn next_token(&mut self) -> Option<u8> {
        let bytes = self.text.as_bytes();
        while let Some(&b) = bytes.get(self.pos) {
            if !matches!(b, b' ' | b'\n' | b'\t' | b'\r') {
                return Some(b);
            }
            self.pos += 1;
        }
        None
    }

    /// Consume `byte` as the next token.
    #[inline]
    fn eat(&mut self, byte: u8) -> Option<()> {
        (self.next_token()? == byte).then(|| self.pos += 1)
    }

    /// Where the plain run of a string from `start` ends: the index of its first `"`, `\` or
    /// control byte; `None` at the end of the text. Eight bytes at a time, then byte by byte.
    #[inline]
    fn plain_run(&self, start: usize) -> Option<usize> {
        let bytes = self.text.as_bytes();
        let mut end = start;
        while let Some(word) = bytes.get(end..end + 8).and_then(|w| w.try_into().ok()) {
            match special_byte(u64::from_le_bytes(word)) {
                Some(at) => {
                    end += at;
                    break;
                }
                None => end += 8,
            }
        }
        while !matches!(*bytes.get(end)?, b'"' | b'\\' | 0..=0x1f) {
            end += 1;
        }
        Some(end)
    }

    /// The string whose opening quote is the next byte, borrowed from the text. `None` (the
    /// position unchanged) if it holds an escape: see [`Self::escaped_string`].
    #[inline]
    fn string(&mut self) -> Option<&'de str> {
        let start = self.pos + 1;
        let end = self.plain_run(start)?;
        if self.text.as_bytes().get(end) != Some(&b'"') {
            return None;
        }
        let s = self.text.get(start..end)?;
        self.pos = end + 1;
        Some(s)
    }

    /// The string whose opening quote is the next byte and which holds escapes, decoded as
    /// `serde_json` decodes them (a quote, a newline in free text). Only for values: a member
    /// name with an escape is left to `serde_json`.
    ///
    /// Apart from [`Self::string`], so that the common string stays two words returned in
    /// registers: a `Cow` returned from one function for both was written to memory and read
    /// back whole, and cost every plain string ~7 % of the reply's time.
    #[cold]
    fn escaped_string(&mut self) -> Option<String> {
        let start = self.pos + 1;
        let end = self.plain_run(start)?;
        if self.text.as_bytes().get(end) != Some(&b'\\') {
            // A raw control character (`serde_json` refuses it), or the end of the text.
            return None;
        }
        let mut decoded = String::from(self.text.get(start..end)?);
        self.pos = end;
        self.escaped(&mut decoded)?;
        Some(decoded)
    }

    /// A string value (its opening quote next): borrowed when plain, decoded when it holds
    /// escapes. Inlined into each caller, so the plain case's two words never pass through a
    /// returned `Cow` (see [`Self::escaped_string`]).
    #[inline(always)]
    fn string_value(&mut self) -> Option<Cow<'de, str>> {
        match self.string() {
            Some(text) => Some(Cow::Borrowed(text)),
            None => self.escaped_string().map(Cow::Owned),
        }
    }

    /// The rest of a string from its first escape (the next byte), decoded onto `out`, up to
    /// and past its closing quote. The escapes `serde_json` accepts, decoded the same way; a
    /// `\u` escape of a surrogate is read only as half of a valid pair, anything odd left to
    /// `serde_json` (which refuses it, or decides).
    #[cold]
    fn escaped(&mut self, out: &mut String) -> Option<()> {
        let bytes = self.text.as_bytes();
        loop {
            match *bytes.get(self.pos)? {
                b'"' => {
                    self.pos += 1;
                    return Some(());
                }
                b'\\' => {
                    let (c, len) = match *bytes.get(self.pos + 1)? {
                        b'"' => ('"', 2),
                        b'\\' => ('\\', 2),
                        b'/' => ('/', 2),
                        b'b' => ('\u{8}', 2),
                        b'f' => ('\u{c}', 2),
                        b'n' => ('\n', 2),
                        b'r' => ('\r', 2),
                        b't' => ('\t', 2),
                        b'u' => self.unicode_escape()?,
                        _ => return None,
                    };
                    out.push(c);
                    self.pos += len;
                }
                _ => return None,
            }
            let end = self.plain_run(self.pos)?;
            out.push_str(self.text.get(self.pos..end)?);
            self.pos = end;
        }
    }

    /// The character of the `\u` escape at the next byte, and the escape's length: one escape,
    /// or a surrogate pair of two.
    fn unicode_escape(&self) -> Option<(char, usize)> {
        let unit = |at: usize| {
            let hex = self.text.get(at..at + 4)?;
            if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                return None;
            }
            u32::from_str_radix(hex, 16).ok()
        };
        let first = unit(self.pos + 2)?;
        if !(0xD800..=0xDBFF).contains(&first) {
            // Not a surrogate: the character itself. A lone trailing surrogate: `None`.
            return char::from_u32(first).map(|c| (c, 6));
        }
        if self.text.as_bytes().get(self.pos + 6..self.pos + 8)? != b"\\u" {
            return None;
        }
        let second = unit(self.pos + 8)?;
        if !(0xDC00..=0xDFFF).contains(&second) {
            return None;
        }
        char::from_u32(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)).map(|c| (c, 12))
    }

    /// Consume `word` (`true`, `false`, `null`), which must come next.
    #[inline]
    fn literal(&mut self, word: &[u8]) -> Option<()> {
        let end = self.pos + word.len();
        (self.text.as_bytes().get(self.pos..end)? == word).then(|| self.pos = end)
    }

    /// Open the container whose `open` byte is the next token: `false` if `close` follows at
    /// once (consumed: the container is empty).
    #[inline]
    fn open(&mut self, open: u8, close: u8) -> Option<bool> {
        self.eat(open)?;
        if self.next_token()? == close {
            self.pos += 1;
            return Some(false);
        }
        Some(true)
    }

    /// After an item of a container: `true` if another follows (its `,` consumed), `false` at
    /// the container's `close` (consumed).
    #[inline(always)]
    fn another(&mut self, close: u8) -> Option<bool> {
        match self.next_token()? {
            b',' => {
                self.pos += 1;
                Some(true)
            }
            b if b == close => {
                self.pos += 1;
                Some(false)
            }
            _ => None,
        }
    }

    /// The members of the object whose `{` is the next token: `member` reads each value, given
    /// the member's name, with the value's first byte next.
    #[inline]
    fn object(&mut self, member: impl FnMut(&mut Self, &'de str) -> Option<()>) -> Option<()> {
        self.object_keyed(Self::string, member)
    }

    /// [`Self::object`], with each member's name read by `key` (its opening quote next).
    #[inline]
    fn object_keyed<K>(
        &mut self,
        mut key: impl FnMut(&mut Self) -> Option<K>,
        mut member: impl FnMut(&mut Self, K) -> Option<()>,
    ) -> Option<()> {
        let mut more = self.open(b'{', b'}')?;
        while more {
            if self.next_token()? != b'"' {
                return None;
            }
            let name = key(self)?;
            self.eat(b':')?;
            self.next_token()?;
            member(self, name)?;
            more = self.another(b'}')?;
        }
        Some(())
    }

    /// Whether the string whose opening quote is the next byte is `property`'s name, written as
    /// its bytes (consumed if so). Only for a [plain](Property::plain_name) name: then those
    /// bytes and a closing quote are that name and nothing else, with no scan for the quote.
    #[inline]
    fn is_name_of(&mut self, property: Option<&Property>) -> bool {
        property
            .filter(|p| p.plain_name)
            .is_some_and(|p| self.is_plain_name(p.name().as_bytes()))
    }

    /// Whether the string whose opening quote is the next byte is `name`, a name written as its
    /// bytes (no `"`, `\\` or control character): consumed if so.
    #[inline]
    fn is_plain_name(&mut self, name: &[u8]) -> bool {
        let bytes = self.text.as_bytes();
        let start = self.pos + 1;
        let end = start + name.len();
        let matched = bytes.get(end) == Some(&b'"')
            && bytes
                .get(start..end)
                .is_some_and(|text| same_bytes(text, name));
        if matched {
            self.pos = end + 1;
        }
        matched
    }

    /// The items of the array whose `[` is the next token, as `item` reads each (its first byte
    /// next).
    #[inline]
    fn array(&mut self, mut item: impl FnMut(&mut Self) -> Option<()>) -> Option<()> {
        let mut more = self.open(b'[', b']')?;
        while more {
            self.next_token()?;
            item(self)?;
            more = self.another(b']')?;
        }
        Some(())
    }

    /// The reply object: its `action`, its `content` members into `fields`, any other member
    /// skipped.
    fn reply(
        &mut self,
        schema: &RequestedSchema,
        fields: &mut [Slot<'de>],
    ) -> Option<(ActionRead, Content)> {
        // Not an object: `object` declines it.
        let mut action = ActionRead::Missing;
        let mut content = Content::Absent;
        self.object_keyed(
            |s| {
                Some(if s.is_plain_name(b"action") {
                    "action"
                } else if s.is_plain_name(b"content") {
                    "content"
                } else {
                    s.string()?
                })
            },
            |s, name| {
                match name {
                    "action" => action = s.action()?,
                    "content" => {
                        // The last `content` counts, as in a `Map`: forget an earlier one's
                        // members.
                        if !matches!(content, Content::Absent) {
                            fields.iter_mut().for_each(clear);
                        }
                        content = s.content(schema, fields)?;
                    }
                    _ => s.skip(0)?,
                }
                Some(())
            },
        )?;
        Some((action, content))
    }

    /// The `action` member's value.
    fn action(&mut self) -> Option<ActionRead> {
        Some(match self.next_token()? {
            b'"' => match action_named(self.string()?) {
                Ok(action) => ActionRead::Named(action),
                Err(_) => ActionRead::Unknown,
            },
            b'n' => self.literal(b"null").map(|()| ActionRead::Missing)?,
            _ => self.skip(0).map(|()| ActionRead::Unknown)?,
        })
    }

    /// `content`: an object's members named by the schema into their slots (the last of a
    /// repeated member counts), others skipped.
    fn content(&mut self, schema: &RequestedSchema, fields: &mut [Slot<'de>]) -> Option<Content> {
        match self.next_token()? {
            b'{' => {}
            b'n' => return self.literal(b"null").map(|()| Content::Null),
            _ => return self.skip(0).map(|()| Content::NotAnObject),
        }
        // Members usually come in the schema's order: the name of the property after the
        // previous member's is tried first, on the text itself.
        let mut expected = 0;
        self.object_keyed(
            |s| {
                let index = if s.is_name_of(schema.properties().get(expected)) {
                    Some(expected)
                } else {
                    property_index(schema, expected, s.string()?)
                };
                if let Some(i) = index {
                    expected = i + 1;
                }
                Some(index)
            },
            |s, index| match index.and_then(|i| fields.get_mut(i)) {
                Some(slot) => s.value_into(slot),
                None => s.skip(0),
            },
        )?;
        Some(Content::Object)
    }

    /// A member value (a string, number, boolean, `null` or array of strings) into `slot`,
    /// replacing what it held (a member sent twice: the last counts).
    ///
    /// Written in place rather than returned: returning the 40-byte slot and moving it in made
    /// the processor reload, as a whole, a value it had just stored in parts (a store-forwarding
    /// stall that `perf` put at ~7 % of a reply's time).
    #[inline]
    fn value_into(&mut self, slot: &mut Slot<'de>) -> Option<()> {
        match self.next_token()? {
            b'"' => {
                let text = self.string_value()?;
                fill(slot, Slot::Str(text));
            }
            b't' => {
                self.literal(b"true")?;
                fill(slot, Slot::Bool(true));
            }
            b'f' => {
                self.literal(b"false")?;
                fill(slot, Slot::Bool(false));
            }
            b'n' => {
                self.literal(b"null")?;
                fill(slot, Slot::Null);
            }
            b'-' | b'0'..=b'9' => self.number_into(slot)?,
            b'[' => {
                let mut items = Vec::with_capacity(4);
                self.array(|s| {
                    if s.next_token()? != b'"' {
                        return None;
                    }
                    items.push(s.string_value()?);
                    Some(())
                })?;
                fill(slot, Slot::Strs(items));
            }
            _ => return None,
        }
        Some(())
    }

    /// The number starting at the next byte, as `serde_json` reads it for a `Value`, into
    /// `slot` (in place, as [`Self::value_into`] says why).
    fn number_into(&mut self, slot: &mut Slot<'de>) -> Option<()> {
        let bytes = self.text.as_bytes();
        let start = self.pos;
        let rest = bytes.get(start..)?;
        if let Some((number, len)) = plain_number(rest)
            && !rest.get(len).is_some_and(|b| in_number(*b))
        {
            self.pos = start + len;
            fill(slot, Slot::Number(number));
            return Some(());
        }
        let len = rest
            .iter()
            .position(|b| !in_number(*b))
            .unwrap_or(rest.len());
        self.pos = start + len;
        // Anything else, as its text, to `serde_json`.
        let mut de = serde_json::Deserializer::from_str(self.text.get(start..self.pos)?);
        let number = Slot::deserialize(&mut de).ok()?;
        de.end().ok()?;
        fill(slot, number);
        Some(())
    }

    /// Skip a value (its first byte next), checking it is valid JSON as `serde_json` would.
    fn skip(&mut self, depth: u32) -> Option<()> {
        match self.next_token()? {
            b'"' => self.string_value().map(drop),
            b't' => self.literal(b"true"),
            b'f' => self.literal(b"false"),
            b'n' => self.literal(b"null"),
            b'-' | b'0'..=b'9' => self.number_into(&mut Slot::Absent),
            b'[' if depth < MAX_DEPTH => self.array(|s| s.skip(depth + 1)),
            b'{' if depth < MAX_DEPTH => self.object(|s, _| s.skip(depth + 1)),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reply::action_of;
    use crate::reply_text::{Reply, read_with_serde};
    use crate::schema::{
        BooleanSchema, EnumOption, IntegerSchema, MultiSelectSchema, NumberSchema, Property,
        StringSchema,
    };

    fn schema() -> RequestedSchema {
        RequestedSchema::new(vec![
            Property::new("email", StringSchema::new()),
            Property::new("age", IntegerSchema::new()),
            Property::new("budget", NumberSchema::new()).optional(),
            Property::new(
                "topics",
                MultiSelectSchema::new(vec![EnumOption::new("rust"), EnumOption::new("mcp")]),
            ),
            Property::new("ok", BooleanSchema::new()).optional(),
        ])
        .expect("a valid schema")
    }

    /// Replies the scanner reads itself.
    const PLAIN: &[&str] = &[
        r#"{"action":"accept","content":{"email":"ada@example.com","age":36,"budget":2500.5,"topics":["rust","mcp"],"ok":true}}"#,
        r#"{"action":"decline"}"#,
        r#"{"action":"cancel","_meta":{"a":[1,{"b":null}],"c":"d"}}"#,
        " {\n\t\"content\" : { \"ok\" : false , \"x\" : [ ] } ,\r\"action\" : \"accept\" } \n",
        r#"{"action":"accept","content":{"age":-0,"budget":-1.5e3,"topics":[],"email":"é𝄞"}}"#,
        r#"{"action":"accept","content":{"age":18446744073709551615,"budget":0}}"#,
        r#"{"action":"accept","content":{"age":1,"age":2},"content":{"age":3}}"#,
        r#"{"action":"accept","content":null}"#,
        r#"{"action":"accept","content":5}"#,
        r#"{"action":7,"content":{"email":null,"ok":"yes","topics":"rust"}}"#,
        r#"{"action":null,"action":"cancel"}"#,
        r#"{"action":"cancel","action":null}"#,
        r#"{"action":"Accept"}"#,
        r#"{"action":["accept"],"content":{}}"#,
        r#"{"action":{"accept":true}}"#,
        r#"{}"#,
        r#"{"action":"accept","content":{"x":[[[{"y":[]}]]],"age":2}}"#,
        // Beyond `u64`: a float, read by `serde_json` from the number's own text.
        r#"{"action":"accept","content":{"age":18446744073709551616}}"#,
        r#"{"action":"accept","_meta":[99999999999999999999]}"#,
        // Escapes in values, decoded here: every simple one, `\u` in both cases, a surrogate
        // pair, in strings, arrays and skipped members.
        r#"{"action":"accept","content":{"email":"a\"b\\c\/d\be\ff\ng\rh\ti","age":36}}"#,
        r#"{"action":"accept","content":{"email":"\u00e9\u00C9\u0000x\uD83D\uDE00y\ud83d\ude00","topics":["r\u0075st","\"",""]}}"#,
        r#"{"action":"accept","_meta":{"note":"line\nbreak \u263a"},"content":{"email":"\\"}}"#,
        // Numbers this reads itself, and numbers it leaves to `serde_json`.
        r#"{"action":"accept","content":{"age":-9223372036854775808,"budget":9007199254740992e-22}}"#,
        r#"{"action":"accept","content":{"age":-9223372036854775809,"budget":9007199254740993e-22}}"#,
        r#"{"action":"accept","content":{"age":1E+2,"budget":1.5e-23,"email":-0.0}}"#,
        r#"{"action":"accept","content":{"age":0.1e1,"budget":123456789012345678901234567890e-10}}"#,
        r#"{"action":"accept","content":{"age":2.2250738585072014e-308,"budget":1.7976931348623157e308}}"#,
        r#"{"action":"accept","content":{"age":1e0001,"budget":4.9e-324,"email":1e-400}}"#,
    ];

    /// Replies the scanner leaves to `serde_json`.
    const OTHERS: &[&str] = &[
        r#"{"action":"acc\u0065pt","content":{}}"#,
        r#"{"action":"accept","content":{"em\u0061il":"x"}}"#,
        r#"{"action":"accept","content":{"email":{"a":1}}}"#,
        r#"{"action":"accept","content":{"topics":["rust",1]}}"#,
        r#"{"action":"accept","content":{"age":1e400}}"#,
        r#"{"action":"accept","content":{"age":01}}"#,
        r#"{"action":"accept","content":{"age":1.}}"#,
        r#"{"action":"accept","content":{"age":-}}"#,
        r#"{"action":"accept","content":{"age":1-2}}"#,
        r#"{"action":"accept","content":{"age":+1}}"#,
        r#"{"action":"accept","content":{"email":"a"}}x"#,
        r#"{"action":"accept","content":{"email":"a"},}"#,
        r#"{"action":"accept","content":{"email":"a",}}"#,
        r#"{"action":"accept","content":{"topics":["rust",]}}"#,
        r#"{"action":"accept" "content":{}}"#,
        r#"{"action":"accept","content":{"email":"a	b"}}"#,
        r#"{"action":"accept","content":{"email":tru}}"#,
        r#"{"action":"accept","content":{"email":nul}}"#,
        r#"{"action":"accept","content":{"email":"a"}"#,
        r#"{"action":"accept","content":{"email":"a"#,
        r#"["action","accept"]"#,
        r#""accept""#,
        "",
        " ",
        r#"{"action":"accept","content":{"email":"a"}} {}"#,
        r#"{"action":"accept","_meta":{"a":"\ud800"}}"#,
        // Escapes it leaves: surrogates alone, reversed or half-paired, invalid, truncated; a
        // raw control character after an escape; an escape in a member name or the action.
        r#"{"action":"accept","content":{"email":"\udc00"}}"#,
        r#"{"action":"accept","content":{"email":"\ud800x"}}"#,
        r#"{"action":"accept","content":{"email":"\ud800\u0041"}}"#,
        r#"{"action":"accept","content":{"email":"\ude00\ud83d"}}"#,
        r#"{"action":"accept","content":{"email":"\ud83d\n"}}"#,
        r#"{"action":"accept","content":{"email":"\x41"}}"#,
        r#"{"action":"accept","content":{"email":"\u00g1"}}"#,
        r#"{"action":"accept","content":{"email":"\u+0e9"}}"#,
        r#"{"action":"accept","content":{"email":"\u00e"}}"#,
        r#"{"action":"accept","content":{"email":"a\"#,
        r#"{"action":"accept","content":{"email":"a\n	b"}}"#,
        r#"{"action":"accept","content":{"topics":["\u12"]}}"#,
        r#"{"action":"accept","_meta":[1e400]}"#,
    ];

    fn slots(n: usize) -> Vec<Slot<'static>> {
        std::iter::repeat_with(|| Slot::Absent).take(n).collect()
    }

    /// The scanner either declines `text`, its slots all absent, or reads exactly what the
    /// `serde_json` reader reads. Returns whether it read it.
    fn agrees(schema: &RequestedSchema, text: &str) -> bool {
        let n = schema.properties().len();
        let mut by_serde = slots(n);
        let serde = read_with_serde(schema, text, &mut by_serde);
        let mut scanned = slots(n);
        match scan_reply(schema, text, &mut scanned) {
            Some((action, content)) => {
                // The action as `read_reply` takes it from the `serde_json` reader.
                let Ok(Reply::Object {
                    action: serde_action,
                    content: serde_content,
                }) = serde
                else {
                    panic!("read, but serde_json reads {serde:?}: {text}");
                };
                let serde_action = match serde_action {
                    Some(Slot::Str(name)) => action_named(&name),
                    other => action_of(other.map(Slot::into_value).as_ref()),
                };
                assert_eq!(action.action(), serde_action, "{text}");
                assert_eq!(content, serde_content, "{text}");
                assert_eq!(by_serde, scanned, "{text}");
                true
            }
            None => {
                assert!(scanned.iter().all(|s| *s == Slot::Absent), "{text}");
                false
            }
        }
    }

    #[test]
    fn reads_plain_replies_as_serde_json_does() {
        let schema = schema();
        for text in PLAIN {
            assert!(agrees(&schema, text), "not read: {text}");
        }
    }

    #[test]
    fn leaves_escapes_errors_and_odd_shapes_to_serde_json() {
        let schema = schema();
        for text in OTHERS {
            assert!(!agrees(&schema, text), "read: {text}");
        }
    }

    /// Names matched on the text itself (plain ones) and names only an escape can write: a
    /// member is matched to its property whatever its order, and never by a prefix, an
    /// extension, or the raw bytes of a name that needs an escape.
    #[test]
    fn matches_member_names_plain_or_not() {
        let schema = RequestedSchema::new(vec![
            Property::new("a", BooleanSchema::new()).optional(),
            Property::new("ab", BooleanSchema::new()).optional(),
            Property::new("q\"t", BooleanSchema::new()).optional(),
            Property::new("b\\s", BooleanSchema::new()).optional(),
            Property::new("n\nl", BooleanSchema::new()).optional(),
            Property::new("é", BooleanSchema::new()).optional(),
        ])
        .expect("a valid schema");
        let plain = schema.properties().iter().map(|p| p.plain_name);
        assert_eq!(
            plain.collect::<Vec<_>>(),
            [true, true, false, false, false, true]
        );
        let read = |content: &str| {
            let text = format!(r#"{{"action":"accept","content":{content}}}"#);
            let read = agrees(&schema, &text);
            let mut fields = slots(schema.properties().len());
            scan_reply(&schema, &text, &mut fields);
            (read, fields.into_iter().map(Slot::into_value).collect())
        };
        // The properties at `picks` true, the others absent.
        let set = |picks: &[usize]| -> Vec<serde_json::Value> {
            (0..6)
                .map(|i| serde_json::Value::from(picks.contains(&i).then_some(true)))
                .collect()
        };
        // In order, out of order, with unknown members that extend or shorten a name.
        assert_eq!(
            read(r#"{"a":true,"ab":true,"é":true}"#),
            (true, set(&[0, 1, 5]))
        );
        assert_eq!(
            read(r#"{"é":true,"ab":true,"a":true}"#),
            (true, set(&[0, 1, 5]))
        );
        assert_eq!(
            read(r#"{"abc":true,"ab":true,"":true,"é!":true}"#),
            (true, set(&[1]))
        );
        // A name that needs an escape: the raw bytes are not it (and are not JSON).
        assert!(!read(r#"{"a":true,"ab":true,"q"t":true}"#).0);
        assert!(!read(r#"{"a":true,"ab":true,"b\s":true}"#).0);
        // Escaped, it is read by the `serde_json` reader, which the scanner leaves it to.
        for content in [r#"{"q\"t":true}"#, r#"{"b\\s":true}"#, r#"{"n\nl":true}"#] {
            assert!(!read(content).0, "{content}");
        }
        let mut fields = slots(6);
        let text =
            r#"{"action":"accept","content":{"q\"t":true,"b\\s":true,"n\nl":true,"a":true}}"#;
        read_with_serde(&schema, text, &mut fields).expect("valid");
        let fields: Vec<_> = fields.into_iter().map(Slot::into_value).collect();
        assert_eq!(fields, set(&[0, 2, 3, 4]));
    }

    #[test]
    fn skips_nesting_up_to_its_limit_then_declines() {
        let schema = schema();
        for depth in [1, 63, 64, 65, 127, 128, 129, 200] {
            let arrays = format!(
                r#"{{"action":"accept","_meta":{}{}}}"#,
                "[".repeat(depth),
                "]".repeat(depth)
            );
            let objects = format!(
                r#"{{"action":"accept","_meta":{}0{}}}"#,
                r#"{"a":"#.repeat(depth),
                "}".repeat(depth)
            );
            for text in [arrays, objects] {
                // Depth counts from the member's own value (0).
                assert_eq!(agrees(&schema, &text), depth <= 64, "depth {depth}");
            }
        }
    }

    #[test]
    fn finds_the_first_special_byte_of_any_word() {
        let naive = |bytes: &[u8; 8]| {
            bytes
                .iter()
                .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
        };
        // Every byte value at every position, among fillers around each class's edges.
        for filler in [
            b'a', b' ', b'!', b'#', b'[', b']', 0x7f, 0x80, 0xc3, 0xff, 0x1f, b'"',
        ] {
            for at in 0..8 {
                for b in 0..=u8::MAX {
                    let mut bytes = [filler; 8];
                    bytes[at] = b;
                    assert_eq!(
                        special_byte(u64::from_le_bytes(bytes)),
                        naive(&bytes),
                        "{bytes:?}"
                    );
                }
            }
        }
        // And pseudo-random words (xorshift), biased towards the interesting bytes.
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        for _ in 0..200_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let bytes = state.to_le_bytes().map(|b| match b % 8 {
                0 => b'"',
                1 => b'\\',
                2 => b % 0x22,
                _ => b,
            });
            assert_eq!(
                special_byte(u64::from_le_bytes(bytes)),
                naive(&bytes),
                "{bytes:?}"
            );
        }
    }

    struct XorShift(u64);

    impl XorShift {
        fn below(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % n
        }
        fn digits(&mut self, count: u64, text: &mut String) {
            for _ in 0..count {
                text.push(char::from(b"0123456789"[self.below(10) as usize]));
            }
        }
    }

    /// [`plain_number`] of all of `text`, as the scanner takes it: `None` when more follows.
    fn whole_number(text: &str) -> Option<serde_json::Number> {
        plain_number(text.as_bytes())
            .filter(|(_, len)| *len == text.len())
            .map(|(number, _)| number)
    }

    /// Every number this reads itself has `serde_json`'s value, to the bit and the variant.
    #[test]
    fn reads_numbers_as_serde_json_does() {
        let mut rng = XorShift(0x2545_f491_4f6c_dd1d);
        let (mut tried, mut read) = (0, 0);
        for _ in 0..300_000 {
            let mut text = String::new();
            if rng.below(2) == 0 {
                text.push('-');
            }
            let n = 1 + rng.below(21);
            rng.digits(n, &mut text);
            if rng.below(2) == 0 {
                text.push('.');
                let n = rng.below(22);
                rng.digits(n, &mut text);
            }
            if rng.below(2) == 0 {
                text.push(['e', 'E'][rng.below(2) as usize]);
                text.push_str(["", "+", "-"][rng.below(3) as usize]);
                let n = rng.below(4);
                rng.digits(n, &mut text);
            }
            tried += 1;
            let by_serde = serde_json::from_str::<serde_json::Value>(&text).ok();
            if let Some(number) = whole_number(&text) {
                read += 1;
                let number = serde_json::Value::Number(number);
                assert_eq!(by_serde.as_ref(), Some(&number), "{text}");
                // Same variant too: an integer stays one, a float stays one.
                assert_eq!(
                    by_serde
                        .as_ref()
                        .map(|v| (v.is_u64(), v.is_i64(), v.is_f64())),
                    Some((number.is_u64(), number.is_i64(), number.is_f64())),
                    "{text}"
                );
            }
        }
        assert!(read > tried / 10, "{read} of {tried}");
        for text in [
            "0",
            "-0",
            "1",
            "18446744073709551615",
            "-9223372036854775808",
        ] {
            assert!(whole_number(text).is_some(), "{text}");
        }
        for text in [
            "", "-", "01", "1.", ".5", "1e", "1e+", "+1", "1e1000", "0x1", "1.5.5",
        ] {
            assert_eq!(whole_number(text), None, "{text}");
        }
    }

    /// Every `\u` escape, alone and in surrogate pairs, in both cases: read as `serde_json`
    /// reads it, or left to it.
    #[test]
    fn reads_unicode_escapes_as_serde_json_does() {
        let schema = schema();
        let reply =
            |escapes: &str| format!(r#"{{"action":"accept","content":{{"email":"<{escapes}>"}}}}"#);
        let mut read = 0;
        for unit in 0..=0xFFFF_u32 {
            let escape = if unit % 2 == 0 {
                format!("\\u{unit:04x}")
            } else {
                format!("\\u{unit:04X}")
            };
            if agrees(&schema, &reply(&escape)) {
                read += 1;
            }
        }
        // Every code unit but the 2 048 surrogates.
        assert_eq!(read, 0x10000 - 0x800);
        for high in (0xD800..=0xDBFF_u32).step_by(0x3F) {
            for low in (0xDBF0..=0xE010_u32).step_by(7) {
                let text = reply(&format!("\\u{high:04x}\\u{low:04x}"));
                assert_eq!(
                    agrees(&schema, &text),
                    (0xDC00..=0xDFFF).contains(&low),
                    "{text}"
                );
            }
        }
    }

    /// Every reply above, with one character deleted, inserted or replaced anywhere: the
    /// scanner never reads a text differently from `serde_json`, valid or not.
    #[test]
    fn agrees_with_serde_json_on_every_one_character_edit() {
        const EDITS: &[char] = &[
            '{', '}', '[', ']', '"', '\\', ',', ':', '0', '1', '9', '-', '+', '.', 'e', 'E', 't',
            'n', 'u', ' ', '\n', '\u{1}', 'é', '𝄞',
        ];
        let schema = schema();
        let (mut texts, mut read) = (0, 0);
        for base in PLAIN.iter().chain(OTHERS) {
            let chars: Vec<char> = base.chars().collect();
            for at in 0..=chars.len() {
                let (before, after) = chars.split_at(at);
                let mut edits: Vec<String> = Vec::new();
                if let Some((_, rest)) = after.split_first() {
                    edits.push(before.iter().chain(rest).collect());
                }
                for &c in EDITS {
                    edits.push(before.iter().chain([&c]).chain(after).collect());
                    if let Some((_, rest)) = after.split_first() {
                        edits.push(before.iter().chain([&c]).chain(rest).collect());
                    }
                }
                for text in &edits {
                    texts += 1;
                    if agrees(&schema, text) {
                        read += 1;
                    }
                }
            }
        }
        // Both outcomes are exercised in bulk.
        assert!(read > texts / 10 && read < texts / 2, "{read} of {texts}");
    }
}
