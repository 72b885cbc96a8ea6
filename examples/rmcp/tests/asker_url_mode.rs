//! URL mode: `ops_server`'s `connect_github` sends the user to its GitHub page, and reads what
//! the step came to (`Asker::url_flow`); on the wire the request has an `elicitationId` only
//! before 2026-07-28.
//!
//! The user's part is played through the pages' router, as a browser's requests reach it
//! (`tests/page.rs` drives the pages the same way): the page, "Continue to GitHub", and back
//! from GitHub with its answer. GitHub's token endpoint is played on loopback, so the page's
//! exchange of the code and `ops_server`'s own sink run for real. The whole path in Chromium,
//! with an OpenID provider as GitHub, is `tests/browser/tests/ops_server_github.rs`.
//!
//! `cargo test -p elicit-examples --features oauth --test asker_url_mode`

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::{HeaderMap, Request, StatusCode, header};
use mcp_elicit::Revision;
use mcp_elicit::page::{ExposeSecret, Pages, SingleUser};
use mcp_elicit::rmcp::AskConfig;
use mcp_elicit::url_mode::{Flows, MemoryFlowStore};
use serde_json::json;
use tower::ServiceExt;

#[macro_use]
mod common;

use common::ops_server::{CONNECT_GITHUB, GithubApp, Vault, ops_server};
use common::*;

/// The token GitHub gives the server: long and unlike anything else on the wire.
const TOKEN: &str = "gho_tokenFromGitHub7Qm2xVt9Lp4Rw8Zk";
const AUTHORIZE: &str = "https://github.com/login/oauth/authorize";
/// `BASE`'s origin: where the page's own form is posted from.
const ORIGIN: &str = "http://localhost:8719";

/// What GitHub's token endpoint was sent: each request's `Authorization` header and form.
type Exchanges = Arc<Mutex<Vec<(String, Vec<(String, String)>)>>>;

