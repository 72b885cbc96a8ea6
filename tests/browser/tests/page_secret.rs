//! The API-key page in a real browser, set up as a stdio server sets it up: the server is
//! `examples/rmcp/api_key_server.rs` itself (included, not copied), its client is rmcp's own
//! (the official Rust SDK), and the user is a headless Chromium typing into the page.
//!
//! - The whole path, on both revisions: the client's handler gets the URL request, the user opens
//!   the URL, types the key and saves, the handler accepts (on 2025-11-25 first, while the tool
//!   waits for the page; on 2026-07-28 after the page, so the retry reads it), and the tool says
//!   `Connected the key ending <last 4>.` On 2025-11-25 the completion notification arrives.
//! - Each refusal in the browser stores nothing (the vault is read after it), and the flow stays
//!   open: the user then finishes the page and the tool connects the key they typed.
//! - The page works with JavaScript off.
//! - The key reaches nothing the test can see: no byte the client received or sent, no page or
//!   URL the browser showed, no response to a replayed request. Only its last four characters are
//!   in the tool's result, and no eight characters of it anywhere.
//! - A screenshot of the page as the user sees it (`target/tmp/page-secret/`; the docs' copy is
//!   `src/guide/page-secret.png`).
//!
//! Why in process, and not the example's binary as a child: `api_key_server` is the same
//! function the binary's `main` runs, served here over an in-memory pipe instead of stdin and
//! stdout, with the pages on the same `Pages::bind_loopback` listener. A child would need the
//! example built, with another package's features, from inside `cargo test` (or a binary built
//! beforehand, found by path, as `.ci/python_e2e.sh` does), and would hide its vault and its
//! flows' lifetime: here each refusal is checked against the vault itself, and the expired flow
//! gets a short TTL (`Pages::with_flow_ttl`). The built binary, its stdio and its stderr are
//! driven by the official Python SDK in `tests/e2e/test_api_key_server.py`.
//!
//! Ignored unless asked for: they need Chromium and chromedriver (`.ci/run` installs them).
//! `cargo test -p elicit-browser-tests --features browser --test page_secret -- --include-ignored`

use std::{
    error::Error,
    fs,
    path::PathBuf,
    sync::{Arc, Mutex},
    time::Duration,
};

use axum::{Router, response::Html, routing::get};
use elicit_browser_tests::{
    AbortOnDrop, Asked, Browser, BrowserOptions, Chromedriver, LoopbackHttp, Site, Tee, UrlHost,
};
use mcp_elicit::{Revision, page::Pages, rmcp::AskingService, url_mode::FlowId};
use rmcp::{
    RoleClient, ServiceExt,
    model::{CallToolRequestParams, CallToolResult, ProtocolVersion},
    service::{ClientLifecycleMode, ClientServiceExt, RunningService, ServiceError},
};
use secrecy::ExposeSecret;
use serde_json::{Value, json};
use tokio::{sync::mpsc, task::JoinHandle};

#[allow(dead_code)] // its `main`, which serves stdio
#[path = "../../../examples/rmcp/api_key_server.rs"]
mod api_key_server;

use api_key_server::{Vault, api_key_server};

type TestResult<T = ()> = Result<T, Box<dyn Error>>;

/// How long the user, the page or the tool may take for one step.
const WAIT: Duration = Duration::from_secs(10);
const MESSAGE: &str = "Enter your Example Co. API key on our page, never in the chat.";
const TITLE: &str = "Your Example Co. API key";
const NOT_FINISHED: &str = "No key was connected: the page was declined, or not finished.";

/// A key like a real one (32 characters; the page wants 20 to 200), fresh for each test. Its
/// letters are none of the hex digits, so no flow id, cookie, token digest or hash the server
/// writes can hold a piece of it by chance.
fn new_key() -> String {
    const LETTERS: &[u8; 16] = b"ghjkmnpqrstuvwxy";
    let random = format!(
        "{}{}",
        FlowId::random().expect("randomness"),
        FlowId::random().expect("randomness")
    );
    let letters: String = random
        .chars()
        .take(27)
        .map(|hex| LETTERS[hex.to_digit(16).expect("a hex digit") as usize] as char)
        .collect();
    format!("exco_{letters}")
}

