//! A secret page declared as a type (`#[derive(Elicit)]`, `#[elicit(mode = "url")]`, fields of
//! `SecretString`): the page the library serves from it (`Pages::secret_form`), and the question
//! the tool asks with it (`Asker::url_page`). The page's own checks (identity, browser, CSRF,
//! replay) are `tests/page.rs`'s: the typed page is served by the same code.
//!
//! `cargo test -p elicit-examples --features page --test secret_form`

use std::sync::{Arc, Mutex};

use axum::Router;
use axum::http::StatusCode;
use mcp_elicit::client::{Incoming, Scripted, Step};
use mcp_elicit::page::{ExposeSecret, Pages, SecretForm, SecretString, Secrets, SinkError};
use mcp_elicit::rmcp::{AskConfig, TestKit};
use mcp_elicit::state::UnixTime;
use mcp_elicit::url_mode::{ElicitUrl, FlowId, FlowStatus, Flows, MemoryFlowStore};
use mcp_elicit::{Elicit, Revision};
use serde_json::{Value, json};

#[macro_use]
#[path = "common/servers.rs"]
mod servers;
#[path = "common/page_site.rs"]
mod page_site;

use page_site::{BASE, HeaderUser, ORIGIN, get, post, send};

const KEY: &str = "sk-live-0123456789abcdef";

/// Your Example Co. API key
#[derive(Elicit)]
#[elicit(
    mode = "url",
    message = "Enter your Example Co. API key on our page, never in the chat."
)]
struct ApiKey {
    /// Settings → API keys on example.com
    #[elicit(title = "API key", min_length = 20, max_length = 200)]
    key: SecretString,
}

/// Two secrets on one page, one renamed, under a page name of its own.
#[derive(Elicit)]
#[elicit(
    mode = "url",
    name = "database-login",
    title = "Your database's password",
    message = "Enter the database's password on the page that opens."
)]
struct DatabaseLogin {
    #[elicit(title = "Password", min_length = 8)]
    password: SecretString,
    #[elicit(
        rename = "otp",
        title = "One-time code",
        min_length = 6,
        max_length = 6
    )]
    one_time_code: SecretString,
}

/// What reached the typed sink: (principal, the secrets exposed, in field order).
type Stored = Arc<Mutex<Vec<(String, Vec<String>)>>>;

struct Site {
    store: MemoryFlowStore,
    router: Router,
    stored: Stored,
}

fn site() -> Site {
    let store = MemoryFlowStore::new();
    let flows = Flows::new(store.clone(), BASE).unwrap();
    let stored = Stored::default();
    let (api_key, login) = (Arc::clone(&stored), Arc::clone(&stored));
    let router = Pages::new(flows, HeaderUser)
        .unwrap()
        .secret_form(
            move |user: String, typed: ApiKey| -> Result<Value, SinkError> {
                let key = typed.key.expose_secret().to_owned();
                let ending = key[key.len() - 4..].to_owned();
                api_key.lock().unwrap().push((user.to_owned(), vec![key]));
                Ok(json!({ "ending": ending }))
            },
        )
        .secret_form(
            move |user: String, typed: DatabaseLogin| -> Result<Value, SinkError> {
                let exposed = [typed.password, typed.one_time_code]
                    .iter()
                    .map(|s| s.expose_secret().to_owned())
                    .collect();
                login.lock().unwrap().push((user.to_owned(), exposed));
                Ok(json!({ "stored": true }))
            },
        )
        .router();
    Site {
        store,
        router,
        stored,
    }
}

impl Site {
    /// A pending flow for `user` on the page `page`.
    fn flow(&self, page: &str, user: &str) -> FlowId {
        page_site::begin(&self.store, page, user)
    }

    fn status(&self, id: &FlowId) -> FlowStatus {
        page_site::status(&self.store, id)
    }

    /// Alice opens flow `id`: the page, her browser's cookie and the form's token.
    async fn open(&self, id: &FlowId) -> (String, String, String) {
        let opened = send(&self.router, get(&id.to_string(), "alice", None)).await;
        assert_eq!(opened.status, StatusCode::OK, "{}", opened.body);
        let token = opened.token();
        (opened.body, opened.cookie.expect("a browser cookie"), token)
    }

    /// Alice, in the browser of `cookie`, posts `fields` and the token to flow `id`.
    async fn post(
        &self,
        id: &FlowId,
        cookie: &str,
        token: &str,
        fields: &[(&str, &str)],
    ) -> (StatusCode, String) {
        let mut form = vec![("_csrf", token)];
        form.extend_from_slice(fields);
        let request = post(&id.to_string(), "alice", Some(cookie), ORIGIN, &form);
        let posted = send(&self.router, request).await;
        (posted.status, posted.body)
    }

    fn stored(&self) -> Vec<(String, Vec<String>)> {
        self.stored.lock().unwrap().clone()
    }
}

#[test]
fn the_type_is_the_page_its_name_heading_and_fields() {
    let page = ApiKey::secret_page();
    assert_eq!(page.name(), "api_key");
    assert_eq!(ApiKey::name(), "api_key");
    assert_eq!(page.title(), "Your Example Co. API key");
    let [key] = page.fields() else {
        panic!("one field")
    };
    assert_eq!(key.name(), "key");
    assert_eq!(key.title_text(), Some("API key"));
    assert_eq!(
        key.description_text(),
        Some("Settings → API keys on example.com")
    );
    assert!(key.is_required());

    let page = DatabaseLogin::secret_page();
    assert_eq!(page.name(), "database-login");
    assert_eq!(page.title(), "Your database's password");
    let names: Vec<_> = page.fields().iter().map(|f| f.name()).collect();
    assert_eq!(names, ["password", "otp"]);
}

