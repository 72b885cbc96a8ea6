use mcp_elicit::Elicit;

/// Who should we notify?
#[derive(Elicit)]
struct Notify {
    #[elicit(format = "email", default = "oncall")]
    notify: String,
}

fn main() {}
