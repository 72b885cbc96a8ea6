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

/// An alias of a multi-select: the compiler counts its options too.
type Toppings = Vec<Topping>;

/// Order another pizza.
#[derive(Elicit)]
struct AnotherPizza {
    #[elicit(min_items = 3)]
    toppings: Toppings,
    #[elicit(min_items = 3)]
    extra: Option<Toppings>,
}

fn main() {}
