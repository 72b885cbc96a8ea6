use mcp_elicit::Elicit;

#[derive(Elicit)]
#[elicit(rename_all = "lowercase")]
enum Color {
    Red,
    Green,
}

/// Pick a color.
#[derive(Elicit)]
struct Paint {
    #[elicit(default = "purple")]
    color: Color,
}

fn main() {}
