use mcp_elicit::Elicit;

mod secrecy {
    pub struct SecretString;
}
use secrecy::SecretString;

/// Your Example Co. API key
#[derive(Elicit)]
#[elicit(mode = "url", message = "Enter your Example Co. API key on the page that opens.")]
struct ApiKey {
    /// It starts with `ex_`.
    #[elicit(title = "API key", pattern = "^ex_[A-Za-z0-9{20,}$")]
    key: SecretString,
    /// Its `\p{..}` names no Unicode class.
    #[elicit(pattern = r"\p{Klingon}+")]
    secret: SecretString,
}

fn main() {}
