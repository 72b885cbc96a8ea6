//! The pages' cookies over real HTTP on loopback, each browser a reqwest cookie jar: what a
//! cookie planted in the user's browser can and cannot do (SECURITY.md, "The pages' cookies").
//!
//! On loopback a browser shares cookies across ports: a page served by any other server on
//! `localhost` (the "sibling" here, on its own port) can set cookies that the pages receive.
//!
//! `cargo test -p elicit-examples --features oauth --test page_cookies`

use std::sync::Arc;

use axum::Router;
use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::get;
use mcp_elicit::page::{IdentifyFuture, Identity, Pages, SingleUser};
use mcp_elicit::url_mode::MemoryFlowStore;
use reqwest::cookie::{CookieStore as _, Jar};

#[path = "common/pages_over_http.rs"]
mod pages_over_http;

use pages_over_http::page_site::{self, Stored, with_api_key_page};
use pages_over_http::{Loopback, csrf, serve};

const KEY: &str = "sk-live-0123456789abcdef";

/// A server's own sign-in, as simple as it gets: the `user` cookie names the user. (Planting it
/// is what a real session's planting looks like, once the attacker has a session of their own.)
struct CookieUser;

impl Identity for CookieUser {
    fn identify<'a>(&'a self, request: &'a axum::http::request::Parts) -> IdentifyFuture<'a> {
        let user = request
            .headers
            .get_all(header::COOKIE)
            .iter()
            .filter_map(|value| value.to_str().ok())
            .flat_map(|value| value.split("; "))
            .find_map(|pair| pair.strip_prefix("user="))
            .map(str::to_owned);
        Box::pin(async move {
            user.map(mcp_elicit::page::SignedIn::new)
                .ok_or_else(|| (axum::http::StatusCode::UNAUTHORIZED, "sign in").into_response())
        })
    }
}

/// The pages on `127.0.0.1`, under `http://localhost:<port>/elicit/`, served for real.
struct Site {
    store: MemoryFlowStore,
    base: String,
    port: u16,
    stored: Stored,
}

impl Site {
    async fn start(identity: impl Identity) -> Site {
        let loopback = Loopback::bind().await;
        let stored = Stored::default();
        let pages = Pages::new(loopback.flows, identity).unwrap();
        let router = with_api_key_page(pages, &stored).router();
        serve(loopback.listener, router);
        Site {
            store: loopback.store,
            base: loopback.base,
            port: loopback.port,
            stored,
        }
    }

    fn flow_for(&self, user: &str) -> String {
        let id = page_site::begin(&self.store, "api_key", user);
        format!("{}{id}", self.base)
    }

    /// The name of the pages' browser cookie here: `elicit-browser-<port>` (plain http).
    fn browser_cookie(&self) -> String {
        format!("elicit-browser-{}", self.port)
    }

    fn origin(&self) -> String {
        format!("http://localhost:{}", self.port)
    }

    fn stored(&self) -> Vec<(String, String)> {
        self.stored.lock().unwrap().clone()
    }
}

/// Another server on this machine's `localhost`, on a port of its own, whose one page sets
/// `cookies` (`Set-Cookie` values) in whichever browser opens it.
async fn sibling(cookies: Vec<String>) -> String {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
        .await
        .unwrap();
    let port = listener.local_addr().unwrap().port();
    let app = Router::new().route(
        "/",
        get(move || async move {
            let mut response = "a page of another server".into_response();
            for cookie in &cookies {
                response
                    .headers_mut()
                    .append(header::SET_COOKIE, cookie.parse().unwrap());
            }
            response
        }),
    );
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://localhost:{port}/")
}

/// A browser: a client with a cookie jar of its own, that follows no redirect.
fn browser() -> (reqwest::Client, Arc<Jar>) {
    let jar = Arc::new(Jar::default());
    let client = reqwest::Client::builder()
        .cookie_provider(Arc::clone(&jar))
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    (client, jar)
}

/// The value of the cookie `name` that `jar` would send to `url`.
fn cookie_in(jar: &Jar, url: &str, name: &str) -> Option<String> {
    let header = jar.cookies(&url.parse().unwrap())?;
    header
        .to_str()
        .unwrap()
        .split("; ")
        .find_map(|pair| pair.strip_prefix(&format!("{name}=")))
        .map(str::to_owned)
}

async fn get_page(client: &reqwest::Client, url: &str) -> (reqwest::StatusCode, String) {
    let response = client.get(url).send().await.unwrap();
    (response.status(), response.text().await.unwrap())
}

async fn post_key(
    client: &reqwest::Client,
    site: &Site,
    url: &str,
    token: &str,
    key: &str,
) -> (reqwest::StatusCode, String) {
    let response = client
        .post(url)
        .header(header::ORIGIN, site.origin())
        .form(&[("_csrf", token), ("key", key)])
        .send()
        .await
        .unwrap();
    (response.status(), response.text().await.unwrap())
}

