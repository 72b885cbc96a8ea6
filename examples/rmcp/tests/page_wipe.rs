//! What the user types on a page is wiped from memory on every path (issue 34, item 5): no block
//! the program frees while the page reads a form still holds the secret.
//!
//! This test binary's global allocator looks into every block as it is freed (and every block a
//! reallocation leaves), while a case is armed, for the case's secret. The forms are sent
//! through the router as a browser's requests reach it, their bodies in memory that is never
//! freed (so the test's own copy is not counted), and each case sends the secret down one path:
//! accepted, breaking a rule, breaking its pattern, sent twice, under a field the page does not have, in a body too
//! long, with a forged token, and in a form that is no form.
//!
//! `cargo test -p elicit-examples --features page --test page_wipe`

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::http::{Request, StatusCode, header};
use mcp_elicit::page::{ExposeSecret, Pages, SecretPage, Secrets, SinkError};
use mcp_elicit::schema::{Property, StringSchema};
use mcp_elicit::state::UnixTime;
use mcp_elicit::url_mode::{FlowId, FlowStatus, Flows, MemoryFlowStore};
use serde_json::{Value, json};
use tower::ServiceExt;

// ------------------------------------------------------------------------------ the allocator

/// The longest secret looked for.
const MOST: usize = 64;

/// The secret looked for (its first `NEEDLE_LEN` bytes); none while `NEEDLE_LEN` is 0.
static NEEDLE: [AtomicU8; MOST] = [const { AtomicU8::new(0) }; MOST];
static NEEDLE_LEN: AtomicUsize = AtomicUsize::new(0);
/// How many freed blocks held it.
static FOUND: AtomicUsize = AtomicUsize::new(0);

/// The system's allocator, which looks into each block it frees. It allocates nothing itself.
struct Scanning;

// SAFETY: every call is the system allocator's; `dealloc` only reads the block it is given, of
// the size its layout says, before freeing it. `realloc` is the trait's own (allocate, copy,
// free through `dealloc`), so the block a reallocation leaves is looked into too.
unsafe impl GlobalAlloc for Scanning {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
        let len = NEEDLE_LEN.load(Ordering::SeqCst);
        if len > 0 && layout.size() >= len {
            // SAFETY: the block is `layout.size()` bytes, allocated and not yet freed.
            let bytes = unsafe { std::slice::from_raw_parts(block, layout.size()) };
            if holds_needle(bytes, len) {
                FOUND.fetch_add(1, Ordering::SeqCst);
            }
        }
        unsafe { System.dealloc(block, layout) }
    }
}

fn holds_needle(bytes: &[u8], len: usize) -> bool {
    bytes.windows(len).any(|window| {
        window
            .iter()
            .zip(&NEEDLE)
            .all(|(byte, needle)| *byte == needle.load(Ordering::Relaxed))
    })
}

#[global_allocator]
static ALLOCATOR: Scanning = Scanning;

/// One case at a time: the needle is the process's.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Looks for `needle` in every block freed until [`disarm`], from a count of 0.
fn arm(needle: &str) {
    assert!(needle.len() <= MOST);
    for (slot, byte) in NEEDLE.iter().zip(needle.bytes()) {
        slot.store(byte, Ordering::SeqCst);
    }
    FOUND.store(0, Ordering::SeqCst);
    NEEDLE_LEN.store(needle.len(), Ordering::SeqCst);
}

/// Stops looking; how many freed blocks held the needle.
fn disarm() -> usize {
    NEEDLE_LEN.store(0, Ordering::SeqCst);
    FOUND.load(Ordering::SeqCst)
}

// ------------------------------------------------------------------------------- the pages

#[path = "common/page_site.rs"]
mod page_site;

use page_site::{BASE, HOST, HeaderUser, ORIGIN};

struct Site {
    store: MemoryFlowStore,
    router: Router,
    /// Whether the sink received the secret it was meant to (compared in place, not copied).
    received: Arc<Mutex<Vec<bool>>>,
}

