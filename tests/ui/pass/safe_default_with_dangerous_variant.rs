use mcp_elicit::Elicit;

#[derive(Elicit, PartialEq, Eq, PartialOrd, Ord)]
#[elicit(rename_all = "lowercase")]
enum Env {
    Staging,
    #[elicit(dangerous)]
    Production,
}

#[derive(Elicit)]
enum Permission {
    Read,
    Write,
    #[elicit(dangerous)]
    Admin,
}

/// Where should `billing-api` deploy, and with which rights?
#[derive(Elicit)]
struct Deploy {
    #[elicit(default = Env::Staging)]
    env: Env,
    #[elicit(default = "staging")]
    mirror: Env,
    #[elicit(default = [Permission::Read, Permission::Write], min_items = 1, max_items = 3)]
    permissions: Vec<Permission>,
    #[elicit(default = ["staging"])]
    targets: std::collections::BTreeSet<Env>,
}

fn main() {
    let _ = Deploy::form_request();
}
