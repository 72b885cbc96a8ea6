use mcp_elicit::Elicit;

#[derive(Elicit)]
enum Permission {
    Read,
    Write,
    #[elicit(dangerous)]
    Admin,
}

/// Which permissions should the token grant?
#[derive(Elicit)]
struct Grant {
    #[elicit(default = [Permission::Read, Permission::Admin])]
    permissions: Vec<Permission>,
}

fn main() {}
