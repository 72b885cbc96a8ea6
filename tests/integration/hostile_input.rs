//! Hostile input to a derived form: property tests (issue #8).
//!
//! - any valid value, sent as a client would, parses back to itself;
//! - any single broken rule is refused, naming that field and no other, and nothing is returned;
//! - any JSON at all yields accept, decline, cancel or an error — never a panic, never `NoReply`,
//!   and never an error message that carries the input.
//!
//! Case counts are set explicitly so the whole file runs in a few seconds.

use std::collections::{BTreeSet, HashSet};

use mcp_elicit::{
    Elicit, Elicitation, FormRequest,
    limits::MAX_REPLY_BYTES,
    reply::ReplyError,
    schema::{Choice, Choices, EnumOption},
};
use proptest::prelude::*;
use proptest::test_runner::Config;
use serde_json::{Map, Value, json};

#[derive(Elicit, Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[elicit(rename_all = "kebab-case")]
enum Color {
    #[elicit(title = "Deep red")]
    DeepRed,
    #[elicit(title = "Green")]
    Green,
    #[elicit(title = "Blue")]
    Blue,
}

#[derive(Elicit, Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[elicit(rename_all = "lowercase")]
enum Size {
    S,
    M,
    L,
}

const COLORS: [Color; 3] = [Color::DeepRed, Color::Green, Color::Blue];
const SIZES: [Size; 3] = [Size::S, Size::M, Size::L];
const ACCOUNTS: [&str; 3] = ["acct-1", "acct-2", "acct-3"];
const CC: [&str; 3] = ["a", "b", "c"];

/// Every field kind, each with the constraints it can carry.
#[derive(Elicit, Debug, Clone, PartialEq)]
#[elicit(message = "Every field kind.")]
struct Everything {
    #[elicit(min_length = 2, max_length = 8)]
    name: String,
    #[elicit(format = "email")]
    email: Option<String>,
    #[elicit(format = "uri")]
    site: Option<String>,
    #[elicit(format = "date")]
    day: Option<String>,
    #[elicit(format = "date-time")]
    at: Option<String>,
    flag: bool,
    #[elicit(minimum = -5, maximum = 5)]
    small: i8,
    count: Option<u16>,
    wide: i32,
    big: Option<i64>,
    huge: Option<u64>,
    #[elicit(minimum = -1.5, maximum = 1.5)]
    ratio: f64,
    weight: Option<f32>,
    color: Color,
    size: Option<Size>,
    #[elicit(max_items = 2)]
    colors: Vec<Color>,
    #[elicit(min_items = 1)]
    sizes: BTreeSet<Size>,
    tags: Option<HashSet<Color>>,
    account: Option<Choice>,
    #[elicit(max_items = 2)]
    cc: Option<Choices>,
}

/// The request a server sends, with the run-time options of the `Choice` fields.
fn request() -> FormRequest<Everything> {
    Everything::form_request()
        .with_options("account", ACCOUNTS.map(EnumOption::new))
        .and_then(|r| r.with_options("cc", CC.map(EnumOption::new)))
        .unwrap_or_else(|e| panic!("options: {e}"))
}

fn config(cases: u32) -> Config {
    Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    }
}

fn reply_text(content: Map<String, Value>) -> String {
    json!({"action": "accept", "content": content}).to_string()
}

fn date() -> impl Strategy<Value = String> {
    (0u32..=9999, 1u32..=12, 1u32..=28).prop_map(|(y, m, d)| format!("{y:04}-{m:02}-{d:02}"))
}

fn date_time() -> impl Strategy<Value = String> {
    (date(), 0u32..24, 0u32..60, 0u32..60, prop::bool::ANY).prop_map(|(d, h, m, s, z)| {
        let zone = if z { "Z" } else { "+05:30" };
        format!("{d}T{h:02}:{m:02}:{s:02}{zone}")
    })
}

/// Distinct items of `items`, in any order: how a client sends a multi-select.
fn distinct<T: Clone + std::fmt::Debug + 'static>(
    items: &'static [T],
    count: std::ops::RangeInclusive<usize>,
) -> impl Strategy<Value = Vec<T>> {
    prop::sample::subsequence(items, count).prop_shuffle()
}

fn finite_f32() -> impl Strategy<Value = f32> {
    prop::num::f32::NORMAL | prop::num::f32::SUBNORMAL | prop::num::f32::ZERO
}