#[tokio::test]
async fn the_typed_page_renders_a_password_input_per_field_with_its_rules() {
    let site = site();
    let id = site.flow("api_key", "alice");
    let (page, _, _) = site.open(&id).await;
    assert!(page.contains("Your Example Co. API key"), "{page}");
    assert!(
        page.contains("Settings → API keys on example.com"),
        "{page}"
    );
    assert_eq!(page.matches(r#"type="password""#).count(), 1, "{page}");
    for attribute in [
        r#"name="key""#,
        r#"minlength="20""#,
        r#"maxlength="200""#,
        "required",
    ] {
        assert!(page.contains(attribute), "{attribute}: {page}");
    }

    let id = site.flow("database-login", "alice");
    let (page, _, _) = site.open(&id).await;
    assert_eq!(page.matches(r#"type="password""#).count(), 2, "{page}");
    assert!(page.contains(r#"name="otp""#), "{page}");
}

#[tokio::test]
async fn a_short_value_is_refused_naming_the_field_and_the_rule_never_the_value() {
    let site = site();
    let id = site.flow("api_key", "alice");
    let (_, cookie, token) = site.open(&id).await;
    let (status, page) = site
        .post(&id, &cookie, &token, &[("key", "sk-short-secret")])
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{page}");
    assert!(
        page.contains("API key must be at least 20 characters long"),
        "{page}"
    );
    assert!(!page.contains("sk-short-secret"), "{page}");
    assert!(site.stored().is_empty());
    assert_eq!(site.status(&id), FlowStatus::Opened);
}

#[tokio::test]
async fn the_sink_receives_the_typed_value_and_the_tool_its_receipt() {
    let site = site();
    let id = site.flow("api_key", "alice");
    let (_, cookie, token) = site.open(&id).await;
    let (status, page) = site.post(&id, &cookie, &token, &[("key", KEY)]).await;
    assert_eq!(status, StatusCode::OK, "{page}");
    assert!(!page.contains(KEY), "the page never shows the secret back");
    assert_eq!(site.stored(), [("alice".to_owned(), vec![KEY.to_owned()])]);
    assert_eq!(
        site.status(&id),
        FlowStatus::Completed(json!({ "ending": "cdef" }))
    );

    // Two fields, one renamed on the page: each lands in its own field of the type.
    let id = site.flow("database-login", "alice");
    let (_, cookie, token) = site.open(&id).await;
    let (status, page) = site
        .post(
            &id,
            &cookie,
            &token,
            &[("otp", "123456"), ("password", "correct horse")],
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{page}");
    assert_eq!(
        site.stored()[1],
        (
            "alice".to_owned(),
            vec!["correct horse".to_owned(), "123456".to_owned()]
        )
    );
}

#[tokio::test]
async fn secrets_of_another_page_are_not_the_type_and_say_which_fields_are_missing() {
    // A plain sink of the API-key page that reads its secrets as the database login.
    let store = MemoryFlowStore::new();
    let flows = Flows::new(store.clone(), BASE).unwrap();
    let router = Pages::new(flows, HeaderUser)
        .unwrap()
        .secret(ApiKey::secret_page().clone(), |_, secrets: Secrets| {
            DatabaseLogin::from_secrets(secrets)
                .map(|_| json!({}))
                .map_err(|missing| SinkError::fail(missing.to_string()))
        })
        .router();
    let site = Site {
        store,
        router,
        stored: Stored::default(),
    };
    let id = site.flow("api_key", "alice");
    let (_, cookie, token) = site.open(&id).await;
    site.post(&id, &cookie, &token, &[("key", KEY)]).await;
    let FlowStatus::Failed(why) = site.status(&id) else {
        panic!("{:?}", site.status(&id))
    };
    assert!(
        why.contains("`password` is required") && why.contains("`otp` is required"),
        "{why}"
    );
    assert!(!why.contains(KEY));
}

// ------------------------------------------------------------------------------------- the tool

key_server!(Keys, |asker| asker.url_page::<ApiKey>());

#[tokio::test]
async fn url_page_asks_with_the_type_s_message_for_the_type_s_page() {
    for revision in [Revision::V2025_11_25, Revision::V2026_07_28] {
        let store = MemoryFlowStore::new();
        let flows = Flows::new(store.clone(), BASE).unwrap();
        let asking = AskConfig::single_user("me").unwrap().with_flows(flows);
        let user = Arc::new(Scripted::new().when_url(Step::Decline));
        let kit = TestKit::new(revision)
            .connect(Keys { asking }, Arc::clone(&user))
            .await
            .unwrap();
        let called = kit.call("connect_api_key", json!({})).await.unwrap();
        assert_eq!(called.text(), "not connected: Decline", "{revision:?}");

        let seen = user.seen();
        let [(_, Incoming::Url(asked))] = &seen[..] else {
            panic!("{revision:?}: one URL request, not {seen:?}")
        };
        assert_eq!(asked.message(), ApiKey::message());
        // The URL names a flow of the type's page, and nothing else.
        let url = asked.url().as_str();
        let id = FlowId::parse(url.strip_prefix(BASE).expect("under the pages' base")).unwrap();
        let flow = store.get_now(&id, UnixTime::now()).unwrap();
        assert_eq!(flow.page(), "api_key", "{revision:?}");
        assert_eq!(flow.message(), ApiKey::message(), "{revision:?}");
    }
}
