use mcp_elicit::Elicit;

#[derive(Elicit)]
#[elicit(message = "  ")]
struct Contact {
    email: String,
}

#[derive(Elicit)]
#[elicit(mode = "url", message = "\u{3000}\n")]
struct Connect;

fn main() {}
