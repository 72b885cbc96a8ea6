//! A secret field's `pattern`, over real HTTP on loopback with a reqwest browser: a value that
//! does not match the whole pattern re-shows the page (422) naming the field and the rule, never
//! the value, and nothing reaches the sink; a matching one is kept. The pattern is declared on a
//! derived page (`#[elicit(pattern = "..")]`, checked at compile time: `tests/ui/page`) and on a
//! hand-built one (`SecretPage::with_pattern`, whose bad patterns are `PageError`s).
//!
//! `cargo test -p elicit-examples --features oauth --test page_pattern`

use std::sync::Arc;

use axum::http::StatusCode;
use mcp_elicit::Elicit;
use mcp_elicit::page::{ExposeSecret, PageError, SecretPage, SecretString, Secrets, SinkError};
use mcp_elicit::schema::{Property, StringSchema};
use mcp_elicit::url_mode::FlowStatus;
use serde_json::Value;

#[path = "common/pages_over_http.rs"]
mod pages_over_http;

use pages_over_http::{Site, browser_of, csrf as token};

/// Your Example Co. API key
#[derive(Elicit)]
#[elicit(mode = "url", message = "Enter your Example Co. API key.")]
struct ApiKey {
    /// It starts with `ex_`: Settings → API keys on example.com
    #[elicit(title = "API key", max_length = 200, pattern = "ex_[A-Za-z0-9]{20,}")]
    key: SecretString,
}

/// A key of the right shape.
const GOOD: &str = "ex_0123456789abcdefGHIJ";
/// Keys of the wrong shape, each distinctive enough to find if the page echoed it: a prefix
/// only, the right shape inside a longer value (the whole value must match), a character the
/// pattern does not take.
const BAD: [&str; 3] = [
    "sk-live-0123456789abcdefWXYZ",
    "my ex_0123456789abcdefGHIJ key",
    "ex_0123456789abcdef-GHIJ",
];

/// The pages served for real: the derived `ApiKey`, and a hand-built page `token` whose field
/// `token` has a pattern of its own.
async fn start() -> Site {
    Site::start(|pages, seen| {
        let typed_sink = {
            let seen = Arc::clone(seen);
            move |_user, typed: ApiKey| {
                seen.lock()
                    .unwrap()
                    .push(typed.key.expose_secret().to_owned());
                Ok::<_, SinkError>(Value::Null)
            }
        };
        let hand_sink = {
            let seen = Arc::clone(seen);
            move |_user, mut secrets: Secrets| {
                let token = secrets.take("token").expect("the page's field");
                seen.lock().unwrap().push(token.expose_secret().to_owned());
                Ok::<_, SinkError>(Value::Null)
            }
        };
        let hand_built = SecretPage::new(
            "token",
            "Your deploy token",
            vec![Property::new("token", StringSchema::new()).title("Deploy token")],
        )
        .unwrap()
        .with_pattern("token", "(?i)dt-[0-9a-f]{8}")
        .unwrap();
        pages.secret_form(typed_sink).secret(hand_built, hand_sink)
    })
    .await
}

#[tokio::test]
async fn a_value_that_does_not_match_the_pattern_is_refused_on_the_page_never_echoed() {
    let site = start().await;
    let id = site.flow_for("api_key", "alice");
    let alice = browser_of("alice");
    let page = site.open(&alice, &id).await;
    // The pattern stays on the server: no HTML `pattern` (a browser reads JavaScript's syntax).
    assert!(!page.contains("pattern="), "{page}");
    assert!(!page.contains("A-Za-z0-9"), "{page}");
    let mut csrf = token(&page);
    for bad in BAD {
        let (status, page) = site.post(&alice, &id, &csrf, "key", bad).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{bad}: {page}");
        assert!(
            page.contains("API key must match the expected format."),
            "the field and the rule: {page}"
        );
        // Never the value, nor any run of it the page would not say anyway.
        assert!(!page.contains(bad), "{page}");
        assert!(!page.contains("0123456789abcdef"), "{page}");
        // Nothing reached the sink, and the flow is still open for a retry.
        assert!(site.seen().is_empty(), "{:?}", site.seen());
        assert_eq!(site.flow(&id).status(), &FlowStatus::Opened);
        csrf = token(&page);
    }
    let (status, page) = site.post(&alice, &id, &csrf, "key", GOOD).await;
    assert_eq!(status, StatusCode::OK, "{page}");
    assert!(page.contains("Saved"), "{page}");
    assert_eq!(site.seen(), [GOOD]);
}

