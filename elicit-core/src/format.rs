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
    /// ```
    /// use elicit_core::Format;
    /// assert!(Format::Date.matches("2024-02-29"));
    /// assert!(!Format::Date.matches("2023-02-29"));
    /// assert!(Format::Uri.matches("https://example.com/a?b#c"));
    /// assert!(!Format::Uri.matches("/relative/path"));
    /// ```
    pub fn matches(self, value: &str) -> bool {
        match self {
            Format::Email => is_email(value),
            Format::Uri => is_absolute_uri(value),
            Format::Date => is_full_date(value.as_bytes()),
            Format::DateTime => is_date_time(value.as_bytes()),
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

/// `local@domain`: a non-empty dot-atom local part (or quoted string) and a domain of
/// dot-separated labels (letters, digits, hyphens not at the ends), or an address literal.
fn is_email(value: &str) -> bool {
    let Some((local, domain)) = value.rsplit_once('@') else {
        return false;
    };
    if local.is_empty() || local.len() > 64 || domain.is_empty() || domain.len() > 255 {
        return false;
    }
    let local_ok = if local.len() >= 2 && local.starts_with('"') && local.ends_with('"') {
        local[1..local.len() - 1]
            .chars()
            .all(|c| c != '"' && c != '\\' && !c.is_control())
    } else {
        local.split('.').all(|atom| {
            !atom.is_empty()
                && atom.chars().all(|c| {
                    c.is_alphanumeric() || "!#$%&'*+-/=?^_`{|}~".contains(c) || !c.is_ascii()
                })
        })
    };
    if !local_ok {
        return false;
    }
    if domain.starts_with('[') && domain.ends_with(']') {
        let literal = &domain[1..domain.len() - 1];
        return literal.parse::<std::net::Ipv4Addr>().is_ok()
            || literal
                .strip_prefix("IPv6:")
                .is_some_and(|v6| v6.parse::<std::net::Ipv6Addr>().is_ok());
    }
    domain.split('.').all(|label| {
        !label.is_empty()
            && label.len() <= 63
            && !label.starts_with('-')
            && !label.ends_with('-')
            && label.chars().all(|c| c.is_alphanumeric() || c == '-')
    })
}

/// RFC 3986 `absolute-URI` (with an optional fragment, as `URI`): `scheme ":" hier-part`.
/// Characters outside the URI grammar (spaces, control characters, `<>"{}|\^` and backtick)
/// are rejected; percent signs must start a valid `%XX` escape.
fn is_absolute_uri(value: &str) -> bool {
    let Some((scheme, rest)) = value.split_once(':') else {
        return false;
    };
    let mut scheme_chars = scheme.chars();
    let scheme_ok = scheme_chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && scheme_chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    if !scheme_ok || rest.is_empty() {
        return false;
    }
    let bytes = rest.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match b {
            b'%' => {
                let hex = |j: usize| bytes.get(j).is_some_and(u8::is_ascii_hexdigit);
                if !(hex(i + 1) && hex(i + 2)) {
                    return false;
                }
                i += 3;
                continue;
            }
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' => {}
            b'-' | b'.' | b'_' | b'~' | b':' | b'/' | b'?' | b'#' | b'[' | b']' | b'@' | b'!'
            | b'$' | b'&' | b'\'' | b'(' | b')' | b'*' | b'+' | b',' | b';' | b'=' => {}
            _ => return false,
        }
        i += 1;
    }
    // An authority, when present, must not be empty of a host for schemes that need one.
    if let Some(after) = rest.strip_prefix("//") {
        let authority = after.split(['/', '?', '#']).next().unwrap_or("");
        let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
        if host.is_empty() && !scheme.eq_ignore_ascii_case("file") {
            return false;
        }
    }
    true
}

fn digits(bytes: &[u8], at: usize, n: usize) -> Option<u32> {
    let slice = bytes.get(at..at + n)?;
    slice.iter().try_fold(0u32, |acc, b| {
        b.is_ascii_digit().then(|| acc * 10 + u32::from(b - b'0'))
    })
}

/// RFC 3339 `full-date`: `YYYY-MM-DD` with a real day of that month (leap years included).
fn is_full_date(bytes: &[u8]) -> bool {
    bytes.len() == 10 && full_date_prefix(bytes)
}

fn full_date_prefix(bytes: &[u8]) -> bool {
    let (Some(year), Some(month), Some(day)) = (
        digits(bytes, 0, 4),
        digits(bytes, 5, 2),
        digits(bytes, 8, 2),
    ) else {
        return false;
    };
    if bytes.get(4) != Some(&b'-') || bytes.get(7) != Some(&b'-') {
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
    (1..=days).contains(&day)
}

/// RFC 3339 `date-time`: `full-date "T" partial-time time-offset`, `T`/`Z` in either case,
/// optional fraction of a second, seconds up to 60 (leap second).
fn is_date_time(bytes: &[u8]) -> bool {
    if bytes.len() < 20 || !full_date_prefix(bytes) || !matches!(bytes[10], b'T' | b't') {
        return false;
    }
    let (Some(hour), Some(minute), Some(second)) = (
        digits(bytes, 11, 2),
        digits(bytes, 14, 2),
        digits(bytes, 17, 2),
    ) else {
        return false;
    };
    if bytes[13] != b':' || bytes[16] != b':' || hour > 23 || minute > 59 || second > 60 {
        return false;
    }
    let mut i = 19;
    if bytes.get(i) == Some(&b'.') {
        i += 1;
        let start = i;
        while bytes.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if i == start {
            return false;
        }
    }
    match &bytes[i..] {
        [b'Z' | b'z'] => true,
        [b'+' | b'-', h1, h2, b':', m1, m2] => {
            let off = [*h1, *h2, b':', *m1, *m2];
            matches!((digits(&off, 0, 2), digits(&off, 3, 2)), (Some(h), Some(m)) if h <= 23 && m <= 59)
        }
        _ => false,
    }
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
