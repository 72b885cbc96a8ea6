use mcp_elicit::Elicit;

#[derive(Elicit)]
enum Env {
    Staging,
    #[elicit(dangerous)]
    Production,
}

/// Where should `billing-api` deploy?
#[derive(Elicit)]
struct Deploy {
    #[elicit(default = Env::Production)]
    env: Env,
}

fn main() {}