/// The API-key page, whose sink compares the key with `expected` without copying it.
fn site(expected: &'static str) -> Site {
    let store = MemoryFlowStore::new();
    let page = SecretPage::new(
        "api_key",
        "Your Example Co. API key",
        vec![Property::new(
            "key",
            StringSchema::new().min_length(20).max_length(200),
        )],
    )
    .unwrap()
    // No `#` in a key: the cases' keys have none, but the one that breaks the pattern.
    .with_pattern("key", "[^#]+")
    .unwrap();
    let received = Arc::new(Mutex::new(Vec::new()));
    let sink = {
        let received = Arc::clone(&received);
        move |_, mut secrets: Secrets| -> Result<Value, SinkError> {
            let key = secrets.take("key").ok_or("no key")?;
            received
                .lock()
                .unwrap()
                .push(key.expose_secret() == expected);
            Ok(json!({ "stored": true }))
        }
    };
    let flows = Flows::new(store.clone(), BASE).unwrap();
    let router = Pages::new(flows, HeaderUser)
        .unwrap()
        .secret(page, sink)
        .router();
    Site {
        store,
        router,
        received,
    }
}

impl Site {
    /// Alice's flow, opened in a browser: its id, the browser's cookie, the form's token.
    async fn opened(&self) -> (FlowId, String, String) {
        let id = page_site::begin(&self.store, "api_key", "alice");
        let request = Request::get(format!("/elicit/{id}"))
            .header("x-user", "alice")
            // As a browser names the pages' host.
            .header(header::HOST, HOST)
            .body(Body::empty())
            .unwrap();
        let response = self.router.clone().oneshot(request).await.unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        let set = response.headers()[header::SET_COOKIE].to_str().unwrap();
        let cookie = set.split(';').next().unwrap().to_owned();
        let body = axum::body::to_bytes(response.into_body(), 1 << 20)
            .await
            .unwrap();
        let body = String::from_utf8(body.to_vec()).unwrap();
        let marker = r#"name="_csrf" value=""#;
        let rest = &body[body.find(marker).unwrap() + marker.len()..];
        (id, cookie, rest[..rest.find('"').unwrap()].to_owned())
    }

    /// Posts `body` (its bytes never freed) to flow `id`, in chunks of 64 bytes and of no
    /// length told beforehand (as a browser's body may arrive), looking for `needle` in every
    /// block freed meanwhile: the reply's status, and how many freed blocks held the needle.
    async fn post(
        &self,
        id: &FlowId,
        cookie: &str,
        body: String,
        needle: &str,
    ) -> (StatusCode, usize) {
        let body: &'static [u8] = Box::leak(body.into_bytes().into_boxed_slice());
        let chunks: Vec<Result<Bytes, std::io::Error>> = body
            .chunks(64)
            .map(|chunk| Ok(Bytes::from_static(chunk)))
            .collect();
        let request = Request::post(format!("/elicit/{id}"))
            .header("x-user", "alice")
            // As a browser names the pages' host.
            .header(header::HOST, HOST)
            .header(header::COOKIE, cookie)
            .header(header::ORIGIN, ORIGIN)
            .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(Body::from_stream(futures_util::stream::iter(chunks)))
            .unwrap();
        let router = self.router.clone();
        arm(needle);
        let response = router.oneshot(request).await.unwrap();
        let status = response.status();
        drop(response);
        (status, disarm())
    }
}

/// A key whose text has what decoding turns (`+`, `%2B`, `%25`, `%2F`) before `needle`, the
/// distinct part looked for; the key as the form carries it, and as typed.
fn key(needle: &str) -> (String, String) {
    (
        format!("sk+live%2B%25%2F{needle}"),
        format!("sk live+%/{needle}"),
    )
}

/// One case: `needle` sent down one path, in the form `form` makes of the token and the key;
/// what the page answered, and how many freed blocks held the needle.
#[allow(
    clippy::await_holding_lock,
    reason = "each case runs on a runtime of its own, on its own thread: the lock only orders the cases"
)]
async fn case(
    needle: &'static str,
    form: impl FnOnce(&str, &str) -> String,
) -> (Site, FlowId, StatusCode, usize) {
    let _one = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let typed: &'static str = Box::leak(key(needle).1.into_boxed_str());
    let site = site(typed);
    let (id, cookie, token) = site.opened().await;
    let body = form(&token, &key(needle).0);
    let (status, found) = site.post(&id, &cookie, body, needle).await;
    (site, id, status, found)
}

