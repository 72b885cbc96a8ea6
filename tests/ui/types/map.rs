use mcp_elicit::Elicit;

use std::collections::HashMap;

/// Which labels should the deployment carry?
#[derive(Elicit)]
struct Labels {
    labels: HashMap<String, String>,
}

fn main() {}