/// What the tool says once it has `key`: its last four characters, and nothing more of it.
fn connected(key: &str) -> String {
    format!("Connected the key ending {}.", &key[key.len() - 4..])
}

// ------------------------------------------------------------------------ what the test saw

/// Everything the test could see, labelled: every page and URL the browser showed, every
/// response to a request made for it, every URL request and result the client was handed.
#[derive(Clone, Default)]
struct Seen(Arc<Mutex<Vec<(String, String)>>>);

impl Seen {
    fn add(&self, what: impl Into<String>, text: impl Into<String>) {
        self.0.lock().unwrap().push((what.into(), text.into()));
    }

    /// Records the page the browser shows now (its URL, its HTML and its cookies) and returns
    /// its text.
    async fn page(&self, browser: &Browser, what: &str) -> TestResult<String> {
        let url = browser.current_url().await?;
        self.add(format!("{what}: URL"), url);
        self.add(format!("{what}: HTML"), browser.html().await?);
        self.add(format!("{what}: cookies"), browser.cookie_header().await?);
        let text = browser.text().await?;
        self.add(format!("{what}: text"), text.clone());
        Ok(text)
    }

    /// Records a response to a request made with [`LoopbackHttp`] and returns its body.
    fn reply(&self, what: &str, response: &http::Response<Vec<u8>>) -> String {
        let headers: String = response
            .headers()
            .iter()
            .map(|(name, value)| format!("{name}: {}\n", value.to_str().unwrap_or("<bytes>")))
            .collect();
        let body = String::from_utf8_lossy(response.body()).into_owned();
        self.add(format!("{what}: headers"), headers);
        self.add(format!("{what}: body"), body.clone());
        body
    }

    /// Not `secret`, nor any 8 characters of it, in anything recorded.
    fn assert_holds_nothing_of(&self, secret: &str) {
        let seen = self.0.lock().unwrap();
        assert!(!seen.is_empty(), "nothing was recorded");
        let windows: Vec<&str> = (0..=secret.len().saturating_sub(8))
            .map(|at| &secret[at..(at + 8).min(secret.len())])
            .collect();
        for (what, text) in seen.iter() {
            for window in &windows {
                assert!(
                    !text.contains(window),
                    "{what} holds {window:?}, a piece of the secret {secret:?}:\n{text}"
                );
            }
        }
    }
}

// ------------------------------------------------------------------------------- the client

// ------------------------------------------------------------------------------- the server

/// `api_key_server` as its `main` runs it (pages on loopback, the MCP server on a byte
/// stream), with rmcp's client on the other end of the stream.
struct Stdio {
    /// Shared with the calls in flight: its `call_tool` (not its peer's) drives 2026-07-28's
    /// rounds through the handler.
    client: Arc<RunningService<RoleClient, UrlHost>>,
    asked: mpsc::UnboundedReceiver<Asked>,
    notifications: Arc<Mutex<Vec<Value>>>,
    vault: Vault,
    seen: Seen,
    /// Every byte the server wrote (what the client received), and every byte the client wrote.
    received: Arc<Mutex<Vec<u8>>>,
    sent: Arc<Mutex<Vec<u8>>>,
    _pages: AbortOnDrop,
    _server: AbortOnDrop,
}

