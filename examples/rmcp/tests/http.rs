//! `AskingHttpService`: rmcp's streamable HTTP service given what `AskingService` gives stdio.
//! Each request here is an HTTP request as a client sends it, handed to the tower service (the
//! service the server mounts; no listener needed), in both response modes rmcp has: an event
//! stream (its default) and one JSON body. The sessions bound to their principal are tested on
//! a real listener, behind an authentication middleware, with two users (the last section).
//!
//! `cargo test -p elicit-examples --features http --test http`

use http_body_util::BodyExt;
use mcp_elicit::mrtr::Rounds;
use mcp_elicit::rmcp::{
    AskConfig, Asker, AskingHttpService, HttpPrincipal, SessionBinding, ToolResponse, respond,
};
use mcp_elicit::url_mode::UrlRequest;
use mcp_elicit::{Elicit, Elicitation};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::transport::StreamableHttpServerConfig;
use rmcp::{ServerHandler, schemars, tool, tool_handler, tool_router};
use serde_json::{Value, json};
use tower::ServiceExt;

#[macro_use]
#[path = "common/servers.rs"]
mod servers;

use servers::{Subject, subject};

/// Drop the table? This cannot be undone.
#[derive(Elicit)]
#[elicit(consent)]
struct DropIt {
    #[elicit(title = "Drop it", consent)]
    confirm: bool,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Table {
    table: String,
}

asking_server!(Server);

#[tool_router]
impl Server {
    #[tool(description = "Send the user to a page.")]
    async fn connect(&self, mut asker: Asker) -> ToolResponse {
        respond(async {
            let page = UrlRequest::new("Connect your account.", "https://example.com/connect")?;
            Ok(format!("{:?}", asker.url(page).await?))
        })
        .await
    }

    /// `Parameters<..>` first: rmcp takes the arguments out of the context before the asker
    /// is built, so only the service's record of the call binds the round to them.
    #[tool(description = "Drop a table, with the user's consent.")]
    async fn drop_table(&self, Parameters(t): Parameters<Table>, mut asker: Asker) -> ToolResponse {
        respond(async {
            Ok(match asker.consent::<DropIt>().await? {
                Elicitation::Accept(_) => format!("Dropped table `{}`.", t.table),
                _ => format!("`{}` was not dropped.", t.table),
            })
        })
        .await
    }

    /// A URL question that starts a flow (the server's flows, `flows_service`).
    #[tool(description = "Send the user to a page of the server's own.")]
    async fn connect_flow(&self, mut asker: Asker) -> ToolResponse {
        respond(async {
            let outcome = asker
                .url_flow::<Value>("api_key", "Enter your key.")
                .await?;
            Ok(format!("{outcome:?}"))
        })
        .await
    }

    /// A result that holds the member the service removes from URL requests: it is the
    /// tool's own data, and must reach the client as the tool wrote it.
    #[tool(description = "Return data that looks like an empty elicitationId.")]
    async fn lookalike(&self) -> CallToolResult {
        CallToolResult::structured(json!({ "elicitationId": "", "note": "\"elicitationId\":\"\"" }))
    }
}

#[tool_handler]
impl ServerHandler for Server {}

fn service(json_response: bool) -> AskingHttpService<Server> {
    let server = Server {
        asking: AskConfig::single_user("me").unwrap(),
    };
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(json_response);
    AskingHttpService::new(move || Ok(server.clone()), SessionBinding::Unbound, config)
}

/// A 2026-07-28 `tools/call` (stateless: everything about the client is in its `_meta`).
fn call(name: &str, params: Value) -> Value {
    call_from(name, params, json!({"name": "http-test", "version": "1"}))
}

/// [`call`] from a client whose `clientInfo` is `client_info`.
fn call_from(name: &str, params: Value, client_info: Value) -> Value {
    let mut params = params;
    params["name"] = json!(name);
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}, "url": {}}},
        "io.modelcontextprotocol/clientInfo": client_info,
    });
    json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
}

