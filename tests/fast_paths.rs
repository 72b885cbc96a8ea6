//! The two fast paths behave exactly like the ordinary ones they shortcut:
//! - a derived form's params, copied from the text written on first use, are the bytes the
//!   serializer writes;
//! - a reply read straight from its text is the outcome (or error) of reading it as a `Value`.

use elicit::{Choice, Choices, Elicit, Elicitation, EnumOption, ReplyError, Revision};

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

#[derive(Elicit, Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
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
    // Strings with escapes (not borrowed from the text), in every kind of field.
    r#"{"action":"acc\u0065pt","content":{"email":"ad\u0061@example.com","name":"A\"da","age":36,"plan":"t\u0065am","topics":["r\u0075st","mcp"],"website":"https:\/\/example.com"}}"#,
    r#"{"action":"accept","content":{"email":"ada@example.com","name":"Ada","age":36,"plan":"gold\n","topics":["mcp","m\u0063p"]}}"#,
    // The action in other shapes.
    r#"{"action":["accept"]}"#,
    r#"{"action":[]}"#,
    r#"{"action":{"accept":true}}"#,
    r#"{"action":true}"#,
    r#"{"action":"decl\u0069ne"}"#,
    r#"{"action":"accept ","content":{}}"#,
    // Multi-select arrays of every shape: non-strings first, in the middle, nested, empty,
    // not an option, a duplicate, too many.
    r#"{"action":"accept","content":{"email":"ada@example.com","name":"Ada","age":36,"topics":[1,"rust"]}}"#,
    r#"{"action":"accept","content":{"email":"ada@example.com","name":"Ada","age":36,"topics":["rust",null,"mcp"]}}"#,
    r#"{"action":"accept","content":{"email":"ada@example.com","name":"Ada","age":36,"topics":["rust",["mcp"]]}}"#,
    r#"{"action":"accept","content":{"email":"ada@example.com","name":"Ada","age":36,"topics":[["rust"]]}}"#,
    r#"{"action":"accept","content":{"email":"ada@example.com","name":"Ada","age":36,"topics":["mcp",{"a":[1,"x"]},2.5,true]}}"#,
    r#"{"action":"accept","content":{"email":"ada@example.com","name":"Ada","age":36,"topics":["rust","wasm"]}}"#,
    r#"{"action":"accept","content":{"email":"ada@example.com","name":"Ada","age":36,"topics":["mcp","rust","mcp"]}}"#,
    r#"{"action":"accept","content":{"email":"ada@example.com","name":"Ada","age":36,"topics":["rust","mcp","rust","mcp"]}}"#,
    r#"{"action":"accept","content":{"email":"ada@example.com","name":"Ada","age":36,"topics":[]}}"#,
    r#"{"action":"accept","content":{"email":"ada@example.com","name":"Ada","age":36,"topics":{"rust":true}}}"#,
    r#"{"action":"accept","content":{"email":"ada@example.com","name":"Ada","age":36,"topics":null}}"#,
    // Wrong shapes for strings, numbers, booleans, selects.
    r#"{"action":"accept","content":{"email":["ada@example.com"],"name":[],"age":[36],"budget":[1],"newsletter":[true],"plan":["pro"],"topics":["rust"],"website":{}}}"#,
    r#"{"action":"accept","content":{"email":{"a":"b"},"name":true,"age":true,"budget":false,"newsletter":1,"plan":true,"topics":["rust"],"website":3}}"#,
    r#"{"action":"accept","content":{"email":"ada@example.com","name":"Ada","age":36.5,"budget":-1,"topics":["rust"]}}"#,
    r#"{"action":"accept","content":{"email":"ada@example.com","name":"Ada","age":-36,"budget":100001,"topics":["rust"]}}"#,
    r#"{"action":"accept","content":{"email":"ada@example.com","name":"Ada","age":18446744073709551615,"budget":0,"topics":["rust"]}}"#,
    r#"{"action":"accept","content":{"email":"ada@example.com","name":"Ada","age":1e30,"budget":-0.0,"topics":["rust"]}}"#,
    r#"{"action":"accept","content":{"email":"ada@example.com","name":"Ada","age":-9223372036854775808,"budget":1e-300,"topics":["rust"]}}"#,
    r#"{"action":"accept","content":{"email":"ada@example.com","name":"Ada","age":3e38,"topics":["rust"]}}"#,
    // Duplicates: the last one counts, whatever its shape.
    r#"{"action":"accept","content":{"topics":["rust"],"topics":[1],"email":["x"],"email":"ada@example.com","name":"Ada","age":36,"topics":["mcp"]}}"#,
    r#"{"action":"accept","content":{"email":"ada@example.com","name":"Ada","age":36,"topics":["mcp"],"topics":null}}"#,
    // Duplicate `content` members: the last one counts, its members only.
    r#"{"action":"accept","content":{"email":"x","plan":"gold"},"content":{"email":"ada@example.com","name":"Ada","age":36,"topics":["mcp"]}}"#,
    r#"{"action":"accept","content":{"email":"ada@example.com","name":"Ada","age":36,"topics":["mcp"]},"content":null}"#,
    r#"{"action":"accept","content":{"email":"ada@example.com","name":"Ada","age":36,"topics":["mcp"]},"content":[1]}"#,
    r#"{"action":"accept","content":null,"content":{"email":"ada@example.com","name":"Ada","age":36,"topics":["mcp"]}}"#,
    r#"{"action":"accept","content":{"name":"Ada","age":36},"content":{},"action":"accept"}"#,
    r#"{"content":{"email":"x"},"action":"decline","content":{"name":"y"}}"#,
    // Unknown members of every shape.
    r#"{"action":"accept","content":{"x":"\u00e9","y":["a",1],"z":{"q":[]},"email":"ada@example.com","name":"Ada","age":36,"topics":["mcp"]}}"#,
    // Malformed text inside each kind of slot, and after a fallback.
    r#"{"action":"accept","content":{"topics":["rust",1,}}"#,
    r#"{"action":"accept","content":{"topics":["rust",}"#,
    r#"{"action":"accept","content":{"topics":["rust"#,
    r#"{"action":"accept","content":{"topics":["rust",{"a":}]}}"#,
    r#"{"action":"accept","content":{"email":"ada@example.com","age":1e400}}"#,
    r#"{"action":"accept","content":{"topics":["\ud800"]}}"#,
    r#"{"action":"accept","content":{"website":{"a":1,"a":}}}"#,
    r#"{"action":"acc"#,
    // Lengths in characters, not bytes: 1 four-byte character; 64 and 65 two-byte ones.
    r#"{"action":"accept","content":{"email":"ad@éé.fr","name":"\ud834\udd1e","age":36,"topics":["mcp"]}}"#,
    r#"{"action":"accept","content":{"email":"ada@example.com","name":"𝄞","age":36,"topics":["mcp"]}}"#,
    r#"{"action":"accept","content":{"email":tru}}"#,
];

