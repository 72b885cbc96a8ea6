use mcp_elicit::Elicit;

#[derive(Elicit)]
#[elicit(consent)]
enum Env {
    Staging,
    Production,
}

fn main() {}
