use mcp_elicit::Elicit;

#[derive(Elicit)]
enum Region {
    Eu,
    Us,
    Other(String),
    Custom { code: String },
}

fn main() {}
