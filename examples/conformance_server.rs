//! The tool contracts of the official MCP conformance suite
//! (`@modelcontextprotocol/conformance` 0.2.0-alpha.12), over streamable HTTP with `rmcp`, every
//! elicitation built with this crate's derive.
//!
//! ```sh
//! PORT=3001 cargo run --example conformance_server --features rmcp   # http://127.0.0.1:3001/mcp
//! .ci/conformance.sh                                                  # runs the suite against it
//! ```
//!
//! - `test_elicitation`, `test_elicitation_sep1034_defaults`, `test_elicitation_sep1330_enums`
//!   (protocol 2025-11-25): the server sends `elicitation/create` through the peer.

use std::sync::Arc;

use elicit::rmcp::{AskError, Asked, Asker, headless_result};
use elicit::{Elicit, Elicitation, FormRequest};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    JsonObject, ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Value, json};

// ------------------------------------------------------------------------ the legacy forms

/// Please provide your information.
#[derive(Elicit)]
struct UserInfo {
    #[elicit(description = "User's response")]
    username: String,
    #[elicit(description = "User's email address")]
    email: String,
}

/// Please review and update the form fields with defaults.
#[derive(Elicit)]
struct Sep1034Defaults {
    #[elicit(description = "User name", default = "John Doe")]
    name: Option<String>,
    #[elicit(description = "User age", maximum = 150, default = 30)]
    age: Option<u8>,
    #[elicit(
        description = "User score",
        minimum = 0.0,
        maximum = 100.0,
        default = 95.5
    )]
    score: Option<f64>,
    #[elicit(description = "User status", default = Status::Active)]
    status: Option<Status>,
    #[elicit(description = "Verification status", default = true)]
    verified: Option<bool>,
}

#[derive(Elicit, Clone, Copy, PartialEq, Debug)]
#[elicit(rename_all = "lowercase")]
enum Status {
    Active,
    Inactive,
    Pending,
}

/// Please select options from the enum fields.
#[derive(Elicit)]
#[elicit(rename_all = "camelCase")]
struct Sep1330Enums {
    /// Select one option.
    untitled_single: Untitled,
    /// Select one option with titles.
    titled_single: TitledSingle,
    /// Select one option (legacy).
    #[elicit(legacy_enum_names)]
    legacy_enum: Legacy,
    /// Select multiple options.
    untitled_multi: Vec<Untitled>,
    /// Select multiple options with titles.
    titled_multi: Vec<TitledMulti>,
}

#[derive(Elicit, Clone, Copy, PartialEq, Eq, Hash, Ord, PartialOrd, Debug)]
#[elicit(rename_all = "lowercase")]
enum Untitled {
    Option1,
    Option2,
    Option3,
}

#[derive(Elicit, Clone, Copy, PartialEq, Eq, Hash, Ord, PartialOrd, Debug)]
#[elicit(rename_all = "lowercase")]
enum TitledSingle {
    #[elicit(title = "First Option")]
    Value1,
    #[elicit(title = "Second Option")]
    Value2,
    #[elicit(title = "Third Option")]
    Value3,
}

#[derive(Elicit, Clone, Copy, PartialEq, Eq, Hash, Ord, PartialOrd, Debug)]
#[elicit(rename_all = "lowercase")]
enum Legacy {
    #[elicit(title = "Option One")]
    Opt1,
    #[elicit(title = "Option Two")]
    Opt2,
    #[elicit(title = "Option Three")]
    Opt3,
}

#[derive(Elicit, Clone, Copy, PartialEq, Eq, Hash, Ord, PartialOrd, Debug)]
#[elicit(rename_all = "lowercase")]
enum TitledMulti {
    #[elicit(title = "First Choice")]
    Value1,
    #[elicit(title = "Second Choice")]
    Value2,
    #[elicit(title = "Third Choice")]
    Value3,
}

// ------------------------------------------------------------------------------- the server

#[derive(Clone)]
struct Conformance;

fn text(message: impl Into<String>) -> CallToolResponse {
    CallToolResult::success(vec![ContentBlock::text(message.into())]).into()
}

fn schema(value: Value) -> Arc<JsonObject> {
    match value {
        Value::Object(object) => Arc::new(object),
        _ => Arc::default(),
    }
}

