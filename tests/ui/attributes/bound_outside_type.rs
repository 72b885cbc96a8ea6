use mcp_elicit::Elicit;

/// Scale the service.
#[derive(Elicit)]
struct Scale {
    #[elicit(minimum = -1, maximum = 300)]
    replicas: u8,
    #[elicit(maximum = 2.5)]
    shards: i32,
}

fn main() {}
