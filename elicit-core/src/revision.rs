//! The protocol revisions this crate speaks, and what each one can express.
//!
//! A server learns the revision from the `protocolVersion` the client negotiated at
//! `initialize` (2025-06-18, 2025-11-25) or from each request's
//! `_meta["io.modelcontextprotocol/protocolVersion"]` (2026-07-28), parses it into a
//! [`Revision`], and emits every request for that revision with `for_revision`
//! ([`FormRequest::for_revision`](crate::FormRequest::for_revision),
//! [`UrlRequest::for_revision`](crate::UrlRequest::for_revision)).

use std::fmt;
use std::str::FromStr;

/// A revision of the Model Context Protocol, ordered oldest to newest.
///
/// ```
/// # extern crate elicit_core as mcp_elicit;
/// use mcp_elicit::Revision;
/// let revision: Revision = "2025-11-25".parse()?;
/// assert_eq!(revision, Revision::V2025_11_25);
/// assert_eq!(revision.to_string(), "2025-11-25");
/// assert!(Revision::V2025_06_18 < revision && revision < Revision::LATEST);
///
/// let err = "2024-11-05".parse::<Revision>().unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "unsupported protocol version \"2024-11-05\": elicitation is spoken in 2025-06-18, 2025-11-25 and 2026-07-28"
/// );
/// # Ok::<(), mcp_elicit::protocol::UnknownRevision>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Revision {
    /// `2025-06-18`: the first revision with elicitation. Form mode only, no `mode` field,
    /// single-selects as `enum` (+ `enumNames`), defaults only on booleans, no multi-select.
    V2025_06_18,
    /// `2025-11-25`: URL mode with an `elicitationId`, the completion notification and
    /// `URLElicitationRequiredError`; titled and multi-selects; defaults on every kind.
    V2025_11_25,
    /// `2026-07-28`: elicitation through multi round-trip requests; capabilities declared on
    /// every request; URL mode without `elicitationId` (the server correlates through request
    /// state).
    V2026_07_28,
}

impl Revision {
    /// Every revision, oldest first.
    pub const ALL: [Revision; 3] = [
        Revision::V2025_06_18,
        Revision::V2025_11_25,
        Revision::V2026_07_28,
    ];

    /// The newest revision: what `FormRequest`'s and `UrlRequest`'s own `Serialize` emit.
    pub const LATEST: Revision = Revision::V2026_07_28;

    /// The protocol version string, e.g. `"2025-11-25"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Revision::V2025_06_18 => "2025-06-18",
            Revision::V2025_11_25 => "2025-11-25",
            Revision::V2026_07_28 => "2026-07-28",
        }
    }

    /// Whether URL-mode elicitation exists in this revision (from 2025-11-25).
    pub const fn has_url_mode(self) -> bool {
        !matches!(self, Revision::V2025_06_18)
    }

    /// Whether multi-select properties (`type: array`) exist in this revision (from 2025-11-25).
    pub const fn has_multi_select(self) -> bool {
        !matches!(self, Revision::V2025_06_18)
    }

    /// Whether requests carry an explicit `mode` (from 2025-11-25; optional for form mode).
    pub const fn has_mode_field(self) -> bool {
        !matches!(self, Revision::V2025_06_18)
    }

    /// Whether URL elicitations carry an `elicitationId`, with the completion notification and
    /// `URLElicitationRequiredError` (2025-11-25 only).
    pub const fn has_elicitation_id(self) -> bool {
        matches!(self, Revision::V2025_11_25)
    }

    /// Whether the client declares its capabilities on every request (`_meta`) rather than once
    /// at `initialize` (from 2026-07-28).
    pub const fn has_per_request_capabilities(self) -> bool {
        matches!(self, Revision::V2026_07_28)
    }
}