impl Stdio {
    /// The server, its flows living `ttl` (default: the library's), and a client connected on
    /// `revision`.
    async fn start(revision: Revision, ttl: Option<Duration>) -> TestResult<Self> {
        let mut pages = Pages::bind_loopback("me").await?;
        if let Some(ttl) = ttl {
            pages = pages.with_flow_ttl(ttl);
        }
        let vault = Vault::default();
        let (keys, pages) = api_key_server(pages, vault.clone())?;
        let pages = AbortOnDrop(tokio::spawn(async move {
            let _ = pages.serve().await;
        }));

        let (server_io, client_io) = tokio::io::duplex(1 << 16);
        let received = Arc::new(Mutex::new(Vec::new()));
        let sent = Arc::new(Mutex::new(Vec::new()));
        let (read, write) = tokio::io::split(server_io);
        let write = Tee::new(write, Arc::clone(&received));
        let server = AbortOnDrop(tokio::spawn(async move {
            if let Ok(running) = AskingService(keys).serve((read, write)).await {
                let _ = running.waiting().await;
            }
        }));

        let (host, asked) = UrlHost::new("page-secret");
        let notifications = host.notifications();
        let lifecycle = match revision {
            Revision::V2025_11_25 => ClientLifecycleMode::Initialize,
            Revision::V2026_07_28 => ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
            other => return Err(format!("URL mode is not on {other:?}").into()),
        };
        let (read, write) = tokio::io::split(client_io);
        let write = Tee::new(write, Arc::clone(&sent));
        let client = Arc::new(host.serve_with_lifecycle((read, write), lifecycle).await?);
        Ok(Self {
            client,
            asked,
            notifications,
            vault,
            seen: Seen::default(),
            received,
            sent,
            _pages: pages,
            _server: server,
        })
    }

    /// Calls `connect_api_key`; the result comes when the tool finishes ([`Stdio::result`]).
    fn call(&self) -> JoinHandle<Result<CallToolResult, ServiceError>> {
        let client = Arc::clone(&self.client);
        tokio::spawn(async move {
            client
                .call_tool(CallToolRequestParams::new("connect_api_key"))
                .await
        })
    }

    /// The next URL request the client is handed.
    async fn next_ask(&mut self) -> TestResult<Asked> {
        let asked = tokio::time::timeout(WAIT, self.asked.recv())
            .await
            .map_err(|_| format!("no URL request within {WAIT:?}"))?
            .ok_or("the client is gone")?;
        self.seen
            .add("the request's message", asked.message.clone());
        self.seen.add("the request's URL", asked.url.clone());
        self.seen
            .add("the request's elicitationId", asked.elicitation_id.clone());
        Ok(asked)
    }

    /// Whether the client is handed another URL request within `wait`.
    async fn asked_again_within(&mut self, wait: Duration) -> bool {
        tokio::time::timeout(wait, self.asked.recv())
            .await
            .is_ok_and(|asked| asked.is_some())
    }

    /// The tool's text and `isError`.
    async fn result(
        &self,
        call: JoinHandle<Result<CallToolResult, ServiceError>>,
    ) -> TestResult<(String, bool)> {
        let result = tokio::time::timeout(WAIT, call)
            .await
            .map_err(|_| format!("the tool did not finish within {WAIT:?}"))???;
        let text: Vec<&str> = result
            .content
            .iter()
            .filter_map(|content| content.as_text().map(|text| text.text.as_str()))
            .collect();
        let text = text.join("\n");
        self.seen.add("the tool's result", text.clone());
        Ok((text, result.is_error == Some(true)))
    }

    /// The key the vault holds for the user (`"me"`: the single user), if any.
    fn stored(&self) -> Option<String> {
        let vault = self.vault.lock().unwrap();
        assert!(
            vault.keys().all(|user| user == "me"),
            "only the single user"
        );
        vault.get("me").map(|key| key.expose_secret().to_owned())
    }

    fn notifications(&self) -> Vec<Value> {
        self.notifications.lock().unwrap().clone()
    }

    /// Waits until the client has had a custom notification (or `WAIT` passes).
    async fn notified(&self) -> Vec<Value> {
        let deadline = tokio::time::Instant::now() + WAIT;
        while self.notifications().is_empty() && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        self.notifications()
    }

