use mcp_elicit::Elicit;

/// How do we reach you?
#[derive(Elicit)]
struct Contact {
    #[elicit(format = "phone")]
    phone: String,
}

fn main() {}
