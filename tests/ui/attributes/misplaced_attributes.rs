use mcp_elicit::Elicit;

#[derive(Elicit)]
enum Topping {
    Cheese,
    Olives,
}

/// Order a pizza.
#[derive(Elicit)]
struct Pizza {
    #[elicit(minimum = 1)]
    name: String,
    #[elicit(min_items = 1)]
    size: u8,
    #[elicit(consent)]
    note: String,
    #[elicit(legacy_enum_names)]
    toppings: Vec<Topping>,
}

fn main() {}
