use mcp_elicit::Elicit;

#[derive(Elicit)]
enum Env {
    Staging,
    Production,
}

/// Configure the deploy.
#[derive(Elicit)]
struct Deploy {
    #[elicit(default = 1)]
    dry_run: bool,
    #[elicit(default = 3)]
    label: String,
    #[elicit(default = "three")]
    replicas: u8,
    #[elicit(default = true)]
    env: Env,
}

fn main() {}
