//! OAuth mix-up (RFC 9700 §4.4; the issue's item 2) on the real path: one server's pages with two
//! authorization pages, `honest` and `evil`, served over HTTP on 127.0.0.1; an honest provider and
//! a malicious one, each an axum server on 127.0.0.1; and a browser (a cookie jar over raw
//! HTTP/1.1) that follows their redirects.
//!
//! The attack: the user presses "Continue" on the `evil` page; the malicious provider's
//! authorization endpoint sends the browser on to the honest provider with the honest page's
//! client id and the same `state`, PKCE challenge and redirect URI (or the honest page's). The
//! honest provider's code must never reach the malicious token endpoint, which keeps every
//! request it is sent.
//!
//! `cargo test -p elicit-examples --features oauth --test page_mix_up`

use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::State;
use axum::http::{StatusCode, Uri, header};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use mcp_elicit::page::{AuthorizationPage, Pages, SingleUser, Token};
use mcp_elicit::url_mode::{FlowId, FlowStatus, MemoryFlowStore};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

#[path = "common/pages_over_http.rs"]
mod pages_over_http;

use pages_over_http::page_site;
use pages_over_http::{Loopback, csrf, serve};

const HONEST_CLIENT: &str = "honest-client";
const EVIL_CLIENT: &str = "evil-client";
const HONEST_CODE: &str = "code-from-the-honest-provider";

/// What a provider's token endpoint was sent: each request's form.
type Sent = Arc<Mutex<Vec<Vec<(String, String)>>>>;

/// How the honest provider answers.
#[derive(Clone)]
struct Honest {
    /// Its issuer identifier.
    issuer: String,
    /// The only redirect URI registered for [`HONEST_CLIENT`].
    registered: String,
    /// Whether it matches redirect URIs exactly (RFC 9700 §2.1), or takes any under the
    /// registered one's origin (as some providers do).
    exact: bool,
    /// The `iss` it puts in its answer (RFC 9207), if any.
    iss: Option<String>,
}

#[derive(serde::Deserialize)]
struct AuthorizationRequest {
    client_id: String,
    redirect_uri: String,
    state: String,
}

/// The honest provider's authorization endpoint: the user is signed in and has consented, so a
/// request from its client with a registered redirect URI gets a code at once.
async fn honest_authorize(State(honest): State<Honest>, uri: Uri) -> Response {
    let Ok(request) = serde_urlencoded::from_str::<AuthorizationRequest>(uri.query().unwrap_or(""))
    else {
        return (StatusCode::BAD_REQUEST, "invalid request").into_response();
    };
    let origin = |url: &str| url.split('/').take(3).collect::<Vec<_>>().join("/");
    let allowed = if honest.exact {
        request.redirect_uri == honest.registered
    } else {
        origin(&request.redirect_uri) == origin(&honest.registered)
    };
    if request.client_id != HONEST_CLIENT || !allowed {
        return (StatusCode::BAD_REQUEST, "invalid redirect_uri").into_response();
    }
    let mut answer = vec![("code", HONEST_CODE), ("state", request.state.as_str())];
    if let Some(iss) = &honest.iss {
        answer.push(("iss", iss.as_str()));
    }
    let query = serde_urlencoded::to_string(answer).unwrap();
    Redirect::to(&format!("{}?{query}", request.redirect_uri)).into_response()
}

/// A token endpoint that keeps what it is sent and gives a token for any code.
async fn token(State(sent): State<Sent>, body: axum::body::Bytes) -> Response {
    sent.lock()
        .unwrap()
        .push(serde_urlencoded::from_bytes(&body).unwrap());
    (
        [(header::CONTENT_TYPE, "application/json")],
        r#"{"access_token":"a-token","token_type":"bearer"}"#,
    )
        .into_response()
}

/// The malicious provider's authorization endpoint: it sends the browser on to the honest
/// provider's, as the honest page's client, with this request's `state`, PKCE challenge and
/// redirect URI (or, `substitute`, the honest page's).
#[derive(Clone)]
struct Evil {
    honest_authorize: String,
    substitute: Option<String>,
    tokens: Sent,
}

async fn evil_authorize(State(evil): State<Evil>, uri: Uri) -> Response {
    let mut query: Vec<(String, String)> =
        serde_urlencoded::from_str(uri.query().unwrap_or("")).unwrap();
    for (name, value) in &mut query {
        if name == "client_id" {
            *value = HONEST_CLIENT.to_owned();
        }
        if let (true, Some(substitute)) = (name == "redirect_uri", &evil.substitute) {
            value.clone_from(substitute);
        }
    }
    let query = serde_urlencoded::to_string(query).unwrap();
    Redirect::to(&format!("{}?{query}", evil.honest_authorize)).into_response()
}

