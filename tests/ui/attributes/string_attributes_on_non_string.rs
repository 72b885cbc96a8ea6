use mcp_elicit::Elicit;

/// How many seats?
#[derive(Elicit)]
struct Booking {
    #[elicit(format = "email")]
    seats: u32,
    #[elicit(min_length = 1, max_length = 3)]
    window: bool,
}

fn main() {}