    /// Not `secret`, nor 8 characters of it, in anything the test saw: the bytes the client
    /// received and sent, its notifications, and what [`Seen`] recorded.
    fn assert_nothing_holds(&self, secret: &str) {
        let wire = |bytes: &Arc<Mutex<Vec<u8>>>| {
            String::from_utf8_lossy(&bytes.lock().unwrap()).into_owned()
        };
        let received = wire(&self.received);
        assert!(
            received.contains("\"jsonrpc\""),
            "the client received: {received}"
        );
        self.seen.add("every byte the client received", received);
        self.seen
            .add("every byte the client sent", wire(&self.sent));
        self.seen.add(
            "the client's notifications",
            Value::Array(self.notifications()).to_string(),
        );
        self.seen.assert_holds_nothing_of(secret);
    }
}

// ---------------------------------------------------------------------------------- the page

/// `http://localhost:PORT`, the origin of the page at `url`.
fn origin_of(url: &str) -> &str {
    url.find("/elicit/").map_or(url, |at| &url[..at])
}

/// The CSRF token in a page's form.
fn csrf_token(html: &str) -> TestResult<String> {
    let after = html
        .split("name=\"_csrf\" value=\"")
        .nth(1)
        .ok_or_else(|| format!("no _csrf field in {html}"))?;
    Ok(after.split('"').next().unwrap_or_default().to_owned())
}

/// Opens the page at `url` and waits for its form; returns its HTML.
async fn open(browser: &Browser, url: &str, seen: &Seen, what: &str) -> TestResult<String> {
    browser.goto(url).await?;
    browser.wait_for_text(TITLE, WAIT).await?;
    let text = seen.page(browser, what).await?;
    assert!(text.contains(MESSAGE), "the tool's message: {text}");
    Ok(browser.html().await?)
}

/// Types `key` into the page shown and saves it.
async fn type_and_save(browser: &Browser, key: &str, seen: &Seen) -> TestResult {
    browser.fill("key", key).await?;
    browser.submit().await?;
    browser.wait_for_text("Saved", WAIT).await?;
    let text = seen.page(browser, "the page after Save").await?;
    assert!(
        text.contains("The server has it now."),
        "the saved page: {text}"
    );
    Ok(())
}

/// Submits what the browser shows and waits for a refusal headed `heading`; returns its text.
async fn submit_and_refused(
    browser: &Browser,
    heading: &str,
    seen: &Seen,
    what: &str,
) -> TestResult<String> {
    browser.submit().await?;
    browser.wait_for_text(heading, WAIT).await?;
    let text = seen.page(browser, what).await?;
    assert!(text.contains("Nothing was stored."), "{text}");
    Ok(text)
}

/// Opens `url` and waits for a refusal headed `heading`; returns its text.
async fn open_refused(
    browser: &Browser,
    url: &str,
    heading: &str,
    seen: &Seen,
    what: &str,
) -> TestResult<String> {
    browser.goto(url).await?;
    browser.wait_for_text(heading, WAIT).await?;
    let text = seen.page(browser, what).await?;
    assert!(text.contains("Nothing was stored."), "{text}");
    Ok(text)
}

/// Posts the page's form at `url` by hand, as a browser would (its `Origin`), with `cookie`.
async fn post(
    url: &str,
    cookie: Option<&str>,
    token: &str,
    key: &str,
) -> TestResult<http::Response<Vec<u8>>> {
    let mut headers = vec![("Origin", origin_of(url))];
    if let Some(cookie) = cookie {
        headers.push(("Cookie", cookie));
    }
    Ok(LoopbackHttp::new()
        .post_form(url, &headers, &[("_csrf", token), ("key", key)])
        .await?)
}

fn screenshots() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("page-secret")
}

// ---------------------------------------------------------------------------------- the tests

