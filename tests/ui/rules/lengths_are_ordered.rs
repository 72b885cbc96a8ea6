use mcp_elicit::Elicit;

/// Name the project.
#[derive(Elicit)]
struct Project {
    #[elicit(min_length = 10, max_length = 2)]
    name: String,
}

fn main() {}
