use mcp_elicit::Elicit;

/// What is your name?
#[derive(Elicit)]
struct Name(String);

fn main() {}