/// The whole path on `revision`: the request, the page in `browser`, the tool's result.
async fn the_user_types_the_key_and_the_tool_connects_it(
    revision: Revision,
    browser: &Browser,
    shots: Option<&str>,
) -> TestResult<Stdio> {
    let mut s = Stdio::start(revision, None).await?;
    let key = new_key();
    let call = s.call();
    let asked = s.next_ask().await?;
    assert_eq!(asked.message, MESSAGE);
    let url = asked.url.clone();
    let id = url
        .strip_prefix(origin_of(&url))
        .and_then(|path| path.strip_prefix("/elicit/"))
        .ok_or_else(|| format!("not a page of the server: {url}"))?
        .to_owned();
    FlowId::parse(&id).map_err(|_| format!("the URL holds more than a flow id: {url}"))?;
    assert!(url.starts_with("http://localhost:"), "{url}");
    // On 2025-11-25 the user accepts first and the tool waits for the page; on 2026-07-28 the
    // client answers once the page is done, and the retry reads it.
    let asked = match revision {
        Revision::V2025_11_25 => {
            assert_eq!(
                asked.elicitation_id, id,
                "the elicitationId is the flow's id"
            );
            asked.accept();
            None
        }
        _ => {
            assert_eq!(asked.elicitation_id, "", "2026-07-28 has no elicitationId");
            Some(asked)
        }
    };

    open(browser, &url, &s.seen, "the page").await?;
    if let Some(name) = shots {
        browser
            .screenshot(screenshots().join(format!("{name}.png")))
            .await?;
    }
    type_and_save(browser, &key, &s.seen).await?;
    if let Some(name) = shots {
        browser
            .screenshot(screenshots().join(format!("{name}-saved.png")))
            .await?;
    }
    if let Some(asked) = asked {
        asked.accept();
    }

    assert_eq!(s.result(call).await?, (connected(&key), false));
    assert_eq!(s.stored(), Some(key.clone()));
    let complete = json!({
        "method": "notifications/elicitation/complete",
        "params": { "elicitationId": id },
    });
    match revision {
        Revision::V2025_11_25 => assert_eq!(s.notified().await, [complete]),
        _ => assert_eq!(s.notifications(), Vec::<Value>::new()),
    }
    assert!(
        !s.asked_again_within(Duration::from_millis(200)).await,
        "asked once: the page was done"
    );
    s.assert_nothing_holds(&key);
    Ok(s)
}

#[tokio::test]
#[ignore = "needs chromium and chromedriver: .ci/run installs them"]
async fn on_2025_11_25_the_user_accepts_types_the_key_in_chromium_and_the_tool_connects_it()
-> TestResult {
    let driver = Chromedriver::start().await?;
    // The size the docs' screenshot is taken at.
    let browser = driver
        .browser_with(BrowserOptions {
            window_size: (900, 700),
            ..BrowserOptions::default()
        })
        .await?;
    the_user_types_the_key_and_the_tool_connects_it(
        Revision::V2025_11_25,
        &browser,
        Some("page-secret"),
    )
    .await?;
    let png = fs::read(screenshots().join("page-secret.png"))?;
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "a PNG");
    browser.close().await?;
    Ok(())
}

#[tokio::test]
#[ignore = "needs chromium and chromedriver: .ci/run installs them"]
async fn on_2026_07_28_the_user_types_the_key_then_accepts_and_the_retry_connects_it() -> TestResult
{
    let driver = Chromedriver::start().await?;
    let browser = driver.browser().await?;
    the_user_types_the_key_and_the_tool_connects_it(Revision::V2026_07_28, &browser, None).await?;
    browser.close().await?;
    Ok(())
}

#[tokio::test]
#[ignore = "needs chromium and chromedriver: .ci/run installs them"]
async fn with_javascript_off_the_page_takes_the_key() -> TestResult {
    let driver = Chromedriver::start().await?;
    let browser = driver
        .browser_with(BrowserOptions::without_javascript())
        .await?;
    for revision in [Revision::V2025_11_25, Revision::V2026_07_28] {
        the_user_types_the_key_and_the_tool_connects_it(revision, &browser, None).await?;
    }
    browser.close().await?;
    Ok(())
}

