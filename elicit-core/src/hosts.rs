//! The host table: per MCP host, what it can draw and what it needs, in one place, with how
//! each row was checked.
//!
//! A [`Host`] row matches a client by its `clientInfo` name and a semver range of its
//! `clientInfo` version, and says:
//!
//! - which field kinds it draws as form fields ([`FieldKinds`]: integer, number and
//!   multi-select; text, boolean and single-select every host draws);
//! - whether it shows a URL question's link to the person before the call ends
//!   ([`Host::shows_link_before_call_ends`]; fast-agent 0.10.48 does not);
//! - whether it opens `http` links ([`Host::opens_http_links`]; Codex 0.171.0 declines any link
//!   that is not `https` at once);
//! - what it needs on the wire beyond its revision ([`Host::needs_url_elicitation_id`]: GitHub
//!   Copilot CLI 1.0.102 on 2026-07-28 needs a URL question's `elicitationId`);
//! - how the row was checked ([`Checked`]): against the running host in CI, by hand, or taken
//!   from the host's tracker.
//!
//! [`HostTable::known`] holds the rows this release was checked against; a server adds its own
//! ([`HostTable::with_host`], ahead of the known rows) or turns the table off
//! ([`HostTable::off`]). A client no row matches is asked as if there were no table.
//!
//! ```
//! # extern crate elicit_core as mcp_elicit;
//! use mcp_elicit::hosts::{FieldKind, HostTable};
//!
//! let table = HostTable::known();
//! let codex = table.find("codex-mcp-client", "0.171.0").expect("a known host");
//! assert!(!codex.field_kinds().draws(FieldKind::Integer));
//! assert!(!codex.opens_http_links());
//! assert!(table.find("my-own-client", "1.0.0").is_none());
//! assert!(HostTable::off().find("codex-mcp-client", "0.171.0").is_none());
//! ```

mod adapt;

use std::borrow::Cow;
use std::fmt;
use std::sync::{Arc, LazyLock};

pub use self::adapt::{Adaptation, MAX_INTEGER_OPTIONS, adapt};

/// A field kind some hosts cannot draw as a form field. Text, boolean and single-select fields
/// every host draws, so they have no kind here.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FieldKind {
    /// `type: integer`.
    Integer,
    /// `type: number`.
    Number,
    /// A multi-select (`type: array` of options).
    MultiSelect,
}

/// The field kinds a host draws as form fields, beyond text, boolean and single-select.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FieldKinds {
    integer: bool,
    number: bool,
    multi_select: bool,
}

impl FieldKinds {
    /// Every kind: the host draws every field the revision has.
    pub const ALL: FieldKinds = FieldKinds {
        integer: true,
        number: true,
        multi_select: true,
    };

    /// Text, boolean and single-select only (Codex 0.171.0).
    pub const BASIC: FieldKinds = FieldKinds {
        integer: false,
        number: false,
        multi_select: false,
    };

    /// These kinds, and `kind` too.
    #[must_use]
    pub const fn with(mut self, kind: FieldKind) -> Self {
        match kind {
            FieldKind::Integer => self.integer = true,
            FieldKind::Number => self.number = true,
            FieldKind::MultiSelect => self.multi_select = true,
        }
        self
    }

    /// These kinds, without `kind`.
    #[must_use]
    pub const fn without(mut self, kind: FieldKind) -> Self {
        match kind {
            FieldKind::Integer => self.integer = false,
            FieldKind::Number => self.number = false,
            FieldKind::MultiSelect => self.multi_select = false,
        }
        self
    }

    /// Whether the host draws `kind` as a form field.
    pub const fn draws(self, kind: FieldKind) -> bool {
        match kind {
            FieldKind::Integer => self.integer,
            FieldKind::Number => self.number,
            FieldKind::MultiSelect => self.multi_select,
        }
    }

    /// Whether the host draws every kind (nothing to adapt).
    pub const fn draws_all(self) -> bool {
        self.integer && self.number && self.multi_select
    }

    /// The kinds as three bits (integer 1, number 2, multi-select 4), for a 2026-07-28 round's
    /// sealed state: a form's adaptation is sealed as the kinds it was adapted to.
    #[cfg(feature = "mrtr")]
    pub(crate) const fn bits(self) -> u8 {
        (self.integer as u8) | (self.number as u8) << 1 | (self.multi_select as u8) << 2
    }

    /// The kinds [`bits`](FieldKinds::bits) wrote (other bits are ignored).
    #[cfg(feature = "mrtr")]
    pub(crate) const fn from_bits(bits: u8) -> Self {
        FieldKinds {
            integer: bits & 1 != 0,
            number: bits & 2 != 0,
            multi_select: bits & 4 != 0,
        }
    }
}

