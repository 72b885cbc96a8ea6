//! One replica of a fleet: the booking tool and a consent that changes something, over
//! streamable HTTP, every replica sharing its keys and a Redis. `tests/fleet/` starts three behind
//! haproxy and drives them with the Python and TypeScript SDKs' clients.
//!
//! ```sh
//! export ELICIT_STATE_KEYS="1:$(openssl rand -hex 32)"   # the same on every replica
//! export REDIS_URL="redis://127.0.0.1:6379/?protocol=resp3"
//! PORT=3101 REPLICA=r1 cargo run -p elicit-examples --features fleet --example fleet_server
//! ```
//!
//! - 2026-07-28 is stateless: a round's state goes back to the client, sealed with the shared
//!   keys, so any replica answers any retry; each state is spent once in Redis
//!   (`RedisReplayGuard`), so a retry replayed on another replica changes nothing twice.
//! - Before it, a question waits in the memory of the replica whose session asked: the load
//!   balancer keeps each `Mcp-Session-Id` on its replica (`tests/fleet/haproxy.cfg`).
//!
//! `drop_table` counts each table it drops in Redis (`fleet:dropped:<table>`), so a test sees
//! from outside whether a consent was applied once, twice or never. It reports which replica
//! did it.

use std::time::Duration;

use mcp_elicit::mrtr::Rounds;
use mcp_elicit::rmcp::{AskConfig, Asker, AskingHttpService, AskingServer, ToolResponse, respond};
use mcp_elicit::state::{RedisReplayGuard, StateKeys};
use mcp_elicit::{Elicit, Elicitation};
use redis::AsyncCommands;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::transport::StreamableHttpServerConfig;
use rmcp::{ServerHandler, schemars, tool, tool_handler, tool_router};

/// Your table: for how many, and when?
#[derive(Elicit, Debug)]
struct Booking {
    #[elicit(title = "Party size", minimum = 1, maximum = 12)]
    party_size: u8,
    #[elicit(title = "Date", format = "date")]
    date: String,
}

/// Drop the table? This cannot be undone.
#[derive(Elicit)]
#[elicit(consent)]
struct DropIt {
    #[elicit(title = "Drop it", consent)]
    confirm: bool,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Table {
    /// The table to drop.
    table: String,
}

#[derive(Clone)]
struct Replica {
    name: String,
    asking: AskConfig,
    redis: ConnectionManager,
}

impl AskingServer for Replica {
    fn asking(&self) -> &AskConfig {
        &self.asking
    }
}

#[tool_router]
impl Replica {
    #[tool(description = "Book a table; asks the guest for the details.")]
    async fn book_table(&self, mut asker: Asker) -> ToolResponse {
        respond(async {
            Ok(match asker.form::<Booking>().await? {
                Elicitation::Accept(b) => format!(
                    "A table for {} on {} (booked on {}).",
                    b.party_size, b.date, self.name
                ),
                _ => "Nothing was booked.".to_owned(),
            })
        })
        .await
    }

    #[tool(description = "Permanently drop a table; asks the user for consent first.")]
    async fn drop_table(&self, Parameters(t): Parameters<Table>, mut asker: Asker) -> ToolResponse {
        respond(async {
            let Elicitation::Accept(_) = asker.consent::<DropIt>().await? else {
                return Ok(format!("`{}` was not dropped.", t.table));
            };
            let mut redis = self.redis.clone();
            let drops: Result<u64, _> = redis.incr(format!("fleet:dropped:{}", t.table), 1).await;
            Ok(match drops {
                Ok(drops) => format!("Dropped `{}` on {} (drop {drops}).", t.table, self.name),
                Err(error) => format!("`{}` was not dropped: Redis: {error}.", t.table),
            })
        })
        .await
    }
}

#[tool_handler(name = "fleet")]
impl ServerHandler for Replica {}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let port: u16 = std::env::var("PORT")?.parse()?;
    let name = std::env::var("REPLICA").unwrap_or_else(|_| format!("replica-{port}"));
    // A connection that gives up on a command after a second (while Redis is down the guard
    // fails closed, at once) and reconnects by itself: on RESP3 (`?protocol=resp3` in the URL)
    // it hears the disconnection and starts at once; the guard sends a command whose
    // connection was lost once more, so the first redemption after Redis is back need not fail.
    let client = redis::Client::open(std::env::var("REDIS_URL")?)?;
    let config = ConnectionManagerConfig::new()
        .set_connection_timeout(Some(Duration::from_secs(1)))
        .set_response_timeout(Some(Duration::from_secs(1)))
        .set_max_delay(Duration::from_millis(500))
        .set_number_of_retries(3);
    let redis = ConnectionManager::new_with_config(client, config).await?;
    let guard = RedisReplayGuard::new(redis.clone()).with_key_prefix("fleet:request-state:");
    let rounds = Rounds::new(StateKeys::from_env("ELICIT_STATE_KEYS")?).with_replay_guard(guard);
    // One user: nobody signs in to this test fleet (a real one names each request's principal,
    // `AskConfig::per_user`).
    let asking = AskConfig::single_user_with(rounds).with_timeout(Duration::from_secs(120));
    let replica = Replica {
        name: name.clone(),
        asking,
        redis,
    };
    let mcp = AskingHttpService::new(
        move || Ok(replica.clone()),
        StreamableHttpServerConfig::default(),
    );
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    eprintln!("{name} on http://127.0.0.1:{port}/mcp");
    axum::serve(listener, axum::Router::new().nest_service("/mcp", mcp)).await?;
    Ok(())
}
