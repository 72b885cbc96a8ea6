use mcp_elicit::Elicit;

/// How do we reach you?
#[derive(Elicit)]
struct Contact {
    #[elicit(rename = "")]
    email: String,
}

fn main() {}
