//! A URL-mode elicitation declared as a type (`#[derive(Elicit)]` with `mode = "url"`).

use serde_json::Value;

use super::{UrlOutcome, UrlRequest, UrlRequestError, record_url_reply};
use crate::outcome::ReplyError;
use crate::url::{ElicitationUrl, UrlPolicy};

/// A URL-mode elicitation declared as a type: `#[derive(Elicit)]` with
/// `#[elicit(mode = "url", message = "…")]` implements it. The message is fixed; the URL is
/// per user and per request, so it is given when the request is built.
///
/// ```
/// # extern crate elicit_core as mcp_elicit;
/// use mcp_elicit::{UrlOutcome, url_mode::ElicitUrl};
/// struct ConnectGithub; // what `#[derive(Elicit)] #[elicit(mode = "url", message = "...")]` writes:
/// impl ElicitUrl for ConnectGithub {
///     fn message() -> &'static str {
///         "Connect your GitHub account so I can open the pull request."
///     }
///     fn name() -> &'static str {
///         "ConnectGithub"
///     }
/// }
/// let request = ConnectGithub::url_request("https://mcp.example.com/connect/github?flow=91c2")?;
/// assert_eq!(request.message(), ConnectGithub::message());
/// assert!(ConnectGithub::url_request("http://mcp.example.com/").is_err());
/// # Ok::<(), mcp_elicit::url_mode::UrlRequestError>(())
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a URL-mode elicitation",
    label = "needs `#[derive(Elicit)]` with `#[elicit(mode = \"url\", message = \"...\")]`"
)]
pub trait ElicitUrl {
    /// The message shown to the user: one sentence saying why they should open the page.
    fn message() -> &'static str;

    /// The name this elicitation is reported under (metrics, logs): the type's name, or
    /// `#[elicit(name = "...")]`, as for [`Elicit::name`](crate::Elicit::name).
    fn name() -> &'static str;

    /// A request to open `url`, checked under [`UrlPolicy::Production`].
    fn url_request(url: &str) -> Result<UrlRequest, UrlRequestError> {
        UrlRequest::new(Self::message(), url).map(|r| r.with_name(Self::name()))
    }

    /// A request to open `url`, checked under `policy`.
    fn url_request_with(url: &str, policy: UrlPolicy) -> Result<UrlRequest, UrlRequestError> {
        UrlRequest::with_url(Self::message(), ElicitationUrl::parse_with(url, policy)?)
            .map(|r| r.with_name(Self::name()))
    }

    /// Read the client's `ElicitResult` (see [`UrlOutcome::from_reply`]); the outcome is
    /// recorded for the interrupt budget under [`name`](ElicitUrl::name).
    fn from_reply(reply: &Value) -> Result<UrlOutcome, ReplyError> {
        let result = UrlOutcome::from_reply(reply);
        record_url_reply(Self::name(), &result);
        result
    }
}
