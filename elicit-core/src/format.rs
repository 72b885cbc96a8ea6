//! The four string formats the spec allows, and their checks.
//!
//! Each is JSON Schema's format of that name, as the JSON-Schema-Test-Suite reads it
//! (`tests/format_suite.rs` runs the suite's cases through both checks below; `.ci/run` fetches
//! the suite):
//!
//! - `email`: RFC 5321 `Mailbox`, ASCII only (non-ASCII is `idn-email`, not offered).
//! - `uri`: RFC 3986 `URI`: absolute, a fragment allowed. Two rules of ours on top: something
//!   follows the scheme's colon (`https:` names nothing), and an authority has a host
//!   (`http://`, `http://:80/` name no server) unless the scheme is `file` (`file:///etc/hosts`).
//! - `date`, `date-time`: RFC 3339 `full-date` and `date-time`, with a real day of the month
//!   and a leap second only at 23:59:60 UTC.
//!
//! # Who parses
//!
//! We validate; well-kept crates parse. A URI is where a parser differential hurts: the split
//! into userinfo, host and port decides where a request goes, and a grammar of our own that
//! split `https://[@example.org/` differently from the server's HTTP client would let a value
//! through that means something else there. So at run time [`Format::accepts`] hands a `uri` to
//! [`fluent-uri`](https://docs.rs/fluent-uri), a strict RFC 3986 parser (`#![forbid(unsafe_code)]`,
//! fuzzed against other parsers, the oracle the `jsonschema` crate tests its own `uri` check
//! against), and applies our two rules to the components it parsed.
//!
//! The dates and the email address stay here: their grammars are small and closed (fixed-width
//! digit fields; RFC 5321's dot-string, quoted string, labels and address literal), the crates
//! that parse them (`chrono`, `time`, `email_address`) answer other questions and none can run
//! at compile time, which the derive needs (below).
//!
//! # The `uri` check at compile time
//!
//! The derive checks a field's string `default` against its `format` in a generated `const _`,
//! so a default outside its format does not compile. That needs a `const fn`:
//! [`Format::matches`]. For `email`, `date` and
//! `date-time` it is the very code [`Format::accepts`] runs. No RFC 3986 parser can run in a
//! `const fn` (neither `fluent-uri`'s nor `iri-string`'s: both parse through traits), so for
//! `uri` it is a mirror of the RFC 3986 grammar, written here as `const fn`s. The mirror only
//! ever judges a literal in the server's own source, never a client's reply or a hand-built
//! schema (those go through [`Format::accepts`]), and `tests` holds it to the parser: they agree
//! on every short string over the bytes that steer the grammar, on every byte in every position
//! of sample URIs, on IP literals built from every short sequence of their parts, and on random
//! inputs. A disagreement could at worst let a derived form's `default` compile that the
//! schema's constructor then refuses when the form is first asked (a panic naming it as a bug of
//! this crate, since a derived schema is built by the same checking constructor as a hand-built
//! one), or refuse a valid one at compile time; it never decides a reply.

use std::fmt;

/// A string `format` allowed in a form-mode schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// `email`: an RFC 5321 mailbox `local@domain`, ASCII only (an address with non-ASCII
    /// characters is JSON Schema's `idn-email`, which the spec does not offer).
    Email,
    /// `uri`: an RFC 3986 URI: a scheme, `:`, and a hierarchical part, with an optional query
    /// and fragment (a relative reference is not one).
    Uri,
    /// `date`: an RFC 3339 `full-date`, e.g. `2026-07-28`.
    Date,
    /// `date-time`: an RFC 3339 `date-time`, e.g. `2026-07-28T09:30:00Z`.
    DateTime,
}

