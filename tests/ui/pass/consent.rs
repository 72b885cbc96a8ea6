use mcp_elicit::Elicit;

/// May we share your email with the organizer?
#[derive(Elicit)]
struct Share {
    #[elicit(consent)]
    share_email: bool,
    #[elicit(consent, default = false)]
    newsletter: bool,
}

fn main() {
    let _ = Share::form_request();
}
