//! Two ways to the same answer give the same answer:
//! - a derived form's params, copied from the text written on first use, are the bytes the
//!   serializer writes;
//! - a reply read from its text is the outcome (or error) of reading it as a `Value` first, as
//!   an SDK does: one reader, two `Deserializer`s. Except where serde_json cannot build the
//!   `Value` for a limit of its own, in a member the reader skips
//!   (`what_the_reader_skips_it_does_not_build`).

use mcp_elicit::{
    Elicit, Elicitation, Revision,
    reply::{MalformedReply, ReplyError},
    schema::{Choice, Choices, EnumOption},
};

/// Sign up for the beta: we need a way to reach you and what you want to try.
#[derive(Elicit, Debug, Clone, PartialEq)]
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
#[derive(Elicit, Debug, Clone, PartialEq)]
struct Billing {
    account: Choice,
}

fn ordinary<T>(request: &mcp_elicit::FormRequest<T>) -> Result<String, String> {
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
    // What the hand-written scanner reads (and, edited, declines): whitespace between every
    // token, members out of order, `_meta`, unknown nested members, numbers in every form.
    " {\n  \"action\" : \"accept\" ,\n  \"content\" : {\n    \"topics\" : [ \"rust\" , \"mcp\" ] ,\n    \"age\" :36,\r\n\t\"email\":\"ada@example.com\" , \"name\" : \"Ada\" }\n} \n",
    r#"{"_meta":{"progressToken":[1,{"a":null}],"b":"c"},"content":{"website":"https://example.com","plan":"team","budget":2.5e3,"newsletter":false,"age":18,"name":"Ada","email":"ada@example.com","topics":["mcp"]},"action":"accept"}"#,
    r#"{"action":"accept","content":{"email":"ada@example.com","name":"Ada","age":1.8e1,"budget":100000.0,"topics":["rust"]}}"#,
    r#"{"action":"accept","content":{"email":"ada@example.com","name":"Ada","age":36E0,"budget":-0,"topics":["rust"]}}"#,
    r#"{"action":"accept","content":{"email":"ada@example.com","name":"Ada","age":130.000000000000000000001,"budget":1e-7,"topics":["rust"]}}"#,
    r#"{"action":"accept","content":{"email":"ada@example.com","name":"Ada","age":036,"topics":["rust"]}}"#,
    r#"{"action":"accept","content":{"email":"ada@example.com","name":"Ada","age":36,"topics":["rust"]},}"#,
    r#"{"action":"accept","content":{"email":"ada@example.com","name":"Ada","age":36,"topics":["rust"] "x":1}}"#,
    // A control character (U+0000) unescaped inside a string: not JSON.
    "{\"action\":\"accept\" , \"content\":{\"email\":\"ada@example.com\",\"name\":\"Ada\0\",\"age\":36,\"topics\":[\"rust\"]}}",
    // Malformed text inside each kind of value.
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

/// What reading `text` as a `Value` first (as an SDK does) gives, for `parse` to read; or, when
/// serde_json refuses to build that `Value` although the text reader found the text to be JSON,
/// the text reader's own result: the refusal was of something the reader skips without building
/// (see `what_the_reader_skips_it_does_not_build`). Text that is not JSON is refused as not JSON
/// on both paths; the position may differ by a few characters where the reader skips a member
/// (serde_json reports a skipped string's error where it stopped skipping).
fn through_value_with<T>(
    text: &str,
    from_text: &Result<Elicitation<T>, ReplyError>,
    parse: impl FnOnce(&serde_json::Value) -> Result<Elicitation<T>, ReplyError>,
) -> Result<Elicitation<T>, ReplyError>
where
    T: Clone,
{
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(value) => parse(&value),
        // Not JSON: not JSON on both paths (the position may differ, see above).
        Err(_)
            if matches!(
                from_text,
                Err(ReplyError::Malformed(MalformedReply::NotJson { .. }))
            ) =>
        {
            from_text.clone()
        }
        // JSON to the reader, but serde_json would not build its `Value`: only for a limit of
        // building one (a number beyond f64, nesting beyond 128, a lone UTF-16 surrogate escape,
        // which JSON's grammar allows but no Rust `String` can hold), never for its syntax.
        Err(e) => {
            let message = e.to_string();
            assert!(
                [
                    "lone leading surrogate",
                    "unexpected end of hex escape",
                    "number out of range",
                    "recursion limit",
                ]
                .iter()
                .any(|limit| message.contains(limit)),
                "the reader read text serde_json refuses as not JSON ({message}): {text}"
            );
            from_text.clone()
        }
    }
}

fn through_value<T: Elicit + Clone>(
    text: &str,
    from_text: &Result<Elicitation<T>, ReplyError>,
) -> Result<Elicitation<T>, ReplyError> {
    through_value_with(text, from_text, |value| T::from_reply(value))
}

#[test]
fn a_reply_read_from_text_is_the_reply_read_as_a_value() {
    for text in REPLIES {
        let from_text = Signup::from_reply_str(text);
        assert_eq!(
            from_text,
            through_value::<Signup>(text, &from_text),
            "{text}"
        );
        let request = Signup::form_request();
        let from_text = request.parse_reply_str(text);
        assert_eq!(
            from_text,
            through_value::<Signup>(text, &from_text),
            "{text}"
        );
    }
}

/// Every other field type: run-time options, sets, optional selects,
/// other integer and float widths, a `#[serde(default)]` field.
#[derive(Elicit, Debug, Clone, PartialEq)]
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