impl Format {
    /// The name used on the wire.
    pub const fn as_str(self) -> &'static str {
        match self {
            Format::Email => "email",
            Format::Uri => "uri",
            Format::Date => "date",
            Format::DateTime => "date-time",
        }
    }

    /// The format with this wire name.
    ///
    /// A `const fn`, so the derive reads a field's `format = ".."` through this very table at
    /// compile time: an unknown name is a compile error on the user's string.
    pub const fn from_name(name: &str) -> Option<Self> {
        // Bytes, not `str`: a `const fn` cannot match on a `str`.
        match name.as_bytes() {
            b"email" => Some(Format::Email),
            b"uri" => Some(Format::Uri),
            b"date" => Some(Format::Date),
            b"date-time" => Some(Format::DateTime),
            _ => None,
        }
    }

    /// Whether `value` is in this format: the check this crate makes at run time, on every
    /// string in a reply and on the `default` of a schema built with [`RequestedSchema::new`].
    ///
    /// For `uri` it asks an RFC 3986 parser (`fluent-uri`); for the other formats it is
    /// [`Format::matches`]. The module documentation says why.
    ///
    /// ```
    /// # extern crate elicit_core as mcp_elicit;
    /// use mcp_elicit::schema::Format;
    /// assert!(Format::Uri.accepts("https://[2001:db8::1]:8443/a?b#c"));
    /// assert!(!Format::Uri.accepts("http://example.com:abc/path"));
    /// assert!(!Format::Uri.accepts("https://[@example.org/test.txt"));
    /// assert!(Format::Email.accepts("octocat@github.com"));
    /// ```
    ///
    /// [`RequestedSchema::new`]: crate::schema::RequestedSchema::new
    pub fn accepts(self, value: &str) -> bool {
        match self {
            Format::Uri => uri_by_parser(value),
            Format::Email | Format::Date | Format::DateTime => self.matches(value),
        }
    }

    /// Whether `value` is in this format, as a `const fn`: the derive runs it at compile time on
    /// a field's string `default`.
    ///
    /// The same answer as [`Format::accepts`]: for `email`, `date` and `date-time` by the same
    /// code; for `uri` by a `const` mirror of the RFC 3986 grammar that the tests hold to the
    /// parser `accepts` asks, since no parser can run in a `const fn`. Outside a `const`
    /// context, prefer [`Format::accepts`].
    ///
    /// ```
    /// # extern crate elicit_core as mcp_elicit;
    /// use mcp_elicit::schema::Format;
    /// const BIRTHDAY_OK: bool = Format::Date.matches("2024-02-29");
    /// assert!(BIRTHDAY_OK);
    /// assert!(!Format::Date.matches("2023-02-29"));
    /// assert!(Format::Uri.matches("https://example.com/a?b#c"));
    /// assert!(!Format::Uri.matches("/relative/path"));
    /// ```
    pub const fn matches(self, value: &str) -> bool {
        let bytes = value.as_bytes();
        match self {
            Format::Email => is_email(bytes),
            Format::Uri => is_uri(bytes),
            Format::Date => bytes.len() == 10 && full_date_prefix(bytes),
            Format::DateTime => is_date_time(bytes),
        }
    }

    /// What a value in this format looks like, for error messages.
    pub const fn describe(self) -> &'static str {
        match self {
            Format::Email => "an email address like name@example.com",
            Format::Uri => "an absolute URI like https://example.com/path",
            Format::Date => "a date like 2026-07-28 (RFC 3339 full-date)",
            Format::DateTime => "a date-time like 2026-07-28T09:30:00Z (RFC 3339)",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

// The checks below are `const fn`s over bytes, so the derive can run them at compile time.
// Every byte is read through `at`, the one place that indexes: no input can make them panic.

/// Byte `i` of `b`, or 0 past the end (0 never satisfies any class below).
#[allow(
    clippy::indexing_slicing,
    reason = "bounds-checked on the same line; `<[u8]>::get` is not a `const fn`"
)]
const fn at(b: &[u8], i: usize) -> u8 {
    if i < b.len() { b[i] } else { 0 }
}

const fn is_digit(c: u8) -> bool {
    c.is_ascii_digit()
}

// The email and URI checks read each byte's class from one table instead of testing it against
// a chain of ranges and sets: a lookup per byte. The email scanner accepts exactly what its
// first version (kept in `format/reference.rs`) accepts, the URI mirror exactly what
// `fluent-uri` accepts; `tests` compares each with its reference on many inputs.

/// `atext` of RFC 5321/5322 (ASCII letters, digits, the symbols of [`is_atext_symbol`]):
/// allowed in a dot-string local part.
const ATEXT: u16 = 1;
/// An ASCII letter or digit: allowed anywhere in a domain label.
const LABEL: u16 = 1 << 1;
/// Allowed in a URI scheme after its first letter: letters, digits, `+`, `-`, `.`.
const SCHEME: u16 = 1 << 2;
/// ASCII hex digit.
const HEX: u16 = 1 << 3;
/// RFC 3986 `unreserved` and `sub-delims`: a `reg-name` host, `%XX` aside.
const REG_NAME: u16 = 1 << 4;
/// `REG_NAME` and `:`: a URI's `userinfo`, and the tail of an `IPvFuture`.
const USERINFO: u16 = 1 << 5;
/// `pchar` (`USERINFO` and `@`) and `/`: a URI's path.
const PATH: u16 = 1 << 6;
/// `PATH` and `?`: a URI's query and fragment.
const QUERY: u16 = 1 << 7;
/// Ends a URI's authority: `/`, `?`, `#`.
const AUTHORITY_END: u16 = 1 << 8;

/// The classes of every byte value.
static CLASSES: [u16; 256] = classes();

const fn classes() -> [u16; 256] {
    let mut table = [0u16; 256];
    let mut i = 0;
    while i < 256 {
        #[allow(clippy::cast_possible_truncation, reason = "i < 256")]
        let c = i as u8;
        let mut class = 0;
        if c.is_ascii_alphanumeric() || is_atext_symbol(c) {
            class |= ATEXT;
        }
        if c.is_ascii_alphanumeric() {
            class |= LABEL | SCHEME;
        }
        if matches!(c, b'+' | b'-' | b'.') {
            class |= SCHEME;
        }
        if c.is_ascii_hexdigit() {
            class |= HEX;
        }
        // unreserved: ALPHA DIGIT - . _ ~; sub-delims: ! $ & ' ( ) * + , ; =
        if c.is_ascii_alphanumeric()
            || matches!(
                c,
                b'-' | b'.'
                    | b'_'
                    | b'~'
                    | b'!'
                    | b'$'
                    | b'&'
                    | b'\''
                    | b'('
                    | b')'
                    | b'*'
                    | b'+'
                    | b','
                    | b';'
                    | b'='
            )
        {
            class |= REG_NAME | USERINFO | PATH | QUERY;
        }
        if c == b':' {
            class |= USERINFO | PATH | QUERY;
        }
        if c == b'@' || c == b'/' {
            class |= PATH | QUERY;
        }
        if c == b'?' {
            class |= QUERY;
        }
        if matches!(c, b'/' | b'?' | b'#') {
            class |= AUTHORITY_END;
        }
        #[allow(clippy::indexing_slicing, reason = "i < 256")]
        {
            table[i] = class;
        }
        i += 1;
    }
    table
}