/// How a row of the table was checked.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Checked {
    /// Against the running host, in this project's CI (`.ci/run`), at `version`.
    InCi {
        /// The host's version CI runs (pinned).
        version: Cow<'static, str>,
    },
    /// Against the running host, by hand, at `version` on `date` (`YYYY-MM-DD`, UTC).
    ByHand {
        /// The host's version.
        version: Cow<'static, str>,
        /// The day it was tried.
        date: Cow<'static, str>,
    },
    /// Taken from the host's public tracker or source, not run.
    Tracker {
        /// The issue, pull request or source file.
        link: Cow<'static, str>,
    },
}

impl fmt::Display for Checked {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Checked::InCi { version } => write!(f, "checked in CI against {version}"),
            Checked::ByHand { version, date } => {
                write!(f, "checked by hand against {version} on {date}")
            }
            Checked::Tracker { link } => write!(f, "taken from {link}"),
        }
    }
}

/// Why a [`Host`] row could not be made.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum HostError {
    /// The `clientInfo` name is empty.
    EmptyName,
    /// The version range is not a semver requirement (`^0.171.0`, `>=1.0, <2`, `*`).
    Versions {
        /// The client name of the row.
        client_name: String,
        /// What was given.
        versions: String,
        /// The semver parser's words.
        error: String,
    },
}

impl fmt::Display for HostError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HostError::EmptyName => f.write_str(
                "a host row matches a `clientInfo` name, and this one is empty: give the name \
                 the host sends (`codex-mcp-client`)",
            ),
            HostError::Versions {
                client_name,
                versions,
                error,
            } => write!(
                f,
                "host `{client_name}`: `{versions}` is not a semver version range \
                 (`^0.171.0`, `>=1.0, <2`, or `*` for every version): {error}"
            ),
        }
    }
}

impl std::error::Error for HostError {}

/// One row of the [`HostTable`]: a host, the clients it matches, what it draws and needs, and
/// how that was checked.
///
/// ```
/// # extern crate elicit_core as mcp_elicit;
/// use mcp_elicit::hosts::{Checked, FieldKind, FieldKinds, Host, HostTable};
///
/// // Our own desktop client draws no number field before 3.0.
/// let ours = Host::new("Acme Desktop", "acme-desktop", "<3.0.0")?
///     .draws(FieldKinds::ALL.without(FieldKind::Number))
///     .checked(Checked::ByHand { version: "2.4.1".into(), date: "2026-12-01".into() });
/// let table = HostTable::known().with_host(ours);
/// let found = table.find("acme-desktop", "2.4.1").expect("our row");
/// assert!(!found.field_kinds().draws(FieldKind::Number));
/// assert!(table.find("acme-desktop", "3.0.0").is_none());
/// # Ok::<(), mcp_elicit::hosts::HostError>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Host {
    title: Cow<'static, str>,
    client_name: Cow<'static, str>,
    /// `None`: every version, and a version that is not semver.
    versions: Option<semver::VersionReq>,
    /// The range as it was given.
    versions_text: Cow<'static, str>,
    draws: FieldKinds,
    shows_link_before_call_ends: bool,
    opens_http_links: bool,
    needs_url_elicitation_id: bool,
    checked: Checked,
}

impl Host {
    /// A row for the host users know as `title`, matching a client whose `clientInfo.name` is
    /// exactly `client_name` and whose `clientInfo.version` is in `versions` (a semver range as
    /// cargo reads it: `^0.171.0` is `>=0.171.0, <0.172.0`; `*` is every version, even one
    /// that is not semver). Until the builders say otherwise the host draws every field kind,
    /// shows a URL question's link before the call ends, opens `http` links, needs nothing
    /// beyond its revision on the wire, and the row was checked nowhere
    /// ([`Checked::Tracker`] with no link): say how with [`checked`](Host::checked).
    ///
    /// # Errors
    /// [`HostError::EmptyName`] for an empty `client_name`; [`HostError::Versions`] if
    /// `versions` is not a semver range.
    pub fn new(
        title: impl Into<Cow<'static, str>>,
        client_name: impl Into<Cow<'static, str>>,
        versions: &str,
    ) -> Result<Self, HostError> {
        let client_name = client_name.into();
        if client_name.is_empty() {
            return Err(HostError::EmptyName);
        }
        let versions_text = Cow::Owned(versions.trim().to_owned());
        let versions = if versions.trim() == "*" {
            None
        } else {
            Some(
                semver::VersionReq::parse(versions).map_err(|e| HostError::Versions {
                    client_name: client_name.clone().into_owned(),
                    versions: versions.to_owned(),
                    error: e.to_string(),
                })?,
            )
        };
        Ok(Self {
            title: title.into(),
            client_name,
            versions,
            versions_text,
            draws: FieldKinds::ALL,
            shows_link_before_call_ends: true,
            opens_http_links: true,
            needs_url_elicitation_id: false,
            checked: Checked::Tracker { link: "".into() },
        })
    }

