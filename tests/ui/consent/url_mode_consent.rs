use mcp_elicit::Elicit;

/// Open the billing portal to approve the payment.
#[derive(Elicit)]
#[elicit(mode = "url", consent)]
struct ApprovePayment;

fn main() {}
