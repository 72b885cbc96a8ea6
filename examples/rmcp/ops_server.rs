//! An operations MCP server over stdio, written the way rmcp servers are: `#[tool]` functions
//! in a `#[tool_router]`. Three tools each need the user, and each stops legibly in a client
//! that cannot ask.
//!
//! - `deploy` asks where to deploy. Production is a `dangerous` option: never the default.
//! - `drop_table` asks for consent before it touches anything; the table is dropped only with a
//!   `Consent<DropTable>`, which only an accepted, ticked consent form produces.
//! - `connect_github` sends the user to a page this server hosts (URL mode), which sends them on
//!   to GitHub to authorize the server's OAuth app. GitHub's token comes back to the page and goes
//!   into the server's vault: it never passes through the client or the model, and the tool reads
//!   only a receipt.
//!
//! The same code asks on every protocol revision: `elicitation/create` through the peer up to
//! 2025-11-25, an input-required result and the client's retry from 2026-07-28. An answer that
//! breaks the form's rules is asked again once, saying what was wrong; a second one ends the
//! call with an `isError` result naming the broken rules.
//!
//! Run it under any stdio MCP client:
//!
//! ```sh
//! cargo run -p elicit-examples --features oauth --example ops_server
//! ```
//!
//! The GitHub page is served on loopback (`Pages::bind_loopback_on`:
//! `http://localhost:<port>/elicit/`) and needs a GitHub OAuth app: set `GITHUB_CLIENT_ID` and
//! `GITHUB_CLIENT_SECRET` to its client id and secret, `OPS_PAGES_PORT` to a port (8719, say;
//! without it the system picks one at each start), and register
//! `http://localhost:<port>/elicit/authorized/github` (the page's own redirect URI) as the app's
//! callback URL. Without the app the server still starts, `deploy` and `drop_table` work, and
//! `connect_github` asks nothing: it answers an `isError` result naming the two variables and the
//! callback URL to register.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use mcp_elicit::page::{
    AuthorizationPage, ExposeSecret, Pages, SecretString, SingleUser, SinkError, Token,
};
use mcp_elicit::rmcp::{AskConfig, Asker, AskingServer, AskingService, ToolResponse, respond};
use mcp_elicit::url_mode::FlowOutcome;
use mcp_elicit::{Consent, Elicit, Elicitation};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{ServerHandler, ServiceExt, schemars, tool, tool_handler, tool_router};
use serde::{Deserialize, Serialize};

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

/// What the client shows before it opens the GitHub page.
pub const CONNECT_GITHUB: &str =
    "Connect your GitHub account on our page, so I can open pull requests for you.";

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

/// The server's secret store: here the process's memory, a token per user; in production, its
/// vault.
pub type Vault = Arc<Mutex<HashMap<String, SecretString>>>;

/// The GitHub OAuth app the page authorizes: where GitHub's endpoints are, and the app's client
/// id and secret (a `SecretString`, like every secret here: never `Debug`-printed).
pub struct GithubApp {
    pub authorize_url: String,
    pub token_url: String,
    pub client_id: String,
    pub client_secret: SecretString,
    /// The provider's issuer identifier, for a provider that names itself in its answers (its
    /// metadata advertises `authorization_response_iss_parameter_supported`, RFC 9207): GitHub's
    /// OAuth apps publish no such metadata, so `None` there.
    pub issuer: Option<String>,
}

impl GithubApp {
    /// The app `client_id` at github.com.
    pub fn at_github(client_id: String, client_secret: SecretString) -> Self {
        Self {
            authorize_url: "https://github.com/login/oauth/authorize".into(),
            token_url: "https://github.com/login/oauth/access_token".into(),
            client_id,
            client_secret,
            issuer: None,
        }
    }

    /// The app named by `GITHUB_CLIENT_ID` and `GITHUB_CLIENT_SECRET`, if both are set.
    pub fn from_env() -> Option<Self> {
        let variable = |name| std::env::var(name).ok().filter(|value| !value.is_empty());
        Some(Self::at_github(
            variable("GITHUB_CLIENT_ID")?,
            variable("GITHUB_CLIENT_SECRET")?.into(),
        ))
    }
}

/// Whether `connect_github` has a page to send the user to.
#[derive(Clone)]
pub enum GithubPage {
    /// The page `github` is served.
    Served,
    /// No OAuth app was given: the page's callback URL, to register at GitHub.
    NotConfigured { callback: String },
}

