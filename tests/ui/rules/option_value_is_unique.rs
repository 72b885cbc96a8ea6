use mcp_elicit::Elicit;

#[derive(Elicit)]
#[elicit(rename_all = "lowercase")]
enum Env {
    Staging,
    #[elicit(rename = "staging")]
    Production,
}

fn main() {}
