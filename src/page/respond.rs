//! What the pages answer when they refuse, and what they read of a request: the refusal page,
//! cookies, the pages' origin and path.

use std::fmt;

use axum::http::StatusCode;
use axum::http::header::{self, HeaderMap};
use axum::response::{IntoResponse, Response};

use super::html;
use crate::url_mode::{FlowError, Flows};

/// A page that refuses: `status`, a heading, and why, in words a person can act on. Its style
/// sheet is linked relative to it: for a page one segment under the pages' base.
pub(super) fn refusal(status: StatusCode, heading: &str, why: &str) -> Response {
    refusal_under("", status, heading, why)
}

/// [`refusal`], for a page anywhere under the pages' base path `base` (`/elicit/`), which its
/// style sheet is linked from: the sign-in callback is two segments under it.
pub(super) fn refusal_under(base: &str, status: StatusCode, heading: &str, why: &str) -> Response {
    let body = format!(
        "<p>{}</p>\n<p>Nothing was stored. If you were sent here by your MCP client, go back to \
         it and ask again.</p>",
        html::escape(why)
    );
    (
        status,
        html_body(html::page(base, "refused", heading, &body)),
    )
        .into_response()
}

pub(super) fn html_body(html: String) -> ([(header::HeaderName, &'static str); 1], String) {
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], html)
}

/// A flow that cannot be shown or submitted: the reason, on a page.
pub(super) fn flow_refusal(error: &FlowError) -> Response {
    let (status, heading) = match error {
        FlowError::Unknown => (StatusCode::NOT_FOUND, "No such page"),
        FlowError::WrongUser => (StatusCode::FORBIDDEN, "This page is for another user"),
        FlowError::OpenedElsewhere => (
            StatusCode::FORBIDDEN,
            "This page is open in another browser",
        ),
        FlowError::Finished => (StatusCode::GONE, "This step is finished"),
        FlowError::Expired => (StatusCode::GONE, "This step expired"),
        FlowError::Abandoned => (StatusCode::GONE, "This request was cancelled"),
        FlowError::NotOpened => (StatusCode::FORBIDDEN, "This page was not opened here"),
        FlowError::Claimed => (StatusCode::CONFLICT, "This step is being saved"),
        FlowError::ClaimLapsed => (StatusCode::CONFLICT, "This was not saved in time"),
        // What the store said (Redis's own words, an address) is for the server's logs, and
        // stays in the error: the browser is told only that the server cannot take it now.
        FlowError::Unavailable(_) => {
            return refusal(
                StatusCode::SERVICE_UNAVAILABLE,
                "The server cannot take this now",
                "The server could not reach where it keeps this step. Try again in a minute.",
            );
        }
        _ => (
            StatusCode::SERVICE_UNAVAILABLE,
            "The server cannot take this now",
        ),
    };
    refusal(status, heading, &sentence(&error.to_string()))
}

pub(super) fn unavailable(error: &dyn fmt::Display) -> Response {
    refusal(
        StatusCode::SERVICE_UNAVAILABLE,
        "The server cannot take this now",
        &sentence(&error.to_string()),
    )
}

/// `text` with a capital and a full stop.
fn sentence(text: &str) -> String {
    let mut chars = text.chars();
    let mut sentence: String = chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default();
    if !sentence.ends_with('.') {
        sentence.push('.');
    }
    sentence
}

/// A cookie's value, read by the `cookie` crate's parser of the `Cookie` header.
pub(super) fn cookie_value(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(cookie::Cookie::split_parse)
        .filter_map(Result::ok)
        .find(|cookie| cookie.name() == name && !cookie.value().is_empty())
        .map(|cookie| cookie.value().to_owned())
}

/// `scheme://host[:port]` of the flows' base: the pages' origin.
pub(super) fn origin_of(flows: &Flows) -> String {
    let base = flows.base();
    match base.port() {
        Some(port) => format!("{}://{}:{port}", base.scheme(), base.host()),
        None => format!("{}://{}", base.scheme(), base.host()),
    }
}

/// The path of the flows' base: `/elicit/`.
pub(super) fn base_path(flows: &Flows) -> String {
    flows
        .base()
        .as_str()
        .strip_prefix(origin_of(flows).as_str())
        .unwrap_or("/")
        .to_owned()
}
