use mcp_elicit::Elicit;

/// What should the bot be called?
#[derive(Elicit)]
struct Bot {
    #[elicit(title = 5, min_length = "3")]
    name: String,
    #[elicit(maximum = "ten")]
    replicas: u8,
}

fn main() {}
