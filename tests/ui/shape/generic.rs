use mcp_elicit::Elicit;

/// Pick a value.
#[derive(Elicit)]
struct Pick<T> {
    value: T,
}

fn main() {}
