//! The token sign-in (`TokenSignIn`, a server's own accounts) in Chromium: a page opened without
//! a session sends the browser to the sign-in form on the pages' origin; a wrong token is refused
//! there; the right one signs the browser in, back to the page, where the secret is typed and
//! kept under the account's name.
//!
//! Ignored unless asked for: it needs chromium and chromedriver (`.ci/run` installs them).
//! `cargo test -p elicit-browser-tests --features browser --test page_token_sign_in -- --include-ignored`

use std::sync::{Arc, Mutex};
use std::time::Duration;

use elicit_browser_tests::Chromedriver;
use mcp_elicit::page::{ExposeSecret, Pages, SecretPage, Secrets, SinkError, TokenSignIn};
use mcp_elicit::schema::{Property, StringSchema};
use mcp_elicit::state::{ParamsDigest, UnixTime};
use mcp_elicit::url_mode::{Flow, FlowId};
use serde_json::json;

type TestResult = Result<(), Box<dyn std::error::Error>>;

const KEY: &str = "sk-live-0123456789abcdef";
const WAIT: Duration = Duration::from_secs(10);

#[tokio::test]
#[ignore = "needs chromium and chromedriver: .ci/run installs them"]
async fn alice_signs_in_with_her_token_then_types_the_secret_on_her_page() -> TestResult {
    let stored: Arc<Mutex<Vec<(String, String)>>> = Arc::default();
    let sink = {
        let stored = Arc::clone(&stored);
        move |principal: String, mut secrets: Secrets| -> Result<serde_json::Value, SinkError> {
            let key = secrets.take("key").ok_or("no key")?;
            let key = key.expose_secret().to_owned();
            stored.lock().unwrap().push((principal, key));
            Ok(json!({}))
        }
    };
    let page = SecretPage::new(
        "api_key",
        "Your Example Co. API key",
        vec![Property::new("key", StringSchema::new().min_length(20)).title("API key")],
    )?;
    let accounts =
        TokenSignIn::from_lines("alice:alice-token-0123456789\nbob:bob-token-9876543210")?;
    let pages = Pages::bind_loopback_with(accounts)
        .await?
        .secret(page, sink);
    let flows = pages.flows().clone();
    let serving = tokio::spawn(pages.serve());

    let id = FlowId::random()?;
    let now = UnixTime::now();
    let flow = Flow::new(
        id,
        "api_key",
        "alice",
        ParamsDigest::of(&json!({})),
        "Enter your key.",
    )
    .expiring(now, Duration::from_secs(600))?;
    flows.store().begin(flow, now).await?;
    let url = format!("{}{id}", flows.base());

    let driver = Chromedriver::start().await?;
    let browser = driver.browser().await?;
    browser.goto(&url).await?;
    browser.wait_for_text("Sign in", WAIT).await?;
    assert!(
        browser
            .current_url()
            .await?
            .contains("/elicit/signin?next=")
    );

    browser.fill("principal", "alice").await?;
    browser.fill("token", "bob-token-9876543210").await?;
    browser.submit().await?;
    browser
        .wait_for_text("That name and token do not match an account.", WAIT)
        .await?;

    browser.fill("principal", "alice").await?;
    browser.fill("token", "alice-token-0123456789").await?;
    browser.submit().await?;
    let text = browser
        .wait_for_text("Your Example Co. API key", WAIT)
        .await?;
    assert!(text.contains("Signed in as alice"), "{text}");
    assert_eq!(browser.current_url().await?, url);

    browser.fill("key", KEY).await?;
    browser.submit().await?;
    browser.wait_for_text("Saved", WAIT).await?;
    assert_eq!(
        stored.lock().unwrap().as_slice(),
        [("alice".to_owned(), KEY.to_owned())]
    );
    browser.close().await?;
    serving.abort();
    Ok(())
}
