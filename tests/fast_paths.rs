//! The two fast paths behave exactly like the ordinary ones they shortcut:
//! - a derived form's params, copied from the text written on first use, are the bytes the
//!   serializer writes;
//! - a reply read straight from its text is the outcome (or error) of reading it as a `Value`.

use elicit::{Choice, Elicit, Elicitation, EnumOption, ReplyError, Revision};

/// Sign up for the beta: we need a way to reach you and what you want to try.
#[derive(Elicit, Debug, PartialEq)]
struct Signup {
    /// Where we send the invitation.
    #[elicit(title = "Email", format = "email", min_length = 6, max_length = 254)]
    email: String,
    #[elicit(title = "Full \"name\"", min_length = 2, max_length = 64)]
    name: String,
    #[elicit(minimum = 18, maximum = 130)]
    age: u8,
    #[elicit(minimum = 0, maximum = 100000)]
    budget: Option<f64>,
    newsletter: bool,
    #[elicit(default = Plan::Free)]
    plan: Plan,
    #[elicit(min_items = 1, max_items = 3)]
    topics: Vec<Topic>,
    #[elicit(format = "uri")]
    website: Option<String>,
}

#[derive(Elicit, Debug, Clone, Copy, PartialEq)]
#[elicit(rename_all = "lowercase")]
enum Plan {
    #[elicit(title = "Free")]
    Free,
    #[elicit(title = "Pro")]
    Pro,
}

#[derive(Elicit, Debug, Clone, Copy, PartialEq)]
#[elicit(rename_all = "lowercase")]
enum Topic {
    Rust,
    Mcp,
}

/// Pick the account to bill.
#[derive(Elicit, Debug, PartialEq)]
struct Billing {
    account: Choice,
}

fn ordinary<T>(request: &elicit::FormRequest<T>) -> Result<String, String> {
    let revisioned = request
        .for_revision(Revision::LATEST)
        .map_err(|e| e.to_string())?;
    serde_json::to_string(&revisioned).map_err(|e| e.to_string())
}

#[test]
fn cached_params_are_the_bytes_the_serializer_writes() {
    for _ in 0..2 {
        let fast = serde_json::to_string(&Signup::form_request()).unwrap();
        assert_eq!(Ok(fast.clone()), ordinary(&Signup::form_request()));
        let mut buf = b"prefix ".to_vec();
        serde_json::to_writer(&mut buf, &Signup::form_request()).unwrap();
        assert_eq!(buf, [b"prefix ".as_slice(), fast.as_bytes()].concat());
        // Pretty text and `Value` take the ordinary path.
        let pretty = serde_json::to_string_pretty(&Signup::form_request()).unwrap();
        assert!(pretty.contains("\n  \"requestedSchema\": {\n"));
        assert_eq!(
            serde_json::to_value(Signup::form_request()).unwrap(),
            serde_json::from_str::<serde_json::Value>(&fast).unwrap()
        );
    }
}

#[test]
fn a_changed_message_or_options_is_written_anew() {
    let changed = Signup::form_request()
        .with_message("Sign up again.")
        .unwrap();
    let text = serde_json::to_string(&changed).unwrap();
    assert!(text.contains(r#""message":"Sign up again.""#));
    assert_eq!(Ok(text), ordinary(&changed));

    // Without its options the form cannot be written: the same error every time.
    let missing = serde_json::to_string(&Billing::form_request()).unwrap_err();
    let again = serde_json::to_string(&Billing::form_request()).unwrap_err();
    assert_eq!(missing.to_string(), again.to_string());
    let supplied = Billing::form_request()
        .with_options("account", [EnumOption::titled("a1", "Work")])
        .unwrap();
    let text = serde_json::to_string(&supplied).unwrap();
    assert!(text.contains(r#""oneOf":[{"const":"a1","title":"Work"}]"#));
    assert_eq!(Ok(text), ordinary(&supplied));
}

const REPLIES: &[&str] = &[
    r#"{"action":"accept","content":{"email":"ada@example.com","name":"Ada","age":36,"budget":2500.5,"newsletter":true,"plan":"pro","topics":["rust","mcp"],"website":"https://example.com/ada"}}"#,
    r#"{"content":{"email":"ada@example.com","name":"Ada","age":36.0,"topics":["rust"]},"action":"accept","extra":[1,{"x":null}]}"#,
    r#"{"action":"accept","content":{"email":"nope","name":"A","age":12,"plan":"gold","topics":[],"website":"not a uri"}}"#,
    r#"{"action":"accept","content":{"email":"ada@example.com","name":"Ada","age":300,"topics":["rust","rust"]}}"#,
    r#"{"action":"accept","content":{"email":"ada@example.com","name":"Ada","age":36,"budget":1e300,"topics":["rust"]}}"#,
    r#"{"action":"accept","content":{"email":"ada@example.com","email":null,"name":"Ada","age":36,"topics":["mcp"],"website":null,"budget":null}}"#,
    r#"{"action":"accept","content":{"em\u0061il":"ada@example.com","name":"Ada","age":36,"topics":["mcp"],"newsletter":null}}"#,
    r#"{"action":"accept","content":{"email":5,"name":["x"],"age":"36","newsletter":"yes","plan":1,"topics":"rust","budget":"x"}}"#,
    r#"{"action":"accept","content":null}"#,
    r#"{"action":"accept"}"#,
    r#"{"action":"accept","content":[1,2]}"#,
    r#"{"action":"accept","content":"x"}"#,
    r#"{"action":"decline","content":[1,2]}"#,
    r#"{"action":"cancel"}"#,
    r#"{"action":"accept","action":"cancel"}"#,
    r#"{"action":null}"#,
    r#"{"action":"ACCEPT"}"#,
    r#"{"action":1}"#,
    r#"{}"#,
    r#"[]"#,
    r#"[{"action":"accept"}]"#,
    r#""accept""#,
    r#"null"#,
    r#"42"#,
    r#"{"action":"decline","x":1e400}"#,
    r#"{"action":"decline"} x"#,
    r#"{"action":"decline","#,
    r#"{"action":"accept","content":{"email":"\ud800"}}"#,
    r#"{"action":"accept","content":{"email":"a
b"}}"#,
    "",
    "  \n ",
];

fn through_value(text: &str) -> Result<Elicitation<Signup>, ReplyError> {
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(value) => Signup::from_reply(&value),
        Err(e) => Err(ReplyError::Malformed(elicit::MalformedReply::NotJson {
            line: e.line(),
            column: e.column(),
        })),
    }
}

#[test]
fn a_reply_read_from_text_is_the_reply_read_as_a_value() {
    let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
    let deep_content = format!(
        r#"{{"action":"accept","content":{{"email":{}1{}}}}}"#,
        "[".repeat(200),
        "]".repeat(200)
    );
    for text in REPLIES
        .iter()
        .copied()
        .chain([deep.as_str(), deep_content.as_str()])
    {
        assert_eq!(Signup::from_reply_str(text), through_value(text), "{text}");
        let request = Signup::form_request();
        assert_eq!(request.parse_reply_str(text), through_value(text), "{text}");
    }
}