    /// The field kinds it draws as form fields.
    #[must_use]
    pub fn draws(mut self, kinds: FieldKinds) -> Self {
        self.draws = kinds;
        self
    }

    /// It shows a URL question's link only after the call ends (fast-agent 0.10.48): nobody
    /// opens the page while the tool waits for it.
    #[must_use]
    pub fn shows_link_after_call_ends(mut self) -> Self {
        self.shows_link_before_call_ends = false;
        self
    }

    /// It declines any link that is not `https`, at once, without showing it (Codex 0.171.0).
    #[must_use]
    pub fn declines_http_links(mut self) -> Self {
        self.opens_http_links = false;
        self
    }

    /// On 2026-07-28 it needs a URL question's `elicitationId` (the flow's id), which that
    /// revision removed (GitHub Copilot CLI 1.0.102).
    #[must_use]
    pub fn needs_url_elicitation_id(mut self) -> Self {
        self.needs_url_elicitation_id = true;
        self
    }

    /// How the row was checked.
    #[must_use]
    pub fn checked(mut self, checked: Checked) -> Self {
        self.checked = checked;
        self
    }

    /// The host's name, as its users know it ("Codex").
    pub fn title(&self) -> &str {
        &self.title
    }

    /// The `clientInfo.name` it matches.
    pub fn client_name(&self) -> &str {
        &self.client_name
    }

    /// The versions it matches, as given to [`new`](Host::new) (`^0.171.0`; `*` for every
    /// version).
    pub fn versions(&self) -> &str {
        &self.versions_text
    }

    /// The field kinds it draws as form fields (text, boolean and single-select always).
    pub fn field_kinds(&self) -> FieldKinds {
        self.draws
    }

    /// Whether it shows a URL question's link to the person before the call ends.
    pub fn shows_link_before_call_ends(&self) -> bool {
        self.shows_link_before_call_ends
    }

    /// Whether it opens (offers to open) an `http` link; `false` if it declines any link that
    /// is not `https`.
    pub fn opens_http_links(&self) -> bool {
        self.opens_http_links
    }

    /// Whether, on 2026-07-28, a URL question must carry its flow's `elicitationId`.
    pub fn url_needs_elicitation_id(&self) -> bool {
        self.needs_url_elicitation_id
    }

    /// How the row was checked.
    pub fn how_checked(&self) -> &Checked {
        &self.checked
    }

    /// Whether the row was checked against the running host in CI. What the library does on
    /// a host's behalf that changes what the person sees beyond the form's fields (a URL step
    /// asked in a form) is on by default only for such rows.
    pub fn checked_in_ci(&self) -> bool {
        matches!(self.checked, Checked::InCi { .. })
    }

    /// Whether the row matches a client that sent this `clientInfo` name and version.
    pub fn matches(&self, client_name: &str, version: &str) -> bool {
        if self.client_name != client_name {
            return false;
        }
        match &self.versions {
            None => true,
            Some(range) => {
                semver::Version::parse(version.trim()).is_ok_and(|version| range.matches(&version))
            }
        }
    }
}

/// The host table: the rows a client is looked up in, first match first. Cheap to clone (the
/// rows are shared).
///
/// A server looks its client up once per request ([`find`](HostTable::find)); the library's
/// rmcp `Asker` does so from the request's `clientInfo` (the session's on 2025-06-18 and
/// 2025-11-25, each request's `_meta` on 2026-07-28).
#[derive(Debug, Clone, PartialEq)]
pub struct HostTable {
    rows: Arc<[Host]>,
}

impl Default for HostTable {
    /// [`HostTable::known`].
    fn default() -> Self {
        Self::known()
    }
}

/// The rows of [`HostTable::known`], made once.
static KNOWN: LazyLock<Arc<[Host]>> = LazyLock::new(|| known_rows().into());

