//! What the library logs, through `tracing`: every target, event name and field in one place,
//! and the few ways a value is written into a field (a flow's id cut short, a principal
//! escaped and bounded). The guide lists them ([`observe`](crate::observe), "Logs").
//!
//! Never in a field: a value the user gave, a secret, a whole flow id, a URL's path (it holds
//! the flow id), a `requestState`, a cookie, a token, a session id.

use std::borrow::Cow;
use std::fmt;

use crate::url_mode::FlowId;

/// The asks of one call (its span), their answers and re-asks.
pub(crate) const ASK: &str = "mcp_elicit::ask";
/// A URL flow's life: begun, opened, finished, abandoned, expired.
pub(crate) const FLOW: &str = "mcp_elicit::flow";
/// The pages' refusals (warnings) and their sign-in.
#[cfg(feature = "page")]
pub(crate) const PAGE: &str = "mcp_elicit::page";
/// A round's `requestState` refused: does not open, or spent already (the replay guard).
pub(crate) const STATE: &str = "mcp_elicit::state";
/// An HTTP request refused for its session or its missing principal.
#[cfg(feature = "http")]
pub(crate) const SESSION: &str = "mcp_elicit::session";

/// A flow's id in a log: its first 8 hexadecimal digits (32 of its 128 bits), enough to tell
/// flows apart, too few to reach one.
pub(crate) struct ShortFlow<'a>(pub(crate) &'a FlowId);

impl fmt::Display for ShortFlow<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let id = self.0.to_string();
        f.write_str(id.get(..8).unwrap_or("?"))
    }
}

/// Whether `c` is written escaped wherever client- or user-supplied text reaches a log field:
/// every character of Unicode's `Cc` (controls: a line feed forges a line, an escape sequence
/// moves a terminal's cursor), `Cf` (format characters: the bidirectional marks, embeddings,
/// overrides and isolates that reorder what follows them, and the invisible ones), `Zl` and
/// `Zp` (U+2028 and U+2029, which many log viewers and JSON readers take as a new line).
/// The one statement of the rule: [`logged`] and [`Principal`] write by it.
fn escaped_in_logs(c: char) -> bool {
    use unicode_general_category::{GeneralCategory, get_general_category};
    matches!(
        get_general_category(c),
        GeneralCategory::Control
            | GeneralCategory::Format
            | GeneralCategory::LineSeparator
            | GeneralCategory::ParagraphSeparator
    )
}

/// Writes `text` with each character [`escaped_in_logs`] as Rust escapes it (`\n`, `\u{202e}`),
/// cut after `max_chars` characters with `…`.
fn write_escaped(f: &mut impl fmt::Write, text: &str, max_chars: usize) -> fmt::Result {
    for (i, c) in text.chars().enumerate() {
        if i == max_chars {
            return f.write_str("…");
        }
        if escaped_in_logs(c) {
            write!(f, "{}", c.escape_default())?;
        } else {
            f.write_char(c)?;
        }
    }
    Ok(())
}

/// Client- or user-supplied text for a log field recorded as a string (a request's tool or
/// prompt name): itself when no character is [`escaped_in_logs`], else escaped.
pub(crate) fn logged(text: &str) -> Cow<'_, str> {
    if !text.chars().any(escaped_in_logs) {
        return Cow::Borrowed(text);
    }
    let mut escaped = String::with_capacity(text.len() + 8);
    // Writing to a `String` does not fail.
    let _ = write_escaped(&mut escaped, text, usize::MAX);
    Cow::Owned(escaped)
}

/// The longest principal written whole: a longer one is cut, with `…`.
#[cfg(any(feature = "page", feature = "http"))]
const MAX_PRINCIPAL_CHARS: usize = 64;

/// A principal as given (the server's own name for the user: `Identity`, `HttpPrincipal`,
/// `AskConfig`), escaped by [`escaped_in_logs`] (`\n`, `\u{1b}`, `\u{2028}`, `\u{202e}`) so one
/// cannot forge a line, move a terminal's cursor or reorder what a reader sees, and cut at 64
/// characters. `-` when there is none, `""` for an empty one (which names no one:
/// `Flow::names_no_one`).
#[cfg(any(feature = "page", feature = "http"))]
pub(crate) struct Principal<'a>(pub(crate) Option<&'a str>);

#[cfg(any(feature = "page", feature = "http"))]
impl fmt::Display for Principal<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Some(principal) = self.0 else {
            return f.write_str("-");
        };
        if principal.is_empty() {
            return f.write_str("\"\"");
        }
        write_escaped(f, principal, MAX_PRINCIPAL_CHARS)
    }
}

/// The check of the pages that refused a request ([`page_refused`]).
#[cfg(feature = "page")]
#[derive(Clone, Copy)]
pub(crate) enum Check {
    /// Who sent it: no one the identity names, or another user than the flow's.
    Identity,
    /// Which browser: none the pages named, or another than the one that opened the flow.
    Browser,
    /// The form's token: not the one its page gave this flow, browser and user.
    Csrf,
    /// A form posted from another site.
    Origin,
    /// A request naming another host than the pages' (DNS rebinding).
    Host,
    /// A provider's answer whose `state` (or sealed cookie) is not this browser's sign-in or
    /// authorization.
    #[cfg_attr(not(feature = "oauth"), allow(dead_code))]
    State,
    /// A provider's answer at another authorization page's redirect URI (mix-up).
    #[cfg_attr(not(feature = "oauth"), allow(dead_code))]
    Redirect,
    /// A provider's answer naming another issuer (RFC 9207).
    #[cfg_attr(not(feature = "oauth"), allow(dead_code))]
    Issuer,
    /// The flow itself: unknown, finished, expired, abandoned, claimed.
    Flow,
}

