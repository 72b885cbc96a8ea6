//! Field names that denote credentials. The spec: servers MUST NOT ask for passwords, API keys,
//! access tokens or payment credentials in form mode; such values go through URL mode.

/// Why `name` (the property name after renaming) looks like a credential, if it does.
///
/// The name is split into lowercase words at separators and case changes (`apiKey`, `API_KEY`,
/// `api-key` all give `api key`), so that a word like `spinner` is not mistaken for `pin`.
pub fn credential_kind(name: &str) -> Option<&'static str> {
    let words = words(name);
    let has = |w: &str| words.iter().any(|x| x == w);
    let pair = |a: &str, b: &str| words.windows(2).any(|p| p[0] == a && p[1] == b);
    let joined: String = words.concat();
    let single: &[(&str, &'static str)] = &[
        ("password", "a password"),
        ("passwd", "a password"),
        ("pwd", "a password"),
        ("passphrase", "a passphrase"),
        ("passcode", "a passcode"),
        ("secret", "a secret"),
        ("token", "a token"),
        ("apikey", "an API key"),
        ("privatekey", "a private key"),
        ("cvv", "a card security code"),
        ("cvc", "a card security code"),
        ("cvv2", "a card security code"),
        ("iban", "a bank account number (IBAN)"),
        ("ssn", "a social security number"),
        ("pin", "a PIN"),
        ("otp", "a one-time password"),
        ("totp", "a one-time password"),
        ("mfa", "a one-time password"),
        ("credential", "a credential"),
        ("credentials", "a credential"),
    ];
    for (word, kind) in single {
        if has(word) {
            return Some(kind);
        }
    }
    let pairs: &[(&str, &str, &'static str)] = &[
        ("api", "key", "an API key"),
        ("private", "key", "a private key"),
        ("secret", "key", "a secret key"),
        ("access", "key", "an access key"),
        ("card", "number", "a payment card number"),
        ("credit", "card", "a payment card number"),
        ("debit", "card", "a payment card number"),
        ("security", "code", "a card security code"),
        ("one", "time", "a one-time password"),
    ];
    for (a, b, kind) in pairs {
        if pair(a, b) {
            return Some(kind);
        }
    }
    // Run-together spellings: `apikey`, `accesstoken`, `cardnumber`, `clientsecret`.
    let glued: &[(&str, &'static str)] = &[
        ("password", "a password"),
        ("apikey", "an API key"),
        ("accesstoken", "a token"),
        ("refreshtoken", "a token"),
        ("bearertoken", "a token"),
        ("authtoken", "a token"),
        ("privatekey", "a private key"),
        ("clientsecret", "a secret"),
        ("cardnumber", "a payment card number"),
        ("creditcard", "a payment card number"),
        ("debitcard", "a payment card number"),
    ];
    glued
        .iter()
        .find(|(g, _)| joined.contains(g))
        .map(|(_, kind)| *kind)
}

fn words(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut prev: Option<char> = None;
    for c in name.chars() {
        if !c.is_alphanumeric() {
            if !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
            prev = None;
            continue;
        }
        let boundary = match prev {
            Some(p) => (p.is_lowercase() || p.is_ascii_digit()) && c.is_uppercase(),
            None => false,
        };
        if boundary && !current.is_empty() {
            words.push(std::mem::take(&mut current));
        }
        current.extend(c.to_lowercase());
        prev = Some(c);
    }
    if !current.is_empty() {
        words.push(current);
    }
    words
}

#[cfg(test)]
mod tests {
    use super::credential_kind;

    #[test]
    fn credentials_in_any_casing_or_separator_are_caught() {
        for name in [
            "password",
            "Password",
            "user_password",
            "passwd",
            "passphrase",
            "secret",
            "client_secret",
            "clientSecret",
            "access_token",
            "refreshToken",
            "bearer-token",
            "authToken",
            "token",
            "api_key",
            "apiKey",
            "API_KEY",
            "api-key",
            "apikey",
            "ApiKey",
            "private_key",
            "privateKey",
            "card_number",
            "creditCardNumber",
            "debit_card",
            "cvv",
            "CVC",
            "iban",
            "ssn",
            "pin",
            "pin_code",
            "otp",
            "otp_code",
            "one_time_code",
        ] {
            assert!(
                credential_kind(name).is_some(),
                "{name} should be a credential"
            );
        }
    }

    #[test]
    fn ordinary_names_are_not_credentials() {
        for name in [
            "name",
            "email",
            "username",
            "spinner",
            "pinned",
            "shipping",
            "environment",
            "account",
            "tokenizer_mode",
            "keyboard_layout",
            "card_title",
            "opinion",
        ] {
            assert_eq!(credential_kind(name), None, "{name} should pass");
        }
    }
}
