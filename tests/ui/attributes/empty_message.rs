use mcp_elicit::Elicit;

#[derive(Elicit)]
#[elicit(message = "  ")]
struct Contact {
    email: String,
}

fn main() {}