fn through_value<T: Elicit>(text: &str) -> Result<Elicitation<T>, ReplyError> {
    through_value_with(text, |value| T::from_reply(value))
}

fn through_value_with<T>(
    text: &str,
    parse: impl FnOnce(&serde_json::Value) -> Result<Elicitation<T>, ReplyError>,
) -> Result<Elicitation<T>, ReplyError> {
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(value) => parse(&value),
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
        assert_eq!(
            Signup::from_reply_str(text),
            through_value::<Signup>(text),
            "{text}"
        );
        let request = Signup::form_request();
        assert_eq!(
            request.parse_reply_str(text),
            through_value::<Signup>(text),
            "{text}"
        );
    }
}

/// Every other field type a slot is read into: run-time options, sets, optional selects,
/// other integer and float widths, a `#[serde(default)]` field.
#[derive(Elicit, Debug, PartialEq)]
struct Others {
    account: Choice,
    #[elicit(min_items = 1)]
    accounts: Choices,
    backup: Option<Choice>,
    set: std::collections::BTreeSet<Topic>,
    hashed: std::collections::HashSet<Topic>,
    maybe: Option<Vec<Topic>>,
    plan: Option<Plan>,
    #[elicit(minimum = -5)]
    wide: i64,
    narrow: f32,
    small: Option<i8>,
}

/// `#[serde(default)]` fields: an absent or `null` slot takes the default.
#[derive(Elicit, Debug, PartialEq, serde::Deserialize)]
struct Defaults {
    #[serde(default)]
    count: u32,
    #[serde(default)]
    agree: bool,
    #[serde(default)]
    note: String,
    name: String,
}

