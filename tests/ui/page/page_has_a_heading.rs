use mcp_elicit::Elicit;

mod secrecy {
    pub struct SecretString;
}
use secrecy::SecretString;

#[derive(Elicit)]
#[elicit(mode = "url", message = "Enter your Example Co. API key on the page that opens.")]
struct ApiKey {
    key: SecretString,
}

fn main() {}
