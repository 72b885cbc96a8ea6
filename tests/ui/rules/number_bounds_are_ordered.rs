use mcp_elicit::Elicit;

/// Set the oven.
#[derive(Elicit)]
struct Oven {
    #[elicit(minimum = 250.5, maximum = 90)]
    temperature: f64,
}

fn main() {}
