//! Each value rule at its edge: equal bounds, a default on a bound, a default of variants, and
//! characters counted rather than bytes. The schema is built at run time by the checking
//! constructor, which must agree with the compile-time checks.
use mcp_elicit::Elicit;

#[derive(Elicit)]
#[elicit(rename_all = "lowercase")]
enum Topping {
    Cheese,
    Olives,
    #[elicit(rename = "basil leaves")]
    Basil,
}

#[derive(Elicit)]
#[elicit(message = " Order a pizza. ")]
struct Pizza {
    #[elicit(min_length = 3, max_length = 3, default = "日本語")]
    name: String,
    #[elicit(minimum = 2, maximum = 2, default = 2)]
    slices: u8,
    #[elicit(minimum = -0.5, maximum = 0.5, default = -0.5)]
    tilt: f64,
    #[elicit(min_items = 3, max_items = 3, default = [Topping::Basil, Topping::Cheese, Topping::Olives])]
    toppings: Vec<Topping>,
    #[elicit(min_items = 0, max_items = 1, default = ["basil leaves"])]
    extra: Vec<Topping>,
    #[elicit(rename = "topping")]
    favourite: Option<Topping>,
}

#[derive(Elicit)]
#[elicit(mode = "url", message = "Connect your account.")]
struct Connect;

fn main() {
    let schema = serde_json::to_value(Pizza::requested_schema()).unwrap();
    assert_eq!(schema["properties"]["toppings"]["default"], serde_json::json!(["basil leaves", "cheese", "olives"]));
    assert_eq!(schema["properties"]["name"]["default"], "日本語");
    let _ = Pizza::form_request();
    let _ = <Connect as mcp_elicit::url_mode::ElicitUrl>::message();
}
