use mcp_elicit::Elicit;

#[derive(Elicit)]
enum Color {
    Red,
    Green,
}

#[derive(Elicit)]
enum Size {
    Small,
    Large,
}

/// Pick a color.
#[derive(Elicit)]
struct Paint {
    #[elicit(default = Size::Small)]
    color: Color,
}

fn main() {}
