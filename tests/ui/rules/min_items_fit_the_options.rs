use mcp_elicit::Elicit;

#[derive(Elicit)]
enum Topping {
    Cheese,
    Olives,
}

/// Order a pizza.
#[derive(Elicit)]
struct Pizza {
    #[elicit(min_items = 3)]
    toppings: Vec<Topping>,
}

fn main() {}
