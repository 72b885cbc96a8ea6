//! A server's own sign-in on the pages, over real HTTP on loopback (each browser a reqwest cookie
//! jar): the token sign-in ([`TokenSignIn`]) served by `Pages::bind_loopback_with`, a closure
//! ([`identity_fn`]) behind the app's own axum layer, and `HttpPrincipal` as the pages' identity.
//! Every refusal, on every way of serving.
//!
//! `cargo test -p elicit-examples --features oauth --test page_sign_in`

use std::sync::{Arc, Mutex};

use axum::Router;
use axum::http::header;
use mcp_elicit::page::{
    Identity, PageError, Pages, Parts, SecretString, SignedIn, SingleUser, TokenSignIn, Verdict,
    identity_fn,
};
use mcp_elicit::rmcp::{AskConfig, AskConfigError, HttpPrincipal};
use mcp_elicit::url_mode::{Flows, MemoryFlowStore};

#[path = "common/pages_over_http.rs"]
mod pages_over_http;

use pages_over_http::page_site::{self, Stored, with_api_key_page};
use pages_over_http::{Loopback, Reply, browser, csrf, get, post, reply, serve};

const KEY: &str = "sk-live-0123456789abcdef";
const ACCOUNTS: &str =
    "# principal:token\nalice:alice-token-0123456789\nbob:bob-token-9876543210\n";

/// Pages being served, and what a test needs of them.
struct Site {
    flows: Flows,
    base: String,
    port: u16,
    stored: Stored,
}

impl Site {
    /// `identity`'s pages on loopback, bound and served by the library, through `layers`.
    async fn on_loopback(
        identity: impl Identity,
        layers: impl FnOnce(Router) -> Router + Send + 'static,
    ) -> Site {
        let stored = Stored::default();
        let pages = with_api_key_page(Pages::bind_loopback_with(identity).await.unwrap(), &stored);
        let flows = pages.flows().clone();
        let base = flows.base().as_str().to_owned();
        let port = flows.base().port().unwrap();
        tokio::spawn(pages.serve_with(layers));
        Site {
            flows,
            base,
            port,
            stored,
        }
    }

    /// `identity`'s pages mounted in an app of the server's own (as an HTTP server mounts them
    /// beside rmcp's service), inside the app's `layers`.
    async fn in_app(identity: impl Identity, layers: impl FnOnce(Router) -> Router) -> Site {
        Site::in_app_with(MemoryFlowStore::new(), identity, layers).await
    }

    /// As [`in_app`](Site::in_app), the flows kept in `store`.
    async fn in_app_with(
        store: MemoryFlowStore,
        identity: impl Identity,
        layers: impl FnOnce(Router) -> Router,
    ) -> Site {
        let loopback = Loopback::bind_with(store).await;
        let stored = Stored::default();
        let pages = Pages::new(loopback.flows.clone(), identity).unwrap();
        let app = layers(Router::new().merge(with_api_key_page(pages, &stored).router()));
        serve(loopback.listener, app);
        Site {
            flows: loopback.flows,
            base: loopback.base,
            port: loopback.port,
            stored,
        }
    }

    async fn flow_for(&self, user: &str) -> String {
        let (id, flow, now) = page_site::pending("api_key", user);
        self.flows.store().begin(flow, now).await.unwrap();
        format!("{}{id}", self.base)
    }