#[tokio::test(flavor = "current_thread")]
async fn an_accepted_secret_leaves_no_copy_behind() {
    let (site, id, status, found) = case("Wipe1Accepted0123456789", |token, key| {
        format!("_csrf={token}&key={key}")
    })
    .await;
    assert_eq!(found, 0, "freed blocks still held the secret");
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        *site.received.lock().unwrap(),
        [true],
        "the sink got the key as typed"
    );
    assert!(matches!(
        site.store.get_now(&id, UnixTime::now()).unwrap().status(),
        FlowStatus::Completed(_)
    ));
}

#[tokio::test(flavor = "current_thread")]
async fn a_secret_that_breaks_a_rule_leaves_no_copy_behind() {
    // Too long for the field (at most 200 characters): asked again, naming the rule.
    let (site, _, status, found) = case("Wipe2BrokenRule0123456789", |token, key| {
        format!("_csrf={token}&key={key}{}", "x".repeat(200))
    })
    .await;
    assert_eq!(found, 0, "freed blocks still held the secret");
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(site.received.lock().unwrap().is_empty());
}

#[tokio::test(flavor = "current_thread")]
async fn a_secret_that_breaks_its_pattern_leaves_no_copy_behind() {
    // Within its lengths, but with a `#` (`%23`), which the page's pattern refuses.
    let (site, _, status, found) = case("Wipe9BrokenPattern0123456789", |token, key| {
        format!("_csrf={token}&key={key}%23")
    })
    .await;
    assert_eq!(found, 0, "freed blocks still held the secret");
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(site.received.lock().unwrap().is_empty());
}

#[tokio::test(flavor = "current_thread")]
async fn a_secret_sent_twice_leaves_no_copy_behind() {
    let (site, _, status, found) = case("Wipe3SentTwice0123456789", |token, key| {
        format!("_csrf={token}&key={key}&key={key}")
    })
    .await;
    assert_eq!(found, 0, "freed blocks still held the secret");
    assert_eq!(status, StatusCode::OK);
    assert_eq!(*site.received.lock().unwrap(), [true]);
}

#[tokio::test(flavor = "current_thread")]
async fn a_secret_under_a_field_the_page_does_not_have_leaves_no_copy_behind() {
    let (site, _, status, found) = case("Wipe4UnknownField0123456789", |token, key| {
        format!("_csrf={token}&api_key={key}&key={key}")
    })
    .await;
    assert_eq!(found, 0, "freed blocks still held the secret");
    assert_eq!(status, StatusCode::OK);
    assert_eq!(*site.received.lock().unwrap(), [true]);
}

#[tokio::test(flavor = "current_thread")]
async fn a_secret_in_a_body_too_long_leaves_no_copy_behind() {
    let (site, _, status, found) = case("Wipe5TooLong0123456789", |token, key| {
        format!("_csrf={token}&key={key}&pad={}", "p".repeat(70_000))
    })
    .await;
    assert_eq!(found, 0, "freed blocks still held the secret");
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
    assert!(site.received.lock().unwrap().is_empty());
}

#[tokio::test(flavor = "current_thread")]
async fn a_secret_with_a_forged_token_leaves_no_copy_behind() {
    let (site, _, status, found) = case("Wipe6Forged0123456789", |_, key| {
        format!("_csrf=forged&key={key}")
    })
    .await;
    assert_eq!(found, 0, "freed blocks still held the secret");
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert!(site.received.lock().unwrap().is_empty());
}

#[tokio::test(flavor = "current_thread")]
async fn a_secret_in_a_form_that_is_no_form_leaves_no_copy_behind() {
    // A byte that is not UTF-8 once decoded, after the secret.
    let (site, _, status, found) = case("Wipe7NotAForm0123456789", |token, key| {
        format!("_csrf={token}&key={key}%FF")
    })
    .await;
    assert_eq!(found, 0, "freed blocks still held the secret");
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(site.received.lock().unwrap().is_empty());
}

/// The scanner finds what it is meant to: a secret in a `String` freed unwiped.
#[test]
fn the_allocator_finds_a_secret_freed_unwiped_and_none_wiped() {
    let _one = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let needle = "Wipe0Control0123456789";
    let plain = format!("sk-{needle}");
    let wiped = secrecy::zeroize::Zeroizing::new(format!("sk-{needle}"));
    arm(needle);
    drop(wiped);
    let after_wiped = FOUND.load(Ordering::SeqCst);
    drop(plain);
    let found = disarm();
    assert_eq!(after_wiped, 0);
    assert_eq!(found, 1);
}
