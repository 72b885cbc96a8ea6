use mcp_elicit::Elicit;

/// Order a pizza.
#[derive(Elicit)]
struct Pizza {
    #[elicit(minimum = 8, maximum = 2)]
    slices: u8,
}

fn main() {}
