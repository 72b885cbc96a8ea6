//! `axum_login_server` over real HTTP on loopback, each browser a reqwest cookie jar: axum-login's
//! login page signs the user in, and its `AuthSession` names the user to the pages; the MCP
//! client, with no cookie, sends its account's bearer token.
//!
//! `cargo test -p elicit-examples --features axum-login --test axum_login`

use std::time::Duration;

use axum::http::header;
use mcp_elicit::page::{ExposeSecret, SecretForm};
use mcp_elicit::state::{ParamsDigest, UnixTime};
use mcp_elicit::url_mode::{Flow, FlowId, FlowStatus, Flows};
use serde_json::json;

#[allow(dead_code)] // its `main`, which serves the app
#[path = "../axum_login_server.rs"]
mod axum_login_server;

use axum_login_server::{Accounts, ApiKey, Vault};

#[path = "common/pages_over_http.rs"]
mod pages_over_http;

use pages_over_http::{Reply, browser, csrf, get, post, reply, serve};

const KEY: &str = "sk-live-0123456789abcdef";
const ACCOUNTS: &str = "alice:correct horse battery staple:alice-mcp-token-0123456789\n\
                        bob:tr0ub4dor&3:bob-mcp-token-9876543210\n";
const ALICE_TOKEN: &str = "alice-mcp-token-0123456789";
const BOB_TOKEN: &str = "bob-mcp-token-9876543210";

struct Server {
    origin: String,
    flows: Flows,
    vault: Vault,
}

async fn server() -> Server {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
        .await
        .unwrap();
    let origin = format!("http://localhost:{}", listener.local_addr().unwrap().port());
    let vault = Vault::default();
    let accounts = Accounts::from_lines(ACCOUNTS).unwrap();
    let (app, flows) = axum_login_server::app(accounts, &origin, vault.clone()).unwrap();
    serve(listener, app);
    Server {
        origin,
        flows,
        vault,
    }
}

impl Server {
    /// The page of a flow made for `user`, as the tool makes it: its id, and its URL.
    async fn flow_for(&self, user: &str) -> (FlowId, String) {
        let id = FlowId::random().unwrap();
        let call = ParamsDigest::of(&json!({ "name": "connect_api_key" }));
        let now = UnixTime::now();
        let page = <ApiKey as SecretForm>::secret_page().name();
        let flow = Flow::new(id, page, user, call, "Enter your Example Co. API key.")
            .expiring(now, Duration::from_secs(600))
            .unwrap();
        self.flows.store().begin(flow, now).await.unwrap();
        (id, format!("{}{id}", self.flows.base()))
    }

    async fn status(&self, id: &FlowId) -> FlowStatus {
        let flow = self.flows.store().get(id, UnixTime::now()).await.unwrap();
        flow.status().clone()
    }

    /// Signs `browser` in through the login form, coming back to `next`.
    async fn log_in(
        &self,
        browser: &reqwest::Client,
        name: &str,
        password: &str,
        next: &str,
    ) -> Reply {
        let form = get(browser, &format!("{}/login?next={next}", self.origin)).await;
        assert_eq!(form.status, 200, "{}", form.body);
        assert!(
            form.body.contains(r#"name="password" type="password""#),
            "{}",
            form.body
        );
        post(
            browser,
            &self.origin,
            &format!("{}/login", self.origin),
            &[("name", name), ("password", password), ("next", next)],
        )
        .await
    }
}

/// `initialize` on the MCP endpoint, as a streamable HTTP client sends it, with `client`'s
/// cookies and `authorization` if given.
async fn initialize(client: &reqwest::Client, origin: &str, authorization: Option<&str>) -> Reply {
    let request = json!({
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": { "elicitation": { "url": {} } },
            "clientInfo": { "name": "test", "version": "0" }
        }
    });
    let mut request = client
        .post(format!("{origin}/mcp"))
        .header(header::ACCEPT, "application/json, text/event-stream")
        .header(header::CONTENT_TYPE, "application/json")
        .body(request.to_string());
    if let Some(authorization) = authorization {
        request = request.header(header::AUTHORIZATION, authorization);
    }
    reply(request.send().await.unwrap()).await
}

