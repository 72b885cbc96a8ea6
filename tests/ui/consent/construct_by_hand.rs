use mcp_elicit::{Consent, Elicit};

/// Drop a table permanently. This cannot be undone.
#[derive(Elicit)]
#[elicit(consent)]
struct DropTable {
    /// Type the table's name to confirm.
    table: String,
}

fn main() {
    // Forging consent by hand: the fields are private and there is no constructor.
    let _forged = Consent {
        terms: DropTable { table: "users".into() },
        message: String::new(),
    };
}
