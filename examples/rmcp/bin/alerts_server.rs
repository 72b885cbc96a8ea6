//! A stdio server as a new user writes it from the README and the guides alone (issue 43's
//! "newcomer's own server"): one tool that asks a form with a number and a multi-select, then
//! sends the user to a page for a secret. `tests/hosts/test_coding_hosts.py` completes it in
//! Claude Code and in Codex through their TUIs (`newcomer_*` cases): Claude Code draws the form
//! as it is and opens the page from its URL question; Codex gets the number as a text field and
//! the multi-select as one yes/no per option (the host table), and the page's URL in a form
//! (the link form), and the tool reads the same typed values either way.
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use mcp_elicit::page::{Pages, SecretEnding, SecretString, SinkError};
use mcp_elicit::rmcp::{AskConfig, Asker, AskingServer, AskingService, ToolResponse, respond};
use mcp_elicit::url_mode::FlowOutcome;
use mcp_elicit::{Elicit, Elicitation};
use rmcp::{ServerHandler, ServiceExt, tool, tool_handler, tool_router};

/// Weather alerts: from what temperature, and how should we tell you?
#[derive(Elicit, Debug)]
struct Alerts {
    /// Degrees Celsius, e.g. 30.5
    #[elicit(title = "Heat alert from", minimum = 20.0, maximum = 50.0)]
    heat_from: f64,
    #[elicit(title = "Send alerts by", min_items = 1)]
    channels: Vec<Channel>,
}

#[derive(Elicit, Debug, Clone, Copy, PartialEq)]
#[elicit(rename_all = "lowercase")]
enum Channel {
    Email,
    Sms,
    Push,
}

/// Your Example Weather API key
#[derive(Elicit)]
#[elicit(
    mode = "url",
    message = "Enter your Example Weather API key on our page, never in the chat.",
    receipt = SecretEnding
)]
struct WeatherKey {
    /// Account → API keys on weather.example
    #[elicit(title = "API key", min_length = 20, max_length = 200)]
    key: SecretString,
}

const USER: &str = "me";

/// The server's secret store: here the process's memory.
type Vault = Arc<Mutex<HashMap<String, SecretString>>>;

#[derive(Clone)]
struct Weather {
    asking: AskConfig,
}

impl AskingServer for Weather {
    fn asking(&self) -> &AskConfig {
        &self.asking
    }
}

#[tool_router]
impl Weather {
    #[tool(description = "Set up heat alerts; asks the user when and how, then for the API key.")]
    async fn set_up_alerts(&self, mut asker: Asker) -> ToolResponse {
        respond(async {
            let alerts = match asker.form::<Alerts>().await? {
                Elicitation::Accept(alerts) => alerts,
                _ => return Ok("Nothing was set up.".to_owned()),
            };
            let channels: Vec<String> = alerts
                .channels
                .iter()
                .map(|c| format!("{c:?}").to_lowercase())
                .collect();
            Ok(match asker.url_page::<WeatherKey>().await? {
                FlowOutcome::Completed(ending) => format!(
                    "Heat alerts from {} °C by {}, with the key ending {ending}.",
                    alerts.heat_from,
                    channels.join(" and ")
                ),
                _ => "No alerts: the key was not given.".to_owned(),
            })
        })
        .await
    }
}

#[tool_handler(name = "weather")]
impl ServerHandler for Weather {}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let vault = Vault::default();
    let pages = Pages::bind_loopback(USER).await?.secret_form(
        move |user, typed: WeatherKey| -> Result<SecretEnding, SinkError> {
            let ending = SecretEnding::of(&typed.key);
            vault
                .lock()
                .map_err(|_| "the vault is unavailable")?
                .insert(user, typed.key);
            Ok(ending)
        },
    );
    let weather = Weather {
        asking: AskConfig::single_user(USER)?.with_pages(&pages),
    };
    tokio::spawn(pages.serve());
    let running = AskingService(weather)
        .serve(rmcp::transport::stdio())
        .await?;
    running.waiting().await?;
    Ok(())
}
