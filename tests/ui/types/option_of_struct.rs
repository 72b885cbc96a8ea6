use mcp_elicit::Elicit;

struct Inner {
    street: String,
}

/// Where should we send the parcel?
#[derive(Elicit)]
struct Address {
    nested: Option<Inner>,
}

fn main() {}
