use mcp_elicit::Elicit;

/// What is your name?
#[derive(Elicit)]
struct Name {
    name: &'static str,
}

fn main() {}