#[tokio::test]
#[ignore = "needs chromium and chromedriver: .ci/run installs them"]
async fn a_key_that_breaks_the_pages_rule_is_asked_again_naming_the_rule_never_the_value()
-> TestResult {
    let driver = Chromedriver::start().await?;
    let browser = driver.browser().await?;
    let mut s = Stdio::start(Revision::V2026_07_28, None).await?;
    let call = s.call();
    let asked = s.next_ask().await?;
    open(&browser, &asked.url, &s.seen, "the page").await?;

    // 19 characters, one short of the page's minimum: the browser holds the form back itself
    // (the input's `minlength`, from the field's schema).
    let short = &new_key()[..19];
    browser.fill("key", short).await?;
    browser.submit().await?;
    let too_short = browser
        .webdriver()
        .execute(
            "return document.querySelector('[name=key]').validity.tooShort",
            vec![],
        )
        .await?;
    assert_eq!(too_short, json!(true));
    assert_eq!(browser.current_url().await?, asked.url, "not sent");

    // A browser that does not check (here: the attribute removed): the server checks the same
    // rule and asks again, naming the field and the rule, never the value.
    browser
        .webdriver()
        .execute(
            "document.querySelector('[name=key]').removeAttribute('minlength')",
            vec![],
        )
        .await?;
    browser.submit().await?;
    browser
        .wait_for_text("API key must be at least 20 characters long.", WAIT)
        .await?;
    s.seen.page(&browser, "the page asking again").await?;
    assert_eq!(s.stored(), None);

    let key = new_key();
    type_and_save(&browser, &key, &s.seen).await?;
    asked.accept();
    assert_eq!(s.result(call).await?, (connected(&key), false));
    s.assert_nothing_holds(short);
    s.assert_nothing_holds(&key);
    browser.close().await?;
    Ok(())
}

#[tokio::test]
#[ignore = "needs chromium and chromedriver: .ci/run installs them"]
async fn a_second_browser_is_refused_on_get_and_post_and_stores_nothing() -> TestResult {
    let driver = Chromedriver::start().await?;
    let user = driver.browser().await?;
    let second = driver.browser().await?;
    let mut s = Stdio::start(Revision::V2025_11_25, None).await?;
    let call = s.call();
    let asked = s.next_ask().await?;
    let url = asked.url.clone();
    asked.accept();
    let html = open(&user, &url, &s.seen, "the user's page").await?;
    let token = csrf_token(&html)?;

    // The second browser has a cookie of the pages' own: it opened another flow (a second call
    // of the tool) first.
    let other_call = s.call();
    let other = s.next_ask().await?;
    let other_url = other.url.clone();
    other.accept();
    open(
        &second,
        &other_url,
        &s.seen,
        "the second browser's own page",
    )
    .await?;

    let text = open_refused(
        &second,
        &url,
        "This page is open in another browser",
        &s.seen,
        "the user's page in the second browser",
    )
    .await?;
    assert!(!text.contains("API key"), "no form: {text}");
    let cookie = second.cookie_header().await?;
    // Plain http on loopback: `elicit-browser-<port>`, a name the pages sealed.
    assert!(cookie.starts_with("elicit-browser-"), "{cookie}");

    // The user's form, replayed with the second browser's cookie.
    let attempt = new_key();
    let response = post(&url, Some(&cookie), &token, &attempt).await?;
    let body = s
        .seen
        .reply("the replay with the second browser's cookie", &response);
    assert_eq!(response.status(), http::StatusCode::FORBIDDEN, "{body}");
    assert!(
        body.contains("This form was not sent from its page"),
        "{body}"
    );
    // And with no cookie at all: a browser that never opened a page here.
    let response = post(&url, None, &token, &attempt).await?;
    let body = s.seen.reply("the replay without a cookie", &response);
    assert_eq!(response.status(), http::StatusCode::FORBIDDEN, "{body}");
    assert!(
        body.contains("This browser did not open the page"),
        "{body}"
    );
    assert_eq!(s.stored(), None, "nothing stored");

    // The flow is still the user's.
    let key = new_key();
    type_and_save(&user, &key, &s.seen).await?;
    assert_eq!(s.result(call).await?, (connected(&key), false));
    assert_eq!(s.stored(), Some(key.clone()));
    s.assert_nothing_holds(&key);
    s.assert_nothing_holds(&attempt);
    other_call.abort();
    user.close().await?;
    second.close().await?;
    Ok(())
}

