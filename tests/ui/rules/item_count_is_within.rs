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
    #[elicit(min_items = 2, default = [Topping::Cheese])]
    toppings: Vec<Topping>,
    #[elicit(max_items = 1, default = ["Cheese", "Basil"])]
    extra: Vec<Topping>,
}

fn main() {}
