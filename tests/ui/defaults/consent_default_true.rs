use mcp_elicit::Elicit;

/// May we share your email with the organizer?
#[derive(Elicit)]
struct Share {
    #[elicit(consent, default = true)]
    share_email: bool,
}

fn main() {}
