//! `unadapted booking|api_key_server`: one of the examples' servers (`booking.rs`,
//! `api_key_server.rs`, included) with the library's adaptations to its host switched off: the
//! host table (`AskConfig::with_hosts(HostTable::off())`: every client gets the form as the type
//! writes it) and the link form (`AskConfig::with_link_form(LinkForm::Off)`: a client that cannot
//! take a URL question cannot be asked). A way to see a host without them: `tests/hosts`' negative
//! controls run it in Codex 0.171.0 and check that the person can then neither book nor connect
//! a key. Everything else is the example's own `main`.
use mcp_elicit::hosts::HostTable;
use mcp_elicit::page::Pages;
use mcp_elicit::rmcp::{AskConfig, AskingService, LinkForm};
use rmcp::ServiceExt;

#[allow(dead_code)] // its `main`, which serves stdio
#[path = "../booking.rs"]
mod booking;

#[allow(dead_code)] // its `main`, which serves stdio
#[path = "../api_key_server.rs"]
mod api_key_server;

/// The two adaptations off, nothing else changed.
fn unadapted(asking: AskConfig) -> AskConfig {
    asking
        .with_hosts(HostTable::off())
        .with_link_form(LinkForm::Off)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let which = std::env::args().nth(1).unwrap_or_default();
    match which.as_str() {
        "booking" => {
            let restaurant = booking::Restaurant {
                asking: unadapted(AskConfig::single_user("me")?),
            };
            let running = AskingService(restaurant)
                .serve(rmcp::transport::stdio())
                .await?;
            running.waiting().await?;
        }
        "api_key_server" => {
            let pages = Pages::bind_loopback(api_key_server::USER).await?;
            let (mut keys, pages) =
                api_key_server::api_key_server(pages, api_key_server::Vault::default())?;
            keys.asking = unadapted(keys.asking);
            tokio::spawn(pages.serve());
            let running = AskingService(keys).serve(rmcp::transport::stdio()).await?;
            running.waiting().await?;
        }
        other => {
            return Err(format!("usage: unadapted booking|api_key_server (not {other:?})").into());
        }
    }
    Ok(())
}
