use mcp_elicit::Elicit;

/// Tag the release.
#[derive(Elicit)]
struct Release {
    tags: Vec<String>,
}

fn main() {}
