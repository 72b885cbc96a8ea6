use mcp_elicit::Elicit;

#[derive(Elicit)]
enum Topping {
    Cheese,
    Olives,
    Basil,
}

/// Order a pizza.
#[derive(Elicit)]
struct Pizza {
    #[elicit(min_length = 10, max_length = 2)]
    name: String,
    #[elicit(minimum = 8, maximum = 2)]
    slices: u8,
    #[elicit(min_items = 3, max_items = 1)]
    toppings: Vec<Topping>,
}

fn main() {}
