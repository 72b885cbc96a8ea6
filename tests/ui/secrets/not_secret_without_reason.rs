use mcp_elicit::Elicit;

/// Choose your sign-in name.
#[derive(Elicit)]
struct Account {
    #[elicit(not_secret = "")]
    token_label: String,
    #[elicit(not_secret)]
    secret_question: String,
}

fn main() {}
