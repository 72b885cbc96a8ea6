use mcp_elicit::Elicit;

/// Every field below names a credential, in one casing or another.
#[derive(Elicit)]
#[allow(non_snake_case)]
struct Credentials {
    passphrase: String,
    access_token: String,
    refreshToken: String,
    API_KEY: String,
    private_key: String,
    client_secret: String,
    credit_card_number: String,
    cvv: String,
    iban: String,
    ssn: String,
    pin: String,
    otp: String,
}

fn main() {}