/// Whether byte `c` is in `class` (any of its bits).
#[allow(
    clippy::indexing_slicing,
    reason = "a `u8` always indexes a 256-entry table; `<[u8]>::get` is not a `const fn`"
)]
const fn is(c: u8, class: u16) -> bool {
    CLASSES[c as usize] & class != 0
}

/// RFC 5321 `Mailbox`, `local@domain`: a dot-string local part (atext) or a quoted string of
/// printable ASCII, then a domain of dot-separated labels (letters, digits, inner hyphens) or a
/// bracketed address literal. ASCII only: JSON Schema's `email` is RFC 5321's, and a non-ASCII
/// address (`jöe@example.com`, or a look-alike of `example.com` with a Cyrillic `а`, U+0430) is its
/// `idn-email`, which the spec does not offer. An internationalized domain is written in its
/// `xn--` form.
const fn is_email(b: &[u8]) -> bool {
    let len = b.len();
    // The last `@` splits local part and domain.
    let mut at_pos = len;
    while at_pos > 0 {
        at_pos -= 1;
        if at(b, at_pos) == b'@' {
            break;
        }
    }
    if at(b, at_pos) != b'@'
        || at_pos == 0
        || at_pos > 64
        || len - at_pos - 1 == 0
        || len - at_pos - 1 > 255
    {
        return false;
    }
    if at_pos >= 2 && at(b, 0) == b'"' && at(b, at_pos - 1) == b'"' {
        let mut j = 1;
        while j < at_pos - 1 {
            let c = at(b, j);
            if c == b'"' || c == b'\\' || c < 0x20 || c >= 0x7f {
                return false;
            }
            j += 1;
        }
    } else {
        // Dot-separated atoms, none empty: no leading, trailing or doubled dot.
        let mut after_dot = true;
        let mut j = 0;
        while j < at_pos {
            let c = at(b, j);
            if is(c, ATEXT) {
                after_dot = false;
            } else if c == b'.' && !after_dot {
                after_dot = true;
            } else {
                return false;
            }
            j += 1;
        }
        if after_dot {
            return false;
        }
    }
    let start = at_pos + 1;
    if at(b, start) == b'[' {
        return at(b, len - 1) == b']' && is_address_literal(b, start + 1, len - 1);
    }
    is_domain(b, start, len)
}

const fn is_atext_symbol(c: u8) -> bool {
    matches!(
        c,
        b'!' | b'#'
            | b'$'
            | b'%'
            | b'&'
            | b'\''
            | b'*'
            | b'+'
            | b'-'
            | b'/'
            | b'='
            | b'?'
            | b'^'
            | b'_'
            | b'`'
            | b'{'
            | b'|'
            | b'}'
            | b'~'
    )
}

/// Dot-separated labels of 1..=63 bytes, ASCII letters/digits and inner hyphens.
const fn is_domain(b: &[u8], start: usize, end: usize) -> bool {
    let mut i = start;
    let mut label_start = start;
    while i < end {
        let c = at(b, i);
        if is(c, LABEL) || (c == b'-' && i > label_start) {
            i += 1;
            continue;
        }
        // A label ends: not empty, not after a hyphen, at most 63 bytes.
        if c != b'.' || i == label_start || at(b, i - 1) == b'-' || i - label_start > 63 {
            return false;
        }
        i += 1;
        label_start = i;
    }
    i > label_start && at(b, i - 1) != b'-' && i - label_start <= 63
}

/// `[1.2.3.4]` (dotted quad, each 0..=255) or `[IPv6:...]` (hex groups and colons).
const fn is_address_literal(b: &[u8], start: usize, end: usize) -> bool {
    if end - start > 5
        && at(b, start) == b'I'
        && at(b, start + 1) == b'P'
        && at(b, start + 2) == b'v'
        && at(b, start + 3) == b'6'
        && at(b, start + 4) == b':'
    {
        let mut i = start + 5;
        let mut colons = 0;
        while i < end {
            let c = at(b, i);
            if c == b':' {
                colons += 1;
            } else if !c.is_ascii_hexdigit() && c != b'.' {
                return false;
            }
            i += 1;
        }
        return colons >= 2 && colons <= 7;
    }
    let mut i = start;
    let mut parts = 0;
    let mut value: u32 = 0;
    let mut digits_in_part = 0;
    while i <= end {
        let c = if i < end { at(b, i) } else { b'.' };
        if c == b'.' {
            if digits_in_part == 0 || value > 255 {
                return false;
            }
            parts += 1;
            value = 0;
            digits_in_part = 0;
        } else if is_digit(c) && digits_in_part < 3 {
            value = value * 10 + (c - b'0') as u32;
            digits_in_part += 1;
        } else {
            return false;
        }
        i += 1;
    }
    parts == 4
}

/// The `uri` check at run time: `fluent-uri`'s RFC 3986 parse, then our two rules (module
/// documentation) on the components it parsed.
fn uri_by_parser(value: &str) -> bool {
    let Ok(uri) = fluent_uri::Uri::parse(value) else {
        return false;
    };
    let scheme = uri.scheme().as_str();
    let something_after_the_scheme = value.len() > scheme.len() + 1;
    let a_host_if_an_authority = uri.authority().is_none_or(|authority| {
        !authority.host().is_empty() || scheme.eq_ignore_ascii_case("file")
    });
    something_after_the_scheme && a_host_if_an_authority
}

// The `uri` check at compile time: RFC 3986's grammar as `const fn`s, the mirror of
// `uri_by_parser` (module documentation). The ABNF each function follows is in its comment.

