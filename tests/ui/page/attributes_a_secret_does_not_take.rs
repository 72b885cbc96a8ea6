use mcp_elicit::Elicit;

mod secrecy {
    pub struct SecretString;
}
use secrecy::SecretString;

/// Your Example Co. API key
#[derive(Elicit)]
#[elicit(mode = "url", message = "Enter your Example Co. API key on the page that opens.")]
struct ApiKey {
    #[elicit(title = "API key", default = "sk-test", format = "email")]
    key: SecretString,
    #[elicit(minimum = 4, secret)]
    pin: SecretString,
    #[elicit(consent, not_secret = "a public id")]
    id: SecretString,
}

fn main() {}
