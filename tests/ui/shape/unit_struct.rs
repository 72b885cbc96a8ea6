use elicit::Elicit;

/// Confirm.
#[derive(Elicit)]
struct Confirm;

fn main() {}