prop_compose! {
    fn everything()(
        name in prop::collection::vec(any::<char>(), 2..=8).prop_map(String::from_iter),
        email in prop::option::of("[a-z0-9+_-]{1,8}(\\.[a-z0-9+_-]{1,8}){0,2}@[a-z]{1,10}\\.example"),
        site in prop::option::of("https://[a-z]{1,10}\\.example(/([a-z0-9]|%7E){0,8}){0,3}"),
        day in prop::option::of(date()),
        at in prop::option::of(date_time()),
        flag in any::<bool>(),
        small in -5i8..=5,
        count in any::<Option<u16>>(),
        wide in any::<i32>(),
        big in any::<Option<i64>>(),
        huge in any::<Option<u64>>(),
        ratio in -1.5f64..=1.5,
        weight in prop::option::of(finite_f32()),
        color in prop::sample::select(&COLORS[..]),
        size in prop::option::of(prop::sample::select(&SIZES[..])),
        colors in distinct(&COLORS, 0..=2),
        sizes in distinct(&SIZES, 1..=3),
        tags in prop::option::of(distinct(&COLORS, 0..=3)),
        account in prop::option::of(prop::sample::select(&ACCOUNTS[..])),
        cc in prop::option::of(distinct(&CC, 0..=2)),
    ) -> Everything {
        Everything {
            name, email, site, day, at, flag, small, count, wide, big, huge, ratio, weight,
            color, size, colors,
            sizes: sizes.into_iter().collect(),
            tags: tags.map(|t| t.into_iter().collect()),
            account: account.map(Choice::new),
            cc: cc.map(Choices::new),
        }
    }
}

/// One way to break exactly one rule of one field: the field, and what to do to the content.
#[derive(Debug, Clone)]
enum Mutation {
    Set(&'static str, Value),
    Remove(&'static str),
}

fn long_text(chars: usize) -> Value {
    Value::String("é".repeat(chars))
}

fn mutation() -> impl Strategy<Value = Mutation> {
    use Mutation::{Remove, Set};
    let set = |field: &'static str, values: Vec<Value>| {
        prop::sample::select(values).prop_map(move |v| Set(field, v))
    };
    prop_oneof![
        set(
            "name",
            vec![
                json!("x"),
                long_text(9),
                json!(12),
                json!(["ab"]),
                json!({})
            ]
        ),
        set(
            "email",
            vec![
                json!("no-at-sign"),
                json!("a@"),
                json!("@b.example"),
                json!(1)
            ]
        ),
        set(
            "site",
            vec![json!("relative/path"), json!("https://a b"), json!("")]
        ),
        set(
            "day",
            vec![json!("2026-13-01"), json!("2023-02-29"), json!("26-07-28")]
        ),
        set(
            "at",
            vec![json!("2026-07-28 09:30"), json!("2026-07-28T25:00:00Z")]
        ),
        set("flag", vec![json!("true"), json!(1), json!([])]),
        set(
            "small",
            vec![json!(6), json!(-6), json!(1.5), json!("1"), json!(1e300)]
        ),
        set("count", vec![json!(65536), json!(-1), json!(0.5)]),
        set(
            "wide",
            vec![
                json!(2_147_483_648_i64),
                json!(-2_147_483_649_i64),
                json!(true)
            ]
        ),
        set(
            "big",
            vec![json!(9_223_372_036_854_775_808_u64), json!(1e19)]
        ),
        set(
            "huge",
            vec![json!(-1), json!(1.8446744073709552e19_f64 * 2.0)]
        ),
        set(
            "ratio",
            vec![json!(1.6), json!(-2), json!("0.5"), json!(null)]
        ),
        set("weight", vec![json!(1e39), json!(-3.5e38), json!("1")]),
        set(
            "color",
            vec![json!("red"), json!("Deep red"), json!(3), json!(["green"])]
        ),
        set("size", vec![json!("xl"), json!("S"), json!(false)]),
        set(
            "colors",
            vec![
                json!(["green", "blue", "deep-red"]),
                json!(["green", "green"]),
                json!(["purple"]),
                json!("green"),
                json!([1]),
            ]
        ),
        set(
            "sizes",
            vec![
                json!([]),
                json!(["s", "s"]),
                json!(["xs"]),
                json!({"s": true})
            ]
        ),
        set(
            "tags",
            vec![json!(["purple"]), json!("blue"), json!([null])]
        ),
        set("account", vec![json!("acct-9"), json!("ACCT-1"), json!(1)]),
        set(
            "cc",
            vec![json!(["z"]), json!(["a", "b", "c"]), json!(["a", "a"])]
        ),
        prop::sample::select(vec![
            "name", "flag", "small", "wide", "ratio", "color", "colors", "sizes"
        ])
        .prop_map(Remove),
    ]
}

fn field_of(mutation: &Mutation) -> &'static str {
    match mutation {
        Mutation::Set(field, _) | Mutation::Remove(field) => field,
    }
}

