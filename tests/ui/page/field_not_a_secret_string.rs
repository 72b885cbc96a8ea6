use mcp_elicit::Elicit;

// The derive reads the type's spelling; `secrecy` itself is not needed to see these errors.
mod secrecy {
    pub struct SecretString;
}
use secrecy::SecretString;

/// Your Example Co. account
#[derive(Elicit)]
#[elicit(mode = "url", message = "Sign in to Example Co. on the page that opens.")]
struct Account {
    login: String,
    pin: u32,
    recovery: Option<SecretString>,
    password: SecretString,
}

fn main() {}
