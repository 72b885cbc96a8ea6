use mcp_elicit::{Consent, Elicit};

/// Drop a table permanently. This cannot be undone.
#[derive(Elicit)]
#[elicit(consent)]
struct DropTable {
    /// Type the table's name to confirm.
    table: String,
}

fn reuse(consent: &Consent<DropTable>) -> Consent<DropTable> {
    // Consent is not copyable: one agreement, one operation.
    consent.clone()
}

fn main() {}