#[tokio::test]
#[ignore = "needs chromium and chromedriver: .ci/run installs them"]
async fn an_edited_flow_id_is_no_page_and_its_post_stores_nothing() -> TestResult {
    let driver = Chromedriver::start().await?;
    let browser = driver.browser().await?;
    let mut s = Stdio::start(Revision::V2025_11_25, None).await?;
    let call = s.call();
    let asked = s.next_ask().await?;
    let url = asked.url.clone();
    asked.accept();
    let html = open(&browser, &url, &s.seen, "the page").await?;
    let token = csrf_token(&html)?;

    // The last digit changed: a flow id, but not this one. Cut short, and padded: not flow ids.
    let last = url.chars().last().ok_or("an empty URL")?;
    let edited = format!(
        "{}{}",
        &url[..url.len() - 1],
        if last == '0' { '1' } else { '0' }
    );
    for (what, wrong) in [
        ("the edited flow id", edited.clone()),
        ("the flow id cut short", url[..url.len() - 1].to_owned()),
        ("the flow id padded", format!("{url}0")),
    ] {
        open_refused(&browser, &wrong, "No such page", &s.seen, what).await?;
    }
    // The page's own form, posted to the edited id in the same browser: its token is for
    // another flow.
    let cookie = browser.cookie_header().await?;
    let attempt = new_key();
    let response = post(&edited, Some(&cookie), &token, &attempt).await?;
    let body = s.seen.reply("the form posted to the edited id", &response);
    assert_eq!(response.status(), http::StatusCode::FORBIDDEN, "{body}");
    assert!(
        body.contains("This form was not sent from its page"),
        "{body}"
    );
    assert_eq!(s.stored(), None, "nothing stored");

    let key = new_key();
    open(&browser, &url, &s.seen, "the page again").await?;
    type_and_save(&browser, &key, &s.seen).await?;
    assert_eq!(s.result(call).await?, (connected(&key), false));
    s.assert_nothing_holds(&key);
    s.assert_nothing_holds(&attempt);
    browser.close().await?;
    Ok(())
}

#[tokio::test]
#[ignore = "needs chromium and chromedriver: .ci/run installs them"]
async fn a_post_replayed_after_the_page_finished_is_gone_and_stores_nothing() -> TestResult {
    let driver = Chromedriver::start().await?;
    let browser = driver.browser().await?;
    let mut s = Stdio::start(Revision::V2025_11_25, None).await?;
    let call = s.call();
    let asked = s.next_ask().await?;
    let url = asked.url.clone();
    asked.accept();
    let html = open(&browser, &url, &s.seen, "the page").await?;
    let token = csrf_token(&html)?;
    let cookie = browser.cookie_header().await?;
    let key = new_key();
    type_and_save(&browser, &key, &s.seen).await?;
    assert_eq!(s.result(call).await?, (connected(&key), false));

    // The same browser's cookie and the form's token, once more, with another key.
    let replayed = new_key();
    let response = post(&url, Some(&cookie), &token, &replayed).await?;
    let body = s.seen.reply("the replayed form", &response);
    assert_eq!(response.status(), http::StatusCode::GONE, "{body}");
    assert!(body.contains("This step is finished"), "{body}");
    // And the page itself, opened again.
    open_refused(
        &browser,
        &url,
        "This step is finished",
        &s.seen,
        "the page opened again",
    )
    .await?;
    assert_eq!(s.stored(), Some(key.clone()), "the first key, kept once");
    s.assert_nothing_holds(&key);
    s.assert_nothing_holds(&replayed);
    browser.close().await?;
    Ok(())
}