/// [`service`] with flows, whose pages are under [`PAGES`].
fn flows_service(json_response: bool) -> AskingHttpService<Server> {
    let flows = mcp_elicit::url_mode::Flows::new(MemoryFlowStore::new(), PAGES).unwrap();
    let server = Server {
        asking: AskConfig::single_user("me").unwrap().with_flows(flows),
    };
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(json_response);
    AskingHttpService::new(move || Ok(server.clone()), SessionBinding::Unbound, config)
}

const PAGES: &str = "https://pages.example.com/elicit/";

use mcp_elicit::url_mode::{FlowId, MemoryFlowStore};

/// The bytes of the JSON-RPC message answering `message`, as the service wrote them (the
/// `data:` of its event, or its JSON body), and the response's content type.
async fn post(service: AskingHttpService<Server>, message: &Value) -> (String, String) {
    post_as(service, message, None).await
}

/// [`post`], the request carrying `subject` in its extensions as a middleware would leave it.
async fn post_as(
    service: AskingHttpService<Server>,
    message: &Value,
    subject: Option<&str>,
) -> (String, String) {
    let mut request = http::Request::post("/")
        .header("host", "localhost")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", message["params"]["name"].as_str().unwrap())
        .body(http_body_util::Full::new(bytes::Bytes::from(
            serde_json::to_vec(message).unwrap(),
        )))
        .unwrap();
    if let Some(subject) = subject {
        request.extensions_mut().insert(Subject(subject.to_owned()));
    }
    let response = service.oneshot(request).await.unwrap();
    let status = response.status();
    let content_type = response.headers()["content-type"]
        .to_str()
        .unwrap()
        .to_owned();
    let body = response.into_body().collect().await.unwrap().to_bytes();
    let body = String::from_utf8(body.to_vec()).unwrap();
    assert_eq!(status, http::StatusCode::OK, "{body}");
    if content_type.starts_with("text/event-stream") {
        // The test's own reading of the stream: the data line that holds a response.
        let data = body
            .lines()
            .filter_map(|line| line.strip_prefix("data: "))
            .find(|data| data.contains(r#""id":1"#))
            .unwrap_or_else(|| panic!("no response in {body}"));
        (content_type, data.to_owned())
    } else {
        (content_type, body)
    }
}

/// The message answering `message`, from `service` in the response mode it was made with.
async fn answered(service: &AskingHttpService<Server>, json: bool, message: &Value) -> Value {
    let (content_type, data) = post(service.clone(), message).await;
    let expected = if json {
        "application/json"
    } else {
        "text/event-stream"
    };
    assert!(content_type.starts_with(expected), "{content_type}");
    serde_json::from_str(&data).unwrap()
}

#[tokio::test]
async fn a_url_request_on_2026_07_28_goes_out_without_an_elicitation_id() {
    for json_response in [false, true] {
        let (_, data) = post(service(json_response), &call("connect", json!({}))).await;
        assert!(!data.contains("elicitationId"), "{data}");
        let message: Value = serde_json::from_str(&data).unwrap();
        let result = &message["result"];
        assert_eq!(result["resultType"], "input_required", "{message}");
        let requests = result["inputRequests"].as_object().unwrap();
        assert_eq!(requests.len(), 1);
        let params = &requests.values().next().unwrap()["params"];
        assert_eq!(params["mode"], "url");
        assert_eq!(params["url"], "https://example.com/connect");
        assert!(params.get("elicitationId").is_none(), "{params}");
        assert!(result["requestState"].is_string());
    }
}

/// GitHub Copilot CLI needs a 2026-07-28 URL question's `elicitationId` (the host table's
/// `copilot-cli` row): over streamable HTTP, in both response modes, its question carries the
/// flow's own id, and another client's carries none.
#[tokio::test]
async fn a_url_flow_on_2026_07_28_carries_the_flows_id_to_copilot_cli_only() {
    let copilot = json!({"name": "copilot-cli", "version": "1.0.102"});
    let other = json!({"name": "http-test", "version": "1"});
    for json_response in [false, true] {
        for (client, wants_id) in [(&copilot, true), (&other, false)] {
            let message = call_from("connect_flow", json!({}), client.clone());
            let (_, data) = post(flows_service(json_response), &message).await;
            let message: Value = serde_json::from_str(&data).unwrap();
            let params = &message["result"]["inputRequests"]["api_key"]["params"];
            assert_eq!(params["mode"], "url", "{message}");
            let url = params["url"].as_str().unwrap();
            let flow = FlowId::parse(url.strip_prefix(PAGES).unwrap()).unwrap();
            if wants_id {
                assert_eq!(
                    params["elicitationId"],
                    flow.elicitation_id().as_str(),
                    "{data}"
                );
            } else {
                assert!(!data.contains("elicitationId"), "{data}");
            }
        }
    }
}

#[tokio::test]
async fn a_tools_own_lookalike_data_passes_as_the_tool_wrote_it() {
    for json_response in [false, true] {
        let service = service(json_response);
        let message = answered(&service, json_response, &call("lookalike", json!({}))).await;
        assert_eq!(
            message["result"]["structuredContent"],
            json!({ "elicitationId": "", "note": "\"elicitationId\":\"\"" }),
            "{message}"
        );
    }
}

/// The consent given for `scratch`, retried with its state for `customers`: refused (-32602),
/// though the tool lists `Parameters<..>` before its `Asker`; retried for `scratch`, done.
#[tokio::test]
async fn a_round_is_bound_to_the_arguments_the_client_sent_whatever_the_parameter_order() {
    for json_response in [false, true] {
        let service = service(json_response);
        let first = call("drop_table", json!({"arguments": {"table": "scratch"}}));
        let asked = answered(&service, json_response, &first).await;
        let result = &asked["result"];
        assert_eq!(result["resultType"], "input_required", "{asked}");
        let consent = json!({"action": "accept", "content": {"confirm": true}});
        let responses: serde_json::Map<String, Value> = result["inputRequests"]
            .as_object()
            .unwrap()
            .keys()
            .map(|key| (key.clone(), consent.clone()))
            .collect();
        let retry = |table: &str| {
            call(
                "drop_table",
                json!({
                    "arguments": {"table": table},
                    "inputResponses": responses,
                    "requestState": result["requestState"],
                }),
            )
        };
        // A person reads the form before ticking it (on the real clock: the state seals the
        // wall clock's time, and a consent sooner than a person's is not taken).
        tokio::time::sleep(A_PERSON).await;
        let replayed = answered(&service, json_response, &retry("customers")).await;
        assert_eq!(replayed["error"]["code"], -32602, "{replayed}");
        let why = replayed["error"]["message"].as_str().unwrap();
        assert!(why.contains("different parameters"), "{why}");
        let done = answered(&service, json_response, &retry("scratch")).await;
        assert_eq!(
            done["result"]["content"][0]["text"], "Dropped table `scratch`.",
            "{done}"
        );
    }
}

/// How long a person takes to read the consent form and tick its box: longer than the server's
/// threshold for a person (1.25 s for its one field).
const A_PERSON: std::time::Duration = std::time::Duration::from_millis(1_500);

/// 2026-07-28 over streamable HTTP (stateless: no session to bind): the round's state is sealed
/// to the principal `per_http_user` names from the HTTP request. No principal: refused (`403`)
/// before rmcp reads the request; a round asked of alice does not open for bob; it does for
/// alice.
#[tokio::test]
async fn a_principal_left_by_an_http_layer_binds_the_round() {
    let principal = subject();
    let asking = AskConfig::per_http_user(Rounds::generate().unwrap(), principal.clone());
    let server = Server { asking };
    let config = StreamableHttpServerConfig::default().with_legacy_session_mode(false);
    let service = AskingHttpService::new(
        move || Ok(server.clone()),
        SessionBinding::BoundTo(principal),
        config,
    );
    let first = call("drop_table", json!({"arguments": {"table": "scratch"}}));
    let read = |(_, data): (String, String)| serde_json::from_str::<Value>(&data).unwrap();

    let nobody = http::Request::post("/")
        .header("host", "localhost")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(http_body_util::Full::new(bytes::Bytes::from(
            serde_json::to_vec(&first).unwrap(),
        )))
        .unwrap();
    let refused = service.clone().oneshot(nobody).await.unwrap();
    assert_eq!(refused.status(), http::StatusCode::FORBIDDEN);

    let asked = read(post_as(service.clone(), &first, Some("alice")).await);
    let result = &asked["result"];
    assert_eq!(result["resultType"], "input_required", "{asked}");
    let consent = json!({"action": "accept", "content": {"confirm": true}});
    let responses: serde_json::Map<String, Value> = result["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .map(|key| (key.clone(), consent.clone()))
        .collect();
    let retry = call(
        "drop_table",
        json!({
            "arguments": {"table": "scratch"},
            "inputResponses": responses,
            "requestState": result["requestState"],
        }),
    );
    tokio::time::sleep(A_PERSON).await;
    let as_bob = read(post_as(service.clone(), &retry, Some("bob")).await);
    assert_eq!(as_bob["error"]["code"], -32602, "{as_bob}");
    let as_alice = read(post_as(service, &retry, Some("alice")).await);
    assert_eq!(
        as_alice["result"]["content"][0]["text"], "Dropped table `scratch`.",
        "{as_alice}"
    );
}

// ------------------------------------------------- sessions bound to their principal, two users

/// Alice's and bob's tokens, as the authentication middleware knows them.
const ALICE: &str = "alice-token";
const BOB: &str = "bob-token";

/// The authentication layer in front of the service: a bearer token it knows becomes a
/// [`Subject`] in the request's extensions. It lets a request without a token through, as a
/// server with optional authentication would: the service itself refuses it.
async fn authenticate(
    mut request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let token = request
        .headers()
        .get(http::header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Bearer "));
    let subject = match token {
        Some(ALICE) => Some("alice"),
        Some(BOB) => Some("bob"),
        _ => None,
    };
    if let Some(subject) = subject {
        request.extensions_mut().insert(Subject(subject.to_owned()));
    }
    next.run(request).await
}

/// The server on a real listener on loopback, behind [`authenticate`], its sessions bound to
/// the subject; kept in `sessions` by rmcp's `LocalSessionManager` as given.
async fn listening(
    sessions: rmcp::transport::streamable_http_server::session::local::LocalSessionManager,
) -> (std::net::SocketAddr, AskingHttpService<Server>) {
    listening_bound_as(sessions, SessionBinding::BoundTo(subject())).await
}

/// As [`listening`], the sessions bound as `binding` says (the `AskConfig` still names each
/// request's user with [`subject`]).
async fn listening_bound_as(
    sessions: rmcp::transport::streamable_http_server::session::local::LocalSessionManager,
    binding: SessionBinding,
) -> (std::net::SocketAddr, AskingHttpService<Server>) {
    let server = Server {
        asking: AskConfig::per_http_user(Rounds::generate().unwrap(), subject()),
    };
    let service = AskingHttpService::with_session_manager(
        move || Ok(server.clone()),
        std::sync::Arc::new(sessions),
        binding,
        StreamableHttpServerConfig::default(),
    );
    let app = axum::Router::new()
        .nest_service("/mcp", service.clone())
        .layer(axum::middleware::from_fn(authenticate));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (address, service)
}

/// An HTTP response, its body still to be read.
struct Reply {
    status: http::StatusCode,
    headers: http::HeaderMap,
    body: hyper::body::Incoming,
    /// What was read of the body and not yet taken as an event.
    unread: String,
}

impl Reply {
    /// The rest of the body, as text.
    async fn text(self) -> String {
        let bytes = self.body.collect().await.unwrap().to_bytes();
        format!("{}{}", self.unread, String::from_utf8_lossy(&bytes))
    }

    /// The next JSON-RPC message of the event stream, waiting for it.
    async fn message(&mut self) -> Value {
        loop {
            while let Some((event, rest)) = self.unread.split_once("\n\n") {
                let data: String = event
                    .lines()
                    .filter_map(|line| line.strip_prefix("data:"))
                    .map(str::trim_start)
                    .collect();
                self.unread = rest.to_owned();
                if let Ok(message) = serde_json::from_str::<Value>(&data) {
                    return message;
                }
            }
            let frame = tokio::time::timeout(std::time::Duration::from_secs(10), self.body.frame())
                .await
                .expect("the stream goes on within 10 s")
                .expect("the stream is not over")
                .unwrap();
            if let Ok(data) = frame.into_data() {
                self.unread.push_str(&String::from_utf8_lossy(&data));
            }
        }
    }
}

/// One HTTP request to the server at `address`, on a connection of its own: as `token`'s
/// user (none: no `Authorization`), on `session` (none: no `Mcp-Session-Id`), with `body`.
async fn send(
    address: std::net::SocketAddr,
    method: http::Method,
    token: Option<&str>,
    session: Option<&str>,
    body: Option<&Value>,
) -> Reply {
    let stream = tokio::net::TcpStream::connect(address).await.unwrap();
    let (mut sender, connection) =
        hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream))
            .await
            .unwrap();
    tokio::spawn(connection);
    let accept = if method == http::Method::GET {
        "text/event-stream"
    } else {
        "application/json, text/event-stream"
    };
    let mut request = http::Request::builder()
        .method(method)
        .uri("/mcp")
        .header("host", address.to_string())
        .header("accept", accept)
        .header("content-type", "application/json")
        .header("mcp-protocol-version", "2025-11-25");
    if let Some(token) = token {
        request = request.header("authorization", format!("Bearer {token}"));
    }
    if let Some(session) = session {
        request = request.header("mcp-session-id", session);
    }
    let body = body.map_or_else(Vec::new, |body| serde_json::to_vec(body).unwrap());
    let request = request
        .body(http_body_util::Full::new(bytes::Bytes::from(body)))
        .unwrap();
    let response = sender.send_request(request).await.unwrap();
    let (parts, body) = response.into_parts();
    Reply {
        status: parts.status,
        headers: parts.headers,
        body,
        unread: String::new(),
    }
}

/// `token`'s user opens a 2025-11-25 session (a client that can answer forms): its id.
async fn open_session(address: std::net::SocketAddr, token: &str) -> String {
    let initialize = json!({
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {"elicitation": {"form": {}}},
            "clientInfo": {"name": token, "version": "1"},
        },
    });
    let mut opened = send(
        address,
        http::Method::POST,
        Some(token),
        None,
        Some(&initialize),
    )
    .await;
    assert_eq!(opened.status, http::StatusCode::OK);
    let session = opened.headers["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned();
    let answer = opened.message().await;
    assert_eq!(answer["id"], 0, "{answer}");
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let sent = send(
        address,
        http::Method::POST,
        Some(token),
        Some(&session),
        Some(&initialized),
    )
    .await;
    assert_eq!(sent.status, http::StatusCode::ACCEPTED);
    session
}

/// Alice, on a session of hers, calls `drop_table` on `customers`, and the server asks her for
/// consent on that call's stream: her session, the elicitation request's id, and the call's
/// stream (which ends with the call's result).
async fn alice_asked(address: std::net::SocketAddr) -> (String, Value, Reply) {
    let (session, mut call) = alice_calls_drop_table(address).await;
    let asked = call.message().await;
    assert_eq!(asked["method"], "elicitation/create", "{asked}");
    (session, asked["id"].clone(), call)
}

/// Alice opens a session and calls `drop_table` on it (id 1): her session, and the call's
/// stream (`200`), its first message unread.
async fn alice_calls_drop_table(address: std::net::SocketAddr) -> (String, Reply) {
    let session = open_session(address, ALICE).await;
    let drop_customers = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "drop_table", "arguments": {"table": "customers"}},
    });
    let call = send(
        address,
        http::Method::POST,
        Some(ALICE),
        Some(&session),
        Some(&drop_customers),
    )
    .await;
    assert_eq!(call.status, http::StatusCode::OK);
    (session, call)
}

