//! Field names that denote credentials. The spec: servers MUST NOT ask for passwords, API keys,
//! access tokens or payment credentials in form mode; such values go through URL mode.
//!
//! One lexicon, read by both sides: `#[derive(Elicit)]` refuses such a field at compile time
//! (a `const _` that calls [`credential_kind`]), and a client can flag one in a form it receives
//! at run time. So it is a `const fn`, reading the name's bytes without allocating.
//!
//! How a name is read: it is split into words at every character that is not alphanumeric and
//! where a lowercase letter or an ASCII digit is followed by an uppercase letter (`apiKey`,
//! `API_KEY`, `api-key` all give `api key`; `APIKey` gives `apikey`, `cvv2` stays one word), and
//! the words are compared in lowercase. A word is then looked up alone (`pin`, but not the `pin`
//! in `spinner`), two neighbours together (`api key`), and every word run together
//! (`clientsecret`, `accesstoken`).
//!
//! The `const fn` reads a text once per entry. At run time a client reads long texts with it
//! (every title and description of a form), so it reads them with `one_pass` instead: the same
//! tables and the same word splitting and folding, arranged on first use to read a text once.

mod alphanumeric;
mod one_pass;

/// Why a field of this name (the property name, after renaming) looks like a credential, if it
/// does: what it would hold, with its article (`"an API key"`).
///
/// ```
/// # extern crate elicit_core as mcp_elicit;
/// use mcp_elicit::schema::credential_kind;
///
/// assert_eq!(credential_kind("apiKey"), Some("an API key"));
/// assert_eq!(credential_kind("API_KEY"), Some("an API key"));
/// assert_eq!(credential_kind("refresh-token"), Some("a token"));
/// assert_eq!(credential_kind("clientsecret"), Some("a secret"));
/// assert_eq!(credential_kind("card_number"), Some("a payment card number"));
/// // Whole words only: a `pin` inside `spinner` is not a PIN.
/// assert_eq!(credential_kind("spinner"), None);
/// assert_eq!(credential_kind("tokenizer_mode"), None);
///
/// // A `const fn`: a compile-time check can call it.
/// const KIND: Option<&str> = credential_kind("user_password");
/// assert_eq!(KIND, Some("a password"));
/// ```
pub const fn credential_kind(name: &str) -> Option<&'static str> {
    let name = name.as_bytes();
    let mut single = SINGLE;
    while let [(word, kind), rest @ ..] = single {
        if has_word(name, word) {
            return Some(kind);
        }
        single = rest;
    }
    let mut pairs = PAIRS;
    while let [(first, second, kind), rest @ ..] = pairs {
        if has_pair(name, first, second) {
            return Some(kind);
        }
        pairs = rest;
    }
    let mut glued = GLUED;
    while let [(word, kind), rest @ ..] = glued {
        if has_glued(name, word) {
            return Some(kind);
        }
        glued = rest;
    }
    None
}

/// Why a form field looks like a credential, if it does: its name, else its title, else its
/// description, each read as [`credential_kind`] reads it (in one pass: a title and a description
/// are long). A name is not the only disguise: a field named `p` and titled "GitHub password", or
/// named `pw` and described as "the PIN of your card", asks for the same thing as one named
/// `password`. Read with one lexicon, a title or a description that only mentions a credential
/// ("not your password") is taken for one: the cost is a warning and a value not echoed, where the
/// other mistake costs a secret.
pub(crate) fn field_credential_kind(
    name: &str,
    title: Option<&str>,
    description: Option<&str>,
) -> Option<&'static str> {
    [Some(name), title, description]
        .into_iter()
        .flatten()
        .find_map(one_pass::credential_kind_in_one_pass)
}

/// The length of the longest kind [`credential_kind`] gives, for a buffer that holds a message
/// with any of them.
pub const LONGEST_KIND: usize = longest_kind();

