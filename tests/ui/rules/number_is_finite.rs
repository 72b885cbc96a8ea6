use mcp_elicit::Elicit;

/// Set the oven.
#[derive(Elicit)]
struct Oven {
    #[elicit(maximum = 1e999)]
    temperature: f64,
    #[elicit(default = -1e999)]
    offset: f64,
}

fn main() {}