/// The answer to the elicitation request `id`: `action`, with the consent ticked on accept.
fn answer(id: &Value, action: &str) -> Value {
    let mut result = json!({"action": action});
    if action == "accept" {
        result["content"] = json!({"confirm": true});
    }
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// Alice posts her answer `action` to the elicitation request `id` on her `session`.
async fn alice_answers(
    address: std::net::SocketAddr,
    session: &str,
    id: &Value,
    action: &str,
) -> Reply {
    let answer = answer(id, action);
    send(
        address,
        http::Method::POST,
        Some(ALICE),
        Some(session),
        Some(&answer),
    )
    .await
}

/// The call's result, once it comes on its stream: its text.
async fn result_text(call: &mut Reply) -> String {
    loop {
        let message = call.message().await;
        if message["id"] == 1 {
            return message["result"]["content"][0]["text"]
                .as_str()
                .unwrap_or_else(|| panic!("{message}"))
                .to_owned();
        }
    }
}

/// The reviewer's attack (issue 34): alice's `drop_table` asks her for consent; bob,
/// authenticated as bob, posts `accept` on alice's `Mcp-Session-Id`. Refused (`404`, as an
/// unknown session), and alice's call does not go on with his answer: it waits for hers, and
/// ends as she answers (decline: nothing dropped).
#[tokio::test]
async fn bobs_answer_on_alices_session_is_refused_and_her_call_waits_for_hers() {
    let (address, _service) = listening(Default::default()).await;
    let (session, id, mut call) = alice_asked(address).await;

    let forged = send(
        address,
        http::Method::POST,
        Some(BOB),
        Some(&session),
        Some(&answer(&id, "accept")),
    )
    .await;
    assert_eq!(forged.status, http::StatusCode::NOT_FOUND);
    assert_eq!(forged.text().await, "Not Found: Session not found");

    let hers = alice_answers(address, &session, &id, "decline").await;
    assert_eq!(hers.status, http::StatusCode::ACCEPTED);
    assert_eq!(result_text(&mut call).await, "`customers` was not dropped.");
}

/// Everything else bob might send on alice's session is refused as an unknown session (`404`):
/// a call, a notification (cancelling her call), the `GET` event stream, `DELETE`. Alice's
/// session is untouched: her own accept then drops the table.
#[tokio::test]
async fn bobs_call_notification_stream_and_delete_on_alices_session_are_refused() {
    let (address, _service) = listening(Default::default()).await;
    let (session, id, mut call) = alice_asked(address).await;

    let call_on_hers = json!({
        "jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "drop_table", "arguments": {"table": "orders"}},
    });
    let cancel_hers = json!({
        "jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 1, "reason": "bob says so"},
    });
    let refused = [
        (http::Method::POST, Some(call_on_hers)),
        (http::Method::POST, Some(cancel_hers)),
        (http::Method::GET, None),
        (http::Method::DELETE, None),
    ];
    let mut statuses = Vec::new();
    for (method, body) in refused {
        let what = match &body {
            Some(body) => format!("{method} {}", body["method"]),
            None => method.to_string(),
        };
        let reply = send(address, method, Some(BOB), Some(&session), body.as_ref()).await;
        statuses.push((what, reply.status.as_u16()));
    }
    let all_refused = statuses.iter().all(|(_, status)| *status == 404);
    assert!(all_refused, "each refused with 404: {statuses:?}");

    // Alice reads the form and ticks its box, as a person does: a consent faster than the
    // server's threshold for a person (1.25 s for its one field) is not taken.
    tokio::time::sleep(std::time::Duration::from_millis(1_500)).await;
    let hers = alice_answers(address, &session, &id, "accept").await;
    assert_eq!(hers.status, http::StatusCode::ACCEPTED);
    assert_eq!(result_text(&mut call).await, "Dropped table `customers`.");
}

/// A request that names no principal is refused (`403`), whether it opens a session or acts on
/// one: the answer to alice's question without a token does not reach her call.
#[tokio::test]
async fn a_request_naming_no_principal_is_refused() {
    let (address, _service) = listening(Default::default()).await;
    let initialize = json!({
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "nobody", "version": "1"},
        },
    });
    let opened = send(address, http::Method::POST, None, None, Some(&initialize)).await;
    assert_eq!(opened.status, http::StatusCode::FORBIDDEN);
    assert!(!opened.headers.contains_key("mcp-session-id"));

    let (session, id, mut call) = alice_asked(address).await;
    let anonymous = send(
        address,
        http::Method::POST,
        None,
        Some(&session),
        Some(&answer(&id, "accept")),
    )
    .await;
    assert_eq!(anonymous.status, http::StatusCode::FORBIDDEN);
    let hers = alice_answers(address, &session, &id, "decline").await;
    assert_eq!(hers.status, http::StatusCode::ACCEPTED);
    assert_eq!(result_text(&mut call).await, "`customers` was not dropped.");
}

