//! The URL of a URL-mode elicitation, checked strictly before it is ever sent.
//!
//! The rules, and why, are on [`ElicitationUrl`].
//!
//! # Who parses
//!
//! We validate; well-kept crates parse. A hand-written URL parser in a security library is a
//! parser differential waiting to happen: if its split into userinfo, host and port differed
//! from the one an HTTP stack makes, the host a user is shown would not be the host they reach.
//! So [`fluent-uri`](https://docs.rs/fluent-uri), the strict RFC 3986 parser the `uri` format
//! uses (`format.rs` says why that one), splits the URL into scheme, authority, userinfo, host
//! (registered name, IPv4, IPv6 or IPvFuture, IP addresses read by it), port, path, query and
//! fragment, and refuses whatever RFC 3986 does: characters outside its set (non-ASCII,
//! whitespace, `\`, `<`, `"` …), `[` and `]` outside an IP literal, a second `#`, malformed
//! percent escapes, an unclosed or malformed IP literal, a port that is not digits. It parses
//! without normalizing: each part is a slice of the text as written.
//!
//! This module applies URL mode's policy to the parts it returns (the length limit comes
//! first, so that a parser never reads an over-long URL). The one thing read here on its own is
//! *which* part a URL the parser refused broke, to word the error (`diagnose`): what is
//! accepted never depends on it.

use std::fmt;
use std::net::Ipv6Addr;

use fluent_uri::component::{Authority, Host};
use fluent_uri::{ParseError, ParseErrorKind, Uri};
use serde::{Serialize, Serializer};

use crate::limits::MAX_URL_BYTES;

/// Which URLs an author accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum UrlPolicy {
    /// `https` anywhere; `http` only to loopback.
    #[default]
    Production,
    /// Also plain `http` to any host: for a development server on a LAN or in a container.
    /// Every other rule still applies.
    Development,
}

/// An absolute `http(s)` URL, checked before it is ever sent.
///
/// URL mode exists for credentials, payments and third-party OAuth: the page the user opens is
/// where secrets are typed. So the URL must be one a user can examine and trust:
///
/// - **absolute `https`** — the spec's clients show the full URL and highlight its host before
///   asking for consent; only an absolute `http(s)` URL has a host to show and a page to open.
///   `javascript:` and `data:` run or render content the server wrote in whatever context the
///   client opens them in, `file:` reads the user's own disk, and custom schemes (`vscode:`,
///   `ssh:`, `mailto:` …) launch local programs: none is "a page on a domain the user trusts".
/// - **plain `http` only to loopback** (`127.0.0.0/8`, `::1`, `localhost`), where nothing crosses
///   a network; anything else needs [`UrlPolicy::Development`], a deliberate opt-in.
/// - **no userinfo** (`https://user:pass@host/`): it puts a credential in the URL (the spec
///   forbids sensitive data there) and is the classic way to disguise the real host
///   (`https://bank.example@evil.example/`).
/// - **no ambiguity**: an RFC 3986 URI (parsed by [`fluent-uri`](https://docs.rs/fluent-uri),
///   not by us: only the characters it allows, no backslashes or whitespace, well-formed percent
///   escapes), whose host is a DNS name, a canonical dotted-quad IPv4 address or a bracketed
///   IPv6 literal in canonical (RFC 5952) form, and whose port is in `1..=65535`. Browsers
///   repair malformed URLs in ways that differ from what a user reads (`http://0x7f.1/` is
///   `127.0.0.1`); a URL that needs repair is refused rather than guessed at. Hosts must be
///   ASCII: write an internationalised name in its `xn--` form, which clients are told to flag.
///
/// The URL's query and fragment may carry state (an authorization `state`, a one-time code), so
/// `Debug` and `Display` never print them: [`ElicitationUrl::as_str`] is the only way to the
/// full text, and serialization (the wire) uses it. Nothing is normalized: the text, and so the
/// host, is exactly what was given.
///
///
/// ```
/// # extern crate elicit_core as mcp_elicit;
/// use mcp_elicit::{url_mode::{ElicitationUrl, UrlError, UrlPolicy}};
/// let url = ElicitationUrl::parse("https://mcp.example.com/connect?state=s3cr3t")?;
/// assert_eq!(url.host(), "mcp.example.com");
/// assert_eq!(url.to_string(), "https://mcp.example.com/connect?<redacted>");
/// assert_eq!(url.as_str(), "https://mcp.example.com/connect?state=s3cr3t");
///
/// assert_eq!(ElicitationUrl::parse("javascript:alert(1)"), Err(UrlError::UnsupportedScheme { scheme: "javascript".into() }));
/// assert_eq!(ElicitationUrl::parse("http://10.0.0.8/pay"), Err(UrlError::InsecureHttp { host: "10.0.0.8".into() }));
/// assert!(ElicitationUrl::parse_with("http://10.0.0.8/pay", UrlPolicy::Development).is_ok());
/// assert!(ElicitationUrl::parse("http://127.0.0.1:8080/pay").is_ok());
/// # Ok::<(), UrlError>(())
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct ElicitationUrl {
    text: String,
    https: bool,
    host_start: usize,
    host_end: usize,
    port: Option<u16>,
    /// Byte offset of the `?` or `#` that begins the part never printed.
    hidden_from: Option<usize>,
    loopback: bool,
}

