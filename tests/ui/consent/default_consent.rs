use mcp_elicit::{Consent, Elicit};

/// Drop a table permanently. This cannot be undone.
#[derive(Elicit)]
#[elicit(consent)]
struct DropTable {
    /// Type the table's name to confirm.
    table: String,
}

fn main() {
    let _forged: Consent<DropTable> = Default::default();
}
