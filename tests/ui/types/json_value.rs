use mcp_elicit::Elicit;

/// Configure the job.
#[derive(Elicit)]
struct Job {
    config: serde_json::Value,
}

fn main() {}