impl ElicitationUrl {
    /// Check a URL under [`UrlPolicy::Production`].
    pub fn parse(text: &str) -> Result<Self, UrlError> {
        Self::parse_with(text, UrlPolicy::Production)
    }

    /// Check a URL under the given policy.
    pub fn parse_with(text: &str, policy: UrlPolicy) -> Result<Self, UrlError> {
        if text.len() > MAX_URL_BYTES {
            return Err(UrlError::TooLong { bytes: text.len() });
        }
        // `Uri`, not `Iri`: ASCII only.
        let uri = Uri::parse(text).map_err(|error| diagnose(text, error))?;
        let scheme = uri.scheme().as_str();
        let https = check_scheme(scheme)?;
        let authority = uri.authority().ok_or(UrlError::NotAbsolute)?;
        if authority.has_userinfo() {
            return Err(UrlError::Userinfo);
        }
        let host = authority.host();
        let loopback = check_host(host, authority.host_parsed())?;
        let port = check_port(&authority)?;
        if !https && !loopback && policy == UrlPolicy::Production {
            return Err(UrlError::InsecureHttp {
                host: host.to_owned(),
            });
        }
        // `scheme "://" host [":" port] path ["?" query] ["#" fragment]`: without userinfo, the
        // host starts right after `//`, and the hidden part right after the path.
        let host_start = scheme.len() + "://".len();
        let path_end = host_start + authority.as_str().len() + uri.path().as_str().len();
        let hidden = uri.query().is_some() || uri.fragment().is_some();
        Ok(Self {
            text: text.to_owned(),
            https,
            host_start,
            host_end: host_start + host.len(),
            port,
            hidden_from: hidden.then_some(path_end),
            loopback,
        })
    }

    /// The whole URL, query included: for the wire, never for a log.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// `"https"` or `"http"`.
    pub fn scheme(&self) -> &'static str {
        if self.https { "https" } else { "http" }
    }

    /// The host as written (an IPv6 literal keeps its brackets): what a client highlights.
    pub fn host(&self) -> &str {
        self.text
            .get(self.host_start..self.host_end)
            .unwrap_or_default()
    }

    /// The explicit port, if any.
    pub fn port(&self) -> Option<u16> {
        self.port
    }

    /// Whether the host is loopback (`localhost`, `127.0.0.0/8`, `::1`).
    pub fn is_loopback(&self) -> bool {
        self.loopback
    }

    /// The URL with its query and fragment replaced by `<redacted>`: safe to log.
    pub fn redacted(&self) -> String {
        self.to_string()
    }
}

impl fmt::Display for ElicitationUrl {
    /// Prints the URL without its query or fragment, which may carry state or one-time codes.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Some(hidden) = self.hidden_from else {
            return f.write_str(&self.text);
        };
        f.write_str(self.text.get(..hidden).unwrap_or_default())?;
        let tail = self.text.get(hidden..).unwrap_or_default();
        if tail.starts_with('?') {
            f.write_str("?<redacted>")?;
        }
        // A query cannot hold a `#`: this is the fragment.
        if tail.contains('#') {
            f.write_str("#<redacted>")?;
        }
        Ok(())
    }
}

impl fmt::Debug for ElicitationUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ElicitationUrl({self})")
    }
}

impl Serialize for ElicitationUrl {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.text)
    }
}

impl std::str::FromStr for ElicitationUrl {
    type Err = UrlError;
    fn from_str(s: &str) -> Result<Self, UrlError> {
        Self::parse(s)
    }
}

/// Why a URL cannot be sent in a URL-mode elicitation. No variant repeats the URL (its query
/// may hold state); each says what to do instead.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum UrlError {
    /// Longer than [`MAX_URL_BYTES`].
    TooLong {
        /// Its length.
        bytes: usize,
    },
    /// Not `scheme://host…`: a relative reference, or a scheme without `//`.
    NotAbsolute,
    /// A scheme other than `https` or `http`.
    UnsupportedScheme {
        /// The scheme, lowercased (at most 16 characters).
        scheme: String,
    },
    /// `user:password@` before the host.
    Userinfo,
    /// Plain `http` to a host that is not loopback, under [`UrlPolicy::Production`].
    InsecureHttp {
        /// The host.
        host: String,
    },
    /// No host after `//`.
    MissingHost,
    /// The host is not a DNS name, a canonical IPv4 address or a canonical bracketed IPv6 literal.
    InvalidHost {
        /// Which rule it broke.
        reason: &'static str,
    },
    /// The port is empty, not a number, or not in `1..=65535`.
    InvalidPort,
    /// A character outside ASCII.
    NonAscii {
        /// Byte offset.
        position: usize,
    },
    /// A character URLs may not contain there (whitespace, control, `\`, `<`, `"`, `[` outside
    /// an IPv6 host, a second `#` …).
    InvalidCharacter {
        /// Byte offset.
        position: usize,
        /// The character.
        character: char,
    },
    /// `%` not followed by two hexadecimal digits.
    InvalidPercentEncoding {
        /// Byte offset of the `%`.
        position: usize,
    },
}