const OTHER_REPLIES: &[&str] = &[
    r#"{"action":"accept","content":{"account":"a1","accounts":["a1","a2"],"backup":"a2","set":["mcp","rust"],"hashed":["rust"],"maybe":["mcp"],"plan":"pro","wide":-5,"narrow":1.5,"small":-128,"count":7,"agree":true}}"#,
    r#"{"action":"accept","content":{"account":"a\u0031","accounts":["a\u0032"],"set":[],"hashed":[],"wide":9007199254740993,"narrow":3}}"#,
    r#"{"action":"accept","content":{"account":"a3","accounts":[],"backup":"","set":["rust","rust"],"hashed":["x"],"maybe":[],"plan":"gold","wide":-6,"narrow":1e39,"small":128,"count":-1,"agree":"yes"}}"#,
    r#"{"action":"accept","content":{"account":["a1"],"accounts":"a1","backup":null,"set":null,"hashed":[1],"maybe":null,"plan":null,"wide":1.5,"narrow":"1","small":null,"count":null,"agree":null}}"#,
    r#"{"action":"accept","content":{"account":"a1","accounts":["a1","a1"],"set":["mcp"],"hashed":["mcp","mcp"],"wide":0,"narrow":-3.4e38}}"#,
    r#"{"action":"accept","content":{"account":"a1","accounts":["a1",2],"set":["mcp",[]],"hashed":["mcp"],"maybe":[{}],"wide":0,"narrow":0,"count":4294967296}}"#,
    r#"{"action":"accept","content":{}}"#,
    r#"{"action":"decline"}"#,
    r#"{"action":"accept","content":{"name":"n","count":null,"agree":null,"note":null}}"#,
    r#"{"action":"accept","content":{"name":"n\u00e9","count":3,"agree":false,"note":"x\ty"}}"#,
    r#"{"action":"accept","content":{"name":null,"count":3.0,"agree":[],"note":["x"]}}"#,
];

#[test]
fn every_field_type_reads_a_slot_as_it_reads_a_value() {
    let request = Others::form_request()
        .with_options(
            "account",
            [EnumOption::new("a1"), EnumOption::titled("a2", "Two")],
        )
        .unwrap()
        .with_options("accounts", [EnumOption::new("a1"), EnumOption::new("a2")])
        .unwrap()
        .with_options("backup", [EnumOption::new("a2")])
        .unwrap();
    for text in OTHER_REPLIES.iter().copied().chain(REPLIES.iter().copied()) {
        assert_eq!(
            request.parse_reply_str(text),
            through_value_with(text, |value| request.parse_reply(value)),
            "{text}"
        );
        // Without the options supplied: every select value is out of the (empty) options.
        assert_eq!(
            Others::from_reply_str(text),
            through_value::<Others>(text),
            "{text}"
        );
        assert_eq!(
            Defaults::from_reply_str(text),
            through_value::<Defaults>(text),
            "{text}"
        );
    }
    // And the fast path does accept where it should.
    let Ok(Elicitation::Accept(others)) = request.parse_reply_str(OTHER_REPLIES[0]) else {
        panic!("accepted");
    };
    assert_eq!(others.accounts.values(), ["a1", "a2"]);
    assert_eq!(others.set.len(), 2);
    let accepted = Signup::from_reply_str(REPLIES[0]).unwrap();
    assert!(accepted.is_accepted());
}

#[test]
fn lengths_count_characters_whatever_their_bytes() {
    let reply = |name: &str| {
        format!(
            r#"{{"action":"accept","content":{{"email":"ada@example.com","name":"{name}","age":36,"newsletter":false,"plan":"free","topics":["mcp"]}}}}"#
        )
    };
    for (name, length) in [
        ("𝄞", Some(1)),
        ("é".repeat(64).as_str(), None),
        ("é".repeat(65).as_str(), Some(65)),
        ("𝄞𝄞", None),
        ("ab", None),
        ("a", Some(1)),
    ] {
        let text = reply(name);
        let result = Signup::from_reply_str(&text);
        assert_eq!(result, through_value::<Signup>(&text), "{text}");
        match length {
            None => assert!(result.unwrap().is_accepted(), "{text}"),
            Some(n) => {
                let error = result.unwrap_err().to_string();
                assert!(error.contains(&format!("but has {n}")), "{error}");
            }
        }
    }
}