#[tokio::test]
async fn a_length_rule_is_reported_before_the_pattern() {
    let site = start().await;
    let id = site.flow_for("api_key", "alice");
    let alice = browser_of("alice");
    let csrf = token(&site.open(&alice, &id).await);
    let long = format!("ex_{}", "a".repeat(300));
    let (status, page) = site.post(&alice, &id, &csrf, "key", &long).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{page}");
    assert!(
        page.contains("API key must be at most 200 characters"),
        "{page}"
    );
    assert!(
        !page.contains("expected format"),
        "one rule a field: {page}"
    );
    assert!(site.seen().is_empty());
}

#[tokio::test]
async fn a_hand_built_page_checks_its_pattern_with_its_own_flags() {
    let site = start().await;
    let id = site.flow_for("token", "bob");
    let bob = browser_of("bob");
    let csrf = token(&site.open(&bob, &id).await);
    let (status, page) = site.post(&bob, &id, &csrf, "token", "dt-0123abcd0").await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{page}");
    assert!(
        page.contains("Deploy token must match the expected format."),
        "{page}"
    );
    assert!(!page.contains("dt-0123abcd0"), "{page}");
    // `(?i)` in the pattern: upper case matches too.
    let (status, page) = site
        .post(&bob, &id, &token(&page), "token", "DT-0123ABCD")
        .await;
    assert_eq!(status, StatusCode::OK, "{page}");
    assert_eq!(site.seen(), ["DT-0123ABCD"]);
}

fn page() -> SecretPage {
    SecretPage::new(
        "api_key",
        "Your Example Co. API key",
        vec![Property::new("key", StringSchema::new()).title("API key")],
    )
    .unwrap()
}

#[test]
fn a_pattern_that_is_not_a_regular_expression_is_an_error_naming_the_field() {
    let error = page().with_pattern("key", "ex_[A-Z").unwrap_err();
    assert!(matches!(&error, PageError::Pattern { field, .. } if field == "key"));
    let text = error.to_string();
    assert!(
        text.starts_with("field `key`: `pattern` must be a regular expression"),
        "{text}"
    );
    assert!(
        text.contains("unclosed character class"),
        "the regex crate's words: {text}"
    );
}

#[test]
fn a_pattern_must_parse_on_its_own_not_only_once_anchored() {
    // `\A(?:a)|(b)\z` parses; `a)|(b` does not, and is refused as written.
    let error = page().with_pattern("key", "a)|(b").unwrap_err();
    assert!(
        matches!(&error, PageError::Pattern { field, .. } if field == "key"),
        "{error}"
    );
}

#[test]
fn a_pattern_names_a_field_of_the_page_and_one_pattern_a_field() {
    let error = page().with_pattern("api_key", "ex_.*").unwrap_err();
    assert!(
        error.to_string().contains("the page has no such field"),
        "{error}"
    );
    let twice = page()
        .with_pattern("key", "ex_.*")
        .unwrap()
        .with_pattern("key", "sk_.*")
        .unwrap_err();
    assert!(
        twice.to_string().contains("has a pattern already"),
        "{twice}"
    );
}

#[test]
fn a_derived_page_carries_its_pattern_as_written() {
    use mcp_elicit::page::SecretForm;
    assert_eq!(
        ApiKey::secret_page().pattern("key"),
        Some("ex_[A-Za-z0-9]{20,}")
    );
}
