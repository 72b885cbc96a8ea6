//! `AskingHttpService`: rmcp's streamable HTTP service given what `AskingService` gives stdio.
//! Each request here is an HTTP request as a client sends it, handed to the tower service (the
//! service the server mounts; no listener needed), in both response modes rmcp has: an event
//! stream (its default) and one JSON body.
//!
//! `cargo test -p elicit-examples --features http --test http`

use http_body_util::BodyExt;
use mcp_elicit::mrtr::Rounds;
use mcp_elicit::rmcp::{
    AskConfig, Asker, AskingHttpService, AskingServer, ToolResponse, request_extension, respond,
};
use mcp_elicit::url_mode::UrlRequest;
use mcp_elicit::{Elicit, Elicitation};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::transport::StreamableHttpServerConfig;
use rmcp::{ServerHandler, schemars, tool, tool_handler, tool_router};
use serde_json::{Value, json};
use tower::ServiceExt;

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

#[derive(Clone)]
struct Server {
    asking: AskConfig,
}

impl AskingServer for Server {
    fn asking(&self) -> &AskConfig {
        &self.asking
    }
}

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
        asking: AskConfig::single_user().unwrap(),
    };
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(json_response);
    AskingHttpService::new(move || Ok(server.clone()), config)
}

/// A 2026-07-28 `tools/call` (stateless: everything about the client is in its `_meta`).
fn call(name: &str, params: Value) -> Value {
    let mut params = params;
    params["name"] = json!(name);
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}, "url": {}}},
        "io.modelcontextprotocol/clientInfo": {"name": "http-test", "version": "1"},
    });
    json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
}

/// The bytes of the JSON-RPC message answering `message`, as the service wrote them (the
/// `data:` of its event, or its JSON body), and the response's content type.
async fn post(service: AskingHttpService<Server>, message: &Value) -> (String, String) {
    post_as(service, message, None).await
}

/// What an authentication layer in front of the service (an axum middleware) leaves in the
/// HTTP request's extensions.
#[derive(Clone)]
struct Subject(String);

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

/// `per_user` over streamable HTTP: the principal is what the authentication layer left in the
/// HTTP request, found by `request_extension`. No principal: refused before anything is asked;
/// a round asked of alice does not open for bob; it does for alice.
#[tokio::test]
async fn a_principal_left_by_an_http_layer_binds_the_round() {
    let asking = AskConfig::per_user(Rounds::generate().unwrap(), |request| {
        request_extension::<Subject>(request).map(|subject| subject.0.clone())
    });
    let server = Server { asking };
    let config = StreamableHttpServerConfig::default().with_legacy_session_mode(false);
    let service = AskingHttpService::new(move || Ok(server.clone()), config);
    let first = call("drop_table", json!({"arguments": {"table": "scratch"}}));
    let read = |(_, data): (String, String)| serde_json::from_str::<Value>(&data).unwrap();

    let nobody = read(post_as(service.clone(), &first, None).await);
    assert_eq!(nobody["error"]["code"], -32600, "{nobody}");

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
    let as_bob = read(post_as(service.clone(), &retry, Some("bob")).await);
    assert_eq!(as_bob["error"]["code"], -32602, "{as_bob}");
    let as_alice = read(post_as(service, &retry, Some("alice")).await);
    assert_eq!(
        as_alice["result"]["content"][0]["text"], "Dropped table `scratch`.",
        "{as_alice}"
    );
}