/// `#[serde(default)]` fields: an absent or `null` member takes the default.
#[derive(Elicit, Debug, Clone, PartialEq, serde::Deserialize)]
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
    // A value beyond `f32`: reported alone, and not when another member breaks a rule (the
    // `Value` path checks every property before it reads any field).
    r#"{"action":"accept","content":{"account":"a1","accounts":["a1"],"set":[],"hashed":[],"wide":0,"narrow":1e39}}"#,
    r#"{"action":"accept","content":{"account":"a1","accounts":["a1"],"set":[],"hashed":[],"wide":-6,"narrow":1e39}}"#,
    r#"{"action":"accept","content":{"account":"a1","accounts":["a1"],"set":[],"hashed":[],"wide":0,"narrow":1e39,"small":-129}}"#,
];

#[test]
fn every_field_type_reads_text_as_it_reads_a_value() {
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
            through_value_with(text, &request.parse_reply_str(text), |value| request
                .parse_reply(value)),
            "{text}"
        );
        // Without the options supplied: every select value is out of the (empty) options.
        let from_text = Others::from_reply_str(text);
        assert_eq!(
            from_text,
            through_value::<Others>(text, &from_text),
            "{text}"
        );
        let from_text = Defaults::from_reply_str(text);
        assert_eq!(
            from_text,
            through_value::<Defaults>(text, &from_text),
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
        assert_eq!(result, through_value::<Signup>(&text, &result), "{text}");
        match length {
            None => assert!(result.unwrap().is_accepted(), "{text}"),
            Some(n) => {
                let error = result.unwrap_err().to_string();
                assert!(error.contains(&format!("but has {n}")), "{error}");
            }
        }
    }
}

/// A form of `first` (an email) and optional strings `f0`, `f1`, …, to read forms of several
/// sizes.
macro_rules! wide_form {
    ($(#[$doc:meta])* $name:ident: $($field:ident)*) => {
        $(#[$doc])*
        #[derive(Elicit, Debug, Clone, PartialEq)]
        struct $name {
            #[elicit(format = "email")]
            first: String,
            $($field: Option<String>,)*
        }
    };
}

wide_form! {
    /// Sixteen properties.
    AtTheLimit: f0 f1 f2 f3 f4 f5 f6 f7 f8 f9 f10 f11 f12 f13 f14
}

wide_form! {
    /// Seventeen.
    JustOver: f0 f1 f2 f3 f4 f5 f6 f7 f8 f9 f10 f11 f12 f13 f14 f15
}

#[test]
fn forms_of_sixteen_and_seventeen_fields_read_the_same() {
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
        let from_text = AtTheLimit::from_reply_str(text);
        assert_eq!(
            from_text,
            through_value::<AtTheLimit>(text, &from_text),
            "{text}"
        );
        let from_text = JustOver::from_reply_str(text);
        assert_eq!(
            from_text,
            through_value::<JustOver>(text, &from_text),
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
    /// Far more properties than most forms have.
    Wide: f0 f1 f2 f3 f4 f5 f6 f7 f8 f9 f10 f11 f12 f13 f14 f15 f16 f17 f18 f19 f20 f21 f22 f23
        f24 f25 f26 f27 f28 f29 f30 f31 f32 f33 f34 f35 f36 f37 f38 f39 f40 f41 f42 f43 f44 f45
        f46 f47 f48 f49 f50 f51 f52 f53 f54 f55 f56 f57 f58 f59 f60 f61 f62 f63 f64
}

#[test]
fn a_wide_form_reads_the_same() {
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
        let from_text = Wide::from_reply_str(text);
        assert_eq!(from_text, through_value::<Wide>(text, &from_text), "{text}");
    }
    let Ok(Elicitation::Accept(wide)) = Wide::from_reply_str(
        r#"{"action":"accept","content":{"first":"ada@example.com","f64":"z"}}"#,
    ) else {
        panic!("accepted");
    };
    assert_eq!(wide.f64.as_deref(), Some("z"));
}

/// The reader skips what it does not keep (unknown members, the content of a decline) without
/// building it, so serde_json's limits on building a `Value` (a number beyond `f64`, nesting
/// beyond 128 levels) do not apply there: such a reply is judged like any other. Where the
/// reader keeps the value, the limit is JSON's error as before.
#[test]
fn what_the_reader_skips_it_does_not_build() {
    let deep = |inner: &str| format!("{}{inner}{}", "[".repeat(200), "]".repeat(200));
    for (text, outcome) in [
        (
            r#"{"action":"decline","x":1e400}"#.to_owned(),
            Ok(Elicitation::Decline),
        ),
        (
            format!(r#"{{"action":"cancel","content":{}}}"#, deep("1")),
            Ok(Elicitation::Cancel),
        ),
        (
            deep(""),
            Err(ReplyError::Malformed(MalformedReply::NotAnObject)),
        ),
    ] {
        // serde_json would not build these as a `Value` (the number only without its
        // `arbitrary_precision` feature); the reader judges them as it judges any reply.
        assert_eq!(
            Signup::from_reply_str(&text).map(|o| o.map(|_| ())),
            outcome,
            "{text}"
        );
    }
    // A kept member beyond the limits: refused, never read.
    let kept = format!(
        r#"{{"action":"accept","content":{{"email":{}}}}}"#,
        deep("1")
    );
    let Err(ReplyError::Invalid(violations)) = Signup::from_reply_str(&kept) else {
        panic!("a nested array where a string is asked for is a type error");
    };
    assert!(violations.concerns("email"));
    // A number beyond f64 in a kept member is refused: as not JSON, or (serde_json's
    // `arbitrary_precision` reads its text) as a number no integer rule reads.
    assert!(matches!(
        Signup::from_reply_str(r#"{"action":"accept","content":{"age":1e400}}"#),
        Err(ReplyError::Malformed(MalformedReply::NotJson { .. }) | ReplyError::Invalid(_))
    ));
}