/// `URI = scheme ":" hier-part [ "?" query ] [ "#" fragment ]`, and our two rules.
const fn is_uri(b: &[u8]) -> bool {
    let len = b.len();
    // scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )
    if !at(b, 0).is_ascii_alphabetic() {
        return false;
    }
    let mut i = 1;
    while is(at(b, i), SCHEME) {
        i += 1;
    }
    // Our first rule: something follows the colon.
    if at(b, i) != b':' || i + 1 >= len {
        return false;
    }
    let file = i == 4
        && at(b, 0).eq_ignore_ascii_case(&b'f')
        && at(b, 1).eq_ignore_ascii_case(&b'i')
        && at(b, 2).eq_ignore_ascii_case(&b'l')
        && at(b, 3).eq_ignore_ascii_case(&b'e');
    i += 1;
    // hier-part = "//" authority path-abempty / path-absolute / path-rootless / path-empty
    if at(b, i) == b'/' && at(b, i + 1) == b'/' {
        let start = i + 2;
        let mut end = start;
        while end < len && !is(at(b, end), AUTHORITY_END) {
            end += 1;
        }
        if !is_authority(b, start, end, file) {
            return false;
        }
        i = end;
    }
    // Each path form is, from here, a run of `pchar` and `/`: after an authority the run starts
    // at a `/` or is empty, and a path that began with `//` was read as an authority above.
    i = run(b, i, len, PATH);
    // query = *( pchar / "/" / "?" ); fragment, the same.
    if i < len && at(b, i) == b'?' {
        i = run(b, i + 1, len, QUERY);
    }
    if i < len && at(b, i) == b'#' {
        i = run(b, i + 1, len, QUERY);
    }
    i == len
}

/// Where the run of bytes of `class` and `pct-encoded` (`%` HEXDIG HEXDIG) that starts at `i`
/// ends, at most at `end`.
const fn run(b: &[u8], mut i: usize, end: usize, class: u16) -> usize {
    while i < end {
        let c = at(b, i);
        if is(c, class) {
            i += 1;
        } else if c == b'%' && i + 2 < end && is(at(b, i + 1), HEX) && is(at(b, i + 2), HEX) {
            i += 3;
        } else {
            break;
        }
    }
    i
}

/// `authority = [ userinfo "@" ] host [ ":" port ]` in `b[start..end]`, where
/// `userinfo = *( unreserved / pct-encoded / sub-delims / ":" )`,
/// `host = IP-literal / IPv4address / reg-name`, `reg-name = *( unreserved / pct-encoded /
/// sub-delims )` (every `IPv4address` is also a `reg-name`) and `port = *DIGIT`. Our second
/// rule: the host is empty only where `empty_host` allows it (`file:`).
const fn is_authority(b: &[u8], start: usize, end: usize, empty_host: bool) -> bool {
    // No `@` in a userinfo: the first one ends it.
    let mut host = start;
    let mut k = start;
    while k < end {
        if at(b, k) == b'@' {
            host = k + 1;
            break;
        }
        k += 1;
    }
    if host > start && run(b, start, host - 1, USERINFO) != host - 1 {
        return false;
    }
    let mut i = host;
    if i < end && at(b, i) == b'[' {
        // IP-literal = "[" ( IPv6address / IPvFuture ) "]"
        let mut close = i + 1;
        while close < end && at(b, close) != b']' {
            close += 1;
        }
        if close >= end || !is_ip_literal(b, i + 1, close) {
            return false;
        }
        i = close + 1;
    } else {
        i = run(b, i, end, REG_NAME);
        if i == host && !empty_host {
            return false;
        }
    }
    if i < end && at(b, i) == b':' {
        i += 1;
        while i < end && is_digit(at(b, i)) {
            i += 1;
        }
    }
    i == end
}

/// `IPv6address / IPvFuture` in `b[start..end]`, between an IP literal's brackets, where
/// `IPvFuture = "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" )` (`v` in either case).
const fn is_ip_literal(b: &[u8], start: usize, end: usize) -> bool {
    if !matches!(at(b, start), b'v' | b'V') {
        return is_ipv6(b, start, end);
    }
    let mut i = start + 1;
    while i < end && is(at(b, i), HEX) {
        i += 1;
    }
    if i == start + 1 || i + 1 >= end || at(b, i) != b'.' {
        return false;
    }
    i += 1;
    while i < end {
        if !is(at(b, i), USERINFO) {
            return false;
        }
        i += 1;
    }
    true
}

/// RFC 3986 `IPv6address` in `b[start..end]`: eight `h16` groups (1 to 4 hex digits) joined by
/// `:`, of which the last two may be an `IPv4address`, and at most one `::` standing for one or
/// more groups of zeros.
const fn is_ipv6(b: &[u8], start: usize, end: usize) -> bool {
    let mut i = start;
    let mut groups = 0;
    let mut elided = false;
    if i < end && at(b, i) == b':' {
        if i + 1 >= end || at(b, i + 1) != b':' {
            return false;
        }
        elided = true;
        i += 2;
    }
    while i < end {
        let piece = i;
        while i < end && is(at(b, i), HEX) {
            i += 1;
        }
        if i < end && at(b, i) == b'.' {
            // ls32's IPv4address: the last piece, worth two groups.
            if !is_ipv4(b, piece, end) {
                return false;
            }
            groups += 2;
            break;
        }
        if i == piece || i - piece > 4 {
            return false;
        }
        groups += 1;
        if i == end {
            break;
        }
        if at(b, i) != b':' {
            return false;
        }
        i += 1;
        if i < end && at(b, i) == b':' {
            if elided {
                return false;
            }
            elided = true;
            i += 1;
        } else if i == end {
            // A lone `:` at the end.
            return false;
        }
    }
    if elided { groups <= 7 } else { groups == 8 }
}

