use mcp_elicit::Elicit;

/// Confirm.
#[derive(Elicit)]
struct Confirm;

fn main() {}
