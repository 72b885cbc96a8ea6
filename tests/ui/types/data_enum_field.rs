use mcp_elicit::Elicit;

enum Payment {
    Invoice,
    Transfer { reference: String },
}

/// How will you pay?
#[derive(Elicit)]
struct Checkout {
    payment: Payment,
}

fn main() {}
