//! A sink that asks again ([`SinkError::retry`]), over real HTTP on loopback with a reqwest
//! browser: the page is shown again with the sink's message, its claim released, the tool
//! still waiting; the typed receipt of the submission that is kept; and the bound on asking
//! again (`SinkError::MAX_RETRIES`), past which the flow fails.
//!
//! `cargo test -p elicit-examples --features oauth --test page_retry`

use std::sync::Arc;
use std::time::Duration;

use axum::http::StatusCode;
use mcp_elicit::Elicit;
use mcp_elicit::page::{ExposeSecret, SecretString, SinkError};
use mcp_elicit::url_mode::{FlowId, FlowOutcome, FlowStatus, FlowStore};
use serde::{Deserialize, Serialize};
use serde_json::json;

#[path = "common/pages_over_http.rs"]
mod pages_over_http;

use pages_over_http::{Site, browser_of, csrf as token};

/// What the tool reads: the key's last four characters.
#[derive(Debug, Serialize, Deserialize, PartialEq)]
struct KeyEnding {
    ending: String,
}

/// Your Example Co. API key
#[derive(Elicit)]
#[elicit(
    mode = "url",
    message = "Enter your Example Co. API key.",
    receipt = KeyEnding
)]
struct ApiKey {
    #[elicit(title = "API key", min_length = 20)]
    key: SecretString,
}

/// What the upstream service says of a key it refuses, with markup that must reach the page
/// escaped.
const REFUSED: &str = "Example Co. refused that key <b>(401)</b>.";

/// The pages served for real, with a sink that asks again for every key not starting `ex_`.
async fn start() -> Site {
    Site::start(|pages, seen| {
        let seen = Arc::clone(seen);
        // No annotation on the principal: it comes owned (issue 35, item 5).
        pages.secret_form(move |user, typed: ApiKey| {
            drop(user);
            let key = typed.key.expose_secret().to_owned();
            seen.lock().unwrap().push(key.clone());
            if !key.starts_with("ex_") {
                return Err(SinkError::retry(REFUSED));
            }
            Ok(KeyEnding {
                ending: key[key.len() - 4..].to_owned(),
            })
        })
    })
    .await
}

/// Opens flow `id`: the CSRF token of its page.
async fn open(site: &Site, browser: &reqwest::Client, id: &FlowId) -> String {
    token(&site.open(browser, id).await)
}

/// Posts `key` with `token` to flow `id`, as the page's form does: the status and the page.
async fn post(
    site: &Site,
    browser: &reqwest::Client,
    id: &FlowId,
    token: &str,
    key: &str,
) -> (StatusCode, String) {
    site.post(browser, id, token, "key", key).await
}

#[tokio::test]
async fn a_retryable_sink_error_shows_the_page_again_and_keeps_the_flow_open() {
    let site = start().await;
    let id = site.flow_for("api_key", "alice");
    let waiter = {
        let store = site.store.clone();
        tokio::spawn(async move { store.finished(&id).await })
    };
    let alice = browser_of("alice");
    let first = open(&site, &alice, &id).await;

    let (status, page) = post(&site, &alice, &id, &first, "wrong-0123456789abcdef").await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{page}");
    // The sink's message, escaped, above the same form: the field again, a token to send it.
    assert!(
        page.contains("Example Co. refused that key &lt;b&gt;(401)&lt;/b&gt;."),
        "{page}"
    );
    assert!(!page.contains("<b>(401)"), "{page}");
    assert!(page.contains(r#"name="key""#), "{page}");
    let again = token(&page);
    // Nothing kept: the flow is open, unclaimed, and the tool still waits.
    let flow = site.flow(&id);
    assert_eq!(flow.status(), &FlowStatus::Opened);
    assert_eq!(flow.claimed_until(), None);
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(!waiter.is_finished(), "asking again is not finishing");

    // The user types the right key: kept, and the tool reads the receipt typed.
    let (status, page) = post(&site, &alice, &id, &again, "ex_0123456789abcdef4f2a").await;
    assert_eq!(status, StatusCode::OK, "{page}");
    assert!(page.contains("Saved"), "{page}");
    let finished = tokio::time::timeout(Duration::from_secs(5), waiter)
        .await
        .expect("woken")
        .unwrap()
        .unwrap();
    let FlowStatus::Completed(receipt) = finished.status().clone() else {
        panic!("completed: {:?}", finished.status());
    };
    let outcome = FlowOutcome::Completed(receipt).receipt::<KeyEnding>("api_key");
    assert_eq!(
        outcome,
        Ok(FlowOutcome::Completed(KeyEnding {
            ending: "4f2a".into()
        }))
    );
    assert_eq!(site.seen().len(), 2);
}

#[tokio::test]
async fn a_sink_that_keeps_asking_again_fails_the_flow_past_the_bound() {
    let site = start().await;
    let id = site.flow_for("api_key", "alice");
    let alice = browser_of("alice");
    let mut token = open(&site, &alice, &id).await;
    for attempt in 1..=SinkError::MAX_RETRIES {
        let (status, page) = post(&site, &alice, &id, &token, "wrong-0123456789abcdef").await;
        assert_eq!(
            status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{attempt}: {page}"
        );
        assert_eq!(site.flow(&id).status(), &FlowStatus::Opened);
        token = self::token(&page);
    }
    // One more: the flow fails with the sink's message, as a failure would.
    let (status, page) = post(&site, &alice, &id, &token, "wrong-0123456789abcdef").await;
    assert_eq!(status, StatusCode::OK, "{page}");
    assert!(page.contains("Not saved"), "{page}");
    assert_eq!(
        site.flow(&id).status(),
        &FlowStatus::Failed(REFUSED.to_owned())
    );
    let tries = usize::try_from(SinkError::MAX_RETRIES).unwrap() + 1;
    assert_eq!(site.seen().len(), tries);
    // And it takes nothing more.
    let (status, _) = post(&site, &alice, &id, &token, "ex_0123456789abcdef4f2a").await;
    assert_ne!(status, StatusCode::OK);
    assert_eq!(site.seen().len(), tries);
}

/// A receipt kept by a page whose sink returns another type than the tool reads is an error
/// naming the page and the type, never a panic.
#[test]
fn a_receipt_of_another_type_is_an_error_naming_the_page_and_the_type() {
    let error = FlowOutcome::Completed(json!({ "scopes": ["repo"] }))
        .receipt::<KeyEnding>("api_key")
        .unwrap_err();
    let text = error.to_string();
    assert!(text.contains("`api_key`"), "{text}");
    assert!(text.contains("KeyEnding"), "{text}");
    assert!(text.contains("ending"), "{text}");
    assert_eq!(error.page(), "api_key");
}
