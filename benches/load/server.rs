//! The server of the load bench (`benches/http_load.rs`, BENCHMARKS.md §8): the README's booking
//! tool over streamable HTTP through `AskingHttpService`, beside the same tool that does not ask
//! and the same question asked through rmcp's own `peer.elicit`. Built in release by the bench's
//! command; it serves on `127.0.0.1:$PORT` until killed.
//!
//! With `REDIS_URL` set, its rounds are spent in a `RedisReplayGuard` (the fleet's setting);
//! otherwise in the `MemoryReplayGuard` that `AskConfig::single_user` sets. Its sessions are
//! bound to the bearer token each client sends (`LOAD_BINDING=unbound`: bound to nothing).

use std::time::Duration;

#[path = "../common/forms.rs"]
mod forms;

use mcp_elicit::mrtr::Rounds;
use mcp_elicit::rmcp::{
    AskConfig, Asker, AskingHttpService, AskingServer, HttpPrincipal, SessionBinding, ToolResponse,
    respond,
};
use mcp_elicit::state::{RedisReplayGuard, StateKeys};
use mcp_elicit::{Elicit, Elicitation};
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::service::RequestContext;
use rmcp::transport::StreamableHttpServerConfig;
use rmcp::{RoleServer, ServerHandler, schemars, tool, tool_handler, tool_router};

/// Your table: for how many, when, and where would you like to sit?
#[derive(Elicit, Debug)]
struct Booking {
    #[elicit(title = "Party size", minimum = 1, maximum = 12)]
    party_size: u8,
    #[elicit(title = "Date", format = "date")]
    date: String,
    #[elicit(title = "Seating", default = Seating::Indoors)]
    seating: Seating,
    /// Allergies, a high chair, a birthday…
    #[elicit(title = "Anything we should know?", max_length = 200)]
    note: Option<String>,
}

#[derive(Elicit, Debug, Clone, Copy, PartialEq)]
#[elicit(rename_all = "lowercase")]
enum Seating {
    Indoors,
    Terrace,
}

/// The same form as rmcp's own elicitation takes it: serde and schemars (the select as a plain
/// string: rmcp's `from_type` reads an enum only inline, with `type` beside `oneOf`).
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct BookingRmcp {
    #[schemars(title = "Party size", range(min = 1, max = 12))]
    party_size: u8,
    #[schemars(title = "Date")]
    date: String,
    #[schemars(title = "Seating")]
    seating: Option<String>,
    /// Allergies, a high chair, a birthday…
    #[schemars(title = "Anything we should know?", length(max = 200))]
    note: Option<String>,
}

rmcp::elicit_safe!(BookingRmcp);

#[derive(Clone)]
struct Restaurant {
    asking: AskConfig,
}

impl AskingServer for Restaurant {
    fn asking(&self) -> &AskConfig {
        &self.asking
    }
}

fn booked(b: &Booking) -> String {
    format!("A table for {} on {}.", b.party_size, b.date)
}

#[tool_router]
impl Restaurant {
    /// The README's tool: asks once.
    #[tool(description = "Book a table; asks the guest for the details.")]
    async fn book_table(&self, mut asker: Asker) -> ToolResponse {
        respond(async {
            Ok(match asker.form::<Booking>().await? {
                Elicitation::Accept(b) => booked(&b),
                _ => "Nothing was booked.".to_owned(),
            })
        })
        .await
    }

    /// The benches' 8-field form (`common/forms.rs`): a wide integer, a number and a
    /// multi-select, which a host that draws only text, booleans and single-selects (Codex) is
    /// asked as text and booleans (BENCHMARKS.md §14).
    #[tool(description = "Sign up for the beta; asks the 8-field form.")]
    async fn sign_up(&self, mut asker: Asker) -> ToolResponse {
        respond(async {
            Ok(match asker.form::<forms::Signup>().await? {
                Elicitation::Accept(s) => format!("Signed up {} ({:?}).", s.email, s.topics),
                _ => "Nobody signed up.".to_owned(),
            })
        })
        .await
    }

    /// The same tool that does not ask: the baseline.
    #[tool(description = "Book the usual table; asks nothing.")]
    async fn book_usual(&self) -> CallToolResult {
        let usual = Booking {
            party_size: 2,
            date: "2026-12-24".to_owned(),
            seating: Seating::Indoors,
            note: None,
        };
        CallToolResult::success(vec![ContentBlock::text(booked(&usual))])
    }

    /// The same question through rmcp's own `peer.elicit` (2025-11-25), for the memory of a
    /// pending ask side by side.
    #[tool(description = "Book a table, asking through rmcp's own elicitation.")]
    async fn book_table_rmcp(&self, context: RequestContext<RoleServer>) -> CallToolResult {
        let asked = context.peer.elicit::<BookingRmcp>("Your table?".to_owned());
        let text = match asked.await {
            Ok(Some(b)) => format!(
                "A table for {} on {}{}{}.",
                b.party_size,
                b.date,
                b.seating.map(|s| format!(", {s}")).unwrap_or_default(),
                b.note.map(|n| format!(" ({n})")).unwrap_or_default()
            ),
            _ => "Nothing was booked.".to_owned(),
        };
        CallToolResult::success(vec![ContentBlock::text(text)])
    }
}

#[tool_handler(name = "booking")]
impl ServerHandler for Restaurant {}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let port: u16 = std::env::var("PORT")?.parse()?;
    let asking = match std::env::var("REDIS_URL") {
        Ok(url) => {
            let redis = redis::Client::open(url)?;
            let guard = RedisReplayGuard::new(redis.get_multiplexed_async_connection().await?)
                .with_key_prefix("load:request-state:");
            let keys = StateKeys::generate()?;
            AskConfig::single_user_with("me", Rounds::new(keys).with_replay_guard(guard))?
        }
        Err(_) => AskConfig::single_user("me")?,
    }
    .with_timeout(Duration::from_secs(3600));
    // `LOAD_KEEP_ALIVE=off`: no progress while a question waits (what it costs a pending ask).
    let asking = match std::env::var("LOAD_KEEP_ALIVE").as_deref() {
        Ok("off") => asking.without_keep_alive(),
        _ => asking,
    };
    let restaurant = Restaurant { asking };
    // Each session bound to its principal (BENCHMARKS.md §9): the bearer token the bench's
    // clients send, read as the principal (a real server's authentication layer verifies it
    // first; that is its own cost). `LOAD_BINDING=unbound`: sessions bind nothing.
    let binding = match std::env::var("LOAD_BINDING").as_deref() {
        Ok("unbound") => SessionBinding::Unbound,
        _ => SessionBinding::BoundTo(HttpPrincipal::new(|request| {
            let value = request.headers.get(axum::http::header::AUTHORIZATION)?;
            let token = value.to_str().ok()?.strip_prefix("Bearer ")?;
            Some(token.to_owned())
        })),
    };
    let mcp = AskingHttpService::new(
        move || Ok(restaurant.clone()),
        binding,
        StreamableHttpServerConfig::default(),
    );
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    // SIGINT ends the process at once, calls still pending or not, so that a profiler around
    // it (callgrind, massif) writes what it counted.
    tokio::select! {
        served = axum::serve(listener, axum::Router::new().nest_service("/mcp", mcp)) => served?,
        _ = tokio::signal::ctrl_c() => {}
    }
    std::process::exit(0)
}
