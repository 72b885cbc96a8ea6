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
    #[elicit(default = [Topping::Cheese, Topping::Olives, Topping::Cheese])]
    toppings: Vec<Topping>,
    #[elicit(default = ["Basil", "Basil"])]
    extra: Vec<Topping>,
}

fn main() {}
