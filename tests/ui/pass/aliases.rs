use mcp_elicit::Elicit;

type Email = String;
type Replicas = u8;
type Flag = bool;

#[derive(Elicit)]
enum Topping {
    Cheese,
    Olives,
}
type Toppings = Vec<Topping>;

/// Who is on call, and how big is the deploy?
#[derive(Elicit)]
struct OnCall {
    #[elicit(format = "email", min_length = 3, max_length = 254)]
    notify: Email,
    #[elicit(minimum = 1, maximum = 255)]
    replicas: Replicas,
    #[elicit(consent)]
    agree: Flag,
    #[elicit(min_items = 1, max_items = 2)]
    toppings: Toppings,
}

fn main() {
    let _ = OnCall::form_request();
}