fn internal(error: impl std::fmt::Display) -> ErrorData {
    ErrorData::internal_error(error.to_string(), None)
}

/// `action=…, content={…}`: what the legacy scenarios suggest a tool reports.
fn describe<T: Elicit>(outcome: &Elicitation<T>) -> String {
    match outcome {
        Elicitation::Accept(value) => format!(
            "action=accept, content={}",
            Value::Object(value.to_content())
        ),
        other => match other.action() {
            Some(action) => format!("action={action}"),
            None => "no reply".to_owned(),
        },
    }
}

impl Conformance {
    /// A legacy (≤ 2025-11-25) elicitation through the peer, with the headless path.
    async fn ask_legacy<T: Elicit>(
        &self,
        context: &RequestContext<RoleServer>,
        form: FormRequest<T>,
    ) -> Result<Result<Elicitation<T>, CallToolResponse>, ErrorData> {
        let mut asker = Asker::for_tool_call(context);
        Ok(match asker.form("form", form).await {
            Ok(Asked::Answered(outcome)) => Ok(outcome),
            Ok(Asked::Suspend(input_required)) => Err(input_required.into()),
            Ok(Asked::CannotAsk(headless)) => Err(headless_result(&headless).into()),
            Err(AskError::Rejected(reply)) => Err(CallToolResult::error(vec![ContentBlock::text(
                format!("The answer was rejected: {reply}"),
            )])
            .into()),
            Err(other) => return Err(other.into()),
        })
    }

    async fn test_elicitation(
        &self,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let message = request
            .arguments
            .as_ref()
            .and_then(|a| a.get("message"))
            .and_then(Value::as_str)
            .unwrap_or(UserInfo::message())
            .to_owned();
        let form = UserInfo::form_request()
            .with_message(message)
            .map_err(internal)?;
        Ok(match self.ask_legacy(context, form).await? {
            Ok(outcome) => text(format!("User response: {}", describe(&outcome))),
            Err(response) => response,
        })
    }

    async fn test_form<T: Elicit>(
        &self,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        Ok(match self.ask_legacy(context, T::form_request()).await? {
            Ok(outcome) => text(format!("Elicitation completed: {}", describe(&outcome))),
            Err(response) => response,
        })
    }
}

const EMPTY_INPUT: fn() -> Value = || json!({"type": "object", "properties": {}});

impl ServerHandler for Conformance {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_prompts()
                .build(),
        )
        .with_server_info(Implementation::new(
            "elicit-conformance",
            env!("CARGO_PKG_VERSION"),
        ))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let mut tools = vec![Tool::new(
            "test_elicitation",
            "Requests user input via elicitation/create",
            schema(json!({"type": "object", "properties": {
                "message": {"type": "string", "description": "The message to show the user"}},
                "required": ["message"]})),
        )];
        for (name, description) in [
            (
                "test_elicitation_sep1034_defaults",
                "Elicitation with a default on every kind of field (SEP-1034)",
            ),
            (
                "test_elicitation_sep1330_enums",
                "Elicitation with every kind of enum (SEP-1330)",
            ),
        ] {
            tools.push(Tool::new(name, description, schema(EMPTY_INPUT())));
        }
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        match request.name.as_ref() {
            "test_elicitation" => self.test_elicitation(&request, &context).await,
            "test_elicitation_sep1034_defaults" => {
                self.test_form::<Sep1034Defaults>(&context).await
            }
            "test_elicitation_sep1330_enums" => self.test_form::<Sep1330Enums>(&context).await,
            other => Err(ErrorData::invalid_params(
                format!("unknown tool `{other}`"),
                None,
            )),
        }
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let port: u16 = match std::env::var("PORT") {
        Ok(port) => port.parse()?,
        Err(_) => 3001,
    };
    let service: StreamableHttpService<Conformance, LocalSessionManager> =
        StreamableHttpService::new(
            || Ok(Conformance),
            Arc::new(LocalSessionManager::default()),
            StreamableHttpServerConfig::default(),
        );
    let router = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    eprintln!("conformance server on http://127.0.0.1:{port}/mcp");
    axum::serve(listener, router)
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await?;
    Ok(())
}