#[cfg(feature = "page")]
impl Check {
    pub(crate) const fn as_str(self) -> &'static str {
        match self {
            Self::Identity => "identity",
            Self::Browser => "browser",
            Self::Csrf => "csrf",
            Self::Origin => "origin",
            Self::Host => "host",
            Self::State => "state",
            Self::Redirect => "redirect",
            Self::Issuer => "issuer",
            Self::Flow => "flow",
        }
    }
}

/// A refusal of the pages, as a security event (`warn`): the check that refused, the flow
/// (short), the principal the flow is for and the one that sent the request, and why.
#[cfg(feature = "page")]
pub(crate) fn page_refused(
    check: Check,
    flow: Option<&FlowId>,
    expected: Option<&str>,
    seen: Option<&str>,
    why: &str,
) {
    tracing::warn!(
        target: PAGE,
        check = check.as_str(),
        flow = %flow.map_or_else(|| "-".to_owned(), |id| ShortFlow(id).to_string()),
        expected = %Principal(expected),
        seen = %Principal(seen),
        why,
        "page request refused"
    );
}

#[cfg(all(test, any(feature = "page", feature = "http")))]
mod tests {
    use super::*;

    /// Unicode's Cc, Cf, Zl and Zp, told by the category table alone (not by `escaped_in_logs`).
    fn forges(c: char) -> bool {
        use unicode_general_category::{GeneralCategory as G, get_general_category};
        matches!(
            get_general_category(c),
            G::Control | G::Format | G::LineSeparator | G::ParagraphSeparator
        )
    }

    /// The characters issue 42 found passing as they were: the line and paragraph separators
    /// and the bidirectional marks, embeddings, overrides and isolates.
    const FOUND: &[char] = &[
        '\u{2028}', '\u{2029}', '\u{200E}', '\u{200F}', '\u{061C}', '\u{202A}', '\u{202B}',
        '\u{202C}', '\u{202D}', '\u{202E}', '\u{2066}', '\u{2067}', '\u{2068}', '\u{2069}',
    ];

    #[test]
    fn every_character_of_cc_cf_zl_and_zp_is_escaped_in_a_principal_and_no_other() {
        for c in (0..=0x10_FFFF_u32).filter_map(char::from_u32) {
            let logged = Principal(Some(&format!("a{c}b"))).to_string();
            if forges(c) {
                assert_eq!(logged, format!("a{}b", c.escape_default()), "{c:?}");
            } else {
                assert_eq!(logged, format!("a{c}b"), "{c:?}");
            }
        }
        for &c in FOUND {
            assert_eq!(
                Principal(Some(&format!("bob{c}"))).to_string(),
                format!("bob\\u{{{:x}}}", u32::from(c))
            );
        }
    }

    /// A small xorshift: the same cases on every run, no dependency (the facade keeps proptest
    /// out of its dev-dependencies, which every example's build would pay for).
    struct Cases(u64);

    impl Cases {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }

        /// A principal of up to 100 characters, mixing ASCII, the characters found, other
        /// controls and format characters, and any scalar value.
        fn principal(&mut self) -> String {
            let len = self.next() % 101;
            (0..len)
                .map(|_| match self.next() % 4 {
                    0 => char::from(b' ' + (self.next() % 95) as u8),
                    1 => FOUND[(self.next() % FOUND.len() as u64) as usize],
                    2 => [
                        '\n',
                        '\r',
                        '\u{1b}',
                        '\u{85}',
                        '\u{ad}',
                        '\u{feff}',
                        '\u{e0041}',
                    ][(self.next() % 7) as usize],
                    _ => char::from_u32((self.next() % 0x11_0000) as u32).unwrap_or('\u{fffd}'),
                })
                .collect()
        }
    }

    /// Over any principal: no character of Cc, Cf, Zl or Zp reaches the field; a principal
    /// without one, and of at most 64 characters, is written as it is; a longer one is cut,
    /// with `…`, after its 64th character; any other field's text is escaped the same way.
    #[test]
    fn a_logged_principal_holds_no_character_that_forges_or_reorders_a_line() {
        let mut cases = Cases(0x9E37_79B9_7F4A_7C15);
        for _ in 0..20_000 {
            let principal = cases.principal();
            let written = Principal(Some(&principal)).to_string();
            assert!(!written.chars().any(forges), "{principal:?} -> {written:?}");
            let chars = principal.chars().count();
            assert_eq!(written.ends_with('…'), chars > 64, "{principal:?}");
            // An empty principal is written `""`.
            if principal.is_empty() {
                continue;
            }
            if chars <= 64 && !principal.chars().any(forges) {
                assert_eq!(written, principal);
            }
            // Uncut, the text of any other field is written the same way.
            if chars <= 64 {
                assert_eq!(logged(&principal), written);
            }
        }
        assert_eq!(Principal(None).to_string(), "-");
        assert_eq!(Principal(Some("")).to_string(), "\"\"");
    }
}