proptest! {
    #![proptest_config(config(256))]

    /// Any valid value, serialized as a client would, reads back as itself: through the text
    /// entry point and through the `&Value` one.
    #[test]
    fn any_valid_value_round_trips_through_a_client_reply(value in everything()) {
        let text = reply_text(value.to_content());
        prop_assert_eq!(request().parse_reply_str(&text), Ok(Elicitation::Accept(value.clone())));
        let json: Value = serde_json::from_str(&text).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(request().parse_reply(&json), Ok(Elicitation::Accept(value)));
    }

    /// Breaking one rule of one field is refused with a violation naming that field and only
    /// that field, and no value comes back: nothing is half-applied.
    #[test]
    fn any_broken_rule_is_refused_naming_its_field(value in everything(), mutation in mutation()) {
        let mut content = value.to_content();
        match &mutation {
            Mutation::Set(field, bad) => { content.insert((*field).to_owned(), bad.clone()); }
            Mutation::Remove(field) => { content.remove(*field); }
        }
        let field = field_of(&mutation);
        match request().parse_reply_str(&reply_text(content)) {
            Err(ReplyError::Invalid(violations)) => {
                prop_assert!(violations.concerns(field), "{violations} does not name `{field}`");
                prop_assert!(
                    violations.as_slice().iter().all(|v| v.property == field),
                    "{violations} names a field that was valid"
                );
                let message = violations.to_string();
                prop_assert!(message.len() < 512, "{message}");
            }
            other => prop_assert!(false, "{mutation:?} gave {other:?}"),
        }
    }

    /// Unknown keys are ignored, whatever they hold.
    #[test]
    fn unknown_keys_are_ignored(value in everything(), extra in prop::collection::btree_map("[a-z_]{1,12}", json_value(), 0..8)) {
        let mut content = value.to_content();
        for (key, v) in extra {
            if Everything::requested_schema().properties().iter().all(|p| p.name() != key) {
                content.insert(key, v);
            }
        }
        prop_assert_eq!(request().parse_reply_str(&reply_text(content)), Ok(Elicitation::Accept(value)));
    }
}

/// Any JSON value: null, booleans, numbers of every kind, strings, and arrays and objects of
/// them, at most 4 levels deep and 64 values in all.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from), // NaN and infinities become null
        prop::sample::select(vec![
            "accept", "decline", "cancel", "Accept", "", "green", "s"
        ])
        .prop_map(Value::from),
        ".{0,12}".prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 64, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
            prop::collection::btree_map(field_name(), inner, 0..8)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Mostly the form's own field names, so arbitrary values land where validation looks.
fn field_name() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            "action", "content", "name", "email", "site", "day", "at", "flag", "small", "count",
            "wide", "big", "huge", "ratio", "weight", "color", "size", "colors", "sizes", "tags",
            "account", "cc",
        ])
        .prop_map(str::to_owned),
        "[a-z]{0,6}",
    ]
}

/// An `ElicitResult`-shaped value: a (possibly wrong) action and (possibly wrong) content.
fn reply_shaped() -> impl Strategy<Value = Value> {
    (
        prop::option::of(json_value()),
        prop::option::of(json_value()),
        prop::sample::select(vec!["accept", "decline", "cancel"]),
        any::<bool>(),
    )
        .prop_map(|(action, content, real_action, use_real)| {
            let mut reply = Map::new();
            let action = if use_real {
                Some(Value::from(real_action))
            } else {
                action
            };
            if let Some(action) = action {
                reply.insert("action".into(), action);
            }
            if let Some(content) = content {
                reply.insert("content".into(), content);
            }
            Value::Object(reply)
        })
}

fn check_any_reply(reply: &Value) -> Result<(), TestCaseError> {
    let by_value = request().parse_reply(reply);
    match &by_value {
        Ok(Elicitation::NoReply) => prop_assert!(false, "parsing produced NoReply"),
        Ok(_) => {}
        Err(error) => {
            let message = error.to_string();
            prop_assert!(message.len() < 4096, "{} bytes", message.len());
        }
    }
    // Text and value entry points agree.
    let text = reply.to_string();
    if text.len() <= MAX_REPLY_BYTES {
        prop_assert_eq!(request().parse_reply_str(&text), by_value);
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(512))]

    /// Arbitrary JSON never panics the parser and always yields an outcome or an error.
    #[test]
    fn arbitrary_json_yields_an_outcome_or_an_error(reply in json_value()) {
        check_any_reply(&reply)?;
    }

    /// The same for values shaped like a reply, which get past the first checks.
    #[test]
    fn arbitrary_reply_shaped_json_yields_an_outcome_or_an_error(reply in reply_shaped()) {
        check_any_reply(&reply)?;
    }

    /// Arbitrary text, too: JSON or not.
    #[test]
    fn arbitrary_text_yields_an_outcome_or_an_error(text in ".{0,64}") {
        let outcome = Everything::from_reply_str(&text);
        prop_assert!(!matches!(outcome, Ok(Elicitation::NoReply)));
    }
}