/// Words that are a credential alone, in the order they are looked up.
const SINGLE: &[(&str, &str)] = &[
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

/// Two neighbouring words that are a credential together.
const PAIRS: &[(&str, &str, &str)] = &[
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

/// Run-together spellings, found anywhere in the words run together: `apikey`, `accesstoken`,
/// `cardnumber`, `clientsecret`.
const GLUED: &[(&str, &str)] = &[
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

const fn longest_kind() -> usize {
    let mut longest = 0;
    let mut single = SINGLE;
    while let [(_, kind), rest @ ..] = single {
        if kind.len() > longest {
            longest = kind.len();
        }
        single = rest;
    }
    let mut pairs = PAIRS;
    while let [(_, _, kind), rest @ ..] = pairs {
        if kind.len() > longest {
            longest = kind.len();
        }
        pairs = rest;
    }
    let mut glued = GLUED;
    while let [(_, kind), rest @ ..] = glued {
        if kind.len() > longest {
            longest = kind.len();
        }
        glued = rest;
    }
    longest
}

// ---------------------------------------------------------------------------------------------
// Looking words up

/// Whether one of the name's words is `word`.
const fn has_word(name: &[u8], word: &str) -> bool {
    let mut rest = name;
    while let Some((current, after)) = next_word(rest) {
        if folds_to(current, word.as_bytes(), true) {
            return true;
        }
        rest = after;
    }
    false
}

/// Whether two neighbouring words of the name are `first`, then `second`.
const fn has_pair(name: &[u8], first: &str, second: &str) -> bool {
    let Some((mut previous, mut rest)) = next_word(name) else {
        return false;
    };
    while let Some((current, after)) = next_word(rest) {
        if folds_to(previous, first.as_bytes(), true) && folds_to(current, second.as_bytes(), true)
        {
            return true;
        }
        previous = current;
        rest = after;
    }
    false
}

/// Whether the name's words, run together, contain `word`: it begins at some character of the
/// name, and separators within it are dropped.
///
/// A match is tried only where an alphanumeric character begins (from anywhere else
/// `folds_to` would skip to the same place), so a run of separators is crossed by at most
/// `word.len()` tries: linear in the text for each word, however a hostile title or description
/// is padded.
const fn has_glued(name: &[u8], word: &str) -> bool {
    let mut rest = name;
    while let Some((c, after)) = next_char(rest) {
        if is_alphanumeric(c) && folds_to(rest, word.as_bytes(), false) {
            return true;
        }
        rest = after;
    }
    false
}

/// The first word of `text` and what follows it, if it has one: skip what is not alphanumeric,
/// then take characters up to the next one that is not, or up to an uppercase letter after a
/// lowercase letter or an ASCII digit.
const fn next_word(text: &[u8]) -> Option<(&[u8], &[u8])> {
    let mut start = text;
    let (mut previous, mut rest) = loop {
        match next_char(start) {
            None => return None,
            Some((c, after)) if is_alphanumeric(c) => break (c, after),
            Some((_, after)) => start = after,
        }
    };
    while let Some((c, after)) = next_char(rest) {
        let case_change =
            (previous.is_lowercase() || previous.is_ascii_digit()) && c.is_uppercase();
        if !is_alphanumeric(c) || case_change {
            break;
        }
        previous = c;
        rest = after;
    }
    match start.split_at_checked(start.len() - rest.len()) {
        Some((word, _)) => Some((word, rest)),
        None => None,
    }
}

/// Whether the alphanumeric characters of `text` (others are skipped), in lowercase, begin with
/// `pattern` (ASCII lowercase); with `whole`, whether they are exactly `pattern`.
const fn folds_to(text: &[u8], pattern: &[u8], whole: bool) -> bool {
    let mut text = text;
    let mut pattern = pattern;
    // The second unit of a character whose lowercase is two characters.
    let mut pending = None;
    loop {
        let unit = match pending.take() {
            Some(unit) => Some(unit),
            None => loop {
                match next_char(text) {
                    None => break None,
                    Some((c, after)) => {
                        text = after;
                        if is_alphanumeric(c) {
                            let (first, second) = lowercase(c);
                            pending = second;
                            break Some(first);
                        }
                    }
                }
            },
        };
        match (unit, pattern) {
            (unit, []) => return !whole || unit.is_none(),
            (None, _) => return false,
            (Some(unit), [expected, rest @ ..]) => {
                if unit != *expected {
                    return false;
                }
                pattern = rest;
            }
        }
    }
}

/// A unit of a lowercase character beyond ASCII: it matches no byte of the lexicon.
const BEYOND_ASCII: u8 = 0xFF;

/// `c` in lowercase, as [`char::to_lowercase`] gives it, as far as the lexicon can tell: ASCII
/// letters and digits as themselves, and every other character as [`BEYOND_ASCII`], but for the
/// only two whose lowercase holds ASCII: the Kelvin sign (`k`) and `İ` (`i` and a combining dot).
const fn lowercase(c: char) -> (u8, Option<u8>) {
    match c {
        c if c.is_ascii() => (c.to_ascii_lowercase() as u8, None),
        '\u{212A}' => (b'k', None),
        '\u{130}' => (b'i', Some(BEYOND_ASCII)),
        _ => (BEYOND_ASCII, None),
    }
}

/// As [`char::is_alphanumeric`], which is not a `const fn`.
const fn is_alphanumeric(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphanumeric();
    }
    // Every cased letter is alphanumeric, whatever the table's Unicode version.
    if c.is_lowercase() || c.is_uppercase() {
        return true;
    }
    let code = c as u32;
    let mut ranges = alphanumeric::RANGES;
    // Binary search of the inclusive ranges.
    while let Some((lower, upper)) = ranges.split_at_checked(ranges.len() / 2) {
        match upper {
            [] => return false,
            [(first, last), higher @ ..] => {
                if code < *first {
                    ranges = lower;
                } else if code > *last {
                    ranges = higher;
                } else {
                    return true;
                }
            }
        }
    }
    false
}

/// The first character of UTF-8 `bytes` (from a `str`) and the bytes after it.
const fn next_char(bytes: &[u8]) -> Option<(char, &[u8])> {
    let (code, rest) = match bytes {
        [b0 @ 0x00..=0x7F, rest @ ..] => (*b0 as u32, rest),
        [b0 @ 0xC0..=0xDF, b1, rest @ ..] => ((*b0 as u32 & 0x1F) << 6 | (*b1 as u32 & 0x3F), rest),
        [b0 @ 0xE0..=0xEF, b1, b2, rest @ ..] => (
            (*b0 as u32 & 0x0F) << 12 | (*b1 as u32 & 0x3F) << 6 | (*b2 as u32 & 0x3F),
            rest,
        ),
        [b0, b1, b2, b3, rest @ ..] => (
            (*b0 as u32 & 0x07) << 18
                | (*b1 as u32 & 0x3F) << 12
                | (*b2 as u32 & 0x3F) << 6
                | (*b3 as u32 & 0x3F),
            rest,
        ),
        // The end, or not UTF-8, which a `str` cannot be.
        _ => return None,
    };
    match char::from_u32(code) {
        Some(c) => Some((c, rest)),
        None => None,
    }
}

#[cfg(test)]
mod tests {
    use super::{alphanumeric, is_alphanumeric};

    /// The table, as the standard library of the toolchain that runs the tests has it.
    fn table() -> String {
        let mut ranges: Vec<(u32, u32)> = Vec::new();
        for c in (0x80..=0x10FFFF).filter_map(char::from_u32) {
            let code = c as u32;
            if c.is_alphanumeric() {
                match ranges.last_mut() {
                    Some(last) if last.1 + 1 == code => last.1 = code,
                    _ => ranges.push((code, code)),
                }
            }
        }
        let (a, b, c) = char::UNICODE_VERSION;
        let mut text = format!(
            "//! Which characters beyond ASCII are alphanumeric, as [`char::is_alphanumeric`] says (Unicode\n\
             //! `Alphabetic` or `Numeric`), for the `const fn`s of the credential lexicon: the standard\n\
             //! library's own test is not a `const fn`.\n\
             //!\n\
             //! Generated from the standard library of Unicode {a}.{b}.{c}; `credential`'s tests check it\n\
             //! against the standard library's, and one of them writes it anew.\n\
             \n\
             /// The Unicode version of [`RANGES`].\n\
             #[cfg(test)]\n\
             pub const UNICODE_VERSION: (u8, u8, u8) = ({a}, {b}, {c});\n\
             \n\
             /// Every alphanumeric character from U+0080 up, as inclusive ranges, in order.\n\
             #[rustfmt::skip]\n\
             pub const RANGES: &[(u32, u32)] = &[\n"
        );
        for chunk in ranges.chunks(5) {
            let line: Vec<String> = chunk
                .iter()
                .map(|(a, b)| format!("(0x{a:X}, 0x{b:X})"))
                .collect();
            text.push_str(&format!("    {},\n", line.join(", ")));
        }
        text.push_str("];\n");
        text
    }

    /// Exactly the standard library's on the table's own Unicode version. On another (a newer
    /// toolchain), what the table calls alphanumeric still must be: a character does not stop
    /// being a letter; newly assigned letters the table does not know are read as separators
    /// until it is regenerated.
    #[test]
    fn alphanumeric_is_the_standard_library_s() {
        let same_version = alphanumeric::UNICODE_VERSION == char::UNICODE_VERSION;
        let differ: Vec<String> = (0..=0x10FFFF)
            .filter_map(char::from_u32)
            .filter(|c| {
                let ours = is_alphanumeric(*c);
                if same_version {
                    ours != c.is_alphanumeric()
                } else {
                    ours && !c.is_alphanumeric()
                }
            })
            .map(|c| format!("U+{:04X}", c as u32))
            .take(20)
            .collect();
        assert!(
            differ.is_empty(),
            "the table (Unicode {:?}) and this toolchain's standard library (Unicode {:?}) disagree on {differ:?}; \
             regenerate it: ELICIT_WRITE_ALPHANUMERIC=1 cargo test -p elicit-core --lib the_alphanumeric_table_is_as_generated",
            alphanumeric::UNICODE_VERSION,
            char::UNICODE_VERSION,
        );
    }

    /// The file is what `table()` writes for its Unicode version. With
    /// `ELICIT_WRITE_ALPHANUMERIC=1` it writes it instead, from this toolchain's standard library.
    #[test]
    fn the_alphanumeric_table_is_as_generated() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/src/credential/alphanumeric.rs"
        );
        if std::env::var_os("ELICIT_WRITE_ALPHANUMERIC").is_some() {
            std::fs::write(path, table()).expect("write the table");
        }
        if alphanumeric::UNICODE_VERSION == char::UNICODE_VERSION {
            let file = std::fs::read_to_string(path).expect("read the table");
            assert!(file == table(), "regenerate the table (see above)");
        }
    }
}
