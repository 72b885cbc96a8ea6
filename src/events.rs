//! What the library logs, through `tracing`: every target, event name and field in one place,
//! and the few ways a value is written into a field (a flow's id cut short, a principal
//! escaped and bounded). The guide lists them ([`observe`](crate::observe), "Logs").
//!
//! Never in a field: a value the user gave, a secret, a whole flow id, a URL's path (it holds
//! the flow id), a `requestState`, a cookie, a token, a session id.

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

/// The longest principal written whole: a longer one is cut, with `…`.
#[cfg(any(feature = "page", feature = "http"))]
const MAX_PRINCIPAL_CHARS: usize = 64;

/// A principal as given (the server's own name for the user: `Identity`, `HttpPrincipal`,
/// `AskConfig`), with control characters escaped (`\n`, `\u{1b}`) so one cannot forge a line
/// or move a terminal's cursor, and cut at 64 characters. `-` when there is none, `""` for an
/// empty one (which names no one: `Flow::names_no_one`).
#[cfg(any(feature = "page", feature = "http"))]
pub(crate) struct Principal<'a>(pub(crate) Option<&'a str>);

#[cfg(any(feature = "page", feature = "http"))]
impl fmt::Display for Principal<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Some(principal) = self.0 else {
            return f.write_str("-");
        };
        if principal.is_empty() {
            // The single user's.
            return f.write_str("\"\"");
        }
        for (i, c) in principal.chars().enumerate() {
            if i == MAX_PRINCIPAL_CHARS {
                return f.write_str("…");
            }
            if c.is_control() {
                write!(f, "{}", c.escape_default())?;
            } else {
                fmt::Write::write_char(f, c)?;
            }
        }
        Ok(())
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
