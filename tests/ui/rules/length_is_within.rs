use mcp_elicit::Elicit;

/// File a ticket.
#[derive(Elicit)]
struct Ticket {
    #[elicit(min_length = 4, default = "x")]
    key: String,
    // Three characters, nine bytes: characters are counted, not bytes.
    #[elicit(max_length = 2, default = "日本語")]
    title: String,
}

fn main() {}
