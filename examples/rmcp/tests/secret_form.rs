//! A secret page declared as a type (`#[derive(Elicit)]`, `#[elicit(mode = "url")]`, fields of
//! `SecretString`): the page the library serves from it (`Pages::secret_form`), and the question
//! the tool asks with it (`Asker::url_page`). The page's own checks (identity, browser, CSRF,
//! replay) are `tests/page.rs`'s: the typed page is served by the same code.
//!
//! `cargo test -p elicit-examples --features page --test secret_form`

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use axum::response::{IntoResponse, Redirect};
use mcp_elicit::client::{Incoming, Scripted, Step};
use mcp_elicit::page::{
    ExposeSecret, IdentifyFuture, Identity, Pages, SecretForm, SecretString, Secrets, SinkError,
};
use mcp_elicit::rmcp::{AskConfig, Asker, AskingServer, TestKit, ToolResponse, respond};
use mcp_elicit::state::{ParamsDigest, UnixTime};
use mcp_elicit::url_mode::{
    ElicitUrl, Flow, FlowId, FlowOutcome, FlowStatus, Flows, MemoryFlowStore,
};
use mcp_elicit::{Elicit, Revision};
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{ServerHandler, tool, tool_handler, tool_router};
use serde_json::{Value, json};
use tower::ServiceExt;

const BASE: &str = "http://localhost:8719/elicit/";
const ORIGIN: &str = "http://localhost:8719";
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

/// Who sent a request: the `x-user` header, as a sign-in layer would put it.
struct HeaderUser;

impl Identity for HeaderUser {
    fn identify<'a>(&'a self, request: &'a axum::http::request::Parts) -> IdentifyFuture<'a> {
        let user = request
            .headers
            .get("x-user")
            .and_then(|user| user.to_str().ok())
            .map(str::to_owned);
        Box::pin(async move {
            user.map(mcp_elicit::page::SignedIn::new)
                .ok_or_else(|| Redirect::to("/signin").into_response())
        })
    }
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
        let id = FlowId::random().unwrap();
        let call = ParamsDigest::of(&json!({ "name": "connect" }));
        let now = UnixTime::now();
        let flow = Flow::new(id, page, user, call, "Enter it on this page.")
            .expiring(now, Duration::from_secs(600))
            .unwrap();
        self.store.begin_now(flow, now).unwrap();
        id
    }

    fn status(&self, id: &FlowId) -> FlowStatus {
        let flow = self.store.get_now(id, UnixTime::now()).unwrap();
        flow.status().clone()
    }

    async fn send(&self, mut request: Request<Body>) -> (StatusCode, Option<String>, String) {
        // As a browser sends it: the pages serve only the host of their base.
        request
            .headers_mut()
            .entry(header::HOST)
            .or_insert(header::HeaderValue::from_static("localhost:8719"));
        let response = self.router.clone().oneshot(request).await.unwrap();
        let status = response.status();
        let cookie = response
            .headers()
            .get(header::SET_COOKIE)
            .map(|set| set.to_str().unwrap().split(';').next().unwrap().to_owned());
        let body = axum::body::to_bytes(response.into_body(), 1 << 20)
            .await
            .unwrap();
        (status, cookie, String::from_utf8(body.to_vec()).unwrap())
    }

    /// Alice opens flow `id`: the page, her browser's cookie and the form's token.
    async fn open(&self, id: &FlowId) -> (String, String, String) {
        let request = Request::get(format!("/elicit/{id}"))
            .header("x-user", "alice")
            .body(Body::empty())
            .unwrap();
        let (status, cookie, body) = self.send(request).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        let at = body.find(r#"name="_csrf" value=""#).expect("a token");
        let rest = &body[at + r#"name="_csrf" value=""#.len()..];
        let token = rest[..rest.find('"').unwrap()].to_owned();
        (body, cookie.expect("a browser cookie"), token)
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
        let request = Request::post(format!("/elicit/{id}"))
            .header("x-user", "alice")
            .header(header::COOKIE, cookie)
            .header(header::ORIGIN, ORIGIN)
            .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(Body::from(serde_urlencoded::to_string(&form).unwrap()))
            .unwrap();
        let (status, _, body) = self.send(request).await;
        (status, body)
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

#[derive(Clone)]
struct Keys {
    asking: AskConfig,
}

impl AskingServer for Keys {
    fn asking(&self) -> &AskConfig {
        &self.asking
    }
}

#[tool_router]
impl Keys {
    #[tool(description = "Connect the user's Example Co. API key.")]
    async fn connect_api_key(&self, mut asker: Asker) -> ToolResponse {
        respond(async {
            let text = match asker.url_page::<ApiKey>().await? {
                FlowOutcome::Completed(receipt) => format!("connected: {receipt}"),
                other => format!("not connected: {other:?}"),
            };
            Ok(CallToolResult::success(vec![ContentBlock::text(text)]))
        })
        .await
    }
}

#[tool_handler(name = "keys")]
impl ServerHandler for Keys {}

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
