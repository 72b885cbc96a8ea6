//! A stdio MCP server whose tool needs the user's API key for another service, taken on a page
//! this server hosts: the key never passes through the MCP client or its model (URL mode).
//!
//! The library serves the page on loopback, checks that the browser that opens it is on this
//! machine and the first to open it, seals a CSRF token to the flow, takes the key as a
//! `SecretString`, hands it to the vault, and tells the tool (and, on 2025-11-25, the client
//! that asked) that the step is done.
//!
//! Try it in a terminal, as its user (the paths assume the default `target/`):
//!
//! ```sh
//! cargo build -p elicit-examples --features page,terminal --example api_key_server --example terminal_client
//! target/debug/examples/terminal_client --call connect_api_key target/debug/examples/api_key_server
//! ```
//!
//! Accept the page, open the `http://localhost:…` URL it shows in the browser you will type in
//! (the first browser to open it is the only one that may), type a key of 20 characters or
//! more, and the terminal prints `Connected the key ending …`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use mcp_elicit::Elicit;
use mcp_elicit::page::{Pages, SecretEnding, SecretString, SinkError};
use mcp_elicit::rmcp::{AskConfig, Asker, AskingServer, AskingService, ToolResponse, respond};
use mcp_elicit::url_mode::FlowOutcome;
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{ServerHandler, ServiceExt, tool, tool_handler, tool_router};

/// Your Example Co. API key
#[derive(Elicit)]
#[elicit(
    mode = "url",
    message = "Enter your Example Co. API key on our page, never in the chat.",
    receipt = SecretEnding
)]
struct ApiKey {
    /// Settings → API keys on example.com
    #[elicit(title = "API key", min_length = 20, max_length = 200)]
    key: SecretString,
}

/// The one user of this stdio server, as the server names them: the principal its flows, round
/// state and vault entries are kept under (the asker and the pages agree on it).
pub const USER: &str = "me";

/// The server's secret store: here the process's memory; in production, its vault.
pub type Vault = Arc<Mutex<HashMap<String, SecretString>>>;

/// `pub`: a test server builds it (`bin/unadapted.rs`).
#[derive(Clone)]
pub struct Keys {
    pub asking: AskConfig,
}

impl AskingServer for Keys {
    fn asking(&self) -> &AskConfig {
        &self.asking
    }
}

#[tool_router]
impl Keys {
    #[tool(description = "Connect the user's Example Co. API key (typed on our page, never here).")]
    async fn connect_api_key(&self, mut asker: Asker) -> ToolResponse {
        respond(async {
            let text = match asker.url_page::<ApiKey>().await? {
                FlowOutcome::Completed(ending) => format!("Connected the key ending {ending}."),
                FlowOutcome::Failed(why) => format!("Not connected: {why}"),
                _ => "No key was connected: the page was declined, or not finished.".to_owned(),
            };
            Ok(CallToolResult::success(vec![ContentBlock::text(text)]))
        })
        .await
    }
}

#[tool_handler(name = "api-key-example")]
impl ServerHandler for Keys {}

/// Keeps the key for `user`; what the tool reads back is only its last four characters.
fn keep(vault: &Vault, user: String, typed: ApiKey) -> Result<SecretEnding, SinkError> {
    let ending = SecretEnding::of(&typed.key);
    vault
        .lock()
        .map_err(|_| "the vault is unavailable")?
        .insert(user, typed.key);
    Ok(ending)
}

/// The page that takes the key into `vault`, served by `pages`, and the server whose tool sends
/// the user there. (`tests/browser/tests/page_secret.rs` runs this same server in process.)
pub fn api_key_server(
    pages: Pages,
    vault: Vault,
) -> Result<(Keys, Pages), Box<dyn std::error::Error>> {
    let pages = pages.secret_form(move |user, typed: ApiKey| keep(&vault, user, typed));
    let asking = AskConfig::single_user(USER)?.with_pages(&pages);
    Ok((Keys { asking }, pages))
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (mut keys, pages) = api_key_server(Pages::bind_loopback(USER).await?, Vault::default())?;
    // How long a 2026-07-28 retry that accepts waits for the page before it asks again; unset,
    // the library's default. (tests/e2e/test_api_key_server.py sets it short, to see the re-ask.)
    if let Ok(ms) = std::env::var("API_KEY_PAGE_WAIT_MS") {
        let ms: u64 = ms
            .parse()
            .map_err(|_| format!("API_KEY_PAGE_WAIT_MS={ms}: not a number of milliseconds"))?;
        keys.asking = keys
            .asking
            .with_page_wait(std::time::Duration::from_millis(ms));
    }
    tokio::spawn(pages.serve());
    let server = AskingService(keys).serve(rmcp::transport::stdio()).await?;
    server.waiting().await?;
    Ok(())
}
