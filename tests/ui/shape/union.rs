use mcp_elicit::Elicit;

/// A number.
#[derive(Elicit)]
union Number {
    int: u32,
    float: f32,
}

fn main() {}