/// A value the pages never issued, planted from another port, is not taken: the page names the
/// browser anew, and whoever planted the value (holding it in a jar of its own) is another
/// browser to the flow, refused.
#[tokio::test]
async fn a_browser_cookie_the_pages_never_issued_is_not_taken() {
    let site = Site::start(SingleUser::named("me").unwrap()).await;
    let url = site.flow_for("me");
    let planted = "ab".repeat(32);
    let sibling = sibling(vec![format!(
        "{}={planted}; Path=/elicit/",
        site.browser_cookie()
    )])
    .await;

    let (user, jar) = browser();
    user.get(&sibling).send().await.unwrap();
    assert_eq!(
        cookie_in(&jar, &url, &site.browser_cookie()).as_deref(),
        Some(planted.as_str()),
        "the sibling's cookie reaches the pages' port"
    );
    let (status, page) = get_page(&user, &url).await;
    assert_eq!(status, 200, "{page}");
    assert!(
        page.contains("Signed in as <strong>this machine&#39;s user</strong>"),
        "{page}"
    );
    // The page named the browser itself: the planted value is gone from its jar.
    let named = cookie_in(&jar, &url, &site.browser_cookie()).unwrap();
    assert_ne!(named, planted);

    // The planter, holding its value, is not the browser that opened the flow.
    let (planter, planter_jar) = browser();
    planter_jar.add_cookie_str(
        &format!("{}={planted}; Path=/elicit/", site.browser_cookie()),
        &url.parse().unwrap(),
    );
    let (status, refused) = get_page(&planter, &url).await;
    assert_eq!(status, 403, "{refused}");
    assert!(refused.contains("open in another browser"), "{refused}");
    let (status, refused) = post_key(&planter, &site, &url, &csrf(&page), KEY).await;
    assert_eq!(status, 403, "{refused}");
    assert!(site.stored().is_empty());

    // The user's own browser goes on.
    let (status, saved) = post_key(&user, &site, &url, &csrf(&page), KEY).await;
    assert_eq!(status, 200, "{saved}");
    assert_eq!(site.stored(), [("me".to_owned(), KEY.to_owned())]);
}

/// What sealing does not stop: a browser name the pages issued to the attacker, planted with the
/// attacker's own session, is taken, and the user types into the attacker's flow. Every page
/// says who is signed in, so the page the user types into names the attacker.
#[tokio::test]
async fn an_issued_cookie_planted_with_a_session_is_taken_and_the_page_names_the_planter() {
    let site = Site::start(CookieUser).await;
    // Mallory's own browser: any page of the pages names it (here, the style sheet).
    let (mallory, mallory_jar) = browser();
    let style = format!("{}style.css", site.base);
    assert_eq!(mallory.get(&style).send().await.unwrap().status(), 200);
    let issued = cookie_in(&mallory_jar, &site.base, &site.browser_cookie()).unwrap();
    // A flow of Mallory's, whose link she sends to Alice.
    let lure = site.flow_for("mallory");

    // Alice's browser is signed in as herself, then opens the sibling's page, which plants
    // Mallory's browser name and session.
    let (alice, jar) = browser();
    jar.add_cookie_str("user=alice; Path=/", &site.base.parse().unwrap());
    let sibling = sibling(vec![
        format!("{}={issued}; Path=/elicit/", site.browser_cookie()),
        "user=mallory; Path=/".to_owned(),
    ])
    .await;
    alice.get(&sibling).send().await.unwrap();

    let (status, page) = get_page(&alice, &lure).await;
    assert_eq!(status, 200, "sealing does not stop an issued value: {page}");
    assert_eq!(
        cookie_in(&jar, &lure, &site.browser_cookie()).as_deref(),
        Some(issued.as_str()),
        "the planted name was taken"
    );
    assert!(
        page.contains("<p class=\"who\">Signed in as <strong>mallory</strong></p>"),
        "the page names whoever is signed in: {page}"
    );
}

/// Every page after the identity check names the user: the form, a refusal, the page that says
/// it was saved.
#[tokio::test]
async fn every_page_says_who_is_signed_in() {
    let site = Site::start(CookieUser).await;
    let url = site.flow_for("alice");
    let (alice, jar) = browser();
    jar.add_cookie_str("user=alice; Path=/", &site.base.parse().unwrap());
    let alice_line = "<p class=\"who\">Signed in as <strong>alice</strong></p>";

    let (status, form) = get_page(&alice, &url).await;
    assert_eq!(status, 200, "{form}");
    assert!(form.contains(alice_line), "{form}");

    let (bob, bob_jar) = browser();
    bob_jar.add_cookie_str("user=bob; Path=/", &site.base.parse().unwrap());
    let (status, refused) = get_page(&bob, &url).await;
    assert_eq!(status, 403, "{refused}");
    assert!(
        refused.contains("<p class=\"who\">Signed in as <strong>bob</strong></p>"),
        "{refused}"
    );

    let (status, saved) = post_key(&alice, &site, &url, &csrf(&form), KEY).await;
    assert_eq!(status, 200, "{saved}");
    assert!(
        saved.contains("Saved") && saved.contains(alice_line),
        "{saved}"
    );
}
