use mcp_elicit::Elicit;

/// Configure the deploy.
#[derive(Elicit)]
struct Deploy {
    #[elicit(minimum = 1, maximum = 12, default = 20)]
    replicas: u8,
    #[elicit(minimum = -5, default = -6)]
    offset: i32,
}

fn main() {}
