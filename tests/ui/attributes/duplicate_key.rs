use mcp_elicit::Elicit;

/// What should the bot be called?
#[derive(Elicit)]
struct Bot {
    #[elicit(title = "Name", title = "Bot name")]
    name: String,
}

fn main() {}