    fn origin(&self) -> String {
        format!("http://localhost:{}", self.port)
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    fn stored(&self) -> Vec<(String, String)> {
        self.stored.lock().unwrap().clone()
    }
}

fn tokens() -> TokenSignIn {
    TokenSignIn::from_lines(ACCOUNTS).unwrap()
}

/// Signs `client` in as `principal` with `token` through the sign-in form, coming back to `next`.
async fn sign_in(
    site: &Site,
    client: &reqwest::Client,
    principal: &str,
    token: &str,
    next: &str,
) -> Reply {
    let form = get(client, &site.url(&format!("signin?next={next}"))).await;
    assert_eq!(form.status, 200, "{}", form.body);
    let token_field = csrf(&form.body);
    post(
        client,
        &site.origin(),
        &site.url("signin"),
        &[
            ("_csrf", &token_field),
            ("next", next),
            ("principal", principal),
            ("token", token),
        ],
    )
    .await
}

/// The sign-out tests' opening: a page of Alice's on `site`, `alice` signed in with her token
/// through the sign-in form, and the page opened there. Its URL and its path.
async fn alice_signed_in(site: &Site, alice: &reqwest::Client) -> (String, String) {
    let page = site.flow_for("alice").await;
    let path = page.strip_prefix(&site.origin()).unwrap().to_owned();
    sign_in(site, alice, "alice", "alice-token-0123456789", &path).await;
    assert_eq!(get(alice, &page).await.status, 200);
    (page, path)
}

/// `browser`'s sign-out form sent with `csrf_from`'s token (the form page it fetched): what
/// the pages answered.
async fn send_sign_out(site: &Site, browser: &reqwest::Client, csrf_from: &Reply) -> Reply {
    post(
        browser,
        &site.origin(),
        &site.url("signout"),
        &[("_csrf", &csrf(&csrf_from.body))],
    )
    .await
}

#[tokio::test]
async fn with_a_token_sign_in_a_page_sends_the_user_to_sign_in_then_shows_it_as_theirs() {
    let site = Site::on_loopback(tokens(), |router| router).await;
    let page = site.flow_for("alice").await;
    let path = page.strip_prefix(&site.origin()).unwrap().to_owned();
    let alice = browser();

    let first = get(&alice, &page).await;
    assert_eq!(first.status, 303, "{}", first.body);
    let to = first.location.unwrap();
    assert!(to.starts_with("/elicit/signin?next="), "{to}");
    assert!(to.contains(&path.replace('/', "%2F")), "{to}");

    let signed_in = sign_in(&site, &alice, "alice", "alice-token-0123456789", &path).await;
    assert_eq!(signed_in.status, 303, "{}", signed_in.body);
    assert_eq!(signed_in.location.as_deref(), Some(path.as_str()));
    let session = format!("elicit-session-{}=", site.port);
    assert!(
        signed_in
            .set_cookie
            .iter()
            .any(|cookie| cookie.starts_with(&session)
                && cookie.contains("HttpOnly")
                && cookie.contains("SameSite=Lax")),
        "{:?}",
        signed_in.set_cookie
    );
    // The token never goes in a URL.
    assert!(!to.contains("token") && !path.contains("token"));

    let shown = get(&alice, &page).await;
    assert_eq!(shown.status, 200, "{}", shown.body);
    assert!(
        shown.body.contains("Signed in as <strong>alice</strong>"),
        "{}",
        shown.body
    );
    assert!(
        shown.body.contains(r#"href="/elicit/signout""#),
        "{}",
        shown.body
    );
    let posted = post(
        &alice,
        &site.origin(),
        &page,
        &[("_csrf", &csrf(&shown.body)), ("key", KEY)],
    )
    .await;
    assert_eq!(posted.status, 200, "{}", posted.body);
    assert_eq!(site.stored(), [("alice".to_owned(), KEY.to_owned())]);

    // Bob's flow is not Alice's.
    let bobs = site.flow_for("bob").await;
    let refused = get(&alice, &bobs).await;
    assert_eq!(refused.status, 403, "{}", refused.body);
    assert!(
        refused.body.contains("This page is for another user"),
        "{}",
        refused.body
    );
}

#[tokio::test]
async fn a_wrong_token_or_an_unknown_name_is_refused_alike_and_signs_no_one_in() {
    let site = Site::on_loopback(tokens(), |router| router).await;
    let page = site.flow_for("alice").await;
    let path = page.strip_prefix(&site.origin()).unwrap().to_owned();
    for (principal, token) in [
        ("alice", "alice-token-012345678"),
        ("alice", "alice-token-0123456789-and-more"),
        ("alice", ""),
        ("alice", "bob-token-9876543210"),
        ("mallory", "alice-token-0123456789"),
        ("", "alice-token-0123456789"),
    ] {
        let client = browser();
        let refused = sign_in(&site, &client, principal, token, &path).await;
        assert_eq!(refused.status, 403, "{principal}:{token}: {}", refused.body);
        assert!(
            refused
                .body
                .contains("That name and token do not match an account."),
            "{}",
            refused.body
        );
        assert!(
            !refused
                .set_cookie
                .iter()
                .any(|cookie| cookie.starts_with("elicit-session")),
            "{:?}",
            refused.set_cookie
        );
        assert_eq!(get(&client, &page).await.status, 303, "{principal}:{token}");
    }
    assert!(site.stored().is_empty());
}

#[tokio::test]
async fn the_sign_in_form_takes_only_its_own_token_from_its_own_origin() {
    let site = Site::on_loopback(tokens(), |router| router).await;
    let page = site.flow_for("alice").await;
    let path = page.strip_prefix(&site.origin()).unwrap().to_owned();
    let alice = browser();
    let form = get(&alice, &site.url("signin")).await;
    let token = csrf(&form.body);
    let fields = |csrf: &'static str| {
        vec![
            ("_csrf", csrf),
            ("principal", "alice"),
            ("token", "alice-token-0123456789"),
        ]
    };
    // No token, and another browser's token.
    let other = browser();
    let others = csrf(&get(&other, &site.url("signin")).await.body);
    for csrf_token in ["", "garbage", others.as_str()] {
        let mut form = fields("");
        form[0].1 = csrf_token;
        let refused = post(&alice, &site.origin(), &site.url("signin"), &form).await;
        assert_eq!(refused.status, 403, "{}", refused.body);
        assert!(
            refused
                .body
                .contains("This form was not sent from its page"),
            "{}",
            refused.body
        );
        assert!(
            refused
                .set_cookie
                .iter()
                .all(|c| !c.starts_with("elicit-session"))
        );
    }
    // The right token, from another site.
    let mut form = fields("");
    form[0].1 = &token;
    let refused = post(&alice, "http://evil.example", &site.url("signin"), &form).await;
    assert_eq!(refused.status, 403, "{}", refused.body);
    assert!(
        refused
            .body
            .contains("This form was sent from another site"),
        "{}",
        refused.body
    );
    assert_eq!(get(&alice, &page).await.status, 303);
    // And from its page: signed in, sent back to the pages only.
    let signed_in = post(
        &alice,
        &site.origin(),
        &site.url("signin"),
        &[
            ("_csrf", &token),
            ("next", "https://evil.example/"),
            ("principal", "alice"),
            ("token", "alice-token-0123456789"),
        ],
    )
    .await;
    assert_eq!(signed_in.status, 303, "{}", signed_in.body);
    assert_eq!(signed_in.location.as_deref(), Some("/elicit/"));
    assert_eq!(get(&alice, &page).await.status, 200);
    let _ = path;
}

#[tokio::test]
async fn a_token_session_is_ended_by_its_sign_out_form_only() {
    let site = Site::on_loopback(tokens(), |router| router).await;
    let alice = browser();
    let (page, _) = alice_signed_in(&site, &alice).await;
    let sign_out = get(&alice, &site.url("signout")).await;
    assert_eq!(sign_out.status, 200);
    assert!(
        sign_out.body.contains("<strong>alice</strong>"),
        "{}",
        sign_out.body
    );
    let refused = post(
        &alice,
        &site.origin(),
        &site.url("signout"),
        &[("_csrf", "garbage")],
    )
    .await;
    assert_eq!(refused.status, 403, "{}", refused.body);
    assert_eq!(get(&alice, &page).await.status, 200, "still signed in");
    let done = send_sign_out(&site, &alice, &sign_out).await;
    assert_eq!(done.status, 200, "{}", done.body);
    assert!(done.body.contains("Signed out"), "{}", done.body);
    assert_eq!(get(&alice, &page).await.status, 303, "signed out");
}

/// A browser whose cookie jar a test can read and fill: [`browser`], with `jar`.
fn browser_with(jar: &Arc<reqwest::cookie::Jar>) -> reqwest::Client {
    reqwest::Client::builder()
        .cookie_provider(Arc::clone(jar))
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

/// Every cookie `from` sends to the pages at `base`, copied into `to`: a copy of the browser's
/// profile (a shared profile; or, on loopback, a server on another port under the same path).
fn copy_cookies(from: &reqwest::cookie::Jar, to: &reqwest::cookie::Jar, base: &str) {
    use reqwest::cookie::CookieStore;
    let url: reqwest::Url = base.parse().unwrap();
    let sent = from
        .cookies(&url)
        .expect("the browser holds cookies for the pages");
    for pair in sent.to_str().unwrap().split("; ") {
        to.add_cookie_str(&format!("{pair}; Path=/"), &url);
    }
}

/// Issue 42: sign-out ends the session wherever its cookie is. Alice's browser profile is
/// copied (every cookie: the browser's name and the session) into a second browser, which opens
/// her page as her; she signs out in the first; the copy is then sent to sign in (303), its
/// sign-out page says it is not signed in, and a sign-out form it fetched before is refused.
/// She signs in again in her browser: a new session, which opens.
#[tokio::test]
async fn a_session_signed_out_in_one_browser_is_ended_in_a_copy_of_its_cookies() {
    let site = Site::on_loopback(tokens(), |router| router).await;
    let (hers, copy) = (Arc::default(), Arc::default());
    let alice = browser_with(&hers);
    let copied = browser_with(&copy);
    let (page, path) = alice_signed_in(&site, &alice).await;
    copy_cookies(&hers, &copy, &site.base);
    let opened = get(&copied, &page).await;
    assert_eq!(
        opened.status, 200,
        "the copy is a whole copy: {}",
        opened.body
    );
    let copys_form = get(&copied, &site.url("signout")).await;
    assert!(
        copys_form.body.contains("<strong>alice</strong>"),
        "{}",
        copys_form.body
    );

    let sign_out = get(&alice, &site.url("signout")).await;
    let done = send_sign_out(&site, &alice, &sign_out).await;
    assert_eq!(done.status, 200, "{}", done.body);
    assert!(done.body.contains("Signed out"), "{}", done.body);

    let refused = get(&copied, &page).await;
    assert_eq!(
        refused.status, 303,
        "the copy is signed out: {}",
        refused.body
    );
    let location = refused.location.as_deref().unwrap_or_default();
    assert!(location.contains("signin"), "{location}");
    let not_signed_in = get(&copied, &site.url("signout")).await;
    assert!(
        not_signed_in.body.contains("You are not signed in"),
        "{}",
        not_signed_in.body
    );
    let late = send_sign_out(&site, &copied, &copys_form).await;
    assert_eq!(late.status, 403, "{}", late.body);

    sign_in(&site, &alice, "alice", "alice-token-0123456789", &path).await;
    assert_eq!(get(&alice, &page).await.status, 200, "a new session opens");
    assert_eq!(
        get(&copied, &page).await.status,
        303,
        "the old one stays ended"
    );
}

/// A sign-out the flows' store cannot keep (it keeps as many signed-out sessions as it may) is
/// not taken for done: the page says so (503, "still signed in"), the cookie is not cleared,
/// and the browser stays signed in, rather than leave copies of a session the person believes
/// ended.
#[tokio::test]
async fn a_sign_out_the_store_cannot_keep_says_so_and_the_browser_stays_signed_in() {
    let store = MemoryFlowStore::new().with_max_ended_sessions(0);
    let site = Site::in_app_with(store, tokens(), |router| router).await;
    let alice = browser();
    let (page, _) = alice_signed_in(&site, &alice).await;
    let sign_out = get(&alice, &site.url("signout")).await;
    let refused = send_sign_out(&site, &alice, &sign_out).await;
    assert_eq!(refused.status, 503, "{}", refused.body);
    assert!(
        refused.body.contains("You are still signed in"),
        "{}",
        refused.body
    );
    assert!(refused.set_cookie.is_empty(), "{:?}", refused.set_cookie);
    assert_eq!(get(&alice, &page).await.status, 200, "still signed in");
}

#[tokio::test]
async fn bind_loopback_with_keeps_the_host_check() {
    let site = Site::on_loopback(tokens(), |router| router).await;
    let page = site.flow_for("alice").await;
    let path = page.strip_prefix(&site.origin()).unwrap().to_owned();
    let rebound = format!("http://127.0.0.1:{}{path}", site.port);
    let refused = reqwest::Client::new()
        .get(&rebound)
        .header(header::HOST, format!("evil.example:{}", site.port))
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 421);
    let sign_in = reqwest::Client::new()
        .get(format!("http://127.0.0.1:{}/elicit/signin", site.port))
        .header(header::HOST, format!("evil.example:{}", site.port))
        .send()
        .await
        .unwrap();
    assert_eq!(sign_in.status(), 421, "the identity's routes too");
}

/// What the app's own middleware leaves on a request: its signed-in user.
#[derive(Clone)]
struct AppUser(String);

/// The app's authentication layer: the `x-user` header names the user (a session, in a real app).
fn app_layer(router: Router) -> Router {
    router.layer(axum::middleware::from_fn(
        |mut request: axum::extract::Request, next: axum::middleware::Next| async move {
            if let Some(user) = request
                .headers()
                .get("x-user")
                .and_then(|user| user.to_str().ok())
                .map(str::to_owned)
            {
                request.extensions_mut().insert(AppUser(user));
            }
            next.run(request).await
        },
    ))
}

/// The app's sign-in as one sync closure: its user, else to `/login`; `banned` refused.
fn app_identity() -> impl Identity {
    identity_fn(
        |request: &Parts| match request.extensions.get::<AppUser>() {
            Some(AppUser(user)) if user == "banned" => {
                Verdict::refused("Your account is suspended.")
            }
            Some(AppUser(user)) => Verdict::SignedIn(
                SignedIn::new(user.clone())
                    .with_name(format!("{user}@example.com"))
                    .with_sign_out("/logout"),
            ),
            None => Verdict::sign_in_at("/login"),
        },
    )
}

/// `page` as the app's user `user` sees it (its `x-user` header; `None`: not signed in to the
/// app), in a browser that follows no redirect.
async fn as_app_user(page: &str, user: Option<&str>) -> Reply {
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let mut request = client.get(page);
    if let Some(user) = user {
        request = request.header("x-user", user);
    }
    reply(request.send().await.unwrap()).await
}

/// `reply` shows the page, signed in as `name`.
fn assert_shown_as(reply: &Reply, name: &str) {
    assert_eq!(reply.status, 200, "{}", reply.body);
    let signed_in = format!("Signed in as <strong>{name}</strong>");
    assert!(reply.body.contains(&signed_in), "{}", reply.body);
}

/// `reply` is the pages' refusal (`403`), saying each of `words`.
fn assert_refused_saying(reply: &Reply, words: &[&str]) {
    assert_eq!(reply.status, 403, "{}", reply.body);
    for words in words {
        assert!(reply.body.contains(words), "{words:?}: {}", reply.body);
    }
}

async fn closure_verdicts_on(site: Site) {
    let page = site.flow_for("alice").await;
    let path = page.strip_prefix(&site.origin()).unwrap().to_owned();
    let shown = as_app_user(&page, Some("alice")).await;
    assert_shown_as(&shown, "alice@example.com");
    assert!(shown.body.contains(r#"href="/logout""#), "{}", shown.body);

    let to_sign_in = as_app_user(&page, None).await;
    assert_eq!(to_sign_in.status, 303);
    assert_eq!(
        to_sign_in.location.as_deref(),
        Some(format!("/login?next={}", path.replace('/', "%2F")).as_str())
    );

    let refused = as_app_user(&page, Some("banned")).await;
    assert_refused_saying(
        &refused,
        &["You may not open this page", "Your account is suspended."],
    );
    let not_theirs = as_app_user(&page, Some("bob")).await;
    assert_refused_saying(&not_theirs, &["This page is for another user"]);
}

#[tokio::test]
async fn a_closure_reads_the_apps_own_layer_mounted_in_the_app() {
    closure_verdicts_on(Site::in_app(app_identity(), app_layer).await).await;
}

#[tokio::test]
async fn a_closure_reads_the_apps_own_layer_on_loopback_through_serve_with() {
    closure_verdicts_on(Site::on_loopback(app_identity(), app_layer).await).await;
}

#[tokio::test]
async fn an_async_closure_is_an_identity_too() {
    let identity = identity_fn(|request: &Parts| {
        let user = request.extensions.get::<AppUser>().cloned();
        async move {
            tokio::task::yield_now().await;
            match user {
                Some(AppUser(user)) => Verdict::signed_in(user),
                None => Verdict::refused("Sign in to the app first."),
            }
        }
    });
    let site = Site::in_app(identity, app_layer).await;
    let page = site.flow_for("alice").await;
    assert_shown_as(&as_app_user(&page, Some("alice")).await, "alice");
    let refused = as_app_user(&page, None).await;
    assert_refused_saying(&refused, &["Sign in to the app first."]);
}

#[tokio::test]
async fn http_principal_is_the_pages_identity_and_refuses_whom_it_names_no_one() {
    let principal = HttpPrincipal::new(|request| {
        request
            .extensions
            .get::<AppUser>()
            .map(|AppUser(user)| user.clone())
    });
    let site = Site::in_app(principal.clone(), app_layer).await;
    let page = site.flow_for("alice").await;
    assert_shown_as(&as_app_user(&page, Some("alice")).await, "alice");
    for user in [None, Some(""), Some(" ")] {
        let refused = as_app_user(&page, user).await;
        assert_refused_saying(
            &refused,
            &[
                "You may not open this page",
                "names no one for this request",
            ],
        );
    }
}

/// An identity written by hand (not through `Verdict`) that names the empty principal.
struct NoOne;

impl Identity for NoOne {
    fn identify<'a>(&'a self, _: &'a Parts) -> mcp_elicit::page::IdentifyFuture<'a> {
        Box::pin(async { Ok(SignedIn::new("")) })
    }
}

/// An empty principal is no one, whichever identity says it: even a flow made for `""` is not
/// opened by it.
#[tokio::test]
async fn an_identity_naming_the_empty_principal_is_refused() {
    let site = Site::in_app(NoOne, app_layer).await;
    let page = site.flow_for("").await;
    let refused = as_app_user(&page, None).await;
    assert_refused_saying(&refused, &["named no one for this request"]);
}

#[test]
fn a_bad_accounts_file_is_refused_naming_the_line_and_the_rule() {
    for (text, expected) in [
        (
            "alice:alice-token-0123456789\nbob",
            "line 2: the line is not `principal:token`",
        ),
        (
            "alice:alice-token-0123456789\n:bob-token-9876543210",
            "line 2: the principal is empty",
        ),
        ("\nalice:", "line 2: the token is empty"),
        (
            "alice:alice-token-0123456789\n# comment\nalice:alice-token-9876543210",
            "line 3: the principal is given twice",
        ),
    ] {
        let error = TokenSignIn::from_lines(text).unwrap_err();
        assert!(error.to_string().contains(expected), "{text:?}: {error}");
    }
}

/// A file that cannot be read is named in the error (its `Debug`, what `main`'s `?` prints, too).
#[test]
fn an_accounts_file_that_cannot_be_read_is_named() {
    let path = std::env::temp_dir()
        .join("no-such-dir-elicit")
        .join("accounts.txt");
    let error = TokenSignIn::from_file(&path).unwrap_err();
    assert!(
        matches!(&error, PageError::AccountsFile { path: named, .. } if *named == path),
        "{error:?}"
    );
    let shown = path.display().to_string();
    assert!(error.to_string().contains(&shown), "{error}");
    assert!(format!("{error:?}").contains("accounts.txt"), "{error:?}");
}

/// A line of an accounts file that breaks a rule is refused naming the file and the line (a
/// server reading two files says which to fix), with the same rule as `from_lines`.
#[test]
fn an_accounts_file_line_is_named_with_its_file() {
    let dir = std::env::temp_dir().join(format!("elicit-accounts-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("team-accounts.txt");
    std::fs::write(
        &path,
        "# the team\nalice:alice-token-0123456789\nbob:hunter2\n",
    )
    .unwrap();
    let error = TokenSignIn::from_file(&path).unwrap_err();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        matches!(&error, PageError::AccountsFileLine { path: named, line: 3, .. } if *named == path),
        "{error:?}"
    );
    let said = error.to_string();
    let shown = format!(
        "{}, line 3: the token is shorter than 16 characters",
        path.display()
    );
    assert!(said.contains(&shown), "{said}");
}

/// Account names a person reads for what they are: printable ASCII, no spaces, no `:`. A
/// look-alike, an invisible or a control character is refused naming the line and the rule,
/// and nothing is built from the rest.
#[test]
fn account_names_are_printable_ascii_without_spaces_or_colons() {
    let not_ascii = "a character that is not printable ASCII";
    for (name, rule) in [
        ("\u{0430}lice", not_ascii),  // Cyrillic `а`
        ("al\u{200b}ice", not_ascii), // zero-width space
        ("al\u{7}ice", not_ascii),    // a control character
        ("al\tice", not_ascii),       // a tab inside the name
        ("al\u{a0}ice", not_ascii),   // a no-break space
        ("al ice", "the principal has a space"),
    ] {
        let text = format!("bob:bob-token-9876543210\n{name}:alice-token-0123456789\n");
        let error = TokenSignIn::from_lines(&text).unwrap_err();
        let said = error.to_string();
        assert!(said.contains("line 2: "), "{name:?}: {said}");
        assert!(said.contains(rule), "{name:?}: {said}");
        assert!(
            matches!(error, PageError::AccountLine { line: 2, .. }),
            "{error:?}"
        );
        let error = TokenSignIn::new([
            ("bob".to_owned(), SecretString::from("bob-token-9876543210")),
            (
                name.to_owned(),
                SecretString::from("alice-token-0123456789"),
            ),
        ])
        .unwrap_err();
        assert!(error.to_string().contains("account 2: "), "{error}");
        assert!(error.to_string().contains(rule), "{name:?}: {error}");
    }
    let error = TokenSignIn::new([(
        "al:ice".to_owned(),
        SecretString::from("alice-token-0123456789"),
    )])
    .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("account 1: the principal has `:`"),
        "{error}"
    );
    let long = format!(
        "{}:alice-token-0123456789",
        "a".repeat(TokenSignIn::MAX_PRINCIPAL_LEN + 1)
    );
    let error = TokenSignIn::from_lines(&long).unwrap_err();
    assert!(error.to_string().contains("longer than 256"), "{error}");
    let longest = format!(
        "{}:alice-token-0123456789",
        "a".repeat(TokenSignIn::MAX_PRINCIPAL_LEN)
    );
    TokenSignIn::from_lines(&longest).unwrap();
    let accounts = TokenSignIn::from_lines(
        "alice.smith+ops@example.com:alice-token-0123456789\nops-bot_2:bot-token-9876543210\n",
    )
    .unwrap();
    assert!(accounts.has_account("ops-bot_2"));
    assert!(
        !accounts.has_account("ops-bot"),
        "a prefix is not an account"
    );
    assert!(!accounts.has_account("carol"));
}

/// A short token could be guessed offline by whoever holds the pages' keys: a token under 16
/// characters (counted as characters, not bytes) is refused wherever accounts are read, naming
/// the line (or the account) and how to make a good one; sixteen characters pass.
#[test]
fn a_token_shorter_than_sixteen_characters_is_refused_naming_the_line() {
    let fifteen = "abcdefghijklmno";
    // Fifteen characters, 30 bytes: counted as characters.
    let fifteen_wide = "\u{e9}".repeat(15);
    for short in ["t", "hunter2", fifteen, &fifteen_wide] {
        let text = format!("# accounts\nalice:alice-token-0123456789\nbob:{short}\n");
        let error = TokenSignIn::from_lines(&text).unwrap_err();
        assert!(
            matches!(error, PageError::AccountLine { line: 3, .. }),
            "{short:?}: {error:?}"
        );
        let said = error.to_string();
        assert!(
            said.contains("line 3: the token is shorter than 16 characters"),
            "{said}"
        );
        assert!(said.contains("openssl rand -base64 24"), "{said}");
        let error = TokenSignIn::new([
            (
                "alice".to_owned(),
                SecretString::from("alice-token-0123456789"),
            ),
            ("bob".to_owned(), SecretString::from(short)),
        ])
        .unwrap_err();
        assert!(
            error
                .to_string()
                .contains("account 2: the token is shorter than 16"),
            "{error}"
        );
    }
    assert_eq!(TokenSignIn::MIN_TOKEN_LEN, 16);
    let sixteen = format!("{fifteen}p");
    let sixteen_wide = "\u{e9}".repeat(16);
    for long_enough in [sixteen.as_str(), &sixteen_wide] {
        let accounts = TokenSignIn::from_lines(&format!("bob:{long_enough}\n")).unwrap();
        assert!(accounts.has_account("bob"));
    }
}

/// An empty principal names no one: refused where it is built, naming the rule.
#[tokio::test]
async fn an_empty_single_user_is_refused_where_it_is_built() {
    for name in ["", "   ", "\t\n"] {
        let error = AskConfig::single_user(name).err().unwrap();
        assert!(matches!(error, AskConfigError::EmptyPrincipal), "{error:?}");
        assert!(
            error.to_string().contains("empty or only white space"),
            "{error}"
        );
        let rounds = mcp_elicit::mrtr::Rounds::generate().unwrap();
        let error = AskConfig::single_user_with(name, rounds).err().unwrap();
        assert!(matches!(error, AskConfigError::EmptyPrincipal), "{error:?}");
        let error = SingleUser::named(name).unwrap_err();
        assert!(matches!(error, PageError::EmptyPrincipal), "{error:?}");
        assert!(
            error.to_string().contains("empty or only white space"),
            "{error}"
        );
        let error = Pages::bind_loopback(name).await.err().unwrap();
        assert!(matches!(error, PageError::EmptyPrincipal), "{error:?}");
    }
    AskConfig::single_user("me").unwrap();
    SingleUser::named("me").unwrap();
}

/// A server that reloads its accounts (the accounts file edited; or a restart, or another
/// replica, with the pages' keys kept): the pages check who is signed in with the accounts of
/// now. The sign-in routes stay the first accounts' (a test of `session()`, not of sign-in).
#[derive(Clone)]
struct Reloadable {
    now: Arc<Mutex<TokenSignIn>>,
    routes: TokenSignIn,
}

impl Reloadable {
    fn new(accounts: &str) -> Self {
        let first = TokenSignIn::from_lines(accounts).unwrap();
        Self {
            now: Arc::new(Mutex::new(first.clone())),
            routes: first,
        }
    }

    fn reload(&self, accounts: &str) {
        *self.now.lock().unwrap() = TokenSignIn::from_lines(accounts).unwrap();
    }
}

impl Identity for Reloadable {
    fn identify<'a>(&'a self, request: &'a Parts) -> mcp_elicit::page::IdentifyFuture<'a> {
        Box::pin(async move {
            let now = self.now.lock().unwrap().clone();
            now.identify(request).await
        })
    }

    fn routes(&self) -> Option<Router> {
        self.routes.routes()
    }
}

/// A session names its account and something of its token, checked on every request: a token
/// changed, or an account removed, signs that browser out (sent to sign in, not an error), and
/// only that one.
#[tokio::test]
async fn a_session_ends_when_its_account_is_removed_or_its_token_changes() {
    let accounts = Reloadable::new(ACCOUNTS);
    let site = Site::on_loopback(accounts.clone(), |router| router).await;
    let alices = site.flow_for("alice").await;
    let bobs = site.flow_for("bob").await;
    let (alice, bob) = (browser(), browser());
    for (client, principal, token, page) in [
        (&alice, "alice", "alice-token-0123456789", &alices),
        (&bob, "bob", "bob-token-9876543210", &bobs),
    ] {
        let path = page.strip_prefix(&site.origin()).unwrap();
        let signed_in = sign_in(&site, client, principal, token, path).await;
        assert_eq!(signed_in.status, 303, "{}", signed_in.body);
        assert_eq!(get(client, page).await.status, 200, "{principal}");
    }

    // Alice's token changes: her session ends; Bob's does not.
    accounts.reload("alice:a-new-token-for-alice\nbob:bob-token-9876543210\n");
    let signed_out = get(&alice, &alices).await;
    assert_eq!(signed_out.status, 303, "{}", signed_out.body);
    assert!(
        signed_out
            .location
            .as_deref()
            .is_some_and(|to| to.starts_with("/elicit/signin?next=")),
        "{:?}",
        signed_out.location
    );
    assert_eq!(
        get(&bob, &bobs).await.status,
        200,
        "bob's token is the same"
    );

    // Bob's account is removed: his session ends too.
    accounts.reload("alice:a-new-token-for-alice\n");
    let signed_out = get(&bob, &bobs).await;
    assert_eq!(signed_out.status, 303, "{}", signed_out.body);
    // And put back with the same token: the account is the same one again.
    accounts.reload("alice:a-new-token-for-alice\nbob:bob-token-9876543210\n");
    assert_eq!(get(&bob, &bobs).await.status, 200);
    assert!(site.stored().is_empty());
}

/// The paragraph a sign-in form says its problem in.
fn problem(body: &str) -> &str {
    let at = body.find(r#"<p class="error">"#).expect("a problem");
    &body[at..][..body[at..].find("</p>").unwrap()]
}

/// Failed sign-ins are bounded per name (five; an unknown name alike) and in all (fifty, over
/// any names): then refused, 429, saying to wait, before the token is even compared.
#[tokio::test]
async fn failed_sign_ins_are_bounded_per_name_and_in_all_whatever_the_name() {
    assert_eq!(TokenSignIn::FAILURES_PER_NAME, 5);
    assert_eq!(TokenSignIn::FAILURES_IN_ALL, 50);
    let site = Site::on_loopback(tokens(), |router| router).await;
    let page = site.flow_for("alice").await;
    let path = page.strip_prefix(&site.origin()).unwrap().to_owned();
    let mut refusals = Vec::new();
    for name in ["alice", "mallory"] {
        let guesser = browser();
        for guess in 0..5 {
            let refused = sign_in(&site, &guesser, name, &format!("guess-{guess}"), &path).await;
            assert_eq!(refused.status, 403, "{name} {guess}: {}", refused.body);
        }
        // The sixth, with Alice's own token: refused before it is compared.
        let waiting = sign_in(&site, &browser(), name, "alice-token-0123456789", &path).await;
        assert_eq!(waiting.status, 429, "{name}: {}", waiting.body);
        assert!(
            problem(&waiting.body).contains("Wait a minute and try again."),
            "{}",
            waiting.body
        );
        assert_eq!(
            waiting
                .retry_after
                .as_deref()
                .map(|s| s.parse::<u64>().unwrap() > 0),
            Some(true)
        );
        assert!(
            waiting
                .set_cookie
                .iter()
                .all(|c| !c.starts_with("elicit-session")),
            "{:?}",
            waiting.set_cookie
        );
        refusals.push(problem(&waiting.body).to_owned());
    }
    // Whether the name is an account's does not show.
    assert_eq!(refusals[0], refusals[1]);

    // Another name is not held up by these...
    let bob = browser();
    let signed_in = sign_in(&site, &bob, "bob", "bob-token-9876543210", &path).await;
    assert_eq!(signed_in.status, 303, "{}", signed_in.body);

    // ...until a spray over names spends what may fail in all: 10 so far, 40 more names.
    for sprayed in 0..40 {
        let refused = sign_in(&site, &browser(), &format!("user{sprayed}"), "guess", &path).await;
        assert_eq!(refused.status, 403, "{sprayed}: {}", refused.body);
    }
    let waiting = sign_in(&site, &browser(), "bob", "bob-token-9876543210", &path).await;
    assert_eq!(waiting.status, 429, "{}", waiting.body);
    assert!(
        problem(&waiting.body).contains("and try again."),
        "{}",
        waiting.body
    );
    // A session already begun is not touched.
    assert_eq!(get(&bob, &site.url("signout")).await.status, 200);
}