/// `IPv4address = dec-octet "." dec-octet "." dec-octet "." dec-octet` in `b[start..end]`, a
/// `dec-octet` being 0 to 255 without a leading zero.
const fn is_ipv4(b: &[u8], start: usize, end: usize) -> bool {
    let mut i = start;
    let mut octets = 0;
    while octets < 4 {
        if octets > 0 {
            if i >= end || at(b, i) != b'.' {
                return false;
            }
            i += 1;
        }
        let first = i;
        let mut value = 0u32;
        while i < end && i - first < 3 && is_digit(at(b, i)) {
            value = value * 10 + (at(b, i) - b'0') as u32;
            i += 1;
        }
        if i == first || value > 255 || (i - first > 1 && at(b, first) == b'0') {
            return false;
        }
        octets += 1;
    }
    i == end
}

/// `n` ASCII digits starting at `i` as a number, or `u32::MAX` when any is missing.
const fn digits(b: &[u8], i: usize, n: usize) -> u32 {
    let mut value = 0u32;
    let mut k = 0;
    while k < n {
        let c = at(b, i + k);
        if !is_digit(c) {
            return u32::MAX;
        }
        value = value * 10 + (c - b'0') as u32;
        k += 1;
    }
    value
}

/// RFC 3339 `full-date` at the start of `b`: `YYYY-MM-DD` with a real day of that month.
const fn full_date_prefix(b: &[u8]) -> bool {
    let (year, month, day) = (digits(b, 0, 4), digits(b, 5, 2), digits(b, 8, 2));
    if year == u32::MAX
        || month == u32::MAX
        || day == u32::MAX
        || at(b, 4) != b'-'
        || at(b, 7) != b'-'
    {
        return false;
    }
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    day >= 1 && day <= days
}

/// The last minute of a day, `23:59`, in minutes since midnight.
const LAST_MINUTE_OF_DAY: u32 = 23 * 60 + 59;

/// RFC 3339 `date-time`: `full-date "T" partial-time time-offset`; `T`/`Z` in either case,
/// an optional fraction of a second. Second 60 (a leap second) only in the last minute of the
/// UTC day: `23:59:60Z`, or a local time that the offset takes there (`15:59:60-08:00`), as
/// RFC 3339 section 5.7 allows and the JSON-Schema-Test-Suite expects. Whether a leap second
/// was really inserted on that date is not checked (no validator keeps the IERS table).
const fn is_date_time(b: &[u8]) -> bool {
    if b.len() < 20 || !full_date_prefix(b) || !matches!(at(b, 10), b'T' | b't') {
        return false;
    }
    let (hour, minute, second) = (digits(b, 11, 2), digits(b, 14, 2), digits(b, 17, 2));
    if at(b, 13) != b':' || at(b, 16) != b':' || hour > 23 || minute > 59 || second > 60 {
        return false;
    }
    let mut i = 19;
    if at(b, i) == b'.' {
        i += 1;
        let start = i;
        while is_digit(at(b, i)) {
            i += 1;
        }
        if i == start {
            return false;
        }
    }
    // The offset from UTC in minutes, and whether it is east of UTC (`+`).
    let rest = b.len() - i;
    let (offset, east) = if rest == 1 && matches!(at(b, i), b'Z' | b'z') {
        (0, true)
    } else if rest == 6 && matches!(at(b, i), b'+' | b'-') && at(b, i + 3) == b':' {
        let (h, m) = (digits(b, i + 1, 2), digits(b, i + 4, 2));
        if h > 23 || m > 59 {
            return false;
        }
        (h * 60 + m, at(b, i) == b'+')
    } else {
        return false;
    };
    if second == 60 {
        // Local time is UTC plus the offset; both terms are below 1440, so nothing wraps.
        let local = hour * 60 + minute;
        let utc = if east {
            (local + 24 * 60 - offset) % (24 * 60)
        } else {
            (local + offset) % (24 * 60)
        };
        return utc == LAST_MINUTE_OF_DAY;
    }
    true
}

#[cfg(test)]
mod reference;

#[cfg(test)]
mod tests {
    use super::Format::*;
    use super::{is_email, is_uri, reference, uri_by_parser};
    use proptest::prelude::*;

    /// The bytes that decide the email grammar, each class represented: what the exhaustive and
    /// random comparisons of the email scanner build their inputs from.
    const EMAIL_ALPHABET: &[u8] = b"aZ09.@-_\"[]:/?#%fFiIlLeEPv6!+=~ \\\x00\x7f\xc3\xbc<>";

    /// The bytes that steer the URI grammar, each class represented: letters (`v` starts an
    /// `IPvFuture`, `F` is a hex digit), digits, every delimiter, `%`, a sub-delim, an
    /// unreserved symbol, and bytes outside it (space, backslash, DEL, non-ASCII).
    const URI_ALPHABET: &[u8] = b"aFv01.:/?#@[]%!~ \\\x7f\xc3";

    /// Every string of up to `max` bytes over `alphabet`.
    fn every_string(alphabet: &[u8], max: usize, visit: &mut impl FnMut(&[u8])) {
        let mut word = Vec::new();
        fn go(alphabet: &[u8], max: usize, word: &mut Vec<u8>, visit: &mut impl FnMut(&[u8])) {
            visit(word);
            if word.len() == max {
                return;
            }
            for &c in alphabet {
                word.push(c);
                go(alphabet, max, word, visit);
                word.pop();
            }
        }
        go(alphabet, max, &mut word, visit);
    }

