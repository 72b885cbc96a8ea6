//! No code: this package holds the tests of `mcp-elicit` that need its optional features
//! (`mrtr`, `rmcp`) or heavy dev-dependencies, so that the facade's own first build stays light.
//!
//! The README's and the guides' (`src/guide/*.md`) code blocks run here as doctests, with `mrtr` and `rmcp` on: the facade renders
//! the README as its crate documentation but does not test it, since its default features
//! cannot build the multi round-trip examples.

#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;

// The guides under `src/guide/`, each the documentation of one module of the facade: their code
// runs here, as the README's does (`mrtr` and `rmcp` on). The terminal's needs the `terminal`
// feature of this package, off by default so that `cargo test --workspace` stays light
// (`.ci/run` runs `--all-features`).
#[cfg(doctest)]
#[doc = include_str!("../../../src/guide/derive.md")]
pub struct DeriveGuide;
#[cfg(doctest)]
#[doc = include_str!("../../../src/guide/schema.md")]
pub struct SchemaGuide;
#[cfg(doctest)]
#[doc = include_str!("../../../src/guide/reply.md")]
pub struct ReplyGuide;
#[cfg(doctest)]
#[doc = include_str!("../../../src/guide/url_mode.md")]
pub struct UrlModeGuide;
#[cfg(doctest)]
#[doc = include_str!("../../../src/guide/protocol.md")]
pub struct ProtocolGuide;
#[cfg(doctest)]
#[doc = include_str!("../../../src/guide/mrtr.md")]
pub struct MrtrGuide;
#[cfg(doctest)]
#[doc = include_str!("../../../src/guide/state.md")]
pub struct StateGuide;
#[cfg(doctest)]
#[doc = include_str!("../../../src/guide/observe.md")]
pub struct ObserveGuide;
#[cfg(doctest)]
#[doc = include_str!("../../../src/guide/rmcp.md")]
pub struct RmcpGuide;
#[cfg(doctest)]
#[doc = include_str!("../../../src/guide/client.md")]
pub struct ClientGuide;
#[cfg(all(doctest, feature = "terminal"))]
#[doc = include_str!("../../../src/guide/terminal.md")]
pub struct TerminalGuide;
#[cfg(all(doctest, feature = "page"))]
#[doc = include_str!("../../../src/guide/page.md")]
pub struct PageGuide;

/// A consent cannot be part of a tool's input schema: the model fills that schema, so a
/// `Consent<T>` there would be consent the model could forge. An rmcp tool's arguments derive
/// `JsonSchema` (rmcp's own `schemars`), and `Consent<T>` does not implement it:
///
/// ```compile_fail,E0277
/// use mcp_elicit::{Consent, Elicit};
/// use rmcp::schemars;
///
/// /// Drop a table permanently. This cannot be undone.
/// #[derive(Elicit)]
/// #[elicit(consent)]
/// struct DropTable {
///     /// Type the table's name to confirm.
///     table: String,
/// }
///
/// /// A tool's input schema: the model fills it, so it must never carry consent.
/// #[derive(schemars::JsonSchema)]
/// #[schemars(crate = "rmcp::schemars")]
/// struct DropArgs {
///     table: String,
///     consent: Consent<DropTable>,
/// }
/// ```
///
/// The same struct without the consent compiles, so the error above is the consent's:
///
/// ```
/// use rmcp::schemars;
///
/// #[derive(schemars::JsonSchema)]
/// #[schemars(crate = "rmcp::schemars")]
/// struct DropArgs {
///     table: String,
/// }
/// ```
#[cfg(doctest)]
pub struct ConsentIsNotInAToolInputSchema;
