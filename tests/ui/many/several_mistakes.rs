use mcp_elicit::Elicit;

#[derive(Elicit)]
enum Env {
    Staging,
    #[elicit(dangerous)]
    Production,
}

// No message and no doc comment; then one mistake per field. Every one is reported.
#[derive(Elicit)]
struct Everything {
    password: String,
    tags: Vec<String>,
    #[elicit(format = "phone")]
    email: String,
    #[elicit(minimum = 10, maximum = 1)]
    replicas: u8,
    #[elicit(titel = "Env")]
    env: Env,
    #[elicit(consent, default = true)]
    agree: bool,
    #[elicit(rename = "email")]
    contact: String,
}

fn main() {
    // The stub impl beside the errors: no "`Everything` is not an elicitation form" here.
    let _ = Everything::form_request();
}
