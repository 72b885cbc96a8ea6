use mcp_elicit::Elicit;

#[derive(Elicit)]
enum Env {
    Staging,
    Production,
}

/// Where should the preview deploy? Leave empty for none.
#[derive(Elicit)]
struct Preview {
    env: Option<Env>,
    #[elicit(default = Env::Staging)]
    fallback: Option<Env>,
}

fn main() {
    let _ = Preview::form_request();
}
