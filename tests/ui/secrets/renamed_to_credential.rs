use mcp_elicit::Elicit;

/// Connect the integration.
#[derive(Elicit)]
#[elicit(rename_all = "camelCase")]
struct Integration {
    #[elicit(rename = "apiKey")]
    key_id: String,
    bearer_token: String,
}

fn main() {}
