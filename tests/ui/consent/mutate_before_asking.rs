use mcp_elicit::{Consent, Elicit};

/// Drop a table permanently. This cannot be undone.
#[derive(Elicit)]
#[elicit(consent)]
struct DropTable {
    /// Type the table's name to confirm.
    table: String,
}

fn drop_table(name: &str, consent: Consent<DropTable>) {
    let _ = (name, consent);
}

fn main() {
    // "Mutate before asking" does not compile: a model-filled `confirm: true` is not consent.
    let confirm = true;
    drop_table("users", confirm);
}
