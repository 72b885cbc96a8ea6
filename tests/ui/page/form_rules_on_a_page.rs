// A page's fields keep the rules a form's fields keep, checked by the same functions: the
// core's, whether or not the `page` feature is on.
use mcp_elicit::Elicit;

mod secrecy {
    pub struct SecretString;
}
use secrecy::SecretString;

/// Your Example Co. API key
#[derive(Elicit)]
#[elicit(mode = "url", message = "Enter your Example Co. API key on the page that opens.")]
struct ApiKey {
    #[elicit(min_length = 200, max_length = 20)]
    key: SecretString,
    #[elicit(rename = "key")]
    second_key: SecretString,
}

fn main() {}