impl fmt::Display for Revision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Revision {
    type Err = UnknownRevision;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Revision::ALL
            .into_iter()
            .find(|r| r.as_str() == s)
            .ok_or_else(|| UnknownRevision {
                version: quote_limited(s),
            })
    }
}

/// Quote at most a few dozen characters of a client-supplied string in an error.
fn quote_limited(s: &str) -> String {
    const LIMIT: usize = 32;
    match s.char_indices().nth(LIMIT) {
        Some((end, _)) => format!("{}…", s.get(..end).unwrap_or_default()),
        None => s.to_owned(),
    }
}

/// A protocol version string that is not a revision with elicitation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownRevision {
    version: String,
}

impl UnknownRevision {
    /// The version string received (at most 32 characters of it).
    pub fn version(&self) -> &str {
        &self.version
    }
}

impl fmt::Display for UnknownRevision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unsupported protocol version {:?}: elicitation is spoken in 2025-06-18, 2025-11-25 and 2026-07-28",
            self.version
        )
    }
}

impl std::error::Error for UnknownRevision {}

/// A request that the chosen revision cannot express. Nothing is sent: emitting a degraded
/// request would ask the user a different question than the one the code asks.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RevisionError {
    /// The form has a multi-select, which 2025-06-18 has no schema for.
    MultiSelectUnsupported {
        /// The multi-select property.
        property: String,
        /// The revision that cannot express it.
        revision: Revision,
    },
    /// URL mode does not exist before 2025-11-25.
    UrlModeUnsupported {
        /// The revision that cannot express it.
        revision: Revision,
    },
    /// A select whose options are supplied at run time has none yet.
    OptionsNotSupplied {
        /// The select property.
        property: String,
    },
}

impl fmt::Display for RevisionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RevisionError::MultiSelectUnsupported { property, revision } => write!(
                f,
                "property `{property}` is a multi-select, which protocol revision {revision} cannot express (multi-selects arrived in 2025-11-25); ask for it as several booleans or a single-select, or require a newer client"
            ),
            RevisionError::UrlModeUnsupported { revision } => write!(
                f,
                "protocol revision {revision} has no URL-mode elicitation (it arrived in 2025-11-25); tell the user to open the page themselves, or require a newer client"
            ),
            RevisionError::OptionsNotSupplied { property } => write!(
                f,
                "property `{property}` has no options yet; supply them with `FormRequest::with_options` before sending"
            ),
        }
    }
}

impl std::error::Error for RevisionError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn revision_parses_from_each_protocol_version_string() {
        for r in Revision::ALL {
            assert_eq!(r.as_str().parse::<Revision>(), Ok(r));
            assert_eq!(r.to_string(), r.as_str());
        }
    }

    #[test]
    fn unknown_protocol_version_is_a_clear_error() {
        for bad in [
            "2024-11-05",
            "",
            "2025-6-18",
            " 2025-06-18",
            "2025-06-18\n",
            "latest",
        ] {
            let err = bad.parse::<Revision>().unwrap_err();
            assert!(
                err.to_string().contains("unsupported protocol version"),
                "{err}"
            );
        }
    }

    #[test]
    fn unknown_protocol_version_error_quotes_at_most_32_characters() {
        let long = "x".repeat(10_000);
        let err = long.parse::<Revision>().unwrap_err();
        assert_eq!(err.version().chars().count(), 33); // 32 and an ellipsis
    }

    #[test]
    fn revisions_are_ordered_by_date() {
        assert!(Revision::V2025_06_18 < Revision::V2025_11_25);
        assert!(Revision::V2025_11_25 < Revision::V2026_07_28);
        assert_eq!(Revision::ALL.iter().max(), Some(&Revision::LATEST));
    }

    #[test]
    fn only_2025_11_25_has_elicitation_ids() {
        assert!(!Revision::V2025_06_18.has_elicitation_id());
        assert!(Revision::V2025_11_25.has_elicitation_id());
        assert!(!Revision::V2026_07_28.has_elicitation_id());
    }
}
