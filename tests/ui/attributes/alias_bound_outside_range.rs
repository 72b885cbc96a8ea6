use mcp_elicit::Elicit;

type Small = u8;

/// Scale the service.
#[derive(Elicit)]
struct Scale {
    #[elicit(maximum = 300)]
    replicas: Small,
}

fn main() {}
