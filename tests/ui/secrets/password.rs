use mcp_elicit::Elicit;

/// Sign in to continue.
#[derive(Elicit)]
struct SignIn {
    username: String,
    password: String,
}

fn main() {}
