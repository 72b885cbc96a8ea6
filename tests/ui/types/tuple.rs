use mcp_elicit::Elicit;

/// Where is the meeting?
#[derive(Elicit)]
struct Meeting {
    place: (String, u8),
}

fn main() {}
