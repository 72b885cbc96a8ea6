use mcp_elicit::Elicit;

/// How many replicas?
#[derive(Elicit)]
struct Scale {
    replicas: Option<Option<u8>>,
}

fn main() {}
