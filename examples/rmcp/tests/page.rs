//! The library's pages (`mcp_elicit::page`), one test per rule, through the router as a
//! browser's requests reach it. (A real browser drives the same pages in `tests/browser`.)
//!
//! Each refusal is checked to store nothing: the sink saw nothing, and the flow is still open
//! for its owner.
//!
//! `cargo test -p elicit-examples --features page --test page`

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::{HeaderMap, Request, StatusCode, header};
use mcp_elicit::page::{PageError, Pages, SecretSink, Secrets, SingleUser, SinkError, SinkFuture};
use mcp_elicit::state::{KeyId, ParamsDigest, StateKey, StateKeys, UnixTime};
use mcp_elicit::url_mode::{Abandonment, Flow, FlowId, FlowStatus, Flows, MemoryFlowStore};
use secrecy::ExposeSecret;
use serde_json::{Value, json};
use tower::ServiceExt;

#[path = "common/page_site.rs"]
mod page_site;

use page_site::{BASE, HeaderUser, ORIGIN, api_key_page};

const KEY: &str = "sk-live-0123456789abcdef";

/// What reached the sink: (principal, key).
type Stored = Arc<Mutex<Vec<(String, String)>>>;

struct Site {
    store: MemoryFlowStore,
    router: Router,
    stored: Stored,
    /// The `Host` its requests name, as a browser sent to the base URL names it.
    host: &'static str,
}

fn site_with(pages: impl FnOnce(Flows) -> Pages, store: MemoryFlowStore) -> Site {
    let flows = Flows::new(store.clone(), BASE).unwrap();
    let stored = Stored::default();
    let sink = {
        let stored = Arc::clone(&stored);
        move |principal: String, mut secrets: Secrets| -> Result<Value, SinkError> {
            let key = secrets.take("key").ok_or("no key")?;
            let key = key.expose_secret().to_owned();
            let ending = key[key.len() - 4..].to_owned();
            stored.lock().unwrap().push((principal.to_owned(), key));
            Ok(json!({ "ending": ending }))
        }
    };
    let router = pages(flows).secret(api_key_page(), sink).router();
    Site {
        store,
        router,
        stored,
        host: "localhost:8719",
    }
}

/// A site whose pages (the sink among them) `pages` makes, over `store`.
fn site_of(store: MemoryFlowStore, pages: impl FnOnce(Flows) -> Pages) -> Site {
    let flows = Flows::new(store.clone(), BASE).unwrap();
    Site {
        store,
        router: pages(flows).router(),
        stored: Stored::default(),
        host: "localhost:8719",
    }
}

fn site() -> Site {
    site_with(
        |flows| Pages::new(flows, HeaderUser).unwrap(),
        MemoryFlowStore::new(),
    )
}

impl Site {
    /// A pending flow for `user` on the API-key page.
    fn flow_for(&self, user: &str) -> FlowId {
        page_site::begin(&self.store, "api_key", user)
    }

    fn status(&self, id: &FlowId) -> FlowStatus {
        page_site::status(&self.store, id)
    }

    async fn send(&self, mut request: Request<Body>) -> Reply {
        // As a browser sends it: the pages serve only the host of their base.
        request
            .headers_mut()
            .entry(header::HOST)
            .or_insert(header::HeaderValue::from_static(self.host));
        let response = self.router.clone().oneshot(request).await.unwrap();
        let status = response.status();
        let headers = response.headers().clone();
        let body = axum::body::to_bytes(response.into_body(), 1 << 20)
            .await
            .unwrap();
        Reply {
            status,
            headers,
            body: String::from_utf8(body.to_vec()).unwrap(),
        }
    }

    /// `user` opens flow `id` in a browser holding `cookie` (if any).
    async fn open(&self, id: &str, user: &str, cookie: Option<&str>) -> Reply {
        let mut request = Request::get(format!("/elicit/{id}")).header("x-user", user);
        if let Some(cookie) = cookie {
            request = request.header(header::COOKIE, cookie);
        }
        self.send(request.body(Body::empty()).unwrap()).await
    }

    /// `user` posts `form` to flow `id` from `origin`, in a browser holding `cookie`.
    async fn post(
        &self,
        id: &str,
        user: &str,
        cookie: &str,
        origin: Option<&str>,
        form: &[(&str, &str)],
    ) -> Reply {
        let origin: Vec<_> = origin.map(|o| ("origin", o)).into_iter().collect();
        self.post_with(id, user, cookie, &origin, form).await
    }

    /// [`post`](Site::post), with `headers` (`Origin`, `Sec-Fetch-Site`) as a browser sets them.
    async fn post_with(
        &self,
        id: &str,
        user: &str,
        cookie: &str,
        headers: &[(&str, &str)],
        form: &[(&str, &str)],
    ) -> Reply {
        let mut request = Request::post(format!("/elicit/{id}"))
            .header("x-user", user)
            .header(header::COOKIE, cookie)
            .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded");
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let body = serde_urlencoded::to_string(form).unwrap();
        self.send(request.body(Body::from(body)).unwrap()).await
    }

