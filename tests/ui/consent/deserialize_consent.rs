use mcp_elicit::{Consent, Elicit};

/// Drop a table permanently. This cannot be undone.
#[derive(Elicit)]
#[elicit(consent)]
struct DropTable {
    /// Type the table's name to confirm.
    table: String,
}

/// A tool's input: the model fills it, so it must never carry consent.
#[derive(serde::Deserialize)]
struct DropArgs {
    table: String,
    consent: Consent<DropTable>,
}

fn main() {}