impl fmt::Display for UrlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UrlError::TooLong { bytes } => write!(
                f,
                "the URL is {bytes} bytes, more than the {MAX_URL_BYTES}-byte limit; keep state on the server and put a short reference in the URL"
            ),
            UrlError::NotAbsolute => f.write_str(
                "the URL is not absolute; write the whole URL, starting with `https://` and the host",
            ),
            UrlError::UnsupportedScheme { scheme } => write!(
                f,
                "the URL's scheme is `{scheme}`; a URL elicitation must open a web page the user can examine, so only `https` (or `http` to loopback) is allowed"
            ),
            UrlError::Userinfo => f.write_str(
                "the URL has a user name or password before the host (`user@host`); that puts a credential in the URL and disguises the host, so remove it",
            ),
            UrlError::InsecureHttp { host } => write!(
                f,
                "the URL uses plain `http` to `{host}`, which is not loopback; use `https`, or opt into `UrlPolicy::Development` for a development server"
            ),
            UrlError::MissingHost => f.write_str("the URL has no host after `//`"),
            UrlError::InvalidHost { reason } => write!(f, "the URL's host is invalid: {reason}"),
            UrlError::InvalidPort => {
                f.write_str("the URL's port must be a number from 1 to 65535")
            }
            UrlError::NonAscii { position } => write!(
                f,
                "the URL has a non-ASCII character at byte {position}; percent-encode it, and write an internationalised host name in its `xn--` form"
            ),
            UrlError::InvalidCharacter {
                position,
                character,
            } => write!(
                f,
                "the URL has {character:?} at byte {position}, which a URL may not contain there; percent-encode it"
            ),
            UrlError::InvalidPercentEncoding { position } => write!(
                f,
                "the URL has a `%` at byte {position} not followed by two hexadecimal digits; write a literal `%` as `%25`"
            ),
        }
    }
}

impl std::error::Error for UrlError {}

/// `https` or `http` (in any case); whether it is `https`.
fn check_scheme(scheme: &str) -> Result<bool, UrlError> {
    if scheme.eq_ignore_ascii_case("https") {
        Ok(true)
    } else if scheme.eq_ignore_ascii_case("http") {
        Ok(false)
    } else {
        Err(UrlError::UnsupportedScheme {
            scheme: scheme.chars().take(16).collect::<String>().to_lowercase(),
        })
    }
}

/// Check the host, as written and as the parser read it; return whether it is loopback.
fn check_host(host: &str, parsed: Host<'_>) -> Result<bool, UrlError> {
    match parsed {
        // RFC 3986's `IPv4address` is the canonical dotted quad (a `dec-octet` has no leading
        // zeros), so nothing else reads as one here: `127.1` and `0x7f.0.0.1` are registered
        // names below.
        Host::Ipv4(ip) => Ok(ip.is_loopback()),
        Host::Ipv6(ip) => {
            let literal = host
                .strip_prefix('[')
                .and_then(|h| h.strip_suffix(']'))
                .unwrap_or(host);
            // As for IPv4, only the canonical spelling (RFC 5952, in either case) reads the same
            // to a person as to the browser, which rewrites any other: `[::01]` and
            // `[0:0:0:0:0:0:0:1]` are `[::1]`, and `[::127.0.0.1]` is `[::7f00:1]`.
            if !ip.to_string().eq_ignore_ascii_case(literal) {
                return Err(UrlError::InvalidHost {
                    reason: "an IPv6 literal must be in its canonical form (RFC 5952), like [2001:db8::1]: no leading zeros, the longest run of zero groups written as `::`, no embedded IPv4 except ::ffff:a.b.c.d",
                });
            }
            Ok(ip == Ipv6Addr::LOCALHOST)
        }
        Host::IpvFuture { .. } => Err(UrlError::InvalidHost {
            reason: "an IP literal must be an IPv6 address (`[v1.…]` is an IPvFuture literal no browser opens)",
        }),
        Host::RegName(_) => check_dns_name(host),
    }
}

