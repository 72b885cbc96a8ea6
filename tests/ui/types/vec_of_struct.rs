use mcp_elicit::Elicit;

struct Item {
    sku: String,
}

/// Which items should go in the parcel?
#[derive(Elicit)]
struct Order {
    items: Vec<Item>,
}

fn main() {}
