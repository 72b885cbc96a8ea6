//! One replica of a fleet: the booking tool, a consent that changes something and an API key
//! typed on the server's own page, over streamable HTTP, every replica sharing its keys and a
//! Redis. `tests/fleet/` starts three behind
//! haproxy and drives them with the Python SDK's client (both revisions) and the TypeScript SDK's
//! (2025-11-25).
//!
//! ```sh
//! export ELICIT_STATE_KEYS="1:$(openssl rand -hex 32)"   # the same on every replica
//! export REDIS_URL="redis://127.0.0.1:6379/?protocol=resp3"
//! export FLEET_PUBLIC_URL=http://localhost:3100            # the load balancer, for page links
//! PORT=3101 REPLICA=r1 cargo run -p elicit-examples --features fleet --example fleet_server
//! ```
//!
//! - 2026-07-28 is stateless: a round's state goes back to the client, sealed with the shared
//!   keys, so any replica answers any retry; each state is spent once in Redis
//!   (`RedisReplayGuard`), so a retry replayed on another replica changes nothing twice.
//! - Before it, a question waits in the memory of the replica whose session asked: the load
//!   balancer keeps each `Mcp-Session-Id` on its replica (`tests/fleet/haproxy.cfg`).
//!
//! - A URL question's flow is kept in Redis (`RedisFlowStore`): its page may be finished on any
//!   replica, and the finish wakes the tool waiting on the replica whose session asked, which
//!   alone notifies its client (2025-11-25); a 2026-07-28 retry reads it on any replica.
//!
//! `drop_table` counts each table it drops in Redis (`fleet:dropped:<table>`), so a test sees
//! from outside whether a consent was applied once, twice or never. It reports which replica
//! did it. Nobody signs in to this test fleet: one user, its pages reached on loopback
//! (`SingleUser`); a real fleet names each request's principal (`AskConfig::per_http_user`, whose
//! `HttpPrincipal` also binds each session, `SessionBinding::BoundTo`) and signs
//! its pages' users in (`OidcSignIn`).

use std::net::SocketAddr;
use std::time::Duration;

use mcp_elicit::mrtr::Rounds;
use mcp_elicit::page::{ExposeSecret, Pages, SecretFormSink, SecretString, SingleUser, SinkFuture};
use mcp_elicit::rmcp::{
    AskConfig, Asker, AskingHttpService, AskingServer, SessionBinding, ToolResponse, respond,
};
use mcp_elicit::state::{RedisReplayGuard, StateKeys};
use mcp_elicit::url_mode::{FlowOutcome, Flows, RedisFlowStore};
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

/// What the tool reads, on whichever replica it runs: the key's last four characters.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
struct KeyEnding {
    ending: String,
}

/// Your Example Co. API key
#[derive(Elicit)]
#[elicit(
    mode = "url",
    message = "Enter your Example Co. API key on our page, never in the chat.",
    receipt = KeyEnding
)]
struct ApiKey {
    /// Settings → API keys on example.com
    #[elicit(title = "API key", min_length = 20, max_length = 200)]
    key: SecretString,
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

    #[tool(description = "Connect the user's API key (typed on our page, never here).")]
    async fn connect_api_key(&self, mut asker: Asker) -> ToolResponse {
        respond(async {
            Ok(match asker.url_page::<ApiKey>().await? {
                FlowOutcome::Completed(receipt) => format!(
                    "Connected the key ending {} (asked on {}).",
                    receipt.ending, self.name
                ),
                FlowOutcome::Failed(why) => format!("Not connected: {why}"),
                other => format!("No key was connected: {other:?}."),
            })
        })
        .await
    }
}

/// The page's sink, on whichever replica the form reached: the key into the shared vault (here
/// Redis itself; a real one is a secret store), and a receipt for the tool.
struct Vault {
    redis: ConnectionManager,
}

impl SecretFormSink<ApiKey> for Vault {
    fn store(&self, _user: String, typed: ApiKey) -> SinkFuture<'_, KeyEnding> {
        let mut redis = self.redis.clone();
        Box::pin(async move {
            let key = typed.key.expose_secret();
            let ending: String = key
                .chars()
                .skip(key.chars().count().saturating_sub(4))
                .collect();
            let stored: Result<(), _> = redis.set("fleet:vault:api-key", key).await;
            stored.map_err(|_| "the vault is unavailable")?;
            Ok(KeyEnding { ending })
        })
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
    let redis = ConnectionManager::new_with_config(client.clone(), config).await?;
    let keys = StateKeys::from_env("ELICIT_STATE_KEYS")?;
    let guard = RedisReplayGuard::new(redis.clone()).with_key_prefix("fleet:request-state:");
    let rounds = Rounds::new(keys.clone()).with_replay_guard(guard);
    // The flows of URL questions, shared by the fleet; their links point at the load balancer.
    let store = RedisFlowStore::new(client).with_key_prefix("fleet:flow:");
    let public = std::env::var("FLEET_PUBLIC_URL")?;
    let flows = Flows::new(store, format!("{public}/elicit/"))?;
    let vault = Vault {
        redis: redis.clone(),
    };
    let pages = Pages::new(flows.clone(), SingleUser::named("me")?)?
        .with_keys(keys)
        .secret_form(vault);
    // One user: nobody signs in to this test fleet (see above).
    // `FLEET_KEEP_ALIVE_MS`: progress while a person answers, more often than the default 15 s
    // (the fleet's tests use 500 ms).
    let keep_alive = match std::env::var("FLEET_KEEP_ALIVE_MS") {
        Ok(ms) => Duration::from_millis(ms.parse()?),
        Err(_) => AskConfig::DEFAULT_KEEP_ALIVE,
    };
    let asking = AskConfig::single_user_with("me", rounds)?
        .with_timeout(Duration::from_secs(120))
        .with_keep_alive(keep_alive)
        .with_flows(flows);
    let replica = Replica {
        name: name.clone(),
        asking,
        redis,
    };
    // Nobody signs in to this test fleet: no principal to bind a session to, so its sessions
    // bind nothing (a real fleet: `SessionBinding::BoundTo` the `HttpPrincipal` its
    // `AskConfig::per_http_user` names).
    let mcp = AskingHttpService::new(
        move || Ok(replica.clone()),
        SessionBinding::Unbound,
        StreamableHttpServerConfig::default(),
    );
    let app = axum::Router::new()
        .nest_service("/mcp", mcp)
        .merge(pages.router());
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    eprintln!("{name} on http://127.0.0.1:{port}/mcp");
    // The pages check that each request came over loopback: they read the peer's address.
    let app = app.into_make_service_with_connect_info::<SocketAddr>();
    axum::serve(listener, app).await?;
    Ok(())
}
