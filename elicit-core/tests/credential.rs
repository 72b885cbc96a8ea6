//! The lexicon of credential names (`credential_kind`): what it catches, what it lets pass, and
//! that the `const fn` reads every name as the plain version it replaced (kept here as the
//! oracle) did, so the two cannot drift.

use elicit_core::schema::credential_kind;

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

#[test]
fn the_kind_says_what_the_field_would_hold() {
    assert_eq!(credential_kind("apiKey"), Some("an API key"));
    assert_eq!(credential_kind("refresh_token"), Some("a token"));
    assert_eq!(
        credential_kind("creditCardNumber"),
        Some("a payment card number")
    );
    assert_eq!(
        credential_kind("iban"),
        Some("a bank account number (IBAN)")
    );
    // Words alone come first, then neighbours, then run-together spellings.
    assert_eq!(credential_kind("secret_key"), Some("a secret"));
    assert_eq!(credential_kind("access_key"), Some("an access key"));
    assert_eq!(credential_kind("myaccesstoken"), Some("a token"));
}

#[test]
fn the_kind_is_known_at_compile_time() {
    const KIND: Option<&str> = credential_kind("API_KEY");
    assert_eq!(KIND, Some("an API key"));
}

// ---------------------------------------------------------------------------------------------
// The oracle: the derive's lexicon as it was, allocating and plain.

mod oracle {
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
}

/// Every word the lexicon knows, its parts, and near misses that hold one.
const WORDS: &[&str] = &[
    "password",
    "passwd",
    "pwd",
    "passphrase",
    "passcode",
    "secret",
    "token",
    "apikey",
    "privatekey",
    "cvv",
    "cvc",
    "cvv2",
    "iban",
    "ssn",
    "pin",
    "otp",
    "totp",
    "mfa",
    "credential",
    "credentials",
    "api",
    "key",
    "private",
    "access",
    "card",
    "number",
    "credit",
    "debit",
    "security",
    "code",
    "one",
    "time",
    "accesstoken",
    "refreshtoken",
    "bearertoken",
    "authtoken",
    "clientsecret",
    "cardnumber",
    "creditcard",
    "debitcard",
    "refresh",
    "bearer",
    "auth",
    "client",
    "pass",
    "word",
    "spinner",
    "tokenizer",
    "pinned",
    "opinion",
    "shipping",
    "keyboard",
    "secretary",
    "passport",
    "cvv3",
    "2fa",
    "x",
    "1",
    "",
    "name",
    "user",
    "my",
];

/// `word` in several casings.
fn casings(word: &str) -> Vec<String> {
    let mut out = vec![word.to_owned(), word.to_uppercase()];
    let mut chars = word.chars();
    if let Some(first) = chars.next() {
        out.push(first.to_uppercase().chain(chars).collect());
    }
    // Every other letter uppercase, and the last one.
    out.push(
        word.chars()
            .enumerate()
            .map(|(i, c)| {
                if i % 2 == 1 {
                    c.to_ascii_uppercase()
                } else {
                    c
                }
            })
            .collect(),
    );
    if let Some(last) = word.chars().last() {
        let head: String = word.chars().take(word.chars().count() - 1).collect();
        out.push(format!("{head}{}", last.to_ascii_uppercase()));
    }
    out
}

#[test]
fn the_const_fn_reads_every_generated_name_as_the_oracle_does() {
    // Nothing, separators (ASCII and not), a digit and a letter beyond ASCII.
    let separators = ["", "_", "-", "\u{a0}", "2", "é"];
    let mut checked = 0usize;
    let mut flagged = 0usize;
    let mut check = |name: &str| {
        let expected = oracle::credential_kind(name);
        assert_eq!(credential_kind(name), expected, "{name:?}");
        checked += 1;
        flagged += usize::from(expected.is_some());
    };
    for a in WORDS {
        for a in casings(a) {
            check(&a);
            for b in WORDS {
                // Lowercase, capitalised, uppercase.
                for b in casings(b).into_iter().take(3) {
                    for sep in separators {
                        check(&format!("{a}{sep}{b}"));
                    }
                }
            }
        }
    }
    // Three words, in snake and camel case.
    for a in WORDS {
        for b in WORDS {
            for c in ["key", "Key", "token", "card", "Number", "code", "x"] {
                check(&format!("{a}_{b}_{c}"));
                check(&format!("{a}{}{c}", b.to_uppercase()));
            }
        }
    }
    // The test must see both outcomes plenty.
    assert!(checked > 100_000 && flagged > 10_000 && checked - flagged > 10_000);
}

/// Characters beyond ASCII, where they can change the reading: as a separator or part of a
/// word (`pass?word`), as a case change (`token?`, `?Token`), and in lowercase (`api?ey`, for
/// the Kelvin sign). Every character up to U+2FFF (the scripts with case, the Kelvin sign, the
/// spaces and punctuation), and a sample of the rest; that every character is alphanumeric just
/// as the standard library says is the table's own test, over all of them.
#[test]
fn the_const_fn_reads_characters_beyond_ascii_as_the_oracle_does() {
    let mut differ = Vec::new();
    let sample = (0..0x3000).chain((0x3000..=0x10FFFF).step_by(61));
    for c in sample.filter_map(char::from_u32) {
        for name in [
            format!("pass{c}word"),
            format!("token{c}"),
            format!("{c}Token"),
            format!("api{c}ey"),
            format!("{c}{c}pin{c}"),
        ] {
            if credential_kind(&name) != oracle::credential_kind(&name) {
                differ.push(name);
            }
        }
    }
    assert!(
        differ.is_empty(),
        "{} differ, among them {:?}",
        differ.len(),
        &differ[..differ.len().min(20)]
    );
}
