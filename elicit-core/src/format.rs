//! The four string formats the spec allows, and their checks.
//!
//! The checks are written here rather than pulled from crates: each is a few dozen lines of
//! well-specified grammar (RFC 3339 for dates, RFC 3986 for absolute URIs, the `addr-spec` shape
//! of RFC 5322 for email), and the crates that do this (`url`, `chrono`, `email_address`) would
//! add their whole dependency trees to every user's build for a yes/no answer.

use std::fmt;

/// A string `format` allowed in a form-mode schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// `email`: an RFC 5321 mailbox `local@domain`, ASCII only (an address with non-ASCII
    /// characters is JSON Schema's `idn-email`, which the spec does not offer).
    Email,
    /// `uri`: an absolute URI (RFC 3986: scheme, `:`, and a hierarchical part).
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
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "email" => Some(Format::Email),
            "uri" => Some(Format::Uri),
            "date" => Some(Format::Date),
            "date-time" => Some(Format::DateTime),
            _ => None,
        }
    }

    /// Whether `value` is in this format.
    ///
    /// A `const fn`, so the derive checks a string `default` against its `format` at compile
    /// time with the very same code that checks replies at run time.
    ///
    /// ```
    /// # extern crate elicit_core as mcp_elicit;
    /// use mcp_elicit::Format;
    /// assert!(Format::Date.matches("2024-02-29"));
    /// assert!(!Format::Date.matches("2023-02-29"));
    /// assert!(Format::Uri.matches("https://example.com/a?b#c"));
    /// assert!(!Format::Uri.matches("/relative/path"));
    /// ```
    pub const fn matches(self, value: &str) -> bool {
        let bytes = value.as_bytes();
        match self {
            Format::Email => is_email(bytes),
            Format::Uri => is_absolute_uri(bytes),
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

// Email and URI checks read each byte's class from one table instead of testing it against a
// chain of ranges and sets: a lookup per byte. They accept exactly what the first versions
// (kept in `format/reference.rs`) accept; `tests` compares both on many inputs.

/// ASCII letter or digit.
const ALNUM: u8 = 1;
/// `atext` of RFC 5321/5322 (ASCII letters, digits, the symbols of [`is_atext_symbol`]):
/// allowed in a dot-string local part.
const ATEXT: u8 = 1 << 1;
/// An ASCII letter or digit: allowed anywhere in a domain label.
const LABEL: u8 = 1 << 2;
/// Allowed after a URI's scheme, `%` aside: unreserved, gen-delims and sub-delims of RFC 3986.
const URI: u8 = 1 << 3;
/// Allowed in a URI scheme after its first letter: letters, digits, `+`, `-`, `.`.
const SCHEME: u8 = 1 << 4;
/// Ends a URI's authority: `/`, `?`, `#`.
const AUTHORITY_END: u8 = 1 << 5;
/// ASCII hex digit.
const HEX: u8 = 1 << 6;

/// The classes of every byte value.
static CLASSES: [u8; 256] = classes();

const fn classes() -> [u8; 256] {
    let mut table = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        #[allow(clippy::cast_possible_truncation, reason = "i < 256")]
        let c = i as u8;
        let mut class = 0;
        if c.is_ascii_alphanumeric() {
            class |= ALNUM | URI | SCHEME;
        }
        if c.is_ascii_alphanumeric() || is_atext_symbol(c) {
            class |= ATEXT;
        }
        if c.is_ascii_alphanumeric() {
            class |= LABEL;
        }
        if matches!(
            c,
            b'-' | b'.'
                | b'_'
                | b'~'
                | b':'
                | b'/'
                | b'?'
                | b'#'
                | b'['
                | b']'
                | b'@'
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
        ) {
            class |= URI;
        }
        if matches!(c, b'+' | b'-' | b'.') {
            class |= SCHEME;
        }
        if matches!(c, b'/' | b'?' | b'#') {
            class |= AUTHORITY_END;
        }
        if c.is_ascii_hexdigit() {
            class |= HEX;
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
const fn is(c: u8, class: u8) -> bool {
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

/// RFC 3986 `absolute-URI` (fragment allowed, as in `URI`): `scheme ":" hier-part`. Bytes
/// outside the URI grammar (spaces, controls, `<>"{}|\^` and backtick, non-ASCII) are rejected;
/// `%` must start a `%XX` escape; `//` must be followed by an authority with a host (except
/// `file:`).
const fn is_absolute_uri(b: &[u8]) -> bool {
    let len = b.len();
    if len == 0 || !at(b, 0).is_ascii_alphabetic() {
        return false;
    }
    let mut colon = 1;
    while colon < len {
        let c = at(b, colon);
        if c == b':' {
            break;
        }
        if !is(c, SCHEME) {
            return false;
        }
        colon += 1;
    }
    if colon >= len - 1 {
        return false;
    }
    let mut j = colon + 1;
    while j < len {
        let c = at(b, j);
        if is(c, URI) {
            j += 1;
        } else if c == b'%' && is(at(b, j + 1), HEX) && is(at(b, j + 2), HEX) {
            j += 3;
        } else {
            return false;
        }
    }
    if at(b, colon + 1) == b'/' && at(b, colon + 2) == b'/' {
        // The host is what follows the last `@` of the authority, up to the first `/?#`.
        let mut k = colon + 3;
        let mut host_start = k;
        while k < len {
            let c = at(b, k);
            if is(c, AUTHORITY_END) {
                break;
            }
            if c == b'@' {
                host_start = k + 1;
            }
            k += 1;
        }
        let is_file = colon == 4
            && at(b, 0).eq_ignore_ascii_case(&b'f')
            && at(b, 1).eq_ignore_ascii_case(&b'i')
            && at(b, 2).eq_ignore_ascii_case(&b'l')
            && at(b, 3).eq_ignore_ascii_case(&b'e');
        if k == host_start && !is_file {
            return false;
        }
    }
    true
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
    use super::{is_absolute_uri, is_email, reference};
    use proptest::prelude::*;

    /// The bytes that decide the email and URI grammars, each class represented: what the
    /// exhaustive and random comparisons below build their inputs from.
    const ALPHABET: &[u8] = b"aZ09.@-_\"[]:/?#%fFiIlLeEPv6!+=~ \\\x00\x7f\xc3\xbc<>";

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

    fn same_as_reference(input: &[u8]) {
        assert_eq!(
            is_email(input),
            reference::is_email(input),
            "email {input:?}"
        );
        assert_eq!(
            is_absolute_uri(input),
            reference::is_absolute_uri(input),
            "uri {input:?}"
        );
    }

    #[test]
    fn scanners_match_the_reference_on_every_short_input() {
        every_string(ALPHABET, 4, &mut same_as_reference);
    }

    #[test]
    fn scanners_match_the_reference_on_every_byte_in_every_position() {
        for template in [
            &b"ab.c@ex-am.ple"[..],
            b"\"q\"@[127.0.0.1]",
            b"x@[IPv6:1::2]",
            b"https://u@h:1/p?q#f",
            b"file:///a%20b",
            b"urn:a:b",
        ] {
            for i in 0..=template.len() {
                for c in 0..=255u8 {
                    let mut replaced = template.to_vec();
                    let mut inserted = template.to_vec();
                    if let Some(slot) = replaced.get_mut(i) {
                        *slot = c;
                    }
                    inserted.insert(i, c);
                    same_as_reference(&replaced);
                    same_as_reference(&inserted);
                }
            }
        }
    }

    #[test]
    fn scanners_match_the_reference_on_label_and_part_lengths() {
        for n in [0, 1, 62, 63, 64, 65, 200, 254, 255, 256, 300] {
            let long = "a".repeat(n);
            let hyphens = format!("{}-", "b".repeat(n));
            for input in [
                format!("{long}@x.com"),
                format!("x@{long}.com"),
                format!("x@{long}"),
                format!("x@a.{hyphens}"),
                format!("\"{long}\"@x.com"),
                format!("https://{long}/"),
                format!("a{long}:x"),
            ] {
                same_as_reference(input.as_bytes());
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(20_000))]

        #[test]
        fn scanners_match_the_reference_on_random_inputs(
            input in proptest::collection::vec(proptest::sample::select(ALPHABET), 0..40)
        ) {
            same_as_reference(&input);
        }

        #[test]
        fn scanners_match_the_reference_on_random_strings(input in ".{0,40}") {
            same_as_reference(input.as_bytes());
        }

        #[test]
        fn scanners_match_the_reference_on_address_shapes(
            input in "(\"[a-z ]{0,3}\"|[a-z.+-]{0,5})@(\\[[0-9.IPv6:a-f]{0,12}\\]|[a-z0-9.-]{0,10})"
        ) {
            same_as_reference(input.as_bytes());
        }

        #[test]
        fn scanners_match_the_reference_on_uri_shapes(
            input in "[a-zA-Z0-9+.-]{0,5}:(//)?([a-z@:]{0,5})?[/?#%a-fA-F0-9 ]{0,10}"
        ) {
            same_as_reference(input.as_bytes());
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

    #[test]
    fn uri_must_be_absolute() {
        for ok in [
            "https://example.com",
            "http://localhost:8080/a/b?c=d#e",
            "mailto:a@example.com",
            "urn:isbn:0451450523",
            "file:///etc/hosts",
            "https://example.com/%20x",
        ] {
            assert!(Uri.matches(ok), "{ok}");
        }
        for bad in [
            "",
            "example.com",
            "/path",
            "://x",
            "1http://x",
            "https://exa mple.com",
            "https://x/%zz",
            "https:",
            "http://",
            "https://x/<y>",
        ] {
            assert!(!Uri.matches(bad), "{bad}");
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
