//! The browser harness works: independent headless Chromiums against a page served in process.
//!
//! Ignored unless asked for: they need Debian's chromium and chromium-driver, which `.ci/run`
//! installs before it runs them with `--include-ignored`. Without them they fail, saying so.

use std::{collections::HashMap, fs, path::Path, time::Duration};

use axum::{
    Form, Router,
    extract::Path as UrlPath,
    http::{HeaderMap, StatusCode, header},
    response::{Html, IntoResponse, Redirect},
    routing::{get, post},
};
use elicit_browser_tests::{BrowserOptions, Chromedriver, Site};

type TestResult = Result<(), Box<dyn std::error::Error>>;

const WAIT: Duration = Duration::from_secs(10);

/// A page that tells who the browser's cookie says it is, whether its script ran, and takes a
/// note through a form.
fn notes_site() -> Router {
    Router::new()
        .route("/", get(home))
        .route("/sign-in/{name}", get(sign_in))
        .route("/note", post(save_note))
}

fn who(headers: &HeaderMap) -> String {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .find_map(|pair| pair.trim().strip_prefix("who="))
        .unwrap_or("nobody")
        .to_owned()
}

async fn home(headers: HeaderMap) -> Html<String> {
    Html(format!(
        r#"<!doctype html><html><head><title>Notes</title></head><body>
<h1>Notes</h1>
<p>Signed in as: {}</p>
<p id="js">JavaScript did not run</p>
<script>document.getElementById('js').textContent = 'JavaScript ran';</script>
<form method="post" action="/note">
  <label>Note <input name="note"></label>
  <button type="submit">Save</button>
</form>
</body></html>"#,
        who(&headers)
    ))
}

async fn sign_in(UrlPath(name): UrlPath<String>) -> impl IntoResponse {
    (
        [(
            header::SET_COOKIE,
            format!("who={name}; Path=/; HttpOnly; SameSite=Lax"),
        )],
        Redirect::to("/"),
    )
}

async fn save_note(headers: HeaderMap, Form(form): Form<HashMap<String, String>>) -> Response {
    let note = form.get("note").cloned().unwrap_or_default();
    (
        StatusCode::OK,
        Html(format!(
            "<!doctype html><p>Saved note: {} for {}</p>",
            note.replace('<', "&lt;"),
            who(&headers)
        )),
    )
        .into_response()
}

type Response = axum::response::Response;

#[tokio::test]
#[ignore = "needs chromium and chromedriver: .ci/run installs them"]
async fn two_browsers_share_no_cookies_and_each_posts_its_form() -> TestResult {
    let site = Site::serve(notes_site()).await?;
    let driver = Chromedriver::start().await?;
    let alice = driver.browser().await?;
    let stranger = driver.browser().await?;

    alice.goto(&site.url("/sign-in/alice")).await?;
    alice.wait_for_text("Signed in as: alice", WAIT).await?;
    stranger.goto(&site.url("/")).await?;
    stranger.wait_for_text("Signed in as: nobody", WAIT).await?;
    assert_eq!(alice.cookies().await?, [("who".into(), "alice".into())]);
    assert_eq!(stranger.cookies().await?, []);
    assert_eq!(alice.cookie_header().await?, "who=alice");

    // The same socket under another host name is another site: the cookie stays behind.
    alice.goto(&site.url_as_localhost("/")).await?;
    alice.wait_for_text("Signed in as: nobody", WAIT).await?;
    alice.goto(&site.url("/")).await?;

    stranger.fill("note", "hello from a stranger").await?;
    stranger.submit().await?;
    stranger
        .wait_for_text("Saved note: hello from a stranger for nobody", WAIT)
        .await?;
    assert_eq!(stranger.current_url().await?, site.url("/note"));

    alice.fill("note", "<b>bold</b> & more").await?;
    alice.press("Save").await?;
    alice
        .wait_for_text("Saved note: <b>bold</b> & more for alice", WAIT)
        .await?;

    alice.goto(&site.url("/")).await?;
    let png = Path::new(env!("CARGO_TARGET_TMPDIR")).join("browser-smoke/notes.png");
    let _ = fs::remove_file(&png);
    alice.screenshot(&png).await?;
    let bytes = fs::read(&png)?;
    assert!(
        bytes.starts_with(b"\x89PNG\r\n\x1a\n"),
        "{} is a PNG",
        png.display()
    );
    assert!(bytes.len() > 1000, "a 1280x900 page is more than a header");

    alice.close().await?;
    stranger.close().await?;
    Ok(())
}

