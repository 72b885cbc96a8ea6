// This crate's tests build the facade without its `page` feature: a page with fields is then
// one error, on `mode = "url"`, naming the feature.
use mcp_elicit::Elicit;

mod secrecy {
    pub struct SecretString;
}
use secrecy::SecretString;

/// Your Example Co. API key
#[derive(Elicit)]
#[elicit(mode = "url", message = "Enter your Example Co. API key on the page that opens.")]
struct ApiKey {
    /// Settings → API keys on example.com
    #[elicit(title = "API key", min_length = 20, max_length = 200)]
    key: SecretString,
}

fn main() {}
