use mcp_elicit::Elicit;

/// What should the bot be called?
#[derive(Elicit)]
#[elicit(mesage = "Name the bot.")]
struct Bot {
    #[elicit(titel = "Name")]
    name: String,
}

fn main() {}
