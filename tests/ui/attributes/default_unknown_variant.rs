use mcp_elicit::Elicit;

#[derive(Elicit)]
enum Color {
    Red,
    Green,
}

/// Pick a color.
#[derive(Elicit)]
struct Paint {
    #[elicit(default = Color::Purple)]
    color: Color,
}

fn main() {}