/// A form of `first` (an email) and optional strings `f0`, `f1`, …: the size of a form is what
/// decides where its reply's slots live.
macro_rules! wide_form {
    ($(#[$doc:meta])* $name:ident: $($field:ident)*) => {
        $(#[$doc])*
        #[derive(Elicit, Debug, PartialEq)]
        struct $name {
            #[elicit(format = "email")]
            first: String,
            $($field: Option<String>,)*
        }
    };
}

wide_form! {
    /// Exactly as many properties as a reply keeps on the stack.
    AtTheLimit: f0 f1 f2 f3 f4 f5 f6 f7 f8 f9 f10 f11 f12 f13 f14
}

wide_form! {
    /// One property more than a reply keeps on the stack: the smallest form read into a `Vec`.
    JustOver: f0 f1 f2 f3 f4 f5 f6 f7 f8 f9 f10 f11 f12 f13 f14 f15
}

#[test]
fn forms_either_side_of_the_stack_limit_read_the_same() {
    for text in [
        r#"{"action":"accept","content":{"first":"ada@example.com","f0":"a","f14":"y","f15":"z"}}"#,
        r#"{"action":"accept","content":{"first":"nope","f0":1,"f14":null,"f15":["z"]}}"#,
        r#"{"action":"accept","content":{"f1":"a"},"content":{"first":"ada@example.com","f14":"y"}}"#,
        r#"{"action":"accept","content":{}}"#,
        r#"{"action":"cancel"}"#,
    ]
    .into_iter()
    .chain(REPLIES.iter().copied())
    {
        assert_eq!(
            AtTheLimit::from_reply_str(text),
            through_value::<AtTheLimit>(text),
            "{text}"
        );
        assert_eq!(
            JustOver::from_reply_str(text),
            through_value::<JustOver>(text),
            "{text}"
        );
    }
    let text = r#"{"action":"accept","content":{"first":"ada@example.com","f14":"y","f15":"z"}}"#;
    let Ok(Elicitation::Accept(at)) = AtTheLimit::from_reply_str(text) else {
        panic!("accepted");
    };
    assert_eq!(at.f14.as_deref(), Some("y"));
    let Ok(Elicitation::Accept(over)) = JustOver::from_reply_str(text) else {
        panic!("accepted");
    };
    assert_eq!(
        (over.f14.as_deref(), over.f15.as_deref()),
        (Some("y"), Some("z"))
    );
}

wide_form! {
    /// Far more properties than a reply keeps on the stack (16): its slots are read into a `Vec`.
    Wide: f0 f1 f2 f3 f4 f5 f6 f7 f8 f9 f10 f11 f12 f13 f14 f15 f16 f17 f18 f19 f20 f21 f22 f23
        f24 f25 f26 f27 f28 f29 f30 f31 f32 f33 f34 f35 f36 f37 f38 f39 f40 f41 f42 f43 f44 f45
        f46 f47 f48 f49 f50 f51 f52 f53 f54 f55 f56 f57 f58 f59 f60 f61 f62 f63 f64
}

#[test]
fn a_form_too_large_for_the_stack_reads_the_same() {
    for text in [
        r#"{"action":"accept","content":{"first":"ada@example.com","f0":"a","f64":"z"}}"#,
        r#"{"action":"accept","content":{"first":"nope","f0":1,"f64":null,"f64":["z"]}}"#,
        r#"{"action":"accept","content":{"f1":"a"},"content":{"first":"ada@example.com"}}"#,
        r#"{"action":"accept","content":{}}"#,
        r#"{"action":"decline"}"#,
    ]
    .into_iter()
    .chain(REPLIES.iter().copied())
    {
        assert_eq!(
            Wide::from_reply_str(text),
            through_value::<Wide>(text),
            "{text}"
        );
    }
    let Ok(Elicitation::Accept(wide)) = Wide::from_reply_str(
        r#"{"action":"accept","content":{"first":"ada@example.com","f64":"z"}}"#,
    ) else {
        panic!("accepted");
    };
    assert_eq!(wide.f64.as_deref(), Some("z"));
}
