//! The booking example's server (`booking.rs`, included) with a short keep-alive: for
//! `tests/e2e/ts`, where the TypeScript SDK's client calls `book_table` with a request timeout of
//! 2 s and its user answers after 6 s. The only difference from `booking`'s `main` is the
//! interval: `keep_alive_server [interval_ms]`, 500 ms by default (the library's default is
//! 15 s, for clients whose timeout is a minute).
use std::time::Duration;

use mcp_elicit::rmcp::{AskConfig, AskingService};
use rmcp::ServiceExt;

#[allow(dead_code)] // its `main`, which serves stdio
#[path = "../booking.rs"]
mod booking;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let interval = match std::env::args().nth(1) {
        Some(ms) => Duration::from_millis(ms.parse()?),
        None => Duration::from_millis(500),
    };
    let restaurant = booking::Restaurant {
        asking: AskConfig::single_user("me")?.with_keep_alive(interval),
    };
    let running = AskingService(restaurant)
        .serve(rmcp::transport::stdio())
        .await?;
    running.waiting().await?;
    Ok(())
}
