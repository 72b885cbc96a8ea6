use mcp_elicit::Elicit;

/// How many seats should I book?
#[derive(Elicit)]
#[elicit(receipt = serde_json::Value)]
struct Booking {
    seats: u32,
}

/// Connect your GitHub account so I can open the pull request.
#[derive(Elicit)]
#[elicit(mode = "url", receipt = String)]
struct ConnectGithub;

fn main() {}
