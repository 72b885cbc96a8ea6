//! `#[derive(Elicit)]` with `#[elicit(mode = "url")]` implements the runtime's `ElicitUrl`.

use mcp_elicit::{
    Elicit, Revision, UrlOutcome,
    url_mode::{ElicitUrl, UrlError, UrlRequestError},
};

/// Connect a third-party account.
#[derive(Elicit)]
#[elicit(
    mode = "url",
    message = "Connect your Example Co account so I can read your files."
)]
struct ConnectExample;

#[derive(Elicit)]
#[elicit(mode = "url", message = "Confirm the payment.", name = "checkout")]
struct Checkout {}

#[test]
fn url_mode_derive_supplies_the_message_and_name() {
    assert_eq!(
        ConnectExample::message(),
        "Connect your Example Co account so I can read your files."
    );
    assert_eq!(ConnectExample::name(), "ConnectExample");
    assert_eq!(Checkout::name(), "checkout");
}

#[test]
fn url_mode_derive_builds_checked_requests_with_the_url_given_at_run_time() {
    let request = ConnectExample::url_request("https://mcp.example.com/connect?flow=1")
        .unwrap_or_else(|e| panic!("{e}"));
    let params =
        serde_json::to_value(request.for_revision(Revision::V2025_11_25).ok()).unwrap_or_default();
    assert_eq!(params["mode"], "url");
    assert_eq!(params["message"], ConnectExample::message());
    assert!(params["elicitationId"].is_string());
    assert!(matches!(
        Checkout::url_request("http://pay.example/"),
        Err(UrlRequestError::Url(UrlError::InsecureHttp { .. }))
    ));
    assert_eq!(
        ConnectExample::from_reply(&serde_json::json!({"action": "accept"})),
        Ok(UrlOutcome::Accept)
    );
}