/// A registered name must be a DNS name (RFC 3986 also allows percent-escapes and
/// sub-delimiters); return whether it is `localhost`.
fn check_dns_name(host: &str) -> Result<bool, UrlError> {
    if host.is_empty() {
        return Err(UrlError::MissingHost);
    }
    if host.len() > 253 {
        return Err(UrlError::InvalidHost {
            reason: "a host name is at most 253 characters",
        });
    }
    if !host
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.')
    {
        return Err(UrlError::InvalidHost {
            reason: "a host name has only letters, digits, `-` and `.` (no percent-escapes or underscores)",
        });
    }
    let mut last = "";
    for label in host.split('.') {
        if label.is_empty() {
            return Err(UrlError::InvalidHost {
                reason: "a host name has no empty labels (no leading, trailing or doubled `.`)",
            });
        }
        if label.len() > 63 {
            return Err(UrlError::InvalidHost {
                reason: "a label of a host name is at most 63 characters",
            });
        }
        if label.starts_with('-') || label.ends_with('-') {
            return Err(UrlError::InvalidHost {
                reason: "a label of a host name neither starts nor ends with `-`",
            });
        }
        last = label;
    }
    // Browsers read a host whose last label is numeric (or `0x…`) as an IPv4 address in any of
    // several spellings (`127.1`, `0x7f.0.0.1`, `2130706433`, `0177.0.0.1`). The canonical
    // dotted quad, the only one that means the same to a reader and to a browser, was read as
    // IPv4 by the parser; any other numeric host is refused.
    let numeric = last.bytes().all(|b| b.is_ascii_digit())
        || last.starts_with("0x")
        || last.starts_with("0X");
    if numeric {
        return Err(UrlError::InvalidHost {
            reason: "a numeric host must be a dotted-quad IPv4 address like 192.0.2.1, without leading zeros",
        });
    }
    Ok(host.eq_ignore_ascii_case("localhost"))
}

/// RFC 3986's `port` is any run of digits, even empty; ours is `1..=65535`, in at most five
/// digits.
fn check_port(authority: &Authority<'_>) -> Result<Option<u16>, UrlError> {
    let Some(written) = authority.port() else {
        return Ok(None);
    };
    match authority.port_to_u16() {
        Ok(Some(port)) if port != 0 && written.as_str().len() <= 5 => Ok(Some(port)),
        _ => Err(UrlError::InvalidPort),
    }
}

/// The error for a URL the parser refused, from where it stopped and why.
///
/// Only the wording depends on this: the URL is refused either way. The part the offset falls
/// in comes from RFC 3986's Appendix B split (the scheme up to the first `:`, `/`, `?` or `#`;
/// after `//`, the authority up to the next `/`, `?` or `#`), which validates nothing.
fn diagnose(text: &str, error: ParseError) -> UrlError {
    let position = error.index();
    let character = text.get(position..).and_then(|rest| rest.chars().next());
    // Characters first: what a reader can see is wrong wherever it is.
    match (error.kind(), character) {
        (ParseErrorKind::InvalidPctEncodedOctet, _) => {
            return UrlError::InvalidPercentEncoding { position };
        }
        (_, Some(c)) if !c.is_ascii() => return UrlError::NonAscii { position },
        (_, Some(character)) if !is_rfc_3986_char(character) => {
            return UrlError::InvalidCharacter {
                position,
                character,
            };
        }
        _ => {}
    }
    // Then the scheme (the parser stopped in it, or it is not ours), and the `//`.
    let Some((scheme, after_scheme)) =
        split_scheme(text).filter(|(scheme, _)| position > scheme.len())
    else {
        return UrlError::NotAbsolute;
    };
    if let Err(unsupported) = check_scheme(scheme) {
        return unsupported;
    }
    let Some(after_slashes) = after_scheme.strip_prefix("//") else {
        return UrlError::NotAbsolute;
    };
    // Then the authority, or what follows it (where only `[`, `]` and a second `#` are left).
    let authority = after_slashes
        .split(['/', '?', '#'])
        .next()
        .unwrap_or_default();
    match (position.checked_sub(scheme.len() + "://".len()), character) {
        (Some(at), _) if at <= authority.len() => diagnose_authority(authority, at),
        (_, Some(character)) => UrlError::InvalidCharacter {
            position,
            character,
        },
        // The parser stops at the end of the text only in the scheme or in an IP literal.
        (_, None) => UrlError::NotAbsolute,
    }
}

/// The error for an authority the parser refused at byte `at` of it: what it stopped on, and
/// whether a port had begun.
fn diagnose_authority(authority: &str, at: usize) -> UrlError {
    if authority.contains('@') {
        return UrlError::Userinfo;
    }
    let before = authority.get(..at).unwrap_or_default();
    match before.strip_prefix('[') {
        Some(literal) => match literal.split_once(']') {
            None => UrlError::InvalidHost {
                reason: "an IPv6 literal is a well-formed address in brackets, like [2001:db8::1] (zone identifiers are not allowed)",
            },
            Some((_, after)) if after.starts_with(':') => UrlError::InvalidPort,
            Some(_) => UrlError::InvalidHost {
                reason: "only `:port` may follow an IPv6 literal",
            },
        },
        None if before.contains(':') => UrlError::InvalidPort,
        // Anything else a registered name may not hold was taken for userinfo, path or port.
        None => UrlError::InvalidHost {
            reason: "`[` and `]` may only enclose an IPv6 literal",
        },
    }
}

/// RFC 3986 Appendix B's scheme: up to the first `:`, `/`, `?` or `#`, if that is a `:` after
/// at least one character. Returns it and what follows the `:`.
fn split_scheme(text: &str) -> Option<(&str, &str)> {
    let end = text.find([':', '/', '?', '#'])?;
    let (scheme, rest) = text.split_at_checked(end)?;
    let rest = rest.strip_prefix(':')?;
    (!scheme.is_empty()).then_some((scheme, rest))
}

