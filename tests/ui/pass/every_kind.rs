use mcp_elicit::Elicit;

use std::collections::{BTreeSet, HashSet};

#[derive(Elicit, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Size {
    Small,
    Large,
}

#[derive(Elicit)]
#[elicit(message = "Describe the order.")]
struct Order {
    name: String,
    gift: bool,
    #[elicit(minimum = -5, maximum = 5)]
    offset: i8,
    quantity: u64,
    #[elicit(minimum = 0.5, maximum = 9.5, default = 1.5)]
    weight: f64,
    ratio: f32,
    size: Size,
    sizes: Vec<Size>,
    size_set: BTreeSet<Size>,
    size_hash: HashSet<Size>,
    account: mcp_elicit::schema::Choice,
    accounts: mcp_elicit::schema::Choices,
    note: Option<String>,
    #[elicit(format = "date", default = "2026-07-28")]
    due: String,
}

fn main() {
    let _ = Order::form_request();
}
