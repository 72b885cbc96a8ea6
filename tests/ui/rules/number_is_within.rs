use mcp_elicit::Elicit;

/// Configure the deploy.
#[derive(Elicit)]
struct Deploy {
    #[elicit(minimum = 0.5, maximum = 4, default = 4.25)]
    cpus: f64,
}

fn main() {}
