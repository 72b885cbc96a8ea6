use mcp_elicit::Elicit;

#[derive(Elicit)]
#[elicit(rename_all = "lowercase")]
enum Env {
    Staging,
    #[elicit(dangerous)]
    Production,
}

/// Where should `billing-api` deploy?
#[derive(Elicit)]
struct Deploy {
    #[elicit(default = "production")]
    env: Env,
}

fn main() {}
