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

use crate::jsonrpc::JsonRpcError;

/// A revision of the Model Context Protocol, ordered oldest to newest.
///
/// What differs between revisions is this type's profile, one `const fn` per difference, each
/// answered for every revision: the `mode` field ([`has_mode_field`](Revision::has_mode_field)),
/// defaults ([`has_defaults_beyond_booleans`](Revision::has_defaults_beyond_booleans)), how a
/// titled single-select is written ([`has_one_of_selects`](Revision::has_one_of_selects),
/// [`has_enum_names`](Revision::has_enum_names)), multi-selects, URL mode, `elicitationId`,
/// `-32042`, where capabilities are declared, multi round-trip requests, `resultType`, and the
/// code for a capability the client lacks
/// ([`missing_capability_code`](Revision::missing_capability_code)). The rest of the crate asks
/// these and never compares revisions itself.
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

    // The profile: one row per difference between revisions, one column (match arm) per
    // revision. Every row is an exhaustive `match`, so a new revision is a new column the
    // compiler asks for in each row. Code elsewhere asks these and never compares revisions
    // (`tests/revision_profile.rs` checks).

    /// Whether `elicitation/create` params carry `mode` (`"form"` or `"url"`).
    ///
    /// 2025-06-18's `ElicitRequest` params are `message` and `requestedSchema` only. From
    /// 2025-11-25 they are `ElicitRequestFormParams` (`mode: "form"`, optional: a request without
    /// it is a form) or `ElicitRequestURLParams` (`mode: "url"`, required).
    pub const fn has_mode_field(self) -> bool {
        match self {
            Revision::V2025_06_18 => false,
            Revision::V2025_11_25 => true,
            Revision::V2026_07_28 => true,
        }
    }

    /// Whether a `default` may be given on a string, a number, an integer or a single-select.
    ///
    /// 2025-06-18 has `default` on `BooleanSchema` only (its `StringSchema`, `NumberSchema` and
    /// `EnumSchema` have none); from 2025-11-25 every primitive schema has one. A boolean's
    /// `default` exists in every revision, and so does a multi-select's wherever multi-selects
    /// exist ([`has_multi_select`](Revision::has_multi_select)).
    pub const fn has_defaults_beyond_booleans(self) -> bool {
        match self {
            Revision::V2025_06_18 => false,
            Revision::V2025_11_25 => true,
            Revision::V2026_07_28 => true,
        }
    }

    /// Whether a single-select with titled options may be written as `oneOf` of
    /// `{const, title}` (`TitledSingleSelectEnumSchema`).
    ///
    /// 2025-06-18 titles options only with `enumNames` beside `enum` (its `EnumSchema`); from
    /// 2025-11-25 `oneOf` is the standard form (a multi-select titles its options with
    /// `items.anyOf`).
    pub const fn has_one_of_selects(self) -> bool {
        match self {
            Revision::V2025_06_18 => false,
            Revision::V2025_11_25 => true,
            Revision::V2026_07_28 => true,
        }
    }

    /// Whether a single-select may title its options with `enumNames` beside `enum`.
    ///
    /// The only form in 2025-06-18 (`EnumSchema`); from 2025-11-25 it is
    /// `LegacyTitledEnumSchema`, still valid, marked "Use TitledSingleSelectEnumSchema instead.
    /// This interface will be removed in a future version".
    pub const fn has_enum_names(self) -> bool {
        match self {
            Revision::V2025_06_18 => true,
            Revision::V2025_11_25 => true,
            Revision::V2026_07_28 => true,
        }
    }

    /// Whether multi-select properties exist: `type: "array"` with `items.enum`
    /// (`UntitledMultiSelectEnumSchema`) or `items.anyOf` of `{const, title}`
    /// (`TitledMultiSelectEnumSchema`), from 2025-11-25. 2025-06-18's
    /// `PrimitiveSchemaDefinition` has no array.
    pub const fn has_multi_select(self) -> bool {
        match self {
            Revision::V2025_06_18 => false,
            Revision::V2025_11_25 => true,
            Revision::V2026_07_28 => true,
        }
    }

    /// Whether URL-mode elicitation exists (`ElicitRequestURLParams`, the client capability
    /// `elicitation.url`), from 2025-11-25.
    pub const fn has_url_mode(self) -> bool {
        match self {
            Revision::V2025_06_18 => false,
            Revision::V2025_11_25 => true,
            Revision::V2026_07_28 => true,
        }
    }

    /// Whether a URL elicitation carries an `elicitationId` (required in 2025-11-25's
    /// `ElicitRequestURLParams`), which the server's `notifications/elicitation/complete` names.
    ///
    /// 2026-07-28 has neither: the URL request is an input request of a multi round-trip
    /// request, and the server correlates through its request state.
    pub const fn has_elicitation_id(self) -> bool {
        match self {
            Revision::V2025_06_18 => false,
            Revision::V2025_11_25 => true,
            Revision::V2026_07_28 => false,
        }
    }

    /// Whether a server may answer a request that cannot go on until pages are opened with
    /// `URLElicitationRequiredError` (code `-32042`, `data.elicitations`): 2025-11-25 only.
    ///
    /// In 2026-07-28 the server asks for the page in an input-required result instead
    /// ([`has_multi_round_trip`](Revision::has_multi_round_trip)).
    pub const fn has_url_elicitation_required_error(self) -> bool {
        match self {
            Revision::V2025_06_18 => false,
            Revision::V2025_11_25 => true,
            Revision::V2026_07_28 => false,
        }
    }

    /// Whether the client declares its capabilities on every request, in
    /// `_meta["io.modelcontextprotocol/clientCapabilities"]` (2026-07-28), rather than once, in
    /// the `capabilities` of `initialize` (2025-06-18, 2025-11-25).
    pub const fn has_per_request_capabilities(self) -> bool {
        match self {
            Revision::V2025_06_18 => false,
            Revision::V2025_11_25 => false,
            Revision::V2026_07_28 => true,
        }
    }

    /// Whether a server asks through multi round-trip requests: the tool returns an
    /// input-required result (`resultType: "input_required"`, `inputRequests`,
    /// `requestState`) and the client retries with `inputResponses` (2026-07-28), rather than
    /// sending `elicitation/create` to the client while the call is open (2025-06-18,
    /// 2025-11-25).
    pub const fn has_multi_round_trip(self) -> bool {
        match self {
            Revision::V2025_06_18 => false,
            Revision::V2025_11_25 => false,
            Revision::V2026_07_28 => true,
        }
    }

    /// Whether every result carries `resultType` (2026-07-28's `Result`: "Servers implementing
    /// this protocol version MUST include this field"; `"complete"` for a finished call).
    /// Earlier revisions have no such member.
    pub const fn has_result_type(self) -> bool {
        match self {
            Revision::V2025_06_18 => false,
            Revision::V2025_11_25 => false,
            Revision::V2026_07_28 => true,
        }
    }

    /// The JSON-RPC error code for a request the server cannot serve because the client did
    /// not declare a capability it needs (e.g. the elicitation mode).
    ///
    /// `-32602` Invalid params in 2025-06-18 and 2025-11-25 (2025-11-25, elicitation, error
    /// handling: "a mode not declared in client capabilities: `-32602`"); from 2026-07-28
    /// `MissingRequiredClientCapabilityError`, `-32021`, whose `data.requiredCapabilities`
    /// names what is missing.
    pub const fn missing_capability_code(self) -> i32 {
        match self {
            Revision::V2025_06_18 => JsonRpcError::INVALID_PARAMS,
            Revision::V2025_11_25 => JsonRpcError::INVALID_PARAMS,
            Revision::V2026_07_28 => JsonRpcError::MISSING_REQUIRED_CLIENT_CAPABILITY,
        }
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

    /// The profile as a table, row by row: a change to any cell shows here.
    #[test]
    fn the_profile_reads_as_the_spec_says() {
        type Row = (&'static str, fn(Revision) -> bool, [bool; 3]);
        let rows: [Row; 11] = [
            ("mode", Revision::has_mode_field, [false, true, true]),
            (
                "defaults beyond booleans",
                Revision::has_defaults_beyond_booleans,
                [false, true, true],
            ),
            (
                "oneOf selects",
                Revision::has_one_of_selects,
                [false, true, true],
            ),
            ("enumNames", Revision::has_enum_names, [true, true, true]),
            (
                "multi-select",
                Revision::has_multi_select,
                [false, true, true],
            ),
            ("URL mode", Revision::has_url_mode, [false, true, true]),
            (
                "elicitationId",
                Revision::has_elicitation_id,
                [false, true, false],
            ),
            (
                "-32042",
                Revision::has_url_elicitation_required_error,
                [false, true, false],
            ),
            (
                "per-request capabilities",
                Revision::has_per_request_capabilities,
                [false, false, true],
            ),
            (
                "multi round-trip",
                Revision::has_multi_round_trip,
                [false, false, true],
            ),
            (
                "resultType",
                Revision::has_result_type,
                [false, false, true],
            ),
        ];
        for (name, row, cells) in rows {
            let read: Vec<bool> = Revision::ALL.into_iter().map(row).collect();
            assert_eq!(read, cells, "{name}");
        }
        let codes: Vec<i32> = Revision::ALL
            .into_iter()
            .map(Revision::missing_capability_code)
            .collect();
        assert_eq!(codes, [-32602, -32602, -32021]);
    }

    #[test]
    fn only_2025_11_25_has_elicitation_ids() {
        assert!(!Revision::V2025_06_18.has_elicitation_id());
        assert!(Revision::V2025_11_25.has_elicitation_id());
        assert!(!Revision::V2026_07_28.has_elicitation_id());
    }
}
