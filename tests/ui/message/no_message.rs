use mcp_elicit::Elicit;

#[derive(Elicit)]
struct Contact {
    email: String,
}

fn main() {}