#[tokio::test]
#[ignore = "needs chromium and chromedriver: .ci/run installs them"]
async fn a_form_posted_to_the_page_from_another_origin_is_refused_and_stores_nothing() -> TestResult
{
    let driver = Chromedriver::start().await?;
    let browser = driver.browser().await?;
    let mut s = Stdio::start(Revision::V2025_11_25, None).await?;
    let call = s.call();
    let asked = s.next_ask().await?;
    let url = asked.url.clone();
    asked.accept();
    let html = open(&browser, &url, &s.seen, "the page").await?;

    // The worst case: the other site has the page's own token (leaked, say), and its form is
    // submitted in the browser that opened the page.
    let token = csrf_token(&html)?;
    let planted = new_key();
    let attack = format!(
        "<!doctype html><title>Win a prize</title><h1>Win a prize</h1>\
         <form method=\"post\" action=\"{url}\">\
         <input type=\"hidden\" name=\"_csrf\" value=\"{token}\">\
         <input type=\"hidden\" name=\"key\" value=\"{planted}\">\
         <button type=\"submit\">Claim it</button></form>"
    );
    let other =
        Site::serve(Router::new().route("/", get(move || async move { Html(attack) }))).await?;
    // `localhost` on another port is another origin but the same site, so the page's
    // `SameSite=Lax` cookie goes with the form: only the `Origin` check stands in the way.
    // `127.0.0.1` is another site too.
    for (what, page) in [
        ("another origin, same site", other.url_as_localhost("/")),
        ("another site", other.url("/")),
    ] {
        browser.goto(&page).await?;
        browser.wait_for_text("Win a prize", WAIT).await?;
        submit_and_refused(
            &browser,
            "This form was sent from another site",
            &s.seen,
            what,
        )
        .await?;
        assert_eq!(s.stored(), None, "{what}: nothing stored");
    }

    let key = new_key();
    open(&browser, &url, &s.seen, "the page again").await?;
    type_and_save(&browser, &key, &s.seen).await?;
    assert_eq!(s.result(call).await?, (connected(&key), false));
    assert_eq!(s.stored(), Some(key.clone()));
    s.assert_nothing_holds(&key);
    browser.close().await?;
    Ok(())
}

/// The flows' lifetime in the expiry tests: long enough to open the page, short for a test.
const SHORT_TTL: Duration = Duration::from_secs(3);

/// The user opens the page in time and saves it after the flow expired.
async fn a_page_saved_after_its_flow_expired_stores_nothing(revision: Revision) -> TestResult {
    let driver = Chromedriver::start().await?;
    let browser = driver.browser().await?;
    let mut s = Stdio::start(revision, Some(SHORT_TTL)).await?;
    let call = s.call();
    let asked = s.next_ask().await?;
    let url = asked.url.clone();
    let asked = match revision {
        Revision::V2025_11_25 => {
            asked.accept();
            None
        }
        _ => Some(asked),
    };
    open(&browser, &url, &s.seen, "the page").await?;
    let key = new_key();
    browser.fill("key", &key).await?;
    tokio::time::sleep(SHORT_TTL + Duration::from_secs(1)).await;
    submit_and_refused(&browser, "This step expired", &s.seen, "the late save").await?;
    assert_eq!(s.stored(), None, "nothing stored");
    open_refused(
        &browser,
        &url,
        "This step expired",
        &s.seen,
        "the page opened again",
    )
    .await?;

    if let Some(asked) = asked {
        asked.accept();
    }
    assert_eq!(s.result(call).await?, (NOT_FINISHED.to_owned(), false));
    assert_eq!(s.stored(), None);
    assert_eq!(s.notifications(), Vec::<Value>::new(), "nothing completed");
    s.assert_nothing_holds(&key);
    browser.close().await?;
    Ok(())
}

#[tokio::test]
#[ignore = "needs chromium and chromedriver: .ci/run installs them"]
async fn on_2025_11_25_a_page_saved_after_its_flow_expired_stores_nothing() -> TestResult {
    a_page_saved_after_its_flow_expired_stores_nothing(Revision::V2025_11_25).await
}

#[tokio::test]
#[ignore = "needs chromium and chromedriver: .ci/run installs them"]
async fn on_2026_07_28_a_page_saved_after_its_flow_expired_stores_nothing() -> TestResult {
    a_page_saved_after_its_flow_expired_stores_nothing(Revision::V2026_07_28).await
}