#[derive(Clone)]
pub struct Ops {
    /// Asks for one user; every round's state is spent once (`AskConfig::single_user`), so a
    /// replayed retry of `drop_table` drops nothing a second time. Its flows are the pages'.
    pub asking: AskConfig,
    pub github: GithubPage,
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
            if let GithubPage::NotConfigured { callback } = &self.github {
                return Ok(failed(not_configured(callback)));
            }
            Ok(match asker.url_flow::<Connected>("github", CONNECT_GITHUB).await? {
                FlowOutcome::Completed(receipt) => done(connected(&receipt)),
                FlowOutcome::Failed(why) => failed(format!("GitHub was not connected: {why}")),
                FlowOutcome::Expired => failed(
                    "The GitHub page expired before it was finished: GitHub was not connected. \
                     Call this tool again for a new page."
                        .into(),
                ),
                FlowOutcome::NotFinished => failed(
                    "The GitHub page was not finished in time, and it is closed now: GitHub \
                     was not connected. Call this tool again for a new page."
                        .into(),
                ),
                FlowOutcome::Decline => done("You declined: GitHub was not connected.".into()),
                FlowOutcome::Cancel => {
                    done("You dismissed the request: GitHub was not connected.".into())
                }
                FlowOutcome::NoReply => {
                    failed("No answer arrived: GitHub was not connected.".into())
                }
                // `FlowOutcome` may grow; whatever else it says, the step was not done.
                _ => failed("GitHub was not connected.".into()),
            })
        })
        .await
    }
}

/// What the GitHub page's sink hands the tool: the scopes GitHub granted, never a token.
#[derive(Serialize, Deserialize)]
pub struct Connected {
    pub scopes: Vec<String>,
}

/// What `connect_github` says once the page is done: the receipt's scopes, never a token.
fn connected(receipt: &Connected) -> String {
    let scopes: Vec<&str> = receipt
        .scopes
        .iter()
        .map(String::as_str)
        .filter(|scope| !scope.is_empty())
        .collect();
    if scopes.is_empty() {
        "GitHub is connected.".into()
    } else {
        format!("GitHub is connected (scopes: {}).", scopes.join(", "))
    }
}

/// What `connect_github` says on a server started without a GitHub OAuth app.
fn not_configured(callback: &str) -> String {
    format!(
        "GitHub is not set up on this server: nothing was asked. Its operator must create a \
         GitHub OAuth app with the callback URL {callback}, and start the server with \
         GITHUB_CLIENT_ID and GITHUB_CLIENT_SECRET set to its client id and secret."
    )
}

#[tool_handler(
    name = "elicit-ops",
    instructions = "Operations tools that ask the user before acting: deploy, drop_table, connect_github."
)]
impl ServerHandler for Ops {}

/// Keeps GitHub's token for `user` in `vault`; what the tool reads back is only the scopes
/// GitHub granted.
fn keep_token(vault: &Vault, user: String, token: Token) -> Result<Connected, SinkError> {
    vault
        .lock()
        .map_err(|_| "the vault is unavailable")?
        .insert(user, token.access_token);
    Ok(Connected {
        scopes: token.scopes,
    })
}

/// The server, and the pages it sends the user to: with `github`, the page `github` (served by
/// `pages`), whose token goes into `vault`. (`tests/browser/tests/ops_server_github.rs` runs
/// this same server in process, `github` pointing at a local OpenID provider.)
pub fn ops_server(
    pages: Pages,
    github: Option<GithubApp>,
    vault: Vault,
) -> Result<(Ops, Pages), Box<dyn std::error::Error>> {
    let callback = AuthorizationPage::redirect_uri_for("github", pages.flows());
    let (pages, github) = match github {
        Some(app) => {
            let mut page = AuthorizationPage::new(
                "github",
                "GitHub",
                &app.authorize_url,
                &app.token_url,
                app.client_id,
                Some(app.client_secret.expose_secret().to_owned()),
                pages.flows(),
            )?
            .scope("repo");
            if let Some(issuer) = app.issuer {
                page = page.issuer(issuer);
            }
            let pages =
                pages.authorization(page, move |user, token| keep_token(&vault, user, token));
            (pages, GithubPage::Served)
        }
        None => (pages, GithubPage::NotConfigured { callback }),
    };
    // One user (whoever started this stdio server): keys for the life of the process.
    let asking = AskConfig::single_user("me")?.with_pages(&pages);
    Ok((Ops { asking, github }, pages))
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The port the GitHub app's callback names; 0, one the system picks.
    let port = match std::env::var("OPS_PAGES_PORT") {
        Ok(port) => port
            .parse()
            .map_err(|_| format!("OPS_PAGES_PORT={port}: not a port"))?,
        Err(_) => 0,
    };
    let pages = Pages::bind_loopback_on(port, SingleUser::named("me")?).await?;
    let (mut ops, pages) = ops_server(pages, GithubApp::from_env(), Vault::default())?;
    // How long a 2026-07-28 retry that accepts waits for the page before it asks again; unset,
    // the library's default. (tests/e2e/test_ops_server.py sets it short, to see the re-ask.)
    if let Ok(ms) = std::env::var("OPS_PAGE_WAIT_MS") {
        let ms: u64 = ms
            .parse()
            .map_err(|_| format!("OPS_PAGE_WAIT_MS={ms}: not a number of milliseconds"))?;
        ops.asking = ops
            .asking
            .with_page_wait(std::time::Duration::from_millis(ms));
    }
    tokio::spawn(pages.serve());
    AskingService(ops)
        .serve(rmcp::transport::stdio())
        .await?
        .waiting()
        .await?;
    Ok(())
}
