//! A table-booking MCP server over stdio: one `#[tool]` that asks its user a form, on every
//! protocol revision. The README's "rmcp in five minutes" is this file.
use mcp_elicit::rmcp::{AskConfig, Asker, AskingServer, AskingService, ToolResponse, respond};
use mcp_elicit::{Elicit, Elicitation};
use rmcp::{ServerHandler, ServiceExt, tool, tool_handler, tool_router};

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

/// `pub`: its tests build it (`examples/rmcp/tests/kit.rs`).
#[derive(Clone)]
pub struct Restaurant {
    pub asking: AskConfig,
}

impl AskingServer for Restaurant {
    fn asking(&self) -> &AskConfig {
        &self.asking
    }
}

#[tool_router]
impl Restaurant {
    #[tool(description = "Book a table; asks the guest for the details.")]
    async fn book_table(&self, mut asker: Asker) -> ToolResponse {
        respond(async {
            Ok(match asker.form::<Booking>().await? {
                Elicitation::Accept(b) => format!("A table for {} on {}.", b.party_size, b.date),
                Elicitation::Decline => "You declined: nothing was booked.".to_owned(),
                Elicitation::Cancel => "You dismissed the form: nothing was booked.".to_owned(),
                Elicitation::NoReply => "No answer arrived: nothing was booked.".to_owned(),
            })
        })
        .await
    }
}

/// The name the server gives itself to clients (rmcp's own, "rmcp", without `name`).
#[tool_handler(name = "booking")]
impl ServerHandler for Restaurant {}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // One user, the one whose client started this stdio server: keys for this process's life.
    let restaurant = Restaurant {
        asking: AskConfig::single_user("me")?,
    };
    let running = AskingService(restaurant)
        .serve(rmcp::transport::stdio())
        .await?;
    running.waiting().await?;
    Ok(())
}
