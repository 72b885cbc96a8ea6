use mcp_elicit::Elicit;

/// Choose how others see you.
#[derive(Elicit)]
struct Profile {
    #[elicit(not_secret = "the public label of a token, not the token")]
    token_label: String,
    #[elicit(not_secret = "a PIN code of a parcel locker shown on the public tracking page")]
    pin: Option<String>,
    username: String,
    spinner_style: String,
    keyboard_layout: String,
}

fn main() {
    let _ = Profile::form_request();
}
