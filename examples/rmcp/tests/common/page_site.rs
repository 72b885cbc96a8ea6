//! What every test of the pages shares, in process or over HTTP: the `x-user` sign-in
//! ([`HeaderUser`]), the API-key page, a flow begun as a tool begins it ([`begin`],
//! [`pending`]) and read back ([`status`]), the CSRF token of a page's form ([`csrf`]); and, in
//! process, a browser's request through the pages' router ([`send`], [`get`], [`post`]).
//!
//! Its own file, included by `#[path]` (as `revisions.rs` is), so that a test takes it without
//! the in-process harness of `mod.rs`; `pages_over_http.rs` includes it too. Each test binary
//! uses a part of it.

#![allow(dead_code)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use axum::response::{IntoResponse, Redirect};
use mcp_elicit::page::{
    ExposeSecret, IdentifyFuture, Identity, Pages, SecretPage, Secrets, SignedIn, SinkError,
};
use mcp_elicit::schema::{Property, StringSchema};
use mcp_elicit::state::{ParamsDigest, UnixTime};
use mcp_elicit::url_mode::{Flow, FlowId, FlowStatus, MemoryFlowStore};
use serde_json::{Value, json};

#[path = "through_router.rs"]
mod through_router;
use through_router::through_router;

/// The pages' base, in process (no listener: the router is called directly).
pub const BASE: &str = "http://localhost:8719/elicit/";
/// The pages' origin, as a browser names it on a form's `POST`.
pub const ORIGIN: &str = "http://localhost:8719";
/// The `Host` a browser sent to [`BASE`] names: the pages serve no other.
pub const HOST: &str = "localhost:8719";
/// What a flow begun here asks, as its page shows it.
pub const MESSAGE: &str = "Enter your Example Co. API key.";

/// Who sent a request: the `x-user` header, as a sign-in layer would put it; without one, a
/// redirect to sign in.
pub struct HeaderUser;

impl Identity for HeaderUser {
    fn identify<'a>(&'a self, request: &'a axum::http::request::Parts) -> IdentifyFuture<'a> {
        let user = request
            .headers
            .get("x-user")
            .and_then(|user| user.to_str().ok())
            .map(str::to_owned);
        Box::pin(async move {
            user.map(SignedIn::new)
                .ok_or_else(|| Redirect::to("/signin").into_response())
        })
    }
}

/// The API-key page: one field, `key`, of 20 to 200 characters.
pub fn api_key_page() -> SecretPage {
    SecretPage::new(
        "api_key",
        "Your Example Co. API key",
        vec![
            Property::new("key", StringSchema::new().min_length(20).max_length(200))
                .title("API key"),
        ],
    )
    .unwrap()
}

/// What reached an API-key page's sink ([`with_api_key_page`]): (principal, key), in order.
pub type Stored = Arc<Mutex<Vec<(String, String)>>>;

/// `pages` with the [API-key page](api_key_page), whose sink keeps each key under the principal
/// that typed it, in `stored`.
pub fn with_api_key_page(pages: Pages, stored: &Stored) -> Pages {
    let stored = Arc::clone(stored);
    pages.secret(
        api_key_page(),
        move |principal: String, mut secrets: Secrets| -> Result<Value, SinkError> {
            let key = secrets.take("key").ok_or("no key")?;
            stored
                .lock()
                .unwrap()
                .push((principal, key.expose_secret().to_owned()));
            Ok(json!({}))
        },
    )
}

/// A pending flow of `page` for `user`, as a tool begins it (asking [`MESSAGE`], for ten
/// minutes from now), not yet in any store: its id, the flow, and the time it was made at.
pub fn pending(page: &str, user: &str) -> (FlowId, Flow, UnixTime) {
    let id = FlowId::random().unwrap();
    let call = ParamsDigest::of(&json!({ "name": "connect_api_key" }));
    let now = UnixTime::now();
    let flow = Flow::new(id, page, user, call, MESSAGE)
        .expiring(now, Duration::from_secs(600))
        .unwrap();
    (id, flow, now)
}

/// A [`pending`] flow of `page` for `user`, begun in `store`: its id.
pub fn begin(store: &MemoryFlowStore, page: &str, user: &str) -> FlowId {
    let (id, flow, now) = pending(page, user);
    store.begin_now(flow, now).unwrap();
    id
}

/// Where flow `id` of `store` is now.
pub fn status(store: &MemoryFlowStore, id: &FlowId) -> FlowStatus {
    store.get_now(id, UnixTime::now()).unwrap().status().clone()
}

/// The CSRF token in a page's form (its `_csrf` input).
pub fn csrf(body: &str) -> String {
    let marker = r#"name="_csrf" value=""#;
    let at = body.find(marker).expect("a token in the form") + marker.len();
    body[at..][..body[at..].find('"').unwrap()].to_owned()
}

/// What the router answered a request sent in process.
pub struct Reply {
    pub status: StatusCode,
    /// Its first `Set-Cookie`, as a `Cookie` header sends it back (`name=value`).
    pub cookie: Option<String>,
    pub body: String,
}

impl Reply {
    /// The CSRF token in the page's form.
    pub fn token(&self) -> String {
        csrf(&self.body)
    }
}

/// `request` through `router`, as a browser sends it: to the pages' [`HOST`] unless it names
/// another.
pub async fn send(router: &Router, mut request: Request<Body>) -> Reply {
    request
        .headers_mut()
        .entry(header::HOST)
        .or_insert(header::HeaderValue::from_static(HOST));
    let (status, cookie, body) = through_router(router, request).await;
    Reply {
        status,
        cookie,
        body: String::from_utf8(body.to_vec()).unwrap(),
    }
}

/// `user` opens flow `id`'s page, in the browser of `cookie` if any.
pub fn get(id: &str, user: &str, cookie: Option<&str>) -> Request<Body> {
    let mut request = Request::get(format!("/elicit/{id}")).header("x-user", user);
    if let Some(cookie) = cookie {
        request = request.header(header::COOKIE, cookie);
    }
    request.body(Body::empty()).unwrap()
}

/// `user` posts `form` to flow `id` from a page of `origin`, in the browser of `cookie` if any.
pub fn post(
    id: &str,
    user: &str,
    cookie: Option<&str>,
    origin: &str,
    form: &[(&str, &str)],
) -> Request<Body> {
    let mut request = Request::post(format!("/elicit/{id}"))
        .header("x-user", user)
        .header(header::ORIGIN, origin)
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded");
    if let Some(cookie) = cookie {
        request = request.header(header::COOKIE, cookie);
    }
    request
        .body(Body::from(serde_urlencoded::to_string(form).unwrap()))
        .unwrap()
}