async fn serve_on_loopback(router: Router) -> String {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
        .await
        .unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await });
    format!("http://{address}")
}

/// The world: the pages, the two providers, what each token endpoint was sent.
struct World {
    base: String,
    store: MemoryFlowStore,
    honest_tokens: Sent,
    evil_tokens: Sent,
    /// What the `honest` page's sink received: the principal, for each token.
    connected: Arc<Mutex<Vec<String>>>,
}

/// How the world is set up: the honest provider's ways and the `honest` page's `issuer`.
struct Setup {
    exact: bool,
    iss: Iss,
    /// The malicious provider sends the honest page's redirect URI, not the one it was sent.
    substitute: bool,
    /// The `honest` page is told its provider's issuer.
    issuer_set: bool,
}

#[derive(Clone, Copy)]
enum Iss {
    /// The honest provider names itself.
    Own,
    /// It names another issuer.
    Other,
    /// It names none.
    Absent,
}

async fn world(setup: Setup) -> World {
    let Loopback {
        listener,
        base,
        store,
        flows,
        ..
    } = Loopback::bind().await;

    // The honest provider: its URL is needed for its own issuer, so bind first.
    let honest_listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
        .await
        .unwrap();
    let honest_url = format!("http://{}", honest_listener.local_addr().unwrap());
    let honest_tokens = Sent::default();
    let honest = Honest {
        issuer: honest_url.clone(),
        registered: AuthorizationPage::redirect_uri_for("honest", &flows),
        exact: setup.exact,
        iss: match setup.iss {
            Iss::Own => Some(honest_url.clone()),
            Iss::Other => Some("https://someone-else.example".to_owned()),
            Iss::Absent => None,
        },
    };
    let honest_router = Router::new()
        .route("/authorize", get(honest_authorize))
        .with_state(honest.clone())
        .merge(
            Router::new()
                .route("/token", post(token))
                .with_state(Arc::clone(&honest_tokens)),
        );
    tokio::spawn(async move { axum::serve(honest_listener, honest_router).await });

    let evil_tokens = Sent::default();
    let evil = Evil {
        honest_authorize: format!("{honest_url}/authorize"),
        substitute: setup
            .substitute
            .then(|| AuthorizationPage::redirect_uri_for("honest", &flows)),
        tokens: Arc::clone(&evil_tokens),
    };
    let evil_url = serve_on_loopback(
        Router::new()
            .route("/authorize", get(evil_authorize))
            .route("/token", post(token).with_state(Arc::clone(&evil.tokens)))
            .with_state(evil),
    )
    .await;

    let connected = Arc::new(Mutex::new(Vec::new()));
    let mut honest_page = AuthorizationPage::new(
        "honest",
        "Honest",
        &format!("{honest_url}/authorize"),
        &format!("{honest_url}/token"),
        HONEST_CLIENT,
        None,
        &flows,
    )
    .unwrap();
    if setup.issuer_set {
        honest_page = honest_page.issuer(honest.issuer.clone());
    }
    let evil_page = AuthorizationPage::new(
        "evil",
        "Evil",
        &format!("{evil_url}/authorize"),
        &format!("{evil_url}/token"),
        EVIL_CLIENT,
        None,
        &flows,
    )
    .unwrap();
    let kept = Arc::clone(&connected);
    let router = Pages::new(flows, SingleUser::named("me").unwrap())
        .unwrap()
        .authorization(honest_page, move |user: String, _: Token| {
            kept.lock().unwrap().push(user.to_owned());
            Ok(json!({ "connected": "Honest" }))
        })
        .authorization(evil_page, |_, _: Token| Ok(json!({ "connected": "Evil" })))
        .router();
    serve(listener, router);
    World {
        base,
        store,
        honest_tokens,
        evil_tokens,
        connected,
    }
}

impl World {
    /// A flow of the single user's on `page`.
    fn flow_on(&self, page: &str) -> FlowId {
        page_site::begin(&self.store, page, "me")
    }

    fn status(&self, id: &FlowId) -> FlowStatus {
        page_site::status(&self.store, id)
    }

