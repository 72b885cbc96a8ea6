use mcp_elicit::Elicit;

/// How do we reach you?
#[derive(Elicit)]
struct Contact {
    email: String,
    #[elicit(rename = "email")]
    backup_email: String,
}

fn main() {}