    /// The email scanner against its reference.
    fn email_same_as_reference(input: &[u8]) {
        assert_eq!(
            is_email(input),
            reference::is_email(input),
            "email {input:?}"
        );
    }

    /// The const URI mirror against the parser. A `&str` is UTF-8, so bytes that are not are
    /// no `uri` for either: the mirror must refuse them.
    fn uri_same_as_parser(input: &[u8]) {
        match std::str::from_utf8(input) {
            Ok(text) => assert_eq!(is_uri(input), uri_by_parser(text), "uri {text:?}"),
            Err(_) => assert!(!is_uri(input), "uri {input:?}"),
        }
    }

    #[test]
    fn email_scanner_matches_the_reference_on_every_short_input() {
        every_string(EMAIL_ALPHABET, 4, &mut email_same_as_reference);
    }

    #[test]
    fn email_scanner_matches_the_reference_on_every_byte_in_every_position() {
        for template in [
            &b"ab.c@ex-am.ple"[..],
            b"\"q\"@[127.0.0.1]",
            b"x@[IPv6:1::2]",
        ] {
            every_edit(template, &mut email_same_as_reference);
        }
    }

    #[test]
    fn email_scanner_matches_the_reference_on_label_and_part_lengths() {
        for n in [0, 1, 62, 63, 64, 65, 200, 254, 255, 256, 300] {
            let long = "a".repeat(n);
            let hyphens = format!("{}-", "b".repeat(n));
            for input in [
                format!("{long}@x.com"),
                format!("x@{long}.com"),
                format!("x@{long}"),
                format!("x@a.{hyphens}"),
                format!("\"{long}\"@x.com"),
            ] {
                email_same_as_reference(input.as_bytes());
            }
        }
    }

    /// `template` with each byte replaced by every byte value, and every byte value inserted
    /// at each position.
    fn every_edit(template: &[u8], visit: &mut impl FnMut(&[u8])) {
        for i in 0..=template.len() {
            for c in 0..=255u8 {
                let mut replaced = template.to_vec();
                let mut inserted = template.to_vec();
                if let Some(slot) = replaced.get_mut(i) {
                    *slot = c;
                }
                inserted.insert(i, c);
                visit(&replaced);
                visit(&inserted);
            }
        }
    }

    #[test]
    fn uri_mirror_matches_the_parser_on_every_short_input_after_each_prefix() {
        // Each prefix puts the short strings in another part of the grammar: a scheme, a path,
        // an authority, a `file:` authority, a host after a userinfo, an IP literal, a port.
        for prefix in ["", "a:", "a://", "file://", "a://u@", "a://[", "a://h:"] {
            every_string(URI_ALPHABET, 4, &mut |tail| {
                uri_same_as_parser(&[prefix.as_bytes(), tail].concat());
            });
        }
    }

    #[test]
    fn uri_mirror_matches_the_parser_on_every_byte_in_every_position() {
        for template in [
            &b"https://u:p@h.example:8080/p/a?q=1#f"[..],
            b"a://[::ffff:1.2.3.4]:1/",
            b"a://[1:2:3:4:5:6:7:8]",
            b"a://[v1f.x:y]/",
            b"file:///a%20b",
            b"FILE://:1/x",
            b"urn:a:b",
            b"a:/b//c?d?#e/@",
            b"a:?#",
        ] {
            every_edit(template, &mut uri_same_as_parser);
        }
    }

    /// The parts an IP literal is built from: groups of 1 to 5 hex digits, colons, dots and
    /// IPv4 addresses with and without leading zeros or out of range, `v` of an `IPvFuture`.
    const IP_PARTS: [&str; 12] = [
        "1",
        "ffff",
        "12345",
        ":",
        "::",
        ".",
        "1.2.3.4",
        "255.255.255.255",
        "256.0.0.1",
        "01.2.3.4",
        "v",
        "x",
    ];

    #[test]
    fn uri_mirror_matches_the_parser_on_ip_literals_of_up_to_five_parts() {
        fn go(depth: usize, literal: &mut String) {
            uri_same_as_parser(format!("a://[{literal}]/").as_bytes());
            if depth == 5 {
                return;
            }
            for part in IP_PARTS {
                let before = literal.len();
                literal.push_str(part);
                go(depth + 1, literal);
                literal.truncate(before);
            }
        }
        go(0, &mut String::new());
    }

    #[test]
    fn uri_mirror_matches_the_parser_on_every_count_of_ipv6_groups() {
        // 0 to 10 groups, `::` at each place or none, with and without an IPv4 tail.
        for groups in 0..=10 {
            for elision in (0..=groups).map(Some).chain([None]) {
                for tail in ["", "1.2.3.4"] {
                    let mut pieces: Vec<String> = (0..groups).map(|g| format!("{g:x}")).collect();
                    if !tail.is_empty() {
                        pieces.push(tail.to_string());
                    }
                    let literal = match elision {
                        Some(at) => {
                            let at = at.min(pieces.len());
                            let (head, rest) = pieces.split_at(at);
                            format!("{}::{}", head.join(":"), rest.join(":"))
                        }
                        None => pieces.join(":"),
                    };
                    uri_same_as_parser(format!("a://[{literal}]").as_bytes());
                }
            }
        }
    }