/// A name of nothing but white space names no one, as an empty one does: the session, the
/// round and the pages all refuse it (`Flow::names_no_one`, the one rule).
#[test]
fn an_http_principal_of_white_space_names_no_one() {
    let (parts, ()) = http::Request::new(()).into_parts();
    for no_one in ["", " ", "\t\u{3000}"] {
        let principal = HttpPrincipal::new(move |_| Some(no_one.to_owned()));
        assert_eq!(principal.of(&parts), None, "{no_one:?}");
    }
    let alice = HttpPrincipal::new(|_| Some("alice".to_owned()));
    assert_eq!(alice.of(&parts).as_deref(), Some("alice"));
}

/// A binding lives as long as its session: forgotten on `DELETE` (the session's id then
/// refused), and when rmcp ends an idle session by itself (its keep-alive), through the session
/// manager the service was given.
#[tokio::test]
async fn a_binding_is_forgotten_when_its_session_ends() {
    let mut sessions =
        rmcp::transport::streamable_http_server::session::local::LocalSessionManager::default();
    sessions.session_config.keep_alive = Some(std::time::Duration::from_secs(2));
    let (address, service) = listening(sessions).await;

    let alices = open_session(address, ALICE).await;
    let _bobs = open_session(address, BOB).await;
    assert_eq!(service.bound_sessions(), 2);

    let deleted = send(
        address,
        http::Method::DELETE,
        Some(ALICE),
        Some(&alices),
        None,
    )
    .await;
    assert_eq!(deleted.status, http::StatusCode::ACCEPTED);
    assert_eq!(service.bound_sessions(), 1);
    let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"});
    let after = send(
        address,
        http::Method::POST,
        Some(ALICE),
        Some(&alices),
        Some(&ping),
    )
    .await;
    assert_eq!(after.status, http::StatusCode::NOT_FOUND);

    // Bob's session, idle, ends after its keep-alive; its binding with it.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while service.bound_sessions() > 0 {
        assert!(
            std::time::Instant::now() < deadline,
            "bob's binding outlived his session"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

/// Issue 42: `AskConfig::per_http_user` inside, `SessionBinding::Unbound` on the service (a
/// multi-user server that unbound its sessions by configuration). Bob could answer on alice's
/// session; so nothing is asked: alice's `drop_table` is refused (`-32603`) before any
/// `elicitation/create` goes out, naming the binding to use instead: there is no question for
/// bob to answer.
#[tokio::test]
async fn per_user_asking_on_unbound_sessions_is_refused_before_anything_is_asked() {
    let (address, _service) = listening_bound_as(Default::default(), SessionBinding::Unbound).await;
    let (_session, mut call) = alice_calls_drop_table(address).await;
    let first = call.message().await;
    assert_ne!(first["method"], "elicitation/create", "{first}");
    assert_eq!(first["id"], 1, "{first}");
    assert_eq!(first["error"]["code"], -32603, "{first}");
    let said = first["error"]["message"].as_str().unwrap_or_default();
    for needed in [
        "SessionBinding::Unbound",
        "SessionBinding::BoundTo",
        "AskConfig::single_user",
        "another user",
    ] {
        assert!(said.contains(needed), "{needed}: {said}");
    }
}