/// GitHub's token endpoint, played on loopback: it gives [`TOKEN`] with scope `repo` for any
/// code, and keeps what it was sent. Stops when the test's runtime does.
async fn token_endpoint() -> (String, Exchanges) {
    let exchanges = Exchanges::default();
    let kept = Arc::clone(&exchanges);
    let answer = move |headers: HeaderMap, body: axum::body::Bytes| {
        let kept = Arc::clone(&kept);
        async move {
            let authorization = headers
                .get(header::AUTHORIZATION)
                .map(|value| value.to_str().unwrap_or("").to_owned())
                .unwrap_or_default();
            let form = serde_urlencoded::from_bytes(&body).unwrap_or_default();
            kept.lock().unwrap().push((authorization, form));
            (
                [(header::CONTENT_TYPE, "application/json")],
                format!(r#"{{"access_token":"{TOKEN}","token_type":"bearer","scope":"repo"}}"#),
            )
        }
    };
    let router = Router::new().route("/login/oauth/access_token", axum::routing::post(answer));
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
        .await
        .unwrap();
    let url = format!(
        "http://{}/login/oauth/access_token",
        listener.local_addr().unwrap()
    );
    tokio::spawn(async move { axum::serve(listener, router).await });
    (url, exchanges)
}

/// `ops_server` with its GitHub page's token endpoint at `token_url`, and the page's router.
fn ops_with_page(store: &MemoryFlowStore, vault: &Vault, token_url: String) -> (Ops, Router) {
    let app = GithubApp {
        authorize_url: AUTHORIZE.into(),
        token_url,
        client_id: "Iv1.0123456789abcdef".into(),
        client_secret: "app-secret".into(),
        issuer: None,
    };
    let asking = AskConfig::single_user("me").expect("the OS has randomness");
    let (ops, pages) = ops_and_pages(asking, store, vault, app);
    (ops, pages.router())
}

/// The user's browser, on the pages' router over loopback (what `SingleUser` checks).
async fn send(router: &Router, mut request: Request<Body>) -> (StatusCode, HeaderMap, String) {
    let loopback = ConnectInfo(SocketAddr::from(([127, 0, 0, 1], 50_000)));
    request.extensions_mut().insert(loopback);
    // As a browser sends it: the pages serve only the host of their base.
    request
        .headers_mut()
        .entry(header::HOST)
        .or_insert(header::HeaderValue::from_static("localhost:8719"));
    let response = router.clone().oneshot(request).await.unwrap();
    let (status, headers) = (response.status(), response.headers().clone());
    let body = axum::body::to_bytes(response.into_body(), 1 << 20)
        .await
        .unwrap();
    (status, headers, String::from_utf8(body.to_vec()).unwrap())
}

/// The cookie a response set, as a `Cookie` header's part.
fn cookie_set(headers: &HeaderMap) -> String {
    let set = headers[header::SET_COOKIE].to_str().unwrap();
    set.split(';').next().unwrap().to_owned()
}

/// The user opens the page at `url`, presses "Continue to GitHub", and comes back with what
/// GitHub answers (`code`, or `error`) and the `state` it was sent. Returns the last page.
async fn connect_on_the_page(router: Router, url: String, answer: (&str, &str)) -> String {
    let path = url.strip_prefix(ORIGIN).expect("a page under the base");
    let (status, headers, page) =
        send(&router, Request::get(path).body(Body::empty()).unwrap()).await;
    assert_eq!(status, StatusCode::OK, "{page}");
    assert!(
        page.contains("Continue to GitHub") && page.contains(CONNECT_GITHUB),
        "{page}"
    );
    let browser = cookie_set(&headers);
    let token = page
        .split(r#"name="_csrf" value=""#)
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap();
    let form = serde_urlencoded::to_string([("_csrf", token)]).unwrap();
    let pressed = Request::post(path)
        .header(header::COOKIE, &browser)
        .header(header::ORIGIN, ORIGIN)
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(Body::from(form))
        .unwrap();
    let (status, headers, _) = send(&router, pressed).await;
    assert_eq!(status, StatusCode::SEE_OTHER);
    let to_github = headers[header::LOCATION].to_str().unwrap();
    let (at, query) = to_github.split_once('?').unwrap();
    assert_eq!(at, AUTHORIZE);
    let query: Vec<(String, String)> = serde_urlencoded::from_str(query).unwrap();
    let param = |name: &str| {
        query
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
    };
    assert_eq!(param("scope").as_deref(), Some("repo"));
    assert_eq!(
        param("redirect_uri"),
        Some(format!("{BASE}authorized/github"))
    );
    let state = param("state").expect("a state");
    let back = serde_urlencoded::to_string([answer, ("state", &state)]).unwrap();
    let back = Request::get(format!("/elicit/authorized/github?{back}"))
        .header(
            header::COOKIE,
            format!("{browser}; {}", cookie_set(&headers)),
        )
        .body(Body::empty())
        .unwrap();
    send(&router, back).await.2
}

on_both_revisions! {
    async fn a_finished_page_connects_github_and_the_token_stays_in_the_vault(revision) {
        let (store, vault) = (MemoryFlowStore::new(), Vault::default());
        let (token_url, exchanges) = token_endpoint().await;
        let (ops, router) = ops_with_page(&store, &vault, token_url);
        let client = Client::declaring(form_and_url())
            .answering([accept_url()])
            .on_page(move |url| {
                let router = router.clone();
                async move {
                    let page = connect_on_the_page(router, url, ("code", "code-from-github")).await;
                    assert!(page.contains("Saved"), "{page}");
                }
            });
        let s = connect(revision, ops, client).await;
        let result = s.call("connect_github", json!({})).await;
        assert_eq!(result, ok("GitHub is connected (scopes: repo)."));
        let [asked] = &s.asked()[..] else { panic!("asked {:?}", s.asked()) };
        let (message, url, elicitation_id) = url(asked);
        assert_eq!(message, CONNECT_GITHUB);
        // The pages' base and a flow id, nothing more; before 2026-07-28 the flow id is the
        // elicitationId too (2026-07-28 has none: rmcp's client reads the absent member as "").
        let flow = flow_of(&url).to_string();
        assert_eq!(flow.len(), 32, "{url}");
        if revision == Revision::V2025_11_25 {
            assert_eq!(elicitation_id, flow);
        } else {
            assert_eq!(elicitation_id, "");
        }
        // The page exchanged GitHub's code once, as the app, with its PKCE verifier.
        let exchanges = exchanges.lock().unwrap().clone();
        let [(authorization, form)] = &exchanges[..] else { panic!("{exchanges:?}") };
        assert!(authorization.starts_with("Basic "), "{authorization}");
        let sent = |name: &str| form.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str());
        assert_eq!(sent("code"), Some("code-from-github"));
        assert!(sent("code_verifier").is_some_and(|v| v.len() >= 43), "{form:?}");
        // The token is in the vault, for the single user, and nowhere on the wire.
        let vault = vault.lock().unwrap();
        assert_eq!(vault.get("me").map(|t| t.expose_secret().to_owned()).as_deref(), Some(TOKEN));
        assert!(!s.wire().concat().contains(TOKEN), "the token went to the client");
    }
}

on_both_revisions! {
    async fn a_denied_authorization_connects_nothing_and_says_why(revision) {
        let (store, vault) = (MemoryFlowStore::new(), Vault::default());
        let (token_url, exchanges) = token_endpoint().await;
        let (ops, router) = ops_with_page(&store, &vault, token_url);
        let client = Client::declaring(form_and_url())
            .answering([accept_url()])
            .on_page(move |url| {
                let router = router.clone();
                async move {
                    let page = connect_on_the_page(router, url, ("error", "access_denied")).await;
                    assert!(page.contains("Not saved"), "{page}");
                }
            });
        let s = connect(revision, ops, client).await;
        let result = s.call("connect_github", json!({})).await;
        assert_eq!(
            result,
            error("GitHub was not connected: You did not allow this server at GitHub.")
        );
        assert!(vault.lock().unwrap().is_empty());
        assert!(exchanges.lock().unwrap().is_empty(), "no code to exchange");
    }
}

on_both_revisions! {
    /// The user agrees to open the page and never finishes it. Before 2026-07-28 the tool
    /// waits for the page as long as the server waits for an answer; on 2026-07-28 each retry
    /// that accepts waits for the page, and the client is asked again, with the same URL, as
    /// often as it accepts (no re-ask bound: an accept breaks no rule), until it declines.
    async fn a_page_not_finished_connects_nothing(revision) {
        let client = Client::declaring(form_and_url())
            .answering([accept_url(), accept_url(), accept_url(), decline()]);
        let s = connect(revision, waiting(Duration::from_millis(300)), client).await;
        let (text, is_error) = s.call("connect_github", json!({})).await;
        let asked = s.asked();
        if revision == Revision::V2025_11_25 {
            assert!(is_error, "{text}");
            assert_eq!(
                text,
                "The GitHub page was not finished in time, and it is closed now: GitHub was not \
                 connected. Call this tool again for a new page."
            );
            assert_eq!(asked.len(), 1);
        } else {
            assert_eq!((text.as_str(), is_error), ("You declined: GitHub was not connected.", false));
            let [first, again, .., last] = &asked[..] else { panic!("asked {asked:?}") };
            assert_eq!(asked.len(), 4);
            assert_eq!(url(first).1, url(last).1, "the same page");
            assert!(url(again).0.starts_with(CONNECT_GITHUB), "{}", url(again).0);
            assert!(url(again).0.contains("still open"), "{}", url(again).0);
        }
    }
}

on_both_revisions! {
    async fn a_declined_page_is_declined(revision) {
        let client = Client::declaring(form_and_url()).answering([decline()]);
        let s = connect(revision, ops(), client).await;
        let result = s.call("connect_github", json!({})).await;
        assert_eq!(result, ok("You declined: GitHub was not connected."));
        assert_eq!(s.asked().len(), 1);
    }
}

on_both_revisions! {
    async fn a_dismissed_page_is_dismissed(revision) {
        let client = Client::declaring(form_and_url()).answering([cancel()]);
        let s = connect(revision, ops(), client).await;
        let result = s.call("connect_github", json!({})).await;
        assert_eq!(result, ok("You dismissed the request: GitHub was not connected."));
        assert_eq!(s.asked().len(), 1);
    }
}

on_both_revisions! {
    async fn the_url_request_on_the_wire_has_an_elicitation_id_only_before_2026_07_28(revision) {
        let client = Client::declaring(form_and_url()).answering([decline()]);
        let s = connect(revision, ops(), client).await;
        s.call("connect_github", json!({})).await;
        let [line] = &s.questions_on_the_wire()[..] else { panic!("{:?}", s.wire()) };
        assert!(line.contains(r#""mode":"url""#), "{line}");
        if revision == Revision::V2025_11_25 {
            assert!(!line.contains(r#""elicitationId":"""#), "an empty id: {line}");
            assert!(line.contains(r#""elicitationId":""#), "no id: {line}");
        } else {
            assert!(!line.contains("elicitationId"), "2026-07-28 removed it: {line}");
        }
    }
}

on_both_revisions! {
    /// `GITHUB_CLIENT_ID` and `GITHUB_CLIENT_SECRET` unset: the other tools work, and this one
    /// asks nothing and tells its operator what to set and which callback URL to register.
    async fn without_a_github_app_nothing_is_asked_and_the_operator_is_told_what_to_set(revision) {
        let pages = Pages::new(Flows::new(MemoryFlowStore::new(), BASE).unwrap(), SingleUser::named("me").unwrap()).unwrap();
        let (ops, _pages) = ops_server(pages, None, Vault::default()).unwrap();
        let client = Client::declaring(form_and_url()).answering([staging()]);
        let s = connect(revision, ops, client).await;
        let (text, is_error) = s.call("connect_github", json!({})).await;
        assert!(is_error, "{text}");
        assert!(text.starts_with("GitHub is not set up on this server: nothing was asked."), "{text}");
        for named in ["GITHUB_CLIENT_ID", "GITHUB_CLIENT_SECRET", &format!("{BASE}authorized/github")] {
            assert!(text.contains(named), "{named}: {text}");
        }
        assert!(s.asked().is_empty());
        assert_eq!(s.call("deploy", deploy()).await, ok(DEPLOYED));
    }
}