    #[test]
    fn uri_mirror_matches_the_parser_on_long_parts() {
        for n in [0, 1, 63, 64, 255, 256, 1000] {
            let long = "a".repeat(n);
            let digits = "9".repeat(n);
            for input in [
                format!("https://{long}/"),
                format!("a{long}:x"),
                format!("https://h:{digits}/"),
                format!("https://{long}@h/{long}?{long}#{long}"),
                format!("a://[{}]", "1:".repeat(n)),
            ] {
                uri_same_as_parser(input.as_bytes());
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(20_000))]

        #[test]
        fn email_scanner_matches_the_reference_on_random_inputs(
            input in proptest::collection::vec(proptest::sample::select(EMAIL_ALPHABET), 0..40)
        ) {
            email_same_as_reference(&input);
        }

        #[test]
        fn email_scanner_matches_the_reference_on_random_strings(input in ".{0,40}") {
            email_same_as_reference(input.as_bytes());
        }

        #[test]
        fn email_scanner_matches_the_reference_on_address_shapes(
            input in "(\"[a-z ]{0,3}\"|[a-z.+-]{0,5})@(\\[[0-9.IPv6:a-f]{0,12}\\]|[a-z0-9.-]{0,10})"
        ) {
            email_same_as_reference(input.as_bytes());
        }

        #[test]
        fn uri_mirror_matches_the_parser_on_random_inputs(
            input in proptest::collection::vec(proptest::sample::select(URI_ALPHABET), 0..40)
        ) {
            uri_same_as_parser(&input);
        }

        #[test]
        fn uri_mirror_matches_the_parser_on_random_strings(input in ".{0,40}") {
            uri_same_as_parser(input.as_bytes());
        }

        #[test]
        fn uri_mirror_matches_the_parser_on_uri_shapes(
            input in "[a-zA-Z0-9+.-]{0,5}:(//([a-z:%@]{0,4}@)?(\\[[0-9a-fA-FvV.:]{0,14}\\]|[a-z0-9.%-]{0,6})(:[0-9a]{0,3})?)?[/?#%a-fA-F0-9 @:\\[\\]]{0,10}"
        ) {
            uri_same_as_parser(input.as_bytes());
        }
    }

    #[test]
    fn email_accepts_ordinary_addresses() {
        for ok in [
            "octocat@github.com",
            "a.b+tag@sub.example.co",
            "\"quoted local\"@example.com",
            "x@[127.0.0.1]",
            "x@xn--bcher-kva.example",
        ] {
            assert!(Email.matches(ok), "{ok}");
        }
    }

    /// JSON Schema's `email` is RFC 5321's, ASCII only; non-ASCII is `idn-email`.
    #[test]
    fn email_refuses_non_ascii() {
        for bad in [
            "jöe@example.com",
            // A Cyrillic `а` (U+0430) in a name that reads as `example.com`.
            "admin@ex\u{430}mple.com",
            "ü@bücher.example",
            "x@bücher.example",
            "\"jöe\"@example.com",
            "\"\u{7f}\"@example.com",
            "x@example.com\u{a0}",
            "\u{feff}x@example.com",
        ] {
            assert!(!Email.matches(bad), "{bad}");
        }
    }

    #[test]
    fn email_rejects_malformed_addresses() {
        for bad in [
            "",
            "plain",
            "@example.com",
            "a@",
            "a@@b.com",
            "a..b@example.com",
            "a@-bad.com",
            "a@bad-.com",
            "a b@example.com",
            "a@exa mple.com",
            "a@[999.1.1.1]",
            ".a@example.com",
        ] {
            assert!(!Email.matches(bad), "{bad}");
        }
    }

    /// What the derive generates for a field's `default`: `matches` evaluated by the compiler.
    /// This compiles only if every check, the URI mirror's IP literals included, runs in a
    /// `const` context.
    #[test]
    fn matches_runs_at_compile_time() {
        const CHECKS: [bool; 8] = [
            Uri.matches("https://u:p@[2001:db8::1]:8443/a/b?c=d#e"),
            Uri.matches("http://[::ffff:1.2.3.4]/"),
            Uri.matches("http://[v1.x]/"),
            !Uri.matches("http://[::ffff:01.2.3.4]"),
            Email.matches("joe.bloggs@[IPv6:::1]"),
            !Email.matches("jöe@example.com"),
            Date.matches("2024-02-29"),
            DateTime.matches("1998-12-31T15:59:60-08:00"),
        ];
        const _: () = assert!(CHECKS[0] && CHECKS[1] && CHECKS[2] && CHECKS[3]);
        const _: () = assert!(CHECKS[4] && CHECKS[5] && CHECKS[6] && CHECKS[7]);
        assert!(CHECKS.iter().all(|&ok| ok));
    }

    /// The `uri` answer of both checks, which must agree.
    fn uri(text: &str) -> bool {
        let (at_run_time, at_compile_time) = (Uri.accepts(text), Uri.matches(text));
        assert_eq!(at_run_time, at_compile_time, "{text}");
        at_run_time
    }

    #[test]
    fn uri_must_be_absolute() {
        for ok in [
            "https://example.com",
            "http://localhost:8080/a/b?c=d#e",
            "mailto:a@example.com",
            "urn:isbn:0451450523",
            "file:///etc/hosts",
            "https://example.com/%20x",
            "a:?",
            "a:#",
        ] {
            assert!(uri(ok), "{ok}");
        }
        for bad in [
            "",
            "example.com",
            "/path",
            "://x",
            "1http://x",
            "https://exa mple.com",
            "https://x/%zz",
            "https://x/%2",
            "https:",
            "http://",
            "https://x/<y>",
            "a:b#c#d",
            "https://exämple.com",
        ] {
            assert!(!uri(bad), "{bad}");
        }
    }