#[tokio::test]
#[ignore = "needs chromium and chromedriver: .ci/run installs them"]
async fn a_browser_without_javascript_runs_no_script_and_still_posts_forms() -> TestResult {
    let site = Site::serve(notes_site()).await?;
    let driver = Chromedriver::start().await?;

    let with_js = driver.browser().await?;
    with_js.goto(&site.url("/")).await?;
    with_js.wait_for_text("JavaScript ran", WAIT).await?;

    let without_js = driver
        .browser_with(BrowserOptions::without_javascript())
        .await?;
    without_js.goto(&site.url("/")).await?;
    let text = without_js.text().await?;
    assert!(text.contains("JavaScript did not run"), "{text}");
    without_js.fill("note", "typed without scripts").await?;
    without_js.submit().await?;
    without_js
        .wait_for_text("Saved note: typed without scripts for nobody", WAIT)
        .await?;
    Ok(())
}

#[tokio::test]
#[ignore = "needs chromium and chromedriver: .ci/run installs them"]
async fn a_browser_dropped_without_closing_leaves_no_process_behind() -> TestResult {
    let site = Site::serve(notes_site()).await?;
    let driver = Chromedriver::start().await?;
    let browser = driver.browser().await?;
    browser.goto(&site.url("/")).await?;
    let profile = browser.profile_dir().to_owned();
    assert!(
        !processes_naming(&profile).is_empty(),
        "the browser runs with its profile in its command line"
    );

    // As when a test fails half-way: no close(), only the destructor.
    drop(browser);
    assert_eq!(processes_naming(&profile), Vec::<u32>::new());
    assert!(!profile.exists(), "the profile is removed");

    let root = driver.profiles_dir().to_owned();
    let second = driver.browser().await?;
    second.goto(&site.url("/")).await?;
    // The driver goes first: it still takes its browsers with it.
    drop(driver);
    assert_eq!(processes_naming(&root), Vec::<u32>::new());
    drop(second);
    Ok(())
}

/// Not ignored: needs no browser. A missing binary is an error that names what to install.
#[tokio::test]
async fn a_missing_chromedriver_or_chromium_fails_and_says_what_to_install() {
    let Err(e) = Chromedriver::start_at("/nonexistent/chromedriver", "/usr/bin/chromium").await
    else {
        panic!("started without a chromedriver")
    };
    let message = e.to_string();
    assert!(
        message.contains("chromedriver not found at /nonexistent/chromedriver"),
        "{message}"
    );
    assert!(
        message.contains("apt-get install -y chromium chromium-driver"),
        "{message}"
    );

    // /bin/sh stands in for a chromedriver that is there: chromium is checked before either starts.
    let Err(e) = Chromedriver::start_at("/bin/sh", "/nonexistent/chromium").await else {
        panic!("started without a chromium")
    };
    assert!(
        e.to_string()
            .contains("chromium not found at /nonexistent/chromium"),
        "{e}"
    );
}

/// The pids of the processes one of whose arguments contains `path`.
fn processes_naming(path: &Path) -> Vec<u32> {
    let needle = path.to_str().expect("a UTF-8 temporary path");
    fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .filter_map(|entry| {
            let pid: u32 = entry.ok()?.file_name().to_str()?.parse().ok()?;
            let cmdline = fs::read(format!("/proc/{pid}/cmdline")).ok()?;
            String::from_utf8_lossy(&cmdline)
                .split('\0')
                .any(|arg| arg.contains(needle))
                .then_some(pid)
        })
        .filter(|&pid| pid != std::process::id())
        .collect()
}
