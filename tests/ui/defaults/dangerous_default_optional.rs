use mcp_elicit::Elicit;

#[derive(Elicit)]
enum Cleanup {
    Keep,
    #[elicit(dangerous)]
    DeleteAll,
}

/// What should happen to the old files?
#[derive(Elicit)]
struct Migrate {
    #[elicit(default = Cleanup::DeleteAll)]
    cleanup: Option<Cleanup>,
}

fn main() {}
