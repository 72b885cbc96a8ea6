use mcp_elicit::Elicit;

type Count = u32;

/// How many seats?
#[derive(Elicit)]
struct Booking {
    #[elicit(format = "email", max_length = 3)]
    seats: Count,
}

fn main() {}