    /// An authority has a host, except in a `file:` URI (our rule, on top of RFC 3986).
    #[test]
    fn uri_authority_needs_a_host_unless_file() {
        for ok in [
            "file:///x",
            "FILE:///x",
            "file://:1/x",
            "file://u@/x",
            "a://h",
        ] {
            assert!(uri(ok), "{ok}");
        }
        for bad in [
            "http://",
            "http://:80/",
            "http://u@/",
            "http:///x",
            "a://?q",
        ] {
            assert!(!uri(bad), "{bad}");
        }
    }

    /// The review's cases: brackets only around an IP literal, a port of digits, an IP literal
    /// that is a real IPv6 address, an IP literal only in an authority.
    #[test]
    fn uri_brackets_ports_and_ip_literals_follow_rfc_3986() {
        for bad in [
            "https://[@example.org/test.txt",
            "http://example.com:abc/path",
            "http://[::ffff:01.2.3.4]",
            "http:/[::1]",
            "http://example.com:8o/",
            "http://a]b/",
            "http://[::1]x/",
            "http://[::1/",
            "http://[]/",
            "http://[:::1]/",
            "http://[1:2:3:4:5:6:7:8:9]/",
            "http://[1::2::3]/",
            "http://[1:2:3:4:5:6:7]/",
            "http://[12345::]/",
            "http://[::256.1.1.1]/",
            "http://[::1.2.3]/",
            "http://[1.2.3.4]/",
            "http://[fe80::1%25eth0]/",
            "http://[v.x]/",
            "http://[v1.]/",
            "http://[vg.x]/",
            "http://a@b@c/",
            "a:/[x]",
            "a:?[x]",
            "a:#[",
        ] {
            assert!(!uri(bad), "{bad}");
        }
        for ok in [
            "http://[::1]",
            "http://[::1]:8080/",
            "http://[::]/",
            "http://[1:2:3:4:5:6:7:8]/",
            "http://[1::8]/",
            "http://[1:2:3:4:5:6:7::]/",
            "http://[::ffff:1.2.3.4]/",
            "http://[1:2:3:4:5:6:1.2.3.4]/",
            "http://[v1.x:y]/",
            "http://[V1F.a]/",
            "http://u:p@[::1]:/",
            "http://1.2.3.999/",
            "http://example.com:/",
            "http://example.com:0080/",
            "http://-.~_!$&'()*+,;=:%40:80%2f::::::@example.com",
            "ldap://[2001:db8::7]/c=GB?objectClass?one",
        ] {
            assert!(uri(ok), "{ok}");
        }
    }

    #[test]
    fn date_checks_the_calendar() {
        for ok in ["2026-07-28", "2024-02-29", "2000-02-29", "1999-12-31"] {
            assert!(Date.matches(ok), "{ok}");
        }
        for bad in [
            "2023-02-29",
            "1900-02-29",
            "2026-13-01",
            "2026-00-10",
            "2026-04-31",
            "2026-7-28",
            "2026-07-28T00:00:00Z",
            "20260728",
            "２０２６-07-28",
        ] {
            assert!(!Date.matches(bad), "{bad}");
        }
    }

    #[test]
    fn date_time_is_rfc3339() {
        for ok in [
            "2026-07-28T09:30:00Z",
            "2026-07-28t09:30:00z",
            "2026-07-28T09:30:00.123+02:00",
            "2016-12-31T18:29:60-05:30",
        ] {
            assert!(DateTime.matches(ok), "{ok}");
        }
        for bad in [
            "2026-07-28",
            "2026-07-28 09:30:00Z",
            "2026-07-28T24:00:00Z",
            "2026-07-28T09:60:00Z",
            "2026-07-28T09:30:00",
            "2026-07-28T09:30:00.Z",
            "2026-07-28T09:30:00+2:00",
            "2026-07-28T09:30:00+24:00",
            "2026-02-30T09:30:00Z",
        ] {
            assert!(!DateTime.matches(bad), "{bad}");
        }
    }

    /// Second 60 only in the last minute of the UTC day, whatever the offset.
    #[test]
    fn date_time_leap_second_only_at_the_end_of_the_utc_day() {
        for ok in [
            "1998-12-31T23:59:60Z",
            "1998-12-31t23:59:60.5z",
            "1998-12-31T15:59:60-08:00",
            "1998-12-31T15:59:60.123-08:00",
            "1999-01-01T00:59:60+01:00",
            "1998-12-31T23:59:60+00:00",
            "1998-12-31T23:59:60-00:00",
            "2016-12-31T18:29:60-05:30",
            // The offset carries the minute across midnight either way.
            "1998-12-31T00:00:60+00:01",
            "1998-12-31T23:58:60-00:01",
            "1999-01-01T23:58:60+23:59",
        ] {
            assert!(DateTime.matches(ok), "{ok}");
        }
        for bad in [
            "1998-12-31T23:58:60Z",
            "1998-12-31T22:59:60Z",
            "1998-12-31T23:59:61Z",
            "1998-12-31T23:59:60+01:00",
            "1998-12-31T23:59:60-08:00",
            "2016-12-31T23:59:60-05:30",
            "1998-12-31T15:59:60-07:59",
            "1998-12-31T00:00:60Z",
            "1998-12-31T00:00:60-00:01",
        ] {
            assert!(!DateTime.matches(bad), "{bad}");
        }
    }
}
