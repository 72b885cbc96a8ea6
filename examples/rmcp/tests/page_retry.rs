//! A sink that asks again ([`SinkError::retry`]), over real HTTP on loopback with a reqwest
//! browser: the page is shown again with the sink's message, its claim released, the tool
//! still waiting; the typed receipt of the submission that is kept; and the bound on asking
//! again (`SinkError::MAX_RETRIES`), past which the flow fails.
//!
//! `cargo test -p elicit-examples --features oauth --test page_retry`

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::http::{StatusCode, header};
use mcp_elicit::Elicit;
use mcp_elicit::page::{
    ExposeSecret, Identity, Pages, Parts, SecretString, SignedIn, SinkError, Verdict, identity_fn,
};
use mcp_elicit::state::{ParamsDigest, UnixTime};
use mcp_elicit::url_mode::{
    Flow, FlowId, FlowOutcome, FlowStatus, FlowStore, Flows, MemoryFlowStore,
};
use serde::{Deserialize, Serialize};
use serde_json::json;

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

/// The user named by the `x-user` header (the test's browser sends it on every request).
fn header_user() -> impl Identity {
    identity_fn(|request: &Parts| {
        match request.headers.get("x-user").and_then(|v| v.to_str().ok()) {
            Some(user) => Verdict::SignedIn(SignedIn::new(user)),
            None => Verdict::refused("no x-user header"),
        }
    })
}

/// What the upstream service says of a key it refuses, with markup that must reach the page
/// escaped.
const REFUSED: &str = "Example Co. refused that key <b>(401)</b>.";

struct Site {
    store: MemoryFlowStore,
    base: String,
    origin: String,
    /// Every key the sink was handed, in order.
    seen: Arc<Mutex<Vec<String>>>,
}

/// The pages served for real, with a sink that asks again for every key not starting `ex_`.
async fn start() -> Site {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
        .await
        .unwrap();
    let port = listener.local_addr().unwrap().port();
    let base = format!("http://localhost:{port}/elicit/");
    let store = MemoryFlowStore::new();
    let flows = Flows::new(store.clone(), &base).unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = {
        let seen = Arc::clone(&seen);
        // No annotation on the principal: it comes owned (issue 35, item 5).
        move |user, typed: ApiKey| {
            drop(user);
            let key = typed.key.expose_secret().to_owned();
            seen.lock().unwrap().push(key.clone());
            if !key.starts_with("ex_") {
                return Err(SinkError::retry(REFUSED));
            }
            Ok(KeyEnding {
                ending: key[key.len() - 4..].to_owned(),
            })
        }
    };
    let router = Pages::new(flows, header_user())
        .unwrap()
        .secret_form(sink)
        .router();
    tokio::spawn(async move {
        axum::serve(
            listener,
            router.into_make_service_with_connect_info::<SocketAddr>(),
        )
        .await
    });
    Site {
        store,
        base,
        origin: format!("http://localhost:{port}"),
        seen,
    }
}

impl Site {
    fn flow_for(&self, user: &str) -> FlowId {
        let id = FlowId::random().unwrap();
        let call = ParamsDigest::of(&json!({ "name": "connect_api_key" }));
        let now = UnixTime::now();
        let flow = Flow::new(id, "api_key", user, call, "Enter your Example Co. API key.")
            .expiring(now, Duration::from_secs(600))
            .unwrap();
        self.store.begin_now(flow, now).unwrap();
        id
    }

    fn flow(&self, id: &FlowId) -> Flow {
        self.store.get_now(id, UnixTime::now()).unwrap()
    }
}

/// A browser of `user`: a cookie jar, its `x-user` header on every request.
fn browser(user: &str) -> reqwest::Client {
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert("x-user", user.parse().unwrap());
    reqwest::Client::builder()
        .cookie_store(true)
        .default_headers(headers)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

/// The CSRF token in a page's form.
fn token(body: &str) -> String {
    let at = body
        .find(r#"name="_csrf" value=""#)
        .expect("a token in the form");
    let rest = &body[at + r#"name="_csrf" value=""#.len()..];
    rest[..rest.find('"').unwrap()].to_owned()
}

/// Posts `key` with `token` to flow `id`, as the page's form does: the status and the page.
async fn post(
    site: &Site,
    browser: &reqwest::Client,
    id: &FlowId,
    token: &str,
    key: &str,
) -> (StatusCode, String) {
    let response = browser
        .post(format!("{}{id}", site.base))
        .header(header::ORIGIN, &site.origin)
        .form(&[("_csrf", token), ("key", key)])
        .send()
        .await
        .unwrap();
    let status = StatusCode::from_u16(response.status().as_u16()).unwrap();
    (status, response.text().await.unwrap())
}

async fn open(site: &Site, browser: &reqwest::Client, id: &FlowId) -> String {
    let response = browser
        .get(format!("{}{id}", site.base))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
    token(&response.text().await.unwrap())
}

#[tokio::test]
async fn a_retryable_sink_error_shows_the_page_again_and_keeps_the_flow_open() {
    let site = start().await;
    let id = site.flow_for("alice");
    let waiter = {
        let store = site.store.clone();
        tokio::spawn(async move { store.finished(&id).await })
    };
    let alice = browser("alice");
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
    assert_eq!(site.seen.lock().unwrap().len(), 2);
}

#[tokio::test]
async fn a_sink_that_keeps_asking_again_fails_the_flow_past_the_bound() {
    let site = start().await;
    let id = site.flow_for("alice");
    let alice = browser("alice");
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
    assert_eq!(site.seen.lock().unwrap().len(), tries);
    // And it takes nothing more.
    let (status, _) = post(&site, &alice, &id, &token, "ex_0123456789abcdef4f2a").await;
    assert_ne!(status, StatusCode::OK);
    assert_eq!(site.seen.lock().unwrap().len(), tries);
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
