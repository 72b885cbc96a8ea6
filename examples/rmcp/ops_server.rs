//! An operations MCP server over stdio, built on the official Rust SDK (`rmcp`): three tools that
//! each need the user, and each stop legibly in a client that cannot ask.
//!
//! - `deploy` asks where to deploy. Production is a `dangerous` option: never the default.
//! - `drop_table` asks for consent before it touches anything; the table is dropped only with a
//!   `Consent<DropTable>`, which only an accepted, ticked consent form produces.
//! - `connect_github` sends the user to a page (URL mode) to connect their GitHub account: the
//!   token never passes through the client or the model.
//!
//! The same code asks on every protocol revision: `elicitation/create` through the peer up to
//! 2025-11-25, an input-required result and the client's retry from 2026-07-28.
//!
//! Run it under any stdio MCP client:
//!
//! ```sh
//! cargo run -p elicit-examples --features rmcp --example ops_server
//! ```

use std::sync::Arc;

use mcp_elicit::mrtr::Rounds;
use mcp_elicit::rmcp::{AskError, Asked, Asker, headless_result};
use mcp_elicit::{Consent, Elicit, ElicitUrl, Elicitation, UrlOutcome};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    JsonObject, ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Value, json};

/// Where to deploy; production serves customer traffic.
#[derive(Elicit, Debug)]
struct DeployTarget {
    #[elicit(title = "Environment", default = Env::Staging)]
    env: Env,
    /// How many instances to run.
    #[elicit(title = "Replicas", minimum = 1, maximum = 10, default = 2)]
    replicas: u8,
}

#[derive(Elicit, Debug, Clone, Copy, PartialEq)]
#[elicit(rename_all = "lowercase")]
enum Env {
    #[elicit(title = "Staging")]
    Staging,
    #[elicit(title = "Production (customer traffic)", dangerous)]
    Production,
}

/// Permanently drop this table? This cannot be undone.
#[derive(Elicit, Debug)]
#[elicit(consent)]
struct DropTable {
    /// Tick to drop the table and every row in it.
    #[elicit(title = "Drop it permanently", consent)]
    confirm: bool,
}

/// Connect your GitHub account on our page, so I can open pull requests for you.
#[derive(Elicit)]
#[elicit(
    mode = "url",
    message = "Connect your GitHub account on our page, so I can open pull requests for you."
)]
struct ConnectGithub;

/// The only way to drop a table: it takes the user's consent, which the model cannot forge.
fn drop_table(table: &str, consent: Consent<DropTable>) -> String {
    debug_assert!(consent.terms().confirm);
    format!("Dropped table `{table}`.")
}

/// A stdio server serves the one user who started it; a server behind authentication would use
/// the access token's subject, so a round's state only opens for whoever it asked.
const PRINCIPAL: &str = "local-user";

#[derive(Clone)]
struct Ops {
    /// Seals what a 2026-07-28 round must remember between the question and the retry.
    rounds: Arc<Rounds>,
}

fn text(message: impl Into<String>) -> CallToolResponse {
    CallToolResult::success(vec![ContentBlock::text(message.into())]).into()
}

fn failure(message: impl Into<String>) -> CallToolResponse {
    CallToolResult::error(vec![ContentBlock::text(message.into())]).into()
}

/// A rejected answer is the tool's failure, told to the user; anything else is a protocol error.
fn rejected(error: AskError, nothing: &str) -> Result<CallToolResponse, ErrorData> {
    match error {
        AskError::Rejected(reply) => Ok(failure(format!(
            "The answer was rejected: {reply}. {nothing}"
        ))),
        other => Err(other.into()),
    }
}

fn string_argument<'a>(request: &'a CallToolRequestParams, name: &str) -> Option<&'a str> {
    request.arguments.as_ref()?.get(name)?.as_str()
}

fn schema(value: Value) -> Arc<JsonObject> {
    match value {
        Value::Object(object) => Arc::new(object),
        _ => Arc::default(),
    }
}

impl Ops {
    async fn deploy(
        &self,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let service = string_argument(request, "service").unwrap_or("the service");
        let mut asker = Asker::for_tool_call(&self.rounds, PRINCIPAL, request, context)?;
        let form = DeployTarget::form_request()
            .with_message(format!(
                "Where should `{service}` be deployed? Production serves customer traffic."
            ))
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        let target = match asker.form("target", form).await {
            Ok(Asked::Answered(outcome)) => outcome,
            Ok(Asked::Suspend(input_required)) => return Ok(input_required.into()),
            Ok(Asked::CannotAsk(headless)) => {
                let headless = headless.with_hint("Nothing was deployed.");
                return Ok(headless_result(&headless).into());
            }
            Err(error) => return rejected(error, "Nothing was deployed."),
        };
        Ok(match target {
            Elicitation::Accept(target) => text(format!(
                "Deployed `{service}` to {:?} with {} replicas.",
                target.env, target.replicas
            )),
            Elicitation::Decline => text("You declined: nothing was deployed."),
            Elicitation::Cancel => text("The question was dismissed: nothing was deployed."),
            Elicitation::NoReply => failure("No answer arrived: nothing was deployed."),
        })
    }

