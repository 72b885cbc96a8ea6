use mcp_elicit::Elicit;

/// How many seats should I book?
#[derive(Elicit)]
#[elicit(title = "Booking")]
struct Booking {
    seats: u32,
}

/// Connect your GitHub account so I can open the pull request.
#[derive(Elicit)]
#[elicit(mode = "url", title = "GitHub")]
struct ConnectGithub;

fn main() {}
