//! An operations MCP server over stdio, written the way rmcp servers are: `#[tool]` functions
//! in a `#[tool_router]`. Three tools each need the user, and each stops legibly in a client
//! that cannot ask.
//!
//! - `deploy` asks where to deploy. Production is a `dangerous` option: never the default.
//! - `drop_table` asks for consent before it touches anything; the table is dropped only with a
//!   `Consent<DropTable>`, which only an accepted, ticked consent form produces.
//! - `connect_github` sends the user to a page (URL mode) to connect their GitHub account: the
//!   token never passes through the client or the model.
//!
//! The same code asks on every protocol revision: `elicitation/create` through the peer up to
//! 2025-11-25, an input-required result and the client's retry from 2026-07-28. An answer that
//! breaks the form's rules is asked again once, saying what was wrong; a second one ends the
//! call with an `isError` result naming the broken rules.
//!
//! Run it under any stdio MCP client:
//!
//! ```sh
//! cargo run -p elicit-examples --features rmcp --example ops_server
//! ```

use std::sync::{Arc, Mutex, PoisonError};

use mcp_elicit::rmcp::{AskConfig, Asker, AskingServer, AskingService, ToolResponse, respond};
use mcp_elicit::{
    Consent, Elicit, Elicitation, UrlOutcome,
    url_mode::{ElicitUrl, ElicitationId, UrlRequestError},
};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{ServerHandler, ServiceExt, schemars, tool, tool_handler, tool_router};
use serde::Deserialize;

/// Where to deploy; production serves customer traffic.
#[derive(Elicit, Debug)]
pub struct DeployTarget {
    #[elicit(title = "Environment", default = Env::Staging)]
    pub env: Env,
    /// How many instances to run.
    #[elicit(title = "Replicas", minimum = 1, maximum = 10, default = 2)]
    pub replicas: u8,
    /// The change ticket approving this deploy, if there is one.
    #[elicit(title = "Change ticket", min_length = 4, max_length = 32)]
    pub change_ticket: Option<String>,
}

#[derive(Elicit, Debug, Clone, Copy, PartialEq)]
#[elicit(rename_all = "lowercase")]
pub enum Env {
    #[elicit(title = "Staging")]
    Staging,
    #[elicit(title = "Production (customer traffic)", dangerous)]
    Production,
}

/// Permanently drop this table? This cannot be undone.
#[derive(Elicit, Debug)]
#[elicit(consent)]
pub struct DropTable {
    /// Tick to drop the table and every row in it.
    #[elicit(title = "Drop it permanently", consent)]
    pub confirm: bool,
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

#[derive(Deserialize, schemars::JsonSchema)]
struct Service {
    /// The service to deploy.
    service: String,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct Table {
    /// The table to drop.
    table: String,
}

fn done(text: String) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(text)])
}

fn failed(text: String) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(text)])
}

#[derive(Clone)]
pub struct Ops {
    /// Asks for one user; every round's state is spent once (`AskConfig::single_user`), so a
    /// replayed retry of `drop_table` drops nothing a second time.
    pub asking: AskConfig,
    /// The GitHub connection this server's one user has pending, if any.
    pub github_flow: Arc<Mutex<Option<ElicitationId>>>,
}

impl Ops {
    /// The pending flow, or a new one. On 2026-07-28 `connect_github` runs again when the
    /// answer arrives, and the answer is read only for the same page: the flow in its URL must
    /// not change between the runs. (A server with several users keeps one per user, and its
    /// page checks that whoever opens it is that user.)
    fn github_flow(&self) -> Result<ElicitationId, UrlRequestError> {
        let mut pending = self
            .github_flow
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(flow) = pending.as_ref() {
            return Ok(flow.clone());
        }
        let flow = ElicitationId::random()?;
        *pending = Some(flow.clone());
        Ok(flow)
    }
}

impl AskingServer for Ops {
    fn asking(&self) -> &AskConfig {
        &self.asking
    }
}

#[tool_router]
impl Ops {
    #[tool(description = "Deploy a service; asks the user where to.")]
    async fn deploy(
        &self,
        mut asker: Asker,
        Parameters(args): Parameters<Service>,
    ) -> ToolResponse {
        let service = args.service;
        asker.set_hint("Nothing was deployed.");
        respond(async {
            let form = DeployTarget::form_request().with_message(format!(
                "Where should `{service}` be deployed? Production serves customer traffic."
            ))?;
            Ok(match asker.form_request(form).await? {
                Elicitation::Accept(target) => done(format!(
                    "Deployed `{service}` to {:?} with {} replicas.",
                    target.env, target.replicas
                )),
                Elicitation::Decline => done("You declined: nothing was deployed.".into()),
                Elicitation::Cancel => {
                    done("You dismissed the question: nothing was deployed.".into())
                }
                Elicitation::NoReply => failed("No answer arrived: nothing was deployed.".into()),
            })
        })
        .await
    }

    #[tool(description = "Permanently drop a table; asks the user for consent first.")]
    async fn drop_table(
        &self,
        mut asker: Asker,
        Parameters(args): Parameters<Table>,
    ) -> ToolResponse {
        let table = args.table;
        asker.set_hint(format!("`{table}` was not dropped."));
        respond(async {
            let form = DropTable::form_request().with_message(format!(
                "Permanently drop table `{table}` and every row in it? This cannot be undone."
            ))?;
            Ok(match asker.consent_request(form).await? {
                Elicitation::Accept(consent) => done(drop_table(&table, consent)),
                Elicitation::Decline => done(format!("You declined: `{table}` was not dropped.")),
                Elicitation::Cancel => done(format!(
                    "You dismissed the question: `{table}` was not dropped."
                )),
                Elicitation::NoReply => {
                    failed(format!("No answer arrived: `{table}` was not dropped."))
                }
            })
        })
        .await
    }

    #[tool(description = "Connect the user's GitHub account through a page of ours (URL mode).")]
    async fn connect_github(&self, mut asker: Asker) -> ToolResponse {
        asker.set_hint("You can also connect GitHub at https://ops.example.com/settings.");
        respond(async {
            let flow = self.github_flow()?;
            let page = format!("https://ops.example.com/connect/github?flow={flow}");
            Ok(match asker.url(ConnectGithub::url_request(&page)?).await? {
                UrlOutcome::Accept => done(
                    "Finish connecting GitHub on the page that opened, then call this tool again."
                        .into(),
                ),
                UrlOutcome::Decline => done("You declined: GitHub was not connected.".into()),
                UrlOutcome::Cancel => {
                    done("You dismissed the request: GitHub was not connected.".into())
                }
                UrlOutcome::NoReply => {
                    failed("No answer arrived: GitHub was not connected.".into())
                }
            })
        })
        .await
    }
}

#[tool_handler(
    name = "elicit-ops",
    instructions = "Operations tools that ask the user before acting: deploy, drop_table, connect_github."
)]
impl ServerHandler for Ops {}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // One user (whoever started this stdio server): keys for the life of the process.
    let ops = Ops {
        asking: AskConfig::single_user()?,
        github_flow: Arc::default(),
    };
    AskingService(ops)
        .serve(rmcp::transport::stdio())
        .await?
        .waiting()
        .await?;
    Ok(())
}
