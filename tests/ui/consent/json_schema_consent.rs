use elicit::{Consent, Elicit};

/// Drop a table permanently. This cannot be undone.
#[derive(Elicit)]
#[elicit(consent)]
struct DropTable {
    /// Type the table's name to confirm.
    table: String,
}

/// A tool's input schema: the model fills it, so it must never carry consent.
#[derive(schemars::JsonSchema)]
struct DropArgs {
    table: String,
    consent: Consent<DropTable>,
}

fn main() {}
