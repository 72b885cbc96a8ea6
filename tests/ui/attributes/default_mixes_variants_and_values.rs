use mcp_elicit::Elicit;

#[derive(Elicit)]
enum Topping {
    Cheese,
    Olives,
}

/// Order a pizza.
#[derive(Elicit)]
struct Pizza {
    #[elicit(default = [Topping::Cheese, "Olives"])]
    toppings: Vec<Topping>,
}

fn main() {}