    /// `user` opens flow `id` and sends the key, as the page's own form does.
    async fn submit_key(&self, id: &FlowId, user: &str) -> Reply {
        let (_, cookie, token) = opened(self, id, user).await;
        self.post(
            &id.to_string(),
            user,
            &cookie,
            Some(ORIGIN),
            &[("_csrf", &token), ("key", KEY)],
        )
        .await
    }

    fn stored(&self) -> Vec<(String, String)> {
        self.stored.lock().unwrap().clone()
    }
}

struct Reply {
    status: StatusCode,
    headers: HeaderMap,
    body: String,
}

impl Reply {
    /// The browser cookie the page set, as a `Cookie` header.
    fn cookie(&self) -> String {
        let set = self.headers[header::SET_COOKIE].to_str().unwrap();
        set.split(';').next().unwrap().to_owned()
    }

    /// The CSRF token in the form.
    fn token(&self) -> String {
        let at = self
            .body
            .find(r#"name="_csrf" value=""#)
            .expect("a token in the form");
        let rest = &self.body[at + r#"name="_csrf" value=""#.len()..];
        rest[..rest.find('"').unwrap()].to_owned()
    }
}

/// `user` opens flow `id` in a new browser: the reply, and the browser's cookie and token.
async fn opened(site: &Site, id: &FlowId, user: &str) -> (Reply, String, String) {
    let reply = site.open(&id.to_string(), user, None).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
    let (cookie, token) = (reply.cookie(), reply.token());
    (reply, cookie, token)
}

#[tokio::test]
async fn the_owner_types_the_secret_once_and_the_sink_alone_receives_it() {
    let site = site();
    let id = site.flow_for("alice");
    let (form, cookie, token) = opened(&site, &id, "alice").await;
    assert!(form.body.contains(r#"type="password""#), "{}", form.body);
    assert!(form.body.contains("Enter your Example Co. API key."));
    assert!(form.body.contains(r#"minlength="20""#));
    let set = form.headers[header::SET_COOKIE].to_str().unwrap();
    assert!(
        set.contains("HttpOnly") && set.contains("SameSite=Lax") && set.contains("Path=/elicit/"),
        "{set}"
    );
    assert_eq!(site.status(&id), FlowStatus::Opened);

    let done = site
        .post(
            &id.to_string(),
            "alice",
            &cookie,
            Some(ORIGIN),
            &[("_csrf", &token), ("key", KEY)],
        )
        .await;
    assert_eq!(done.status, StatusCode::OK, "{}", done.body);
    assert!(done.body.contains("Saved"));
    assert!(
        !done.body.contains(KEY),
        "the page never shows the secret back"
    );
    assert_eq!(site.stored(), [("alice".to_owned(), KEY.to_owned())]);
    assert_eq!(
        site.status(&id),
        FlowStatus::Completed(json!({ "ending": "cdef" }))
    );
}

#[tokio::test]
async fn every_response_carries_the_security_headers() {
    let site = site();
    let id = site.flow_for("alice");
    for reply in [
        site.open(&id.to_string(), "alice", None).await,
        site.open(&id.to_string(), "mallory", None).await,
        site.open("not-a-flow", "alice", None).await,
        site.send(
            Request::get("/elicit/style.css")
                .header("x-user", "alice")
                .body(Body::empty())
                .unwrap(),
        )
        .await,
    ] {
        let csp = reply.headers[header::CONTENT_SECURITY_POLICY]
            .to_str()
            .unwrap();
        for directive in [
            "default-src 'none'",
            "form-action 'self'",
            "frame-ancestors 'none'",
        ] {
            assert!(csp.contains(directive), "{csp}");
        }
        assert_eq!(reply.headers[header::CACHE_CONTROL], "no-store");
        assert_eq!(reply.headers[header::REFERRER_POLICY], "no-referrer");
    }
}

#[tokio::test]
async fn another_user_is_refused_on_get_and_post_and_the_flow_stays_open_for_its_owner() {
    let site = site();
    let id = site.flow_for("alice");
    let refused = site.open(&id.to_string(), "mallory", None).await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN);
    assert!(refused.body.contains("another user"), "{}", refused.body);
    assert_eq!(site.status(&id), FlowStatus::Pending);

    // Alice opens it; Mallory, with Alice's cookie and token even, cannot post to it.
    let (_, cookie, token) = opened(&site, &id, "alice").await;
    let posted = site
        .post(
            &id.to_string(),
            "mallory",
            &cookie,
            Some(ORIGIN),
            &[("_csrf", &token), ("key", KEY)],
        )
        .await;
    assert_eq!(posted.status, StatusCode::FORBIDDEN, "{}", posted.body);
    assert!(site.stored().is_empty());
    assert_eq!(site.status(&id), FlowStatus::Opened);
}

#[tokio::test]
async fn no_identity_no_page_the_identity_decides_what_happens_instead() {
    let site = site();
    let id = site.flow_for("alice");
    let request = Request::get(format!("/elicit/{id}"))
        .body(Body::empty())
        .unwrap();
    let reply = site.send(request).await;
    assert_eq!(reply.status, StatusCode::SEE_OTHER);
    assert_eq!(reply.headers[header::LOCATION], "/signin");
    assert_eq!(site.status(&id), FlowStatus::Pending);
}

#[tokio::test]
async fn a_second_browser_is_refused_on_get_and_post() {
    let site = site();
    let id = site.flow_for("alice");
    let (_, cookie, token) = opened(&site, &id, "alice").await;
    // The same user, in another browser (no cookie, then a cookie of its own).
    let second = site.open(&id.to_string(), "alice", None).await;
    assert_eq!(second.status, StatusCode::FORBIDDEN);
    assert!(second.body.contains("another browser"), "{}", second.body);
    // The pages named that browser on its way out: a name of its own, which they issued.
    let other_cookie = second.cookie();
    assert_ne!(other_cookie, cookie);
    let posted = site
        .post(
            &id.to_string(),
            "alice",
            &other_cookie,
            Some(ORIGIN),
            &[("_csrf", &token), ("key", KEY)],
        )
        .await;
    assert_eq!(posted.status, StatusCode::FORBIDDEN, "{}", posted.body);
    assert!(site.stored().is_empty());
    // The first browser still can.
    let done = site
        .post(
            &id.to_string(),
            "alice",
            &cookie,
            Some(ORIGIN),
            &[("_csrf", &token), ("key", KEY)],
        )
        .await;
    assert_eq!(done.status, StatusCode::OK, "{}", done.body);
}

#[tokio::test]
async fn an_edited_flow_id_is_not_found_and_asks_the_store_nothing() {
    let site = site();
    let id = site.flow_for("alice").to_string();
    let mut edited = id.clone().into_bytes();
    edited[0] = if edited[0] == b'0' { b'1' } else { b'0' };
    let edited = String::from_utf8(edited).unwrap();
    for path in [
        edited.as_str(),
        &id.to_uppercase(),
        &format!("{id}0"),
        "../admin",
        "%2e%2e",
    ] {
        let reply = site.open(path, "alice", None).await;
        assert_eq!(
            reply.status,
            StatusCode::NOT_FOUND,
            "{path}: {}",
            reply.body
        );
    }
    assert_eq!(
        site.status(&FlowId::parse(&id).unwrap()),
        FlowStatus::Pending
    );
}

#[tokio::test]
async fn a_replayed_post_is_refused_and_the_sink_sees_the_secret_once() {
    let site = site();
    let id = site.flow_for("alice");
    let (_, cookie, token) = opened(&site, &id, "alice").await;
    let form = [("_csrf", token.as_str()), ("key", KEY)];
    let first = site
        .post(&id.to_string(), "alice", &cookie, Some(ORIGIN), &form)
        .await;
    assert_eq!(first.status, StatusCode::OK);
    let replayed = site
        .post(&id.to_string(), "alice", &cookie, Some(ORIGIN), &form)
        .await;
    assert_eq!(replayed.status, StatusCode::GONE, "{}", replayed.body);
    assert!(replayed.body.contains("finished"));
    assert_eq!(site.stored().len(), 1);
}

/// Another replica took this form, and died holding its claim: the page refuses rather than
/// hand the secret to a second sink, and takes the form again once the claim's lease ran out.
#[tokio::test]
async fn a_form_claimed_by_another_submission_is_refused_until_the_claim_runs_out() {
    let site = site();
    let id = site.flow_for("alice");
    let (_, cookie, token) = opened(&site, &id, "alice").await;
    let now = UnixTime::now();
    let browser = site
        .store
        .get_now(&id, now)
        .unwrap()
        .browser()
        .unwrap()
        .to_owned();
    let _held = site
        .store
        .claim_now(&id, "alice", &browser, Duration::from_secs(1), now)
        .unwrap();
    let form = [("_csrf", token.as_str()), ("key", KEY)];
    let refused = site
        .post(&id.to_string(), "alice", &cookie, Some(ORIGIN), &form)
        .await;
    assert_eq!(refused.status, StatusCode::CONFLICT, "{}", refused.body);
    assert!(refused.body.contains("being saved"), "{}", refused.body);
    assert!(site.stored().is_empty());
    assert_eq!(site.status(&id), FlowStatus::Opened);
    tokio::time::sleep(Duration::from_secs(2)).await;
    let done = site
        .post(&id.to_string(), "alice", &cookie, Some(ORIGIN), &form)
        .await;
    assert_eq!(done.status, StatusCode::OK, "{}", done.body);
    assert_eq!(site.stored(), [("alice".to_owned(), KEY.to_owned())]);
}

/// Two replicas serve the pages over one store: the same form posted to both at once reaches
/// one sink, once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_form_posted_to_two_replicas_at_once_reaches_a_sink_once() {
    let store = MemoryFlowStore::new();
    let replica = || {
        site_with(
            |flows| {
                Pages::new(flows, HeaderUser)
                    .unwrap()
                    .with_keys(StateKeys::single(
                        KeyId::new(1),
                        StateKey::from_bytes([9; 32]),
                    ))
            },
            store.clone(),
        )
    };
    let (a, b) = (replica(), replica());
    let id = a.flow_for("alice");
    let (_, cookie, token) = opened(&a, &id, "alice").await;
    let form = [("_csrf", token.as_str()), ("key", KEY)];
    let id = id.to_string();
    let (first, second) = tokio::join!(
        a.post(&id, "alice", &cookie, Some(ORIGIN), &form),
        b.post(&id, "alice", &cookie, Some(ORIGIN), &form),
    );
    let mut statuses = [first.status, second.status];
    statuses.sort();
    assert_eq!(
        statuses[0],
        StatusCode::OK,
        "{} / {}",
        first.body,
        second.body
    );
    assert!(
        [StatusCode::CONFLICT, StatusCode::GONE].contains(&statuses[1]),
        "{} / {}",
        first.body,
        second.body
    );
    assert_eq!(a.stored().len() + b.stored().len(), 1);
}

/// The pages say `Referrer-Policy: no-referrer`, and under that policy a browser sends its own
/// form's POST with `Origin: null` (the Fetch standard; Chromium does, as
/// `tests/browser/tests/page_oidc.rs` shows): `Sec-Fetch-Site` then decides.
#[tokio::test]
async fn the_pages_own_form_under_no_referrer_origin_null_and_same_origin_fetch_is_accepted() {
    let site = site();
    let id = site.flow_for("alice");
    let (_, cookie, token) = opened(&site, &id, "alice").await;
    let form = [("_csrf", token.as_str()), ("key", KEY)];
    for fetch_site in ["cross-site", "same-site", "none"] {
        let reply = site
            .post_with(
                &id.to_string(),
                "alice",
                &cookie,
                &[("origin", "null"), ("sec-fetch-site", fetch_site)],
                &form,
            )
            .await;
        assert_eq!(
            reply.status,
            StatusCode::FORBIDDEN,
            "{fetch_site}: {}",
            reply.body
        );
    }
    assert!(site.stored().is_empty());
    let done = site
        .post_with(
            &id.to_string(),
            "alice",
            &cookie,
            &[("origin", "null"), ("sec-fetch-site", "same-origin")],
            &form,
        )
        .await;
    assert_eq!(done.status, StatusCode::OK, "{}", done.body);
    assert_eq!(site.stored(), [("alice".to_owned(), KEY.to_owned())]);
}

#[tokio::test]
async fn a_form_posted_from_another_origin_is_refused() {
    let site = site();
    let id = site.flow_for("alice");
    let (_, cookie, token) = opened(&site, &id, "alice").await;
    let form = [("_csrf", token.as_str()), ("key", KEY)];
    for origin in [
        Some("http://evil.example"),
        Some("http://localhost:8720"),
        Some("null"),
        None,
    ] {
        let reply = site
            .post(&id.to_string(), "alice", &cookie, origin, &form)
            .await;
        assert_eq!(
            reply.status,
            StatusCode::FORBIDDEN,
            "{origin:?}: {}",
            reply.body
        );
    }
    assert!(site.stored().is_empty());
    assert_eq!(site.status(&id), FlowStatus::Opened);
}

#[tokio::test]
async fn a_token_is_good_only_for_its_flow_its_browser_and_its_user() {
    let site = site();
    let id = site.flow_for("alice");
    let other = site.flow_for("alice");
    let (_, cookie, _) = opened(&site, &id, "alice").await;
    // Alice's own token for her other flow, in the same browser.
    let other_token = site
        .open(&other.to_string(), "alice", Some(&cookie))
        .await
        .token();
    for token in [other_token.as_str(), "", "garbage"] {
        let reply = site
            .post(
                &id.to_string(),
                "alice",
                &cookie,
                Some(ORIGIN),
                &[("_csrf", token), ("key", KEY)],
            )
            .await;
        assert_eq!(
            reply.status,
            StatusCode::FORBIDDEN,
            "{token}: {}",
            reply.body
        );
    }
    let missing = site
        .post(
            &id.to_string(),
            "alice",
            &cookie,
            Some(ORIGIN),
            &[("key", KEY)],
        )
        .await;
    assert_eq!(missing.status, StatusCode::FORBIDDEN);
    assert!(site.stored().is_empty());
}

#[tokio::test]
async fn an_expired_flow_is_refused() {
    let site = site();
    let id = FlowId::random().unwrap();
    let call = ParamsDigest::of(&json!({ "name": "connect_api_key" }));
    let long_ago = UnixTime::from_secs(UnixTime::now().as_secs() - 3600);
    let flow = Flow::new(id, "api_key", "alice", call, "Enter your key.")
        .expiring(long_ago, Duration::from_secs(60))
        .unwrap();
    site.store.begin_now(flow, long_ago).unwrap();
    let reply = site.open(&id.to_string(), "alice", None).await;
    assert_eq!(reply.status, StatusCode::GONE, "{}", reply.body);
    assert!(reply.body.contains("expired"));
}

/// A flow the asking call gave up (cancelled by the client, or returned without it) is over:
/// its page refuses a form with a valid token, on POST and on GET, saying why, and the sink
/// sees nothing.
#[tokio::test]
async fn an_abandoned_flow_is_refused_and_stores_nothing() {
    let site = site();
    let id = site.flow_for("alice");
    let (_, cookie, token) = opened(&site, &id, "alice").await;
    site.store
        .abandon_now(&id, "alice", Abandonment::Cancelled, UnixTime::now())
        .unwrap();
    let post = site
        .post(
            &id.to_string(),
            "alice",
            &cookie,
            Some(ORIGIN),
            &[("_csrf", &token), ("key", KEY)],
        )
        .await;
    assert_eq!(post.status, StatusCode::GONE, "{}", post.body);
    assert!(
        post.body
            .contains("The request for this page was cancelled"),
        "{}",
        post.body
    );
    assert!(post.body.contains("Nothing was stored."), "{}", post.body);
    let get = site.open(&id.to_string(), "alice", Some(&cookie)).await;
    assert_eq!(get.status, StatusCode::GONE, "{}", get.body);
    assert!(get.body.contains("was cancelled"), "{}", get.body);
    assert!(site.stored().is_empty());
    assert_eq!(
        site.status(&id),
        FlowStatus::Abandoned(Abandonment::Cancelled)
    );
}

/// The page says why its flow was abandoned, as the store kept it: the user declined or
/// dismissed the question, the client cancelled the call, or the call ended without the page.
#[tokio::test]
async fn an_abandoned_flows_page_names_why() {
    for (why, heading, text) in [
        (
            Abandonment::Declined,
            "You declined this request",
            "You declined this request in your MCP client",
        ),
        (
            Abandonment::Dismissed,
            "This request was dismissed",
            "This request was dismissed in your MCP client",
        ),
        (
            Abandonment::Cancelled,
            "This request was cancelled",
            "The request for this page was cancelled",
        ),
        (
            Abandonment::CallEnded,
            "This request has ended",
            "The call that asked for this page has ended",
        ),
    ] {
        let site = site();
        let id = site.flow_for("alice");
        let (_, cookie, token) = opened(&site, &id, "alice").await;
        site.store
            .abandon_now(&id, "alice", why, UnixTime::now())
            .unwrap();
        let post = site
            .post(
                &id.to_string(),
                "alice",
                &cookie,
                Some(ORIGIN),
                &[("_csrf", &token), ("key", KEY)],
            )
            .await;
        assert_eq!(post.status, StatusCode::GONE, "{}", post.body);
        assert!(post.body.contains(heading), "{why:?}: {}", post.body);
        assert!(post.body.contains(text), "{why:?}: {}", post.body);
        let get = site.open(&id.to_string(), "alice", Some(&cookie)).await;
        assert!(get.body.contains(heading), "{why:?}: {}", get.body);
        assert!(site.stored().is_empty());
    }
}

/// The call is given up while the sink stores: the sink has the secret, so the page does not
/// say nothing was stored; the flow stays abandoned, and the tool reads nothing.
#[tokio::test]
async fn a_call_given_up_while_the_sink_stores_is_not_told_nothing_was_stored() {
    let store = MemoryFlowStore::new();
    let flow = Arc::new(Mutex::new(None::<FlowId>));
    let sink = {
        let (store, flow) = (store.clone(), Arc::clone(&flow));
        move |principal: String, _: Secrets| -> Result<Value, SinkError> {
            let id = flow.lock().unwrap().expect("a flow");
            store
                .abandon_now(&id, &principal, Abandonment::Cancelled, UnixTime::now())
                .unwrap();
            Ok(json!({ "stored": true }))
        }
    };
    let site = site_of(store, |flows| {
        Pages::new(flows, HeaderUser)
            .unwrap()
            .secret(api_key_page(), sink)
    });
    let id = site.flow_for("alice");
    *flow.lock().unwrap() = Some(id);
    let post = site.submit_key(&id, "alice").await;
    assert_eq!(post.status, StatusCode::GONE, "{}", post.body);
    assert!(
        post.body.contains("while this was being saved"),
        "{}",
        post.body
    );
    assert!(!post.body.contains("Nothing was stored"), "{}", post.body);
    assert_eq!(
        site.status(&id),
        FlowStatus::Abandoned(Abandonment::Cancelled)
    );
}

/// A form saved after its flow expired carries a dead token too (a token lives a flow's TTL
/// from when the page was shown): its owner is told the step expired, anyone else only that the
/// form is not theirs, and nothing is stored. Found in Chromium (`tests/browser/tests/page_secret.rs`).
#[tokio::test]
async fn a_form_saved_after_its_flow_and_its_token_expired_says_the_step_expired() {
    // Two seconds: times are whole seconds, so a one-second flow may be over before its page
    // opens, when the second turns over between the two (seen under load).
    let ttl = Duration::from_secs(2);
    let site = site_with(
        |flows| Pages::new(flows, HeaderUser).unwrap().with_flow_ttl(ttl),
        MemoryFlowStore::new(),
    );
    let id = FlowId::random().unwrap();
    let call = ParamsDigest::of(&json!({ "name": "connect_api_key" }));
    let now = UnixTime::now();
    let flow = Flow::new(id, "api_key", "alice", call, "Enter your key.")
        .expiring(now, ttl)
        .unwrap();
    site.store.begin_now(flow, now).unwrap();
    let (_, cookie, token) = opened(&site, &id, "alice").await;
    tokio::time::sleep(ttl * 2 + Duration::from_millis(100)).await;
    let form = [("_csrf", token.as_str()), ("key", KEY)];
    let late = site
        .post(&id.to_string(), "alice", &cookie, Some(ORIGIN), &form)
        .await;
    assert_eq!(late.status, StatusCode::GONE, "{}", late.body);
    assert!(late.body.contains("This step expired"), "{}", late.body);
    let other = site
        .post(&id.to_string(), "bob", &cookie, Some(ORIGIN), &form)
        .await;
    assert_eq!(other.status, StatusCode::FORBIDDEN, "{}", other.body);
    assert!(
        other.body.contains("not sent from its page"),
        "{}",
        other.body
    );
    assert!(site.stored().is_empty());
}

#[tokio::test]
async fn a_value_that_breaks_a_rule_is_asked_again_naming_the_field_and_the_rule_not_the_value() {
    let site = site();
    let id = site.flow_for("alice");
    let (_, cookie, token) = opened(&site, &id, "alice").await;
    let reply = site
        .post(
            &id.to_string(),
            "alice",
            &cookie,
            Some(ORIGIN),
            &[("_csrf", &token), ("key", "sk-short-secret")],
        )
        .await;
    assert_eq!(reply.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(reply.body.contains("API key"), "{}", reply.body);
    assert!(
        reply.body.contains("at least 20 characters"),
        "{}",
        reply.body
    );
    assert!(!reply.body.contains("sk-short-secret"));
    assert!(site.stored().is_empty());
    assert_eq!(site.status(&id), FlowStatus::Opened);
    // A missing field is named too.
    let reply = site
        .post(
            &id.to_string(),
            "alice",
            &cookie,
            Some(ORIGIN),
            &[("_csrf", &token)],
        )
        .await;
    assert_eq!(reply.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(reply.body.contains("API key"), "{}", reply.body);
}

#[tokio::test]
async fn a_sink_that_fails_fails_the_flow_with_its_words() {
    let site = site_of(MemoryFlowStore::new(), |flows| {
        Pages::new(flows, HeaderUser)
            .unwrap()
            .secret(api_key_page(), |_, _: Secrets| {
                Err::<Value, _>(SinkError::fail("The vault is down."))
            })
    });
    let id = site.flow_for("alice");
    let reply = site.submit_key(&id, "alice").await;
    assert!(reply.body.contains("The vault is down."), "{}", reply.body);
    assert_eq!(
        site.status(&id),
        FlowStatus::Failed("The vault is down.".into())
    );
}

/// A sink that never finishes: it waits, and says whether it got past its wait.
struct Stuck(Arc<Mutex<bool>>);

impl SecretSink for Stuck {
    fn store(&self, _: String, _: Secrets) -> SinkFuture<'_> {
        Box::pin(async move {
            tokio::time::sleep(Duration::from_secs(3600)).await;
            *self.0.lock().unwrap() = true;
            Ok(json!({ "stored": true }))
        })
    }
}

/// A sink has until the submission's claim runs out: past it another submission could claim the
/// flow, so the sink is given up, the flow fails, and the user is told it may have been kept.
#[tokio::test(start_paused = true)]
async fn a_sink_slower_than_the_claim_is_given_up_and_the_flow_fails() {
    let past_its_wait = Arc::new(Mutex::new(false));
    let site = site_of(MemoryFlowStore::new(), |flows| {
        Pages::new(flows, HeaderUser)
            .unwrap()
            .with_claim_lease(Duration::from_secs(5))
            .unwrap()
            .secret(api_key_page(), Stuck(Arc::clone(&past_its_wait)))
    });
    let id = site.flow_for("alice");
    let reply = site.submit_key(&id, "alice").await;
    assert_eq!(reply.status, StatusCode::GATEWAY_TIMEOUT, "{}", reply.body);
    assert!(
        reply
            .body
            .contains("The server did not finish saving this in time."),
        "{}",
        reply.body
    );
    assert!(reply.body.contains("ask again"), "{}", reply.body);
    assert_eq!(
        site.status(&id),
        FlowStatus::Failed("The server did not finish saving this in time.".into())
    );
    assert!(!*past_its_wait.lock().unwrap(), "the sink was given up");
}

#[test]
fn a_claim_lease_under_two_seconds_is_refused() {
    let flows = Flows::new(MemoryFlowStore::new(), BASE).unwrap();
    let pages = Pages::new(flows, HeaderUser).unwrap();
    let refused = pages
        .with_claim_lease(Duration::from_millis(1999))
        .unwrap_err();
    assert!(matches!(refused, PageError::ClaimLease { .. }));
    assert_eq!(
        refused.to_string(),
        "claim lease 1.999s must be at least two seconds (flows count whole seconds, and the \
         page keeps the last one to record how the sink ended)"
    );
    let flows = Flows::new(MemoryFlowStore::new(), BASE).unwrap();
    assert!(
        Pages::new(flows, HeaderUser)
            .unwrap()
            .with_claim_lease(Duration::from_secs(2))
            .is_ok()
    );
}

#[tokio::test]
async fn on_loopback_only_the_pages_own_host_name_is_served() {
    let pages = Pages::bind_loopback("me").await.unwrap();
    let base = pages.flows().base().as_str().to_owned();
    let host = base
        .strip_prefix("http://")
        .and_then(|rest| rest.strip_suffix("/elicit/"))
        .unwrap()
        .to_owned();
    assert!(host.starts_with("localhost:"), "{base}");
    let router = pages
        .secret(api_key_page(), |_, _: Secrets| Ok(json!({})))
        .router();
    let loopback = ConnectInfo(SocketAddr::from(([127, 0, 0, 1], 50_000)));
    for (named, expected) in [
        (host.as_str(), StatusCode::NOT_FOUND), // served: no such flow
        ("rebound.example:80", StatusCode::MISDIRECTED_REQUEST),
        ("127.0.0.1", StatusCode::MISDIRECTED_REQUEST),
    ] {
        let mut request = Request::get(format!("/elicit/{}", FlowId::random().unwrap()))
            .header(header::HOST, named)
            .body(Body::empty())
            .unwrap();
        request.extensions_mut().insert(loopback);
        let reply = router.clone().oneshot(request).await.unwrap();
        assert_eq!(reply.status(), expected, "{named}");
    }
}

/// What a server that binds its own loopback listener and serves `Pages::new`'s router with
/// `axum::serve` answers, over real HTTP/1.1 on 127.0.0.1, to a request for `path` naming
/// `host` (`None`: an HTTP/1.0 request with no `Host`): the status code.
async fn status_over_http(port: u16, target: &str, host: Option<&str>) -> u16 {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .unwrap();
    let request = match host {
        Some(host) => format!("GET {target} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"),
        None => format!("GET {target} HTTP/1.0\r\n\r\n"),
    };
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).await.unwrap();
    let answer = String::from_utf8_lossy(&answer);
    // "HTTP/1.1 421 Misdirected Request"
    answer.split(' ').nth(1).unwrap().parse().unwrap()
}

/// The DNS-rebinding check is the router's, not `bind_loopback`'s: a server that binds its own
/// loopback listener for `Pages::new` (to use its own identity) and serves the router with
/// `axum::serve` refuses every request that does not name the base's `host:port`.
#[tokio::test]
async fn whoever_binds_the_listener_only_the_pages_own_host_is_served() {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
        .await
        .unwrap();
    let port = listener.local_addr().unwrap().port();
    let store = MemoryFlowStore::new();
    let flows = Flows::new(store.clone(), format!("http://localhost:{port}/elicit/")).unwrap();
    let router = Pages::new(flows, HeaderUser)
        .unwrap()
        .secret(api_key_page(), |_, _: Secrets| Ok(json!({})))
        .router();
    let site = Site {
        store,
        router: router.clone(),
        stored: Stored::default(),
        host: "localhost:8719",
    };
    tokio::spawn(async move { axum::serve(listener, router).await });
    // A page that exists, so "served" is a redirect to sign in (no `x-user`), not a 404.
    let page = format!("/elicit/{}", site.flow_for("alice"));
    let own = format!("localhost:{port}");
    for (host, target, expected) in [
        (Some(own.as_str()), page.clone(), 303),
        (Some(&own.to_uppercase()), page.clone(), 303), // host names have no case
        (Some("evil.example"), page.clone(), 421),
        (Some(&format!("evil.example:{port}")), page.clone(), 421),
        (Some(&format!("127.0.0.1:{port}")), page.clone(), 421),
        (Some("localhost"), page.clone(), 421), // port 80, not the pages'
        (Some("localhost:1"), page.clone(), 421),
        (Some(""), page.clone(), 421),
        // The absolute form names the host in the target, which wins over `Host` (RFC 9112).
        (
            Some(own.as_str()),
            format!("http://evil.example{page}"),
            421,
        ),
        (None, page.clone(), 421),
    ] {
        let status = status_over_http(port, &target, host).await;
        assert_eq!(status, expected, "Host {host:?}, target {target}");
    }
    // Refused before the identity was asked and before the store was: the flow is untouched.
    assert_eq!(site.status(&page_id(&page)), FlowStatus::Pending);
}

fn page_id(path: &str) -> FlowId {
    FlowId::parse(path.trim_start_matches("/elicit/")).unwrap()
}

/// A port chosen beforehand (an OAuth app's registered callback names it): the pages' base
/// names it, and a port already taken is an error, not another port.
#[tokio::test]
async fn on_loopback_a_chosen_port_is_the_one_in_the_urls() {
    let taken = tokio::net::TcpListener::bind(("127.0.0.1", 0))
        .await
        .unwrap();
    let port = taken.local_addr().unwrap().port();
    let refused = Pages::bind_loopback_on(port, SingleUser::named("me").unwrap()).await;
    assert!(matches!(refused, Err(PageError::Io(_))), "{refused:?}");
    drop(taken);
    let pages = Pages::bind_loopback_on(port, SingleUser::named("me").unwrap())
        .await
        .unwrap();
    assert_eq!(
        pages.flows().base().as_str(),
        format!("http://localhost:{port}/elicit/")
    );
}

#[tokio::test]
async fn the_single_user_check_refuses_what_did_not_come_over_loopback() {
    let store = MemoryFlowStore::new();
    let site = site_with(
        |flows| Pages::new(flows, SingleUser::named("me").unwrap()).unwrap(),
        store,
    );
    let id = site.flow_for("me");
    for (peer, expected) in [
        (
            Some(SocketAddr::from(([127, 0, 0, 1], 50_000))),
            StatusCode::OK,
        ),
        (
            Some(SocketAddr::from(([192, 168, 1, 20], 50_000))),
            StatusCode::FORBIDDEN,
        ),
        (None, StatusCode::INTERNAL_SERVER_ERROR),
    ] {
        let mut request = Request::get(format!("/elicit/{id}"))
            .body(Body::empty())
            .unwrap();
        if let Some(peer) = peer {
            request.extensions_mut().insert(ConnectInfo(peer));
        }
        let reply = site.send(request).await;
        assert_eq!(reply.status, expected, "{peer:?}: {}", reply.body);
    }
}

/// Over TLS every cookie is `__Host-elicit-<what>`: `Secure`, `Path=/`, no `Domain`, so no
/// sibling subdomain and nothing on plain http can plant one. Over plain http (loopback) they
/// are `elicit-<what>-<port>` under the pages' path, so two servers' pages on two ports of
/// `localhost` do not overwrite each other's.
#[tokio::test]
async fn cookies_are_host_prefixed_over_tls_and_named_by_their_port_over_http() {
    for (base, host, name, attributes, absent) in [
        (
            "https://pages.example/elicit/",
            "pages.example",
            "__Host-elicit-browser=",
            &["Path=/", "Secure", "HttpOnly", "SameSite=Lax"][..],
            &["Domain", "Path=/elicit/"][..],
        ),
        (
            BASE,
            "localhost:8719",
            "elicit-browser-8719=",
            &["Path=/elicit/", "HttpOnly", "SameSite=Lax"][..],
            &["Domain", "Secure"][..],
        ),
    ] {
        let store = MemoryFlowStore::new();
        let mut site = site_of(store.clone(), |_| {
            let flows = Flows::new(store.clone(), base).unwrap();
            Pages::new(flows, HeaderUser)
                .unwrap()
                .secret(api_key_page(), |_, _: Secrets| Ok(json!({})))
        });
        site.host = host;
        let id = site.flow_for("alice");
        let (form, cookie, token) = opened(&site, &id, "alice").await;
        let set = form.headers[header::SET_COOKIE].to_str().unwrap();
        assert!(set.starts_with(name), "{set}");
        for attribute in attributes {
            assert!(
                set.split("; ").any(|a| a == *attribute),
                "{attribute}: {set}"
            );
        }
        for attribute in absent {
            assert!(
                !set.split("; ").any(|a| a.starts_with(attribute)),
                "{attribute}: {set}"
            );
        }
        // The browser the cookie names is the one the flow is bound to.
        let origin = base.trim_end_matches("/elicit/");
        let done = site
            .post(
                &id.to_string(),
                "alice",
                &cookie,
                Some(origin),
                &[("_csrf", &token), ("key", KEY)],
            )
            .await;
        assert_eq!(done.status, StatusCode::OK, "{base}: {}", done.body);
    }
}

/// A browser whose sealed name is about to run out is given it sealed anew, the same name: the
/// flows it opened stay its own. (The test seals the name as the pages do, with their keys.)
#[tokio::test]
async fn a_browser_name_about_to_run_out_is_sealed_anew_and_keeps_its_flows() {
    let keys = || StateKeys::single(KeyId::new(1), StateKey::from_bytes([9; 32]));
    let store = MemoryFlowStore::new();
    let site = site_with(
        |flows| Pages::new(flows, HeaderUser).unwrap().with_keys(keys()),
        store,
    );
    let id = site.flow_for("alice");
    let binding = mcp_elicit::state::Binding {
        principal: "",
        method: "elicit/browser",
        params_digest: ParamsDigest::of(&json!("/elicit/")),
    };
    let name = "cd".repeat(32);
    let sealed = keys()
        .seal(
            &json!({ "n": name }),
            &binding,
            Duration::from_secs(30),
            UnixTime::now(),
        )
        .unwrap();
    let cookie = format!("elicit-browser-8719={sealed}");
    let form = site.open(&id.to_string(), "alice", Some(&cookie)).await;
    assert_eq!(form.status, StatusCode::OK, "{}", form.body);
    // Sealed anew: the same name, good for longer than a flow.
    let renewed = form.cookie();
    assert_ne!(renewed, cookie);
    let renewed_value = renewed.strip_prefix("elicit-browser-8719=").unwrap();
    let opened = keys()
        .open::<Value>(renewed_value, &binding, UnixTime::now())
        .unwrap();
    assert_eq!(opened.value()["n"], name.as_str());
    assert!(opened.expires_at().as_secs() > UnixTime::now().as_secs() + 600);
    // The flow the old cookie opened takes the form from the new one.
    let done = site
        .post(
            &id.to_string(),
            "alice",
            &renewed,
            Some(ORIGIN),
            &[("_csrf", &form.token()), ("key", KEY)],
        )
        .await;
    assert_eq!(done.status, StatusCode::OK, "{}", done.body);
}
