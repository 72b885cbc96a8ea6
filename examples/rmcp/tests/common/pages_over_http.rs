//! What the tests that drive the pages over real HTTP on loopback share: a browser (a reqwest
//! cookie jar that follows no redirect), what it was answered, its `GET` and its form `POST`,
//! the CSRF token of a page's form; an app served on a loopback listener ([`serve`]); and
//! [`Site`], pages whose user an `x-user` header names.
//!
//! Its own file, included by `#[path]` (as `revisions.rs` is), so that a test takes it without
//! the in-process harness of `mod.rs`. Each test binary uses a part of it. What the tests in
//! process share too is [`page_site`], which this file includes.

#![allow(dead_code)]

#[path = "page_site.rs"]
pub mod page_site;

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::http::{StatusCode, header};
use mcp_elicit::page::{Identity, Pages, Parts, SignedIn, Verdict, identity_fn};
use mcp_elicit::state::UnixTime;
use mcp_elicit::url_mode::{Flow, FlowId, Flows, MemoryFlowStore};

/// Serves `app` on `listener` until the test ends, each request with its peer's address (the
/// pages check that it came over loopback).
pub fn serve(listener: tokio::net::TcpListener, app: Router) {
    tokio::spawn(async move {
        axum::serve(
            listener,
            app.into_make_service_with_connect_info::<SocketAddr>(),
        )
        .await
    });
}

/// A browser: a cookie jar, no redirect followed (a test reads each `Location`).
pub fn browser() -> reqwest::Client {
    reqwest::Client::builder()
        .cookie_store(true)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

/// A browser of `user`: [`browser`], its `x-user` header on every request ([`header_user`]).
pub fn browser_of(user: &str) -> reqwest::Client {
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert("x-user", user.parse().unwrap());
    reqwest::Client::builder()
        .cookie_store(true)
        .default_headers(headers)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

/// What a browser was answered.
pub struct Reply {
    pub status: StatusCode,
    pub location: Option<String>,
    pub retry_after: Option<String>,
    pub set_cookie: Vec<String>,
    pub body: String,
}

pub async fn reply(response: reqwest::Response) -> Reply {
    let status = response.status();
    let location = response
        .headers()
        .get(header::LOCATION)
        .map(|value| value.to_str().unwrap().to_owned());
    let retry_after = response
        .headers()
        .get(header::RETRY_AFTER)
        .map(|value| value.to_str().unwrap().to_owned());
    let set_cookie = response
        .headers()
        .get_all(header::SET_COOKIE)
        .iter()
        .map(|value| value.to_str().unwrap().to_owned())
        .collect();
    let body = response.text().await.unwrap();
    Reply {
        status,
        location,
        retry_after,
        set_cookie,
        body,
    }
}

pub async fn get(client: &reqwest::Client, url: &str) -> Reply {
    reply(client.get(url).send().await.unwrap()).await
}

/// A form posted to `url` as a browser posts it from a page of `origin` (its `Origin` header).
pub async fn post(
    client: &reqwest::Client,
    origin: &str,
    url: &str,
    form: &[(&str, &str)],
) -> Reply {
    reply(
        client
            .post(url)
            .header(header::ORIGIN, origin)
            .form(form)
            .send()
            .await
            .unwrap(),
    )
    .await
}

pub use page_site::csrf;

/// A loopback listener for pages, and the flows those pages finish, under
/// `http://localhost:<port>/elicit/`.
pub struct Loopback {
    pub listener: tokio::net::TcpListener,
    pub port: u16,
    /// The pages' base.
    pub base: String,
    pub store: MemoryFlowStore,
    pub flows: Flows,
}

impl Loopback {
    /// A listener on `127.0.0.1` with a port of its own, and a memory store for its flows.
    pub async fn bind() -> Loopback {
        Loopback::bind_with(MemoryFlowStore::new()).await
    }

    /// As [`bind`](Loopback::bind), the flows kept in `store`.
    pub async fn bind_with(store: MemoryFlowStore) -> Loopback {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
            .await
            .unwrap();
        let port = listener.local_addr().unwrap().port();
        let base = format!("http://localhost:{port}/elicit/");
        let flows = Flows::new(store.clone(), &base).unwrap();
        Loopback {
            listener,
            port,
            base,
            store,
            flows,
        }
    }

    /// The pages' origin, as a browser names it on a form's `POST`.
    pub fn origin(&self) -> String {
        format!("http://localhost:{}", self.port)
    }
}

/// The user named by the `x-user` header ([`browser_of`] sends it on every request).
pub fn header_user() -> impl Identity {
    identity_fn(|request: &Parts| {
        match request.headers.get("x-user").and_then(|v| v.to_str().ok()) {
            Some(user) => Verdict::SignedIn(SignedIn::new(user)),
            None => Verdict::refused("no x-user header"),
        }
    })
}

/// Every value a site's sinks were handed, in order.
pub type Seen = Arc<Mutex<Vec<String>>>;

/// Pages served for real on a loopback listener, whose user the `x-user` header names.
pub struct Site {
    pub store: MemoryFlowStore,
    pub base: String,
    pub origin: String,
    seen: Seen,
}

impl Site {
    /// The pages `sinks` declares (given the list each sink pushes what it was handed to),
    /// bound and served.
    pub async fn start(sinks: impl FnOnce(Pages, &Seen) -> Pages) -> Site {
        let loopback = Loopback::bind().await;
        let origin = loopback.origin();
        let seen = Seen::default();
        let pages = Pages::new(loopback.flows, header_user()).unwrap();
        serve(loopback.listener, sinks(pages, &seen).router());
        Site {
            store: loopback.store,
            base: loopback.base,
            origin,
            seen,
        }
    }

    /// A flow of `page` for `user`, as a tool begins it.
    pub fn flow_for(&self, page: &str, user: &str) -> FlowId {
        page_site::begin(&self.store, page, user)
    }

    pub fn flow(&self, id: &FlowId) -> Flow {
        self.store.get_now(id, UnixTime::now()).unwrap()
    }

    pub fn seen(&self) -> Vec<String> {
        self.seen.lock().unwrap().clone()
    }

    /// Opens flow `id`: its page, which must be shown (200).
    pub async fn open(&self, browser: &reqwest::Client, id: &FlowId) -> String {
        let shown = get(browser, &format!("{}{id}", self.base)).await;
        assert_eq!(shown.status, 200, "{}", shown.body);
        shown.body
    }

    /// Posts `value` in `field` with `csrf` to flow `id`, as the page's form does: the status
    /// and the page.
    pub async fn post(
        &self,
        browser: &reqwest::Client,
        id: &FlowId,
        csrf: &str,
        field: &str,
        value: &str,
    ) -> (StatusCode, String) {
        let url = format!("{}{id}", self.base);
        let posted = post(
            browser,
            &self.origin,
            &url,
            &[("_csrf", csrf), (field, value)],
        )
        .await;
        (posted.status, posted.body)
    }
}