#[tokio::test]
async fn alice_signs_in_on_the_login_page_and_her_key_finishes_her_flow_with_the_receipt() {
    let server = server().await;
    let (id, page) = server.flow_for("alice").await;
    let path = page.strip_prefix(&server.origin).unwrap().to_owned();
    let alice = browser();

    // Not signed in: the pages send her to axum-login's login page, and back.
    let first = get(&alice, &page).await;
    assert_eq!(first.status, 303, "{}", first.body);
    let to = first.location.unwrap();
    assert_eq!(to, format!("/login?next={}", path.replace('/', "%2F")));

    let signed_in = server
        .log_in(&alice, "alice", "correct horse battery staple", &path)
        .await;
    assert_eq!(signed_in.status, 303, "{}", signed_in.body);
    assert_eq!(signed_in.location.as_deref(), Some(path.as_str()));

    let shown = get(&alice, &page).await;
    assert_eq!(shown.status, 200, "{}", shown.body);
    assert!(
        shown.body.contains("Signed in as <strong>alice</strong>"),
        "{}",
        shown.body
    );
    assert!(shown.body.contains(r#"href="/logout""#), "{}", shown.body);
    let typed = post(
        &alice,
        &server.origin,
        &page,
        &[("_csrf", &csrf(&shown.body)), ("key", KEY)],
    )
    .await;
    assert_eq!(typed.status, 200, "{}", typed.body);

    assert_eq!(
        server.status(&id).await,
        FlowStatus::Completed(json!("cdef"))
    );
    let vault = server.vault.lock().unwrap();
    assert_eq!(vault.len(), 1);
    assert_eq!(vault["alice"].expose_secret(), KEY);
}

/// A 2026-07-28 `tools/call` of `connect_api_key` (stateless: the client is in its `_meta`), as
/// an MCP client sends it: no cookie, its account's bearer `token`; `retry` is the previous
/// round's answer: its URL request accepted, its state sent back. The JSON-RPC response, read
/// from the event stream.
async fn call_tool(
    origin: &str,
    token: &str,
    retry: Option<&serde_json::Value>,
) -> serde_json::Value {
    let mut params = json!({
        "name": "connect_api_key",
        "arguments": {},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": { "elicitation": { "url": {} } },
            "io.modelcontextprotocol/clientInfo": { "name": "test", "version": "0" }
        }
    });
    if let Some(asked) = retry {
        let accept: serde_json::Map<String, serde_json::Value> = asked["inputRequests"]
            .as_object()
            .unwrap()
            .keys()
            .map(|key| (key.clone(), json!({ "action": "accept" })))
            .collect();
        params["inputResponses"] = json!(accept);
        params["requestState"] = asked["requestState"].clone();
    }
    let request = json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params });
    let response = reqwest::Client::new()
        .post(format!("{origin}/mcp"))
        .bearer_auth(token)
        .header(header::ACCEPT, "application/json, text/event-stream")
        .header(header::CONTENT_TYPE, "application/json")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "connect_api_key")
        .body(request.to_string())
        .send()
        .await
        .unwrap();
    let status = response.status();
    let body = response.text().await.unwrap();
    assert_eq!(status, 200, "{body}");
    let data = body
        .lines()
        .filter_map(|line| line.strip_prefix("data: "))
        .find(|data| data.contains(r#""id":1"#))
        .unwrap_or_else(|| panic!("no response in {body}"));
    serde_json::from_str(data).unwrap()
}

/// The whole way round: alice's MCP client (her bearer token) calls the tool, which asks for
/// the page; her browser signs in on the login page, opens the page and types the key; the
/// client's retry reads the receipt.
#[tokio::test]
async fn alices_tool_call_sends_her_to_the_page_and_reads_the_receipt_of_her_key() {
    let server = server().await;
    let asked = call_tool(&server.origin, ALICE_TOKEN, None).await;
    let result = &asked["result"];
    assert_eq!(result["resultType"], "input_required", "{asked}");
    let requests = result["inputRequests"].as_object().unwrap();
    assert_eq!(requests.len(), 1, "{asked}");
    let request = requests.values().next().unwrap();
    let page = request["params"]["url"].as_str().unwrap().to_owned();
    assert!(
        page.starts_with(&format!("{}/elicit/", server.origin)),
        "{page}"
    );

    let alice = browser();
    let path = page.strip_prefix(&server.origin).unwrap();
    let signed_in = server
        .log_in(&alice, "alice", "correct horse battery staple", path)
        .await;
    assert_eq!(
        signed_in.location.as_deref(),
        Some(path),
        "{}",
        signed_in.body
    );
    let shown = get(&alice, &page).await;
    assert_eq!(shown.status, 200, "{}", shown.body);
    let typed = post(
        &alice,
        &server.origin,
        &page,
        &[("_csrf", &csrf(&shown.body)), ("key", KEY)],
    )
    .await;
    assert_eq!(typed.status, 200, "{}", typed.body);

    // Bob's client sending alice's round back: her state is sealed to her.
    let refused = call_tool(&server.origin, BOB_TOKEN, Some(result)).await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");

    let done = call_tool(&server.origin, ALICE_TOKEN, Some(result)).await;
    assert_eq!(
        done["result"]["content"][0]["text"], "Connected the key ending cdef.",
        "{done}"
    );
    assert_eq!(server.vault.lock().unwrap()["alice"].expose_secret(), KEY);
}

#[tokio::test]
async fn bob_signed_in_is_refused_on_alices_page() {
    let server = server().await;
    let (id, page) = server.flow_for("alice").await;
    let path = page.strip_prefix(&server.origin).unwrap().to_owned();
    let bob = browser();
    let signed_in = server.log_in(&bob, "bob", "tr0ub4dor&3", &path).await;
    assert_eq!(signed_in.status, 303, "{}", signed_in.body);

    let refused = get(&bob, &page).await;
    assert_eq!(refused.status, 403, "{}", refused.body);
    assert!(
        refused.body.contains("This page is for another user"),
        "{}",
        refused.body
    );
    assert_eq!(server.status(&id).await, FlowStatus::Pending);
    assert!(server.vault.lock().unwrap().is_empty());
}

#[tokio::test]
async fn a_wrong_password_or_an_unknown_name_signs_no_one_in() {
    let server = server().await;
    let (_, page) = server.flow_for("alice").await;
    let path = page.strip_prefix(&server.origin).unwrap().to_owned();
    for (name, password) in [
        ("alice", "correct horse battery stapl"),
        ("alice", "tr0ub4dor&3"),
        ("alice", ""),
        ("mallory", "correct horse battery staple"),
        ("", ""),
    ] {
        let browser = browser();
        let refused = server.log_in(&browser, name, password, &path).await;
        assert_eq!(refused.status, 401, "{name}:{password}: {}", refused.body);
        assert!(
            refused
                .body
                .contains("That name and password do not match an account."),
            "{}",
            refused.body
        );
        assert_eq!(get(&browser, &page).await.status, 303, "{name}:{password}");
    }
}

#[tokio::test]
async fn the_login_form_is_taken_only_from_its_own_origin_and_sends_only_to_this_site() {
    let server = server().await;
    let alice = browser();
    let elsewhere = post(
        &alice,
        "http://evil.example",
        &format!("{}/login", server.origin),
        &[
            ("name", "alice"),
            ("password", "correct horse battery staple"),
            ("next", "/"),
        ],
    )
    .await;
    assert_eq!(elsewhere.status, 403, "{}", elsewhere.body);
    assert_eq!(initialize(&alice, &server.origin, None).await.status, 403);

    for next in [
        "//evil.example/",
        "/\\evil.example/",
        "/\t/evil.example/",
        "https://evil.example/",
    ] {
        let signed_in = server
            .log_in(&browser(), "alice", "correct horse battery staple", next)
            .await;
        assert_eq!(signed_in.status, 303, "{next}: {}", signed_in.body);
        assert_eq!(signed_in.location.as_deref(), Some("/"), "{next}");
    }
}

#[tokio::test]
async fn the_mcp_endpoint_takes_only_a_signed_in_session() {
    let server = server().await;
    let alice = browser();
    let refused = initialize(&alice, &server.origin, None).await;
    assert_eq!(refused.status, 403, "{}", refused.body);

    let signed_in = server
        .log_in(&alice, "alice", "correct horse battery staple", "/")
        .await;
    assert_eq!(signed_in.status, 303, "{}", signed_in.body);
    let opened = initialize(&alice, &server.origin, None).await;
    assert_eq!(opened.status, 200, "{}", opened.body);
    assert!(
        opened.body.contains("axum-login-example"),
        "{}",
        opened.body
    );

    // Signed out, the same browser is refused again.
    let signed_out = post(
        &alice,
        &server.origin,
        &format!("{}/logout", server.origin),
        &[],
    )
    .await;
    assert_eq!(signed_out.status, 303, "{}", signed_out.body);
    assert_eq!(initialize(&alice, &server.origin, None).await.status, 403);
}

#[tokio::test]
async fn the_mcp_endpoint_takes_an_accounts_bearer_token_and_refuses_any_other() {
    let server = server().await;
    let client = reqwest::Client::new();
    let bearer = |token: &str| format!("Bearer {token}");
    let opened = initialize(&client, &server.origin, Some(&bearer(ALICE_TOKEN))).await;
    assert_eq!(opened.status, 200, "{}", opened.body);
    assert!(
        opened.body.contains("axum-login-example"),
        "{}",
        opened.body
    );

    for refused in [
        bearer("alice-mcp-token-012345678"),
        bearer(&format!("{ALICE_TOKEN}0")),
        bearer("correct horse battery staple"),
        bearer(""),
        format!("Basic {ALICE_TOKEN}"),
        ALICE_TOKEN.to_owned(),
    ] {
        let reply = client
            .post(format!("{}/mcp", server.origin))
            .header(header::AUTHORIZATION, &refused)
            .header(header::ACCEPT, "application/json, text/event-stream")
            .send()
            .await
            .unwrap();
        assert_eq!(reply.status(), 401, "{refused}");
        assert_eq!(
            reply.headers()[header::WWW_AUTHENTICATE],
            r#"Bearer error="invalid_token""#,
            "{refused}"
        );
    }
    // No token and no session: no one, refused before rmcp.
    assert_eq!(initialize(&client, &server.origin, None).await.status, 403);
    // A token names no one on the pages: a browser signs in there.
    let (_, page) = server.flow_for("alice").await;
    let to_login = browser()
        .get(&page)
        .bearer_auth(ALICE_TOKEN)
        .send()
        .await
        .unwrap();
    assert_eq!(to_login.status(), 303);
}

#[test]
fn an_accounts_line_is_refused_naming_the_line_and_the_rule() {
    for (lines, error) in [
        ("alice:pass", "ACCOUNTS line 1: not `name:password:token`"),
        (
            "# comment\nalice::token",
            "ACCOUNTS line 2: the name, the password and the token must not be empty",
        ),
        (
            "alice:pass:",
            "ACCOUNTS line 1: the name, the password and the token must not be empty",
        ),
        (
            "alice:pass:same-token\nbob:other:same-token",
            "ACCOUNTS line 2: this token is another account's",
        ),
        (
            "alice:pass:t1\nalice:other:t2",
            "ACCOUNTS line 2: `alice` is given twice",
        ),
        (
            "\n# none\n",
            "ACCOUNTS names no account: give `name:password:token` lines",
        ),
    ] {
        let refused = Accounts::from_lines(lines).err();
        assert_eq!(refused.as_deref(), Some(error), "{lines:?}");
    }
    // A password may hold `:`; the token is what follows the last one.
    assert!(Accounts::from_lines("alice:pass:with:colons:token").is_ok());
}