    /// The code came back to the address of `page` (the last the browser went to, returned)
    /// and was refused there (`403`, saying `why`): no token endpoint was sent it, nothing was
    /// connected, and flow `id` is still open for its owner (refused before it was touched).
    fn assert_refused_at(
        &self,
        page: &str,
        id: &FlowId,
        last: &Answer,
        visited: &[String],
        why: &str,
    ) -> String {
        let back = visited.last().unwrap();
        let address = format!("{}authorized/{page}?", self.base);
        assert!(back.starts_with(&address), "{visited:?}");
        assert_eq!(last.status, 403, "{}", last.body);
        assert!(last.body.contains(why), "{}", last.body);
        self.assert_evil_sent_nothing();
        assert!(self.honest_tokens.lock().unwrap().is_empty());
        assert!(self.connected.lock().unwrap().is_empty());
        assert_eq!(self.status(id), FlowStatus::Opened);
        back.clone()
    }

    /// The malicious provider's token endpoint was sent nothing: no code reached it.
    fn assert_evil_sent_nothing(&self) {
        let sent = self.evil_tokens.lock().unwrap();
        assert!(
            sent.is_empty(),
            "the evil token endpoint was sent a code: {sent:?}"
        );
    }
}

/// An HTTP response, as the browser reads it.
struct Answer {
    status: u16,
    location: Option<String>,
    set_cookies: Vec<String>,
    body: String,
}

/// A browser: one cookie jar (for the pages' host: the providers set none), raw HTTP/1.1 over
/// loopback.
#[derive(Default)]
struct Browser {
    cookies: Vec<(String, String)>,
}

impl Browser {
    async fn request(&mut self, method: &str, url: &str, form: Option<String>) -> Answer {
        let uri: Uri = url.parse().unwrap();
        let authority = uri.authority().unwrap().as_str().to_owned();
        let port = uri.port_u16().unwrap();
        let target = uri.path_and_query().unwrap().as_str();
        let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .unwrap();
        let mut head =
            format!("{method} {target} HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n");
        if uri.host() == Some("localhost") && !self.cookies.is_empty() {
            let jar: Vec<String> = self
                .cookies
                .iter()
                .map(|(n, v)| format!("{n}={v}"))
                .collect();
            head.push_str(&format!("Cookie: {}\r\n", jar.join("; ")));
        }
        let body = form.unwrap_or_default();
        if method == "POST" {
            // The page's own form, as a browser posts it.
            let origin = format!("http://{authority}");
            head.push_str(&format!(
                "Origin: {origin}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n",
                body.len()
            ));
        }
        head.push_str("\r\n");
        stream.write_all(head.as_bytes()).await.unwrap();
        stream.write_all(body.as_bytes()).await.unwrap();
        let mut raw = Vec::new();
        stream.read_to_end(&mut raw).await.unwrap();
        let raw = String::from_utf8(raw).unwrap();
        let (head, body) = raw.split_once("\r\n\r\n").unwrap();
        let mut lines = head.lines();
        let status = lines
            .next()
            .unwrap()
            .split(' ')
            .nth(1)
            .unwrap()
            .parse()
            .unwrap();
        let mut answer = Answer {
            status,
            location: None,
            set_cookies: Vec::new(),
            body: body.to_owned(),
        };
        for line in lines {
            let (name, value) = line.split_once(": ").unwrap();
            match name.to_ascii_lowercase().as_str() {
                "location" => answer.location = Some(value.to_owned()),
                "set-cookie" => answer.set_cookies.push(value.to_owned()),
                _ => {}
            }
        }
        for set in &answer.set_cookies {
            let pair = set.split(';').next().unwrap();
            let (name, value) = pair.split_once('=').unwrap();
            self.cookies.retain(|(n, _)| n != name);
            if !value.is_empty() {
                self.cookies.push((name.to_owned(), value.to_owned()));
            }
        }
        answer
    }

    /// Opens the page of flow `id`, presses its button, and follows the redirects: the last
    /// answer, and the URLs the browser went through.
    async fn connect(&mut self, world: &World, id: &FlowId) -> (Answer, Vec<String>) {
        let page = format!("{}{id}", world.base);
        let shown = self.request("GET", &page, None).await;
        assert_eq!(shown.status, 200, "{}", shown.body);
        let token = csrf(&shown.body).replace("&#x2F;", "/");
        let form = serde_urlencoded::to_string([("_csrf", token.as_str())]).unwrap();
        let mut answer = self.request("POST", &page, Some(form)).await;
        let mut visited = Vec::new();
        while let Some(next) = answer.location.clone() {
            assert!(visited.len() < 5, "too many redirects: {visited:?}");
            visited.push(next.clone());
            answer = self.request("GET", &next, None).await;
        }
        (answer, visited)
    }
}