/// A character RFC 3986 allows somewhere: unreserved, reserved, and `%`.
fn is_rfc_3986_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "-._~:/?#[]@!$&'()*+,;=%".contains(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(s: &str) -> ElicitationUrl {
        match ElicitationUrl::parse(s) {
            Ok(url) => url,
            Err(e) => panic!("{s:?} refused: {e}"),
        }
    }

    fn err(s: &str) -> UrlError {
        match ElicitationUrl::parse(s) {
            Ok(url) => panic!("{s:?} accepted as {url:?}"),
            Err(e) => e,
        }
    }

    #[test]
    fn https_urls_are_accepted() {
        let url = ok("https://mcp.example.com/ui/set_api_key");
        assert_eq!(url.scheme(), "https");
        assert_eq!(url.host(), "mcp.example.com");
        assert_eq!(url.port(), None);
        assert!(!url.is_loopback());
        ok("https://mcp.example.com");
        ok("https://mcp.example.com?x=1");
        ok("https://mcp.example.com#top");
        ok("HTTPS://MCP.Example.COM/Path");
        ok("https://xn--bcher-kva.example/");
        ok("https://a.b-c.d9/~user/a%20b;p=1/?q=1&r=%2F#frag/ment?");
    }

    #[test]
    fn url_must_be_absolute() {
        for s in [
            "/connect",
            "mcp.example.com/connect",
            "//mcp.example.com/",
            "https:mcp.example.com",
            "https:/mcp.example.com",
            "",
            ":foo",
            "1https://x.example/",
        ] {
            let e = ElicitationUrl::parse(s).unwrap_err();
            assert!(
                matches!(
                    e,
                    UrlError::NotAbsolute | UrlError::UnsupportedScheme { .. }
                ),
                "{s:?}: {e:?}"
            );
        }
        assert_eq!(err("/connect"), UrlError::NotAbsolute);
        assert_eq!(err("https:mcp.example.com"), UrlError::NotAbsolute);
    }

    #[test]
    fn only_http_and_https_schemes_are_allowed() {
        for (s, scheme) in [
            ("javascript:alert(1)", "javascript"),
            ("JavaScript://x.example/%0aalert(1)", "javascript"),
            ("data:text/html,hi", "data"),
            ("file:///etc/passwd", "file"),
            ("ftp://x.example/", "ftp"),
            ("vscode://x.example/", "vscode"),
            ("mailto:a@b.example", "mailto"),
        ] {
            assert_eq!(
                err(s),
                UrlError::UnsupportedScheme {
                    scheme: scheme.into()
                },
                "{s}"
            );
        }
    }

    #[test]
    fn userinfo_is_refused() {
        assert_eq!(err("https://user@mcp.example.com/"), UrlError::Userinfo);
        assert_eq!(
            err("https://bank.example:pw@evil.example/"),
            UrlError::Userinfo
        );
        assert_eq!(err("https://@mcp.example.com/"), UrlError::Userinfo);
        // `@` after the authority is an ordinary path or query character.
        ok("https://mcp.example.com/@alice?by=a@b");
    }

    #[test]
    fn plain_http_only_to_loopback() {
        for s in [
            "http://localhost/",
            "http://LOCALHOST:3000/cb",
            "http://127.0.0.1/",
            "http://127.255.3.4:8080/",
            "http://[::1]/",
            "http://[::1]:8443/x",
        ] {
            assert!(ok(s).is_loopback(), "{s}");
        }
        for (s, host) in [
            ("http://mcp.example.com/", "mcp.example.com"),
            ("http://128.0.0.1/", "128.0.0.1"),
            ("http://localhost.evil.example/", "localhost.evil.example"),
            ("http://[::2]/", "[::2]"),
            ("http://[::ffff:127.0.0.1]/", "[::ffff:127.0.0.1]"),
            ("http://10.0.0.1:80/", "10.0.0.1"),
        ] {
            assert_eq!(err(s), UrlError::InsecureHttp { host: host.into() }, "{s}");
        }
    }

    #[test]
    fn development_policy_allows_plain_http_anywhere_but_nothing_else() {
        let dev = |s| ElicitationUrl::parse_with(s, UrlPolicy::Development);
        assert!(dev("http://dev-box.lan:8080/connect").is_ok());
        assert!(dev("http://10.0.0.1/").is_ok());
        assert_eq!(dev("http://u@dev-box.lan/"), Err(UrlError::Userinfo));
        assert!(matches!(
            dev("file:///x"),
            Err(UrlError::UnsupportedScheme { .. })
        ));
    }

    #[test]
    fn host_must_be_present() {
        assert_eq!(err("https:///path"), UrlError::MissingHost);
        assert_eq!(err("https://"), UrlError::MissingHost);
        assert_eq!(err("https://:443/"), UrlError::MissingHost);
        assert_eq!(err("https://?q"), UrlError::MissingHost);
    }

    #[test]
    fn host_must_be_a_well_formed_dns_name() {
        for s in [
            "https://a..b/",
            "https://.a.example/",
            "https://a.example./",
            "https://-a.example/",
            "https://a-.example/",
            "https://a_b.example/",
            "https://a%2eexample/",
            "https://a!b.example/",
        ] {
            assert!(matches!(err(s), UrlError::InvalidHost { .. }), "{s}");
        }
        let long_label = format!("https://{}.example/", "a".repeat(64));
        assert!(matches!(err(&long_label), UrlError::InvalidHost { .. }));
        let long_host = format!("https://{}example/", "a.".repeat(127));
        assert!(matches!(err(&long_host), UrlError::InvalidHost { .. }));
        ok(&format!("https://{}.example/", "a".repeat(63)));
    }

    #[test]
    fn numeric_hosts_must_be_canonical_ipv4() {
        ok("https://192.0.2.1/");
        ok("https://0.0.0.0/");
        for s in [
            "http://2130706433/",
            "http://127.1/",
            "http://0x7f.0.0.1/",
            "http://0177.0.0.1/",
            "http://127.0.0.01/",
            "https://256.0.0.1/",
            "https://1.2.3.4.5/",
            "https://example.123/",
            "https://example.0x1/",
        ] {
            assert!(matches!(err(s), UrlError::InvalidHost { .. }), "{s}");
        }
        // A numeric label that is not the last one is an ordinary DNS label.
        ok("https://123.example/");
    }

    #[test]
    fn ipv6_literals_must_be_bracketed_and_well_formed() {
        let url = ok("https://[2001:db8::1]:8443/x");
        assert_eq!(url.host(), "[2001:db8::1]");
        assert_eq!(url.port(), Some(8443));
        for s in [
            "https://[2001:db8::1/",
            "https://[2001:db8::g]/",
            "https://[fe80::1%25eth0]/",
            "https://[v1.x]/",
            "https://[::1]x/",
            "https://[]/",
            "https://2001:db8::1/",
            "https://a]b/",
        ] {
            let e = err(s);
            assert!(
                matches!(e, UrlError::InvalidHost { .. } | UrlError::InvalidPort),
                "{s}: {e:?}"
            );
        }
    }

    #[test]
    fn ipv6_literals_must_be_canonical() {
        // Found by the `url` fuzz target: `http://[::01]` was accepted as loopback while its
        // host did not read as `[::1]`.
        for s in [
            "http://[::01]/",
            "http://[0:0:0:0:0:0:0:1]/",
            "https://[2001:0db8::1]/",
            "https://[2001:db8:0:0:0:0:0:1]/",
            "https://[2001:db8::1:1:1:1:1]/",
            "https://[::127.0.0.1]/",
            "https://[::ffff:7f00:1]/",
        ] {
            assert!(matches!(err(s), UrlError::InvalidHost { .. }), "{s}");
        }
        assert!(ok("http://[::1]/").is_loopback());
        ok("https://[2001:DB8::1]/");
        ok("https://[2001:db8:0:1:1:1:1:1]/");
        ok("https://[::ffff:192.0.2.1]/");
    }

    #[test]
    fn port_must_be_in_range() {
        assert_eq!(ok("https://x.example:1/").port(), Some(1));
        assert_eq!(ok("https://x.example:65535").port(), Some(65535));
        for s in [
            "https://x.example:/",
            "https://x.example:0/",
            "https://x.example:65536/",
            "https://x.example:123456/",
            "https://x.example:-1/",
            "https://x.example:8a/",
            "https://x.example:+80/",
            "https://x.example:80:80/",
        ] {
            assert_eq!(err(s), UrlError::InvalidPort, "{s}");
        }
    }

    #[test]
    fn only_url_characters_are_allowed() {
        for (s, c) in [
            ("https://x.example/a b", ' '),
            ("https://x.example/a\tb", '\t'),
            ("https://x.example/a\nb", '\n'),
            (" https://x.example/", ' '),
            ("https://x.example\\@evil.example/", '\\'),
            ("https://x.example/<script>", '<'),
            ("https://x.example/\"", '"'),
            ("https://x.example/{x}", '{'),
            ("https://x.example/a|b", '|'),
            ("https://x.example/`", '`'),
            ("https://x.example/^", '^'),
        ] {
            assert!(
                matches!(err(s), UrlError::InvalidCharacter { character, .. } if character == c),
                "{s:?}"
            );
        }
        assert_eq!(
            err("https://bücher.example/"),
            UrlError::NonAscii { position: 9 }
        );
        assert!(matches!(
            err("https://x.example/a?b=[1]"),
            UrlError::InvalidCharacter { character: '[', .. }
        ));
        assert!(matches!(
            err("https://x.example/#a#b"),
            UrlError::InvalidCharacter { character: '#', .. }
        ));
    }

    #[test]
    fn percent_escapes_must_be_well_formed() {
        ok("https://x.example/%7Euser?q=%2f");
        for s in [
            "https://x.example/%",
            "https://x.example/%4",
            "https://x.example/%zz",
            "https://x.example/?q=100%",
        ] {
            assert!(
                matches!(err(s), UrlError::InvalidPercentEncoding { .. }),
                "{s}"
            );
        }
    }

    #[test]
    fn overlong_urls_are_refused() {
        let s = format!("https://x.example/{}", "a".repeat(MAX_URL_BYTES));
        assert!(matches!(err(&s), UrlError::TooLong { .. }));
    }

    /// Valid RFC 3986 that URL mode refuses: each is a URI `fluent-uri` parses, so each refusal
    /// is our policy's, not the parser's.
    #[test]
    fn rfc_3986_uris_our_policy_refuses() {
        /// Refused as exactly this error, or as an invalid host for a reason mentioning this.
        enum Refused {
            As(UrlError),
            Host(&'static str),
        }
        use Refused::{As, Host};
        let long_host = format!("https://{}example/", "a.".repeat(127));
        let cases: Vec<(&str, Refused)> = vec![
            // No authority: a path after the scheme names no host to show.
            ("https:/x.example/", As(UrlError::NotAbsolute)),
            ("https:x.example", As(UrlError::NotAbsolute)),
            ("https:", As(UrlError::NotAbsolute)),
            // An empty host.
            ("https://", As(UrlError::MissingHost)),
            ("https:///x", As(UrlError::MissingHost)),
            ("https://:443/", As(UrlError::MissingHost)),
            ("https://#f", As(UrlError::MissingHost)),
            // Userinfo, even empty.
            ("https://@x.example/", As(UrlError::Userinfo)),
            ("https://a:b@x.example/", As(UrlError::Userinfo)),
            ("https://u@[::1]/", As(UrlError::Userinfo)),
            // IPvFuture.
            ("https://[v1.x]/", Host("")),
            ("https://[v7.::1]/", Host("")),
            // IPv6 in a spelling other than RFC 5952's.
            ("http://[::01]/", Host("canonical")),
            ("http://[0:0:0:0:0:0:0:1]/", Host("canonical")),
            ("http://[::127.0.0.1]/", Host("canonical")),
            ("https://[::ffff:7f00:1]/", Host("canonical")),
            ("https://[2001:db8:0:0:0:0:0:1]/", Host("canonical")),
            ("https://[::0:1]/", Host("canonical")),
            // A registered name that is not a DNS name: percent-escapes (here `localhost`),
            // sub-delimiters, `_`, `~`, empty labels, `-` at a label's edge, over-long.
            ("http://%6c%6f%63%61%6c%68%6f%73%74/", Host("letters")),
            ("https://a%2eexample/", Host("letters")),
            ("https://a!b.example/", Host("letters")),
            ("https://a$b.example/", Host("letters")),
            ("https://a'b.example/", Host("letters")),
            ("https://a(b).example/", Host("letters")),
            ("https://a*b.example/", Host("letters")),
            ("https://a+b.example/", Host("letters")),
            ("https://a,b.example/", Host("letters")),
            ("https://a;b.example/", Host("letters")),
            ("https://a=b.example/", Host("letters")),
            ("https://a&b.example/", Host("letters")),
            ("https://a_b.example/", Host("letters")),
            ("https://a~b.example/", Host("letters")),
            ("https://a..b/", Host("empty labels")),
            ("http://localhost./", Host("empty labels")),
            ("https://-a.example/", Host("`-`")),
            (&long_host, Host("253")),
            // Numbers RFC 3986 reads as a registered name, and browsers as an IPv4 address.
            ("http://127.1/", Host("dotted-quad")),
            ("http://2130706433/", Host("dotted-quad")),
            ("http://0x7f.0.0.1/", Host("dotted-quad")),
            ("http://0177.0.0.1/", Host("dotted-quad")),
            ("http://127.0.0.01/", Host("dotted-quad")),
            ("https://256.0.0.1/", Host("dotted-quad")),
            ("https://1.2.3.4.5/", Host("dotted-quad")),
            // Ports RFC 3986 allows (`*DIGIT`): empty, zero, too large.
            ("https://x.example:/", As(UrlError::InvalidPort)),
            ("https://[::1]:/", As(UrlError::InvalidPort)),
            ("https://x.example:0/", As(UrlError::InvalidPort)),
            ("https://x.example:00000/", As(UrlError::InvalidPort)),
            ("https://x.example:65536/", As(UrlError::InvalidPort)),
            ("https://x.example:000443/", As(UrlError::InvalidPort)),
            (
                "https://x.example:99999999999999999999/",
                As(UrlError::InvalidPort),
            ),
            // Other schemes, and plain `http` off loopback.
            (
                "javascript:alert(1)",
                As(UrlError::UnsupportedScheme {
                    scheme: "javascript".into(),
                }),
            ),
            (
                "ssh://x.example/",
                As(UrlError::UnsupportedScheme {
                    scheme: "ssh".into(),
                }),
            ),
            (
                "http://x.example/",
                As(UrlError::InsecureHttp {
                    host: "x.example".into(),
                }),
            ),
            (
                "http://[::ffff:127.0.0.1]/",
                As(UrlError::InsecureHttp {
                    host: "[::ffff:127.0.0.1]".into(),
                }),
            ),
        ];
        for (s, refused_as) in cases {
            assert!(fluent_uri::Uri::parse(s).is_ok(), "{s:?} is not RFC 3986");
            let e = err(s);
            let expected = match &refused_as {
                As(want) => e == *want,
                Host(reason) => {
                    matches!(&e, UrlError::InvalidHost { reason: r } if r.contains(reason))
                }
            };
            assert!(expected, "{s:?}: {e:?}");
        }
        // Any length is RFC 3986.
        let long = format!("https://x.example/{}", "a".repeat(MAX_URL_BYTES));
        assert!(fluent_uri::Uri::parse(long.as_str()).is_ok());
        assert_eq!(err(&long), UrlError::TooLong { bytes: long.len() });
    }

    /// A URL the parser refuses gets the error for the part it broke, at the parser's offset.
    #[test]
    fn parser_refusals_name_the_part_they_broke() {
        for (s, want) in [
            (
                "https://x.example/a b",
                UrlError::InvalidCharacter {
                    position: 19,
                    character: ' ',
                },
            ),
            ("https://x.example/é", UrlError::NonAscii { position: 18 }),
            (
                "https://x.example/%g0",
                UrlError::InvalidPercentEncoding { position: 18 },
            ),
            (
                "https://a%zz.example/",
                UrlError::InvalidPercentEncoding { position: 9 },
            ),
            ("1https://x.example/", UrlError::NotAbsolute),
            (
                "ftp://x.example/[",
                UrlError::UnsupportedScheme {
                    scheme: "ftp".into(),
                },
            ),
            ("https:/x.example/[", UrlError::NotAbsolute),
            ("https://a@b@x.example/", UrlError::Userinfo),
            ("https://[::1]:8a/", UrlError::InvalidPort),
            ("https://[::1]:80:80/", UrlError::InvalidPort),
            ("https://x.example:80]/", UrlError::InvalidPort),
            (
                "https://x.example/p?q#a[",
                UrlError::InvalidCharacter {
                    position: 23,
                    character: '[',
                },
            ),
        ] {
            assert!(fluent_uri::Uri::parse(s).is_err(), "{s:?}");
            assert_eq!(err(s), want, "{s:?}");
        }
        for s in [
            "https://[::1",
            "https://[::1/",
            "https://[::1]x/",
            "https://[v1]/",
            "https://[::g]/",
            "https://[1:2:3:4:5:6:7:8:9]/",
            "https://x.example]/",
            "https://x[y/",
        ] {
            assert!(fluent_uri::Uri::parse(s).is_err(), "{s:?}");
            assert!(matches!(err(s), UrlError::InvalidHost { .. }), "{s:?}");
        }
    }

    /// What the server wrote is what is sent and shown: nothing is lowercased, decoded or
    /// otherwise normalized; hosts compare without regard to case where the rules need it.
    #[test]
    fn nothing_is_normalized() {
        let s = "HTTPS://MCP.Example.COM:0443/A%2f/./b/../?Q=%7E#F";
        let url = ok(s);
        assert_eq!(url.as_str(), s);
        assert_eq!(url.scheme(), "https");
        assert_eq!(url.host(), "MCP.Example.COM");
        assert_eq!(url.port(), Some(443));
        assert_eq!(
            url.to_string(),
            "HTTPS://MCP.Example.COM:0443/A%2f/./b/../?<redacted>#<redacted>"
        );
        let v6 = ok("Http://[::1]:8080");
        assert_eq!(
            (v6.host(), v6.scheme(), v6.is_loopback()),
            ("[::1]", "http", true)
        );
        assert_eq!(ok("https://[2001:DB8::A]/").host(), "[2001:DB8::A]");
        assert!(ok("http://LocalHost/").is_loopback());
    }

    #[test]
    fn display_and_debug_never_show_the_query_or_fragment() {
        let url = ok("https://x.example/cb?code=SECRET&state=S2#tok=SECRET3");
        for shown in [url.to_string(), format!("{url:?}"), url.redacted()] {
            assert!(!shown.contains("SECRET"), "{shown}");
            assert!(!shown.contains("S2"), "{shown}");
        }
        assert_eq!(
            url.to_string(),
            "https://x.example/cb?<redacted>#<redacted>"
        );
        assert_eq!(
            ok("https://x.example#tok=SECRET").to_string(),
            "https://x.example#<redacted>"
        );
        assert_eq!(ok("https://x.example/p").to_string(), "https://x.example/p");
        assert_eq!(
            serde_json::to_value(&url).ok(),
            Some(serde_json::json!(url.as_str()))
        );
    }

    #[test]
    fn errors_never_repeat_the_url() {
        for s in [
            "http://evil.example/?token=SECRET",
            "https://x.example/?token=SECRET&x=%zz",
            "https://user:SECRET@x.example/",
            "https://x.example/?token=SECRET#a#b",
        ] {
            let e = err(s);
            assert!(!e.to_string().contains("SECRET"), "{e}");
            assert!(!format!("{e:?}").contains("SECRET"), "{e:?}");
        }
    }
}
