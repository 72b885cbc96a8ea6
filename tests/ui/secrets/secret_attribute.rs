use mcp_elicit::Elicit;

/// Connect the database.
#[derive(Elicit)]
struct Database {
    host: String,
    #[elicit(secret)]
    recovery_blob: String,
}

fn main() {}
