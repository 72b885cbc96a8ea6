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
    /// `email`: an address of the form `local@domain`.
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
    /// use elicit_core::Format;
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

/// `local@domain`: a dot-atom local part (ASCII atext or any non-ASCII UTF-8) or a quoted
/// string, then a domain of dot-separated labels (letters, digits, inner hyphens, non-ASCII
/// for internationalized names) or a bracketed address literal.
const fn is_email(b: &[u8]) -> bool {
    // The last `@` splits local part and domain.
    let mut at_pos = b.len();
    let mut i = b.len();
    while i > 0 {
        i -= 1;
        if at(b, i) == b'@' {
            at_pos = i;
            break;
        }
    }
    if at_pos == b.len()
        || at_pos == 0
        || at_pos > 64
        || b.len() - at_pos - 1 == 0
        || b.len() - at_pos - 1 > 255
    {
        return false;
    }
    let local_ok = if at_pos >= 2 && at(b, 0) == b'"' && at(b, at_pos - 1) == b'"' {
        let mut j = 1;
        let mut ok = true;
        while j < at_pos - 1 {
            let c = at(b, j);
            if c == b'"' || c == b'\\' || c < 0x20 || c == 0x7f {
                ok = false;
            }
            j += 1;
        }
        ok
    } else {
        let mut j = 0;
        let mut ok = true;
        let mut atom_len = 0;
        while j < at_pos {
            let c = at(b, j);
            if c == b'.' {
                if atom_len == 0 {
                    ok = false;
                }
                atom_len = 0;
            } else if c.is_ascii_alphanumeric() || c >= 0x80 || is_atext_symbol(c) {
                atom_len += 1;
            } else {
                ok = false;
            }
            j += 1;
        }
        ok && atom_len > 0
    };
    if !local_ok {
        return false;
    }
    let start = at_pos + 1;
    if at(b, start) == b'[' {
        return at(b, b.len() - 1) == b']' && is_address_literal(b, start + 1, b.len() - 1);
    }
    is_domain(b, start, b.len())
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

/// Dot-separated labels of 1..=63 bytes, letters/digits/non-ASCII and inner hyphens.
const fn is_domain(b: &[u8], start: usize, end: usize) -> bool {
    let mut i = start;
    let mut label_len = 0;
    let mut prev = 0u8;
    while i < end {
        let c = at(b, i);
        if c == b'.' {
            if label_len == 0 || prev == b'-' {
                return false;
            }
            label_len = 0;
        } else if c.is_ascii_alphanumeric() || c >= 0x80 || (c == b'-' && label_len > 0) {
            label_len += 1;
            if label_len > 63 {
                return false;
            }
        } else {
            return false;
        }
        prev = c;
        i += 1;
    }
    label_len > 0 && prev != b'-'
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
    if b.is_empty() || !at(b, 0).is_ascii_alphabetic() {
        return false;
    }
    let mut i = 1;
    while i < b.len() && at(b, i) != b':' {
        let c = at(b, i);
        if !(c.is_ascii_alphanumeric() || c == b'+' || c == b'-' || c == b'.') {
            return false;
        }
        i += 1;
    }
    let colon = i;
    if colon >= b.len() - 1 {
        return false;
    }
    let mut j = colon + 1;
    while j < b.len() {
        let c = at(b, j);
        if c == b'%' {
            if !(at(b, j + 1).is_ascii_hexdigit() && at(b, j + 2).is_ascii_hexdigit()) {
                return false;
            }
            j += 3;
            continue;
        }
        let allowed = c.is_ascii_alphanumeric()
            || matches!(
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
            );
        if !allowed {
            return false;
        }
        j += 1;
    }
    if at(b, colon + 1) == b'/' && at(b, colon + 2) == b'/' {
        // The host is what follows the last `@` of the authority, up to the first `/?#`.
        let mut k = colon + 3;
        let mut host_start = k;
        while k < b.len() && !matches!(at(b, k), b'/' | b'?' | b'#') {
            if at(b, k) == b'@' {
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

/// RFC 3339 `date-time`: `full-date "T" partial-time time-offset`; `T`/`Z` in either case,
/// an optional fraction of a second, seconds up to 60 (leap second).
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
    let rest = b.len() - i;
    if rest == 1 {
        return matches!(at(b, i), b'Z' | b'z');
    }
    if rest == 6 && matches!(at(b, i), b'+' | b'-') && at(b, i + 3) == b':' {
        let (h, m) = (digits(b, i + 1, 2), digits(b, i + 4, 2));
        return h <= 23 && m <= 59;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::Format::*;

    #[test]
    fn email_accepts_ordinary_addresses() {
        for ok in [
            "octocat@github.com",
            "a.b+tag@sub.example.co",
            "\"quoted local\"@example.com",
            "x@[127.0.0.1]",
            "ü@bücher.example",
        ] {
            assert!(Email.matches(ok), "{ok}");
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
            "2016-12-31T23:59:60-05:30",
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
}
