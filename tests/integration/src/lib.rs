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
// The hosts guide's table API (its test-kit loop is `ignore`: it needs a server).
#[cfg(doctest)]
#[doc = include_str!("../../../src/guide/hosts.md")]
pub struct HostsGuide;
#[cfg(doctest)]
#[doc = include_str!("../../../src/guide/client.md")]
pub struct ClientGuide;
#[cfg(all(doctest, feature = "terminal"))]
#[doc = include_str!("../../../src/guide/terminal.md")]
pub struct TerminalGuide;
#[cfg(all(doctest, feature = "page"))]
#[doc = include_str!("../../../src/guide/page.md")]
pub struct PageGuide;
#[cfg(all(doctest, feature = "http"))]
#[doc = include_str!("../../../src/guide/http.md")]
pub struct HttpGuide;

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

/// A page declared as a type keeps the pages' own rules at compile time, by the functions
/// `SecretPage::new` checks at run time; these need the facade's `page` feature, which the
/// trybuild cases (`tests/ui/page/`) build without. Its name is one a flow can carry:
///
/// ```compile_fail,E0080
/// use mcp_elicit::Elicit;
/// use mcp_elicit::page::SecretString;
///
/// /// Your Example Co. API key
/// #[derive(Elicit)]
/// #[elicit(mode = "url", name = "api key", message = "Enter your key on the page that opens.")]
/// struct ApiKey {
///     key: SecretString,
/// }
/// ```
///
/// No field takes the name of the page's CSRF token:
///
/// ```compile_fail,E0080
/// use mcp_elicit::Elicit;
/// use mcp_elicit::page::SecretString;
///
/// /// Your Example Co. API key
/// #[derive(Elicit)]
/// #[elicit(mode = "url", message = "Enter your key on the page that opens.")]
/// struct ApiKey {
///     #[elicit(rename = "_csrf")]
///     key: SecretString,
/// }
/// ```
///
/// A field's type the syntax cannot read (an alias) is checked by the compiler: `SecretString`
/// only.
///
/// ```compile_fail,E0277
/// use mcp_elicit::Elicit;
///
/// type Key = String;
///
/// /// Your Example Co. API key
/// #[derive(Elicit)]
/// #[elicit(mode = "url", message = "Enter your key on the page that opens.")]
/// struct ApiKey {
///     key: Key,
/// }
/// ```
///
/// The derive implements no `Debug`: the type is not printed unless its author asks (and then
/// `SecretString`'s own `Debug` redacts).
///
/// ```compile_fail,E0277
/// use mcp_elicit::Elicit;
/// use mcp_elicit::page::SecretString;
///
/// /// Your Example Co. API key
/// #[derive(Elicit)]
/// #[elicit(mode = "url", message = "Enter your key on the page that opens.")]
/// struct ApiKey {
///     key: SecretString,
/// }
///
/// fn log(key: &ApiKey) -> String {
///     format!("{key:?}")
/// }
/// ```
///
/// The same page, within every rule and through an alias of `SecretString`, compiles; and a
/// `Debug` its author derives shows no secret:
///
/// ```
/// use mcp_elicit::Elicit;
/// use mcp_elicit::page::SecretString;
///
/// type Key = SecretString;
///
/// /// Your Example Co. API key
/// #[derive(Elicit, Debug)]
/// #[elicit(mode = "url", name = "api-key_2", message = "Enter your key on the page that opens.")]
/// struct ApiKey {
///     #[elicit(rename = "csrf")]
///     key: Key,
/// }
///
/// let key = ApiKey { key: SecretString::from("sk-live-0123456789abcdef") };
/// assert!(!format!("{key:?}").contains("sk-live"));
/// ```
#[cfg(all(doctest, feature = "page"))]
pub struct PageRulesAtCompileTime;