/// The hosts this release was checked against. A row whose range does not parse is left out
/// (a unit test holds every row to parse).
fn known_rows() -> Vec<Host> {
    let rows = [
        // `tests/hosts/test_coding_hosts.py`: everything drawn; the URL question shown with Open
        // in browser / I'm done / Decline.
        Host::new("Claude Code", "claude-code", "^2.1.337").map(|h| {
            h.checked(Checked::InCi {
                version: "2.1.337".into(),
            })
        }),
        // 2025-06-18 with form and URL declared. Its TUI draws a form only when every field is
        // text, boolean or single-select (openai/codex#41797: otherwise an approval dialog
        // whose yes is `accept` with `{}`), and declines a link that is not https at once.
        // `tests/hosts/test_coding_hosts.py`.
        Host::new("Codex", "codex-mcp-client", "^0.171.0").map(|h| {
            h.draws(FieldKinds::BASIC)
                .declines_http_links()
                .checked(Checked::InCi {
                    version: "0.171.0".into(),
                })
        }),
        // 2026-07-28 when offered; its URL question fails without `elicitationId`.
        Host::new("GitHub Copilot CLI", "copilot-cli", "^1.0.102").map(|h| {
            h.needs_url_elicitation_id().checked(Checked::ByHand {
                version: "1.0.102".into(),
                date: "2026-12-07".into(),
            })
        }),
        // `tests/hosts/test_fast_agent.py`: the URL is printed only after the call returns.
        Host::new("fast-agent", "fast-agent-mcp", "^0.10.48").map(|h| {
            h.shows_link_after_call_ends().checked(Checked::InCi {
                version: "0.10.48".into(),
            })
        }),
        // `tests/hosts/inspector.test.mjs`.
        Host::new("MCP Inspector", "mcp-inspector", "^2.12.0").map(|h| {
            h.checked(Checked::InCi {
                version: "2.12.0".into(),
            })
        }),
    ];
    rows.into_iter().filter_map(Result::ok).collect()
}

impl HostTable {
    /// The hosts this release was checked against: Claude Code 2.1.337, Codex 0.171.0,
    /// fast-agent 0.10.48 and the MCP Inspector 2.12 (in CI), GitHub Copilot CLI 1.0.102 (by
    /// hand, 2026-12-07). The guide `hosts` of `mcp-elicit` lists each row.
    pub fn known() -> Self {
        Self {
            rows: Arc::clone(&KNOWN),
        }
    }

    /// No rows: every client is asked as if the library knew no host.
    pub fn off() -> Self {
        Self { rows: Arc::new([]) }
    }

    /// This table with `host` ahead of its rows: it is found first, so a row for a known
    /// client (or a range of its versions) replaces the known row there.
    #[must_use]
    pub fn with_host(self, host: Host) -> Self {
        let mut rows = Vec::with_capacity(self.rows.len() + 1);
        rows.push(host);
        rows.extend(self.rows.iter().cloned());
        Self { rows: rows.into() }
    }

    /// The rows, first match first.
    pub fn rows(&self) -> &[Host] {
        &self.rows
    }

    /// Whether the table has no rows ([`off`](HostTable::off)).
    pub fn is_off(&self) -> bool {
        self.rows.is_empty()
    }

    /// The first row matching a client that sent this `clientInfo` name and version; `None`
    /// for a client the table does not know, which is asked as if there were no table.
    pub fn find(&self, client_name: &str, version: &str) -> Option<&Host> {
        self.rows
            .iter()
            .find(|host| host.matches(client_name, version))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_known_row_parses() {
        assert_eq!(known_rows().len(), 5);
    }

    #[test]
    fn a_row_matches_its_name_and_range_only() {
        let table = HostTable::known();
        assert!(table.find("codex-mcp-client", "0.171.3").is_some());
        assert!(table.find("codex-mcp-client", "0.172.0").is_none());
        assert!(table.find("codex-mcp-client", "0.170.9").is_none());
        assert!(table.find("codex-mcp-client", "not a version").is_none());
        assert!(table.find("Codex-MCP-Client", "0.171.0").is_none());
        assert_eq!(
            table.find("claude-code", "2.9.0").map(Host::title),
            Some("Claude Code")
        );
    }

    #[test]
    fn an_added_row_is_found_before_a_known_one() {
        let table = HostTable::known().with_host(
            Host::new("Codex, patched", "codex-mcp-client", "*")
                .unwrap()
                .draws(FieldKinds::ALL),
        );
        let found = table.find("codex-mcp-client", "0.171.0").unwrap();
        assert_eq!(found.title(), "Codex, patched");
        assert!(found.field_kinds().draws_all());
        assert!(found.matches("codex-mcp-client", "dev"));
    }

    #[test]
    fn a_bad_row_names_the_host_and_the_rule() {
        let error = Host::new("X", "x-client", "about 1.0").unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with("host `x-client`: `about 1.0` is not a semver")
        );
        assert_eq!(Host::new("X", "", "*").unwrap_err(), HostError::EmptyName);
    }

    #[test]
    fn only_rows_checked_in_ci_say_so() {
        let table = HostTable::known();
        let in_ci: Vec<&str> = table
            .rows()
            .iter()
            .filter(|h| h.checked_in_ci())
            .map(Host::client_name)
            .collect();
        assert_eq!(
            in_ci,
            [
                "claude-code",
                "codex-mcp-client",
                "fast-agent-mcp",
                "mcp-inspector"
            ]
        );
    }
}