/// The world `setup` makes, and a flow of `page` the user connects in a browser (pressing its
/// button, following every redirect): the world, the flow, the last answer and the URLs the
/// browser went through.
async fn connected_on(setup: Setup, page: &str) -> (World, FlowId, Answer, Vec<String>) {
    let world = world(setup).await;
    let id = world.flow_on(page);
    let (last, visited) = Browser::default().connect(&world, &id).await;
    (world, id, last, visited)
}

/// An honest provider that matches redirect URIs exactly refuses the malicious provider's bounce
/// (the `evil` page's redirect URI is not its client's): no code is issued, none is sent to any
/// token endpoint. With one redirect URI for every page, this is the attack that worked.
#[tokio::test]
async fn a_bounce_with_the_evil_pages_redirect_uri_gets_no_code_from_an_exact_provider() {
    let (world, id, last, visited) = connected_on(
        Setup {
            exact: true,
            iss: Iss::Absent,
            substitute: false,
            issuer_set: false,
        },
        "evil",
    )
    .await;
    world.assert_evil_sent_nothing();
    assert_eq!(last.status, 400, "{visited:?}: {}", last.body);
    assert!(last.body.contains("invalid redirect_uri"), "{}", last.body);
    assert!(world.honest_tokens.lock().unwrap().is_empty());
    assert_eq!(world.status(&id), FlowStatus::Opened);
}

/// The malicious provider sends the honest page's redirect URI instead: the honest provider's
/// code comes back to the `honest` page's address, but the authorization this browser started
/// was the `evil` page's. Refused, and the code is sent nowhere. The honest provider names no
/// issuer here, so the redirect URI per page is the only defence at work.
#[tokio::test]
async fn a_code_that_comes_back_to_another_pages_redirect_uri_is_refused_and_sent_nowhere() {
    let (world, id, last, visited) = connected_on(
        Setup {
            exact: true,
            iss: Iss::Absent,
            substitute: true,
            issuer_set: false,
        },
        "evil",
    )
    .await;
    world.assert_refused_at("honest", &id, &last, &visited, "another page");
}

/// A provider that takes any redirect URI on the pages' origin sends its code to the `evil`
/// page's own address; it names itself (RFC 9207), and the `evil` page's provider names none:
/// refused, and the code is sent nowhere.
#[tokio::test]
async fn an_answer_that_names_an_issuer_the_page_does_not_expect_is_refused() {
    let (world, id, last, visited) = connected_on(
        Setup {
            exact: false,
            iss: Iss::Own,
            substitute: false,
            issuer_set: true,
        },
        "evil",
    )
    .await;
    let back = world.assert_refused_at("evil", &id, &last, &visited, "another provider");
    assert!(back.contains("iss="), "{back}");
}

/// The `honest` page knows its provider's issuer: its own answer connects (the token endpoint is
/// sent the code once); an answer naming another issuer, or none, is refused and sent nowhere.
#[tokio::test]
async fn a_page_that_knows_its_issuer_takes_only_answers_that_name_it() {
    for (iss, connects) in [(Iss::Own, true), (Iss::Other, false), (Iss::Absent, false)] {
        let setup = Setup {
            exact: true,
            iss,
            substitute: false,
            issuer_set: true,
        };
        let (world, id, last, _) = connected_on(setup, "honest").await;
        let sent = world.honest_tokens.lock().unwrap().clone();
        if connects {
            assert_eq!(last.status, 200, "{}", last.body);
            assert!(last.body.contains("Saved"), "{}", last.body);
            let [form] = &sent[..] else {
                panic!("{sent:?}")
            };
            assert!(
                form.contains(&("code".to_owned(), HONEST_CODE.to_owned())),
                "{form:?}"
            );
            assert_eq!(
                world.connected.lock().unwrap().as_slice(),
                ["me".to_owned()]
            );
            assert!(matches!(world.status(&id), FlowStatus::Completed(_)));
        } else {
            assert_eq!(last.status, 403, "{}", last.body);
            assert!(sent.is_empty(), "{sent:?}");
            assert!(world.connected.lock().unwrap().is_empty());
            assert_eq!(world.status(&id), FlowStatus::Opened);
        }
        world.assert_evil_sent_nothing();
    }
}
