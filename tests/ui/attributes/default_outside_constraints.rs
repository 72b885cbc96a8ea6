use mcp_elicit::Elicit;

/// Configure the deploy.
#[derive(Elicit)]
struct Deploy {
    #[elicit(minimum = 1, maximum = 12, default = 20)]
    replicas: u8,
    #[elicit(min_length = 4, default = "x")]
    ticket: String,
}

fn main() {}