    async fn drop_table(
        &self,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let Some(table) = string_argument(request, "table") else {
            return Ok(failure("Say which table to drop (`table`)."));
        };
        let mut asker = Asker::for_tool_call(&self.rounds, PRINCIPAL, request, context)?;
        let form = DropTable::form_request()
            .with_message(format!(
                "Permanently drop table `{table}` and every row in it? This cannot be undone."
            ))
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        let consent = match asker.consent("confirm", form).await {
            Ok(Asked::Answered(outcome)) => outcome,
            Ok(Asked::Suspend(input_required)) => return Ok(input_required.into()),
            Ok(Asked::CannotAsk(headless)) => {
                let headless = headless.with_hint(
                    "Dropping a table needs a person's consent, so it cannot run here. Nothing was dropped.",
                );
                return Ok(headless_result(&headless).into());
            }
            Err(error) => return rejected(error, "Nothing was dropped."),
        };
        Ok(match consent {
            Elicitation::Accept(consent) => text(drop_table(table, consent)),
            Elicitation::Decline => text(format!("You declined: `{table}` was not dropped.")),
            Elicitation::Cancel => text(format!(
                "The question was dismissed: `{table}` was not dropped."
            )),
            Elicitation::NoReply => {
                failure(format!("No answer arrived: `{table}` was not dropped."))
            }
        })
    }

    async fn connect_github(
        &self,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let mut asker = Asker::for_tool_call(&self.rounds, PRINCIPAL, request, context)?;
        // A real server makes a flow id, stores it against the user, and checks on its page
        // that whoever opens it is that user.
        let flow = mcp_elicit::ElicitationId::random()
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        let page = format!("https://ops.example.com/connect/github?flow={flow}");
        let page = ConnectGithub::url_request(&page)
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        let outcome = match asker.url("github", page).await {
            Ok(Asked::Answered(outcome)) => outcome,
            Ok(Asked::Suspend(input_required)) => return Ok(input_required.into()),
            Ok(Asked::CannotAsk(headless)) => {
                let headless = headless
                    .with_hint("You can also connect GitHub at https://ops.example.com/settings.");
                return Ok(headless_result(&headless).into());
            }
            Err(error) => return rejected(error, "GitHub was not connected."),
        };
        Ok(match outcome {
            UrlOutcome::Accept => {
                text("Finish connecting GitHub on the page that opened, then call this tool again.")
            }
            UrlOutcome::Decline => text("You declined: GitHub was not connected."),
            UrlOutcome::Cancel => text("The request was dismissed: GitHub was not connected."),
            UrlOutcome::NoReply => failure("No answer arrived: GitHub was not connected."),
        })
    }
}

impl ServerHandler for Ops {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("elicit-ops", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "Operations tools that ask the user before acting: deploy, drop_table, connect_github.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(vec![
            Tool::new(
                "deploy",
                "Deploy a service; asks the user where to.",
                schema(json!({"type": "object", "properties": {
                    "service": {"type": "string", "description": "The service to deploy"}},
                    "required": ["service"]})),
            ),
            Tool::new(
                "drop_table",
                "Permanently drop a table; asks the user for consent first.",
                schema(json!({"type": "object", "properties": {
                    "table": {"type": "string", "description": "The table to drop"}},
                    "required": ["table"]})),
            ),
            Tool::new(
                "connect_github",
                "Connect the user's GitHub account through a page of ours (URL mode).",
                schema(json!({"type": "object", "properties": {}})),
            ),
        ]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        match request.name.as_ref() {
            "deploy" => self.deploy(&request, &context).await,
            "drop_table" => self.drop_table(&request, &context).await,
            "connect_github" => self.connect_github(&request, &context).await,
            other => Err(ErrorData::invalid_params(
                format!("unknown tool `{other}`"),
                None,
            )),
        }
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // A stdio server is one process: one fresh key for its life. Replicas behind a load
    // balancer share keys instead: `Rounds::from_env("ELICIT_STATE_KEYS")`, the variable
    // holding `1:` and the output of `openssl rand -hex 32`.
    let ops = Ops {
        rounds: Arc::new(Rounds::generate()?),
    };
    let server = ops.serve(rmcp::transport::stdio()).await?;
    server.waiting().await?;
    Ok(())
}
