use mcp_elicit::Elicit;

mod secrecy {
    pub struct SecretString;
}

/// Unlock the vault.
#[derive(Elicit)]
struct Vault {
    unlock: secrecy::SecretString,
}

fn main() {}
