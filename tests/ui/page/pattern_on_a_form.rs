use mcp_elicit::Elicit;

/// Where to deploy
#[derive(Elicit)]
struct Deploy {
    #[elicit(pattern = "^[a-z]+$")]
    branch: String,
}

fn main() {}
