//! Round trip: generate a value, serialize it as a client would (`to_content` inside an
//! `ElicitResult`, as JSON text), parse it back through the request, and get the same value.
//!
//! Values come from a small seeded generator, so a failure names the seed that reproduces it.

use std::collections::{BTreeSet, HashSet};

use mcp_elicit::{
    Elicit, Elicitation, FormRequest,
    schema::{Choice, Choices, EnumOption, Select},
};

#[derive(Elicit, Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[elicit(rename_all = "kebab-case")]
enum Color {
    DeepRed,
    #[elicit(title = "Green")]
    Green,
    #[elicit(rename = "blue!")]
    Blue,
}

#[derive(Elicit, Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Size {
    #[elicit(title = "Small")]
    S,
    #[elicit(title = "Medium")]
    M,
    #[elicit(title = "Large")]
    L,
}

/// Every field kind at once.
#[derive(Elicit, Debug, Clone, PartialEq)]
#[elicit(rename_all = "camelCase")]
struct Everything {
    #[elicit(min_length = 1, max_length = 20)]
    display_name: String,
    #[elicit(format = "email")]
    email: String,
    #[elicit(format = "uri")]
    home_page: Option<String>,
    #[elicit(format = "date")]
    day: String,
    #[elicit(format = "date-time")]
    starts_at: Option<String>,
    flag: bool,
    maybe: Option<bool>,
    a_i8: i8,
    a_i16: i16,
    a_i32: i32,
    a_i64: i64,
    a_isize: isize,
    a_u8: u8,
    a_u16: u16,
    a_u32: u32,
    a_u64: u64,
    a_usize: usize,
    #[elicit(minimum = -5, maximum = 5)]
    small: i32,
    count: Option<u16>,
    ratio: f64,
    #[elicit(minimum = -1000, maximum = 1000)]
    weight: f32,
    color: Color,
    size: Option<Size>,
    #[elicit(max_items = 3)]
    colors: Vec<Color>,
    sizes: BTreeSet<Size>,
    tags: HashSet<Color>,
    account: Choice,
    #[elicit(max_items = 4)]
    cc: Choices,
    #[elicit(skip)]
    local_only: u8,
}

/// SplitMix64: small, seeded, good enough to spread values over each field's range.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn coin(&mut self) -> bool {
        self.next() & 1 == 1
    }
    /// Sometimes an end of the range, otherwise anywhere in it.
    fn int<T: TryFrom<i128>>(&mut self, min: i128, max: i128) -> T {
        let value = match self.below(4) {
            0 => min,
            1 => max,
            _ => min + (i128::from(self.next()) % (max - min + 1)),
        };
        T::try_from(value).unwrap_or_else(|_| panic!("{value} out of range"))
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
    /// Text that stresses JSON escaping and character counting.
    fn text(&mut self, min: usize, max: usize) -> String {
        const CHARS: &[char] = &[
            'a',
            'Z',
            '0',
            ' ',
            '"',
            '\\',
            '/',
            '\n',
            '\t',
            '\u{1}',
            '\u{7f}',
            'é',
            'ß',
            '日',
            '本',
            '👍',
            '\u{1f3fd}',
            '\u{202e}',
            '\u{feff}',
            '\u{10ffff}',
        ];
        let len = min + self.below((max - min + 1) as u64) as usize;
        (0..len).map(|_| *self.pick(CHARS)).collect()
    }
    fn subset<T: Copy>(&mut self, items: &[T], max: usize) -> Vec<T> {
        let mut chosen: Vec<T> = items.iter().copied().filter(|_| self.coin()).collect();
        chosen.truncate(max);
        // Any order: a client may send selections in the order they were clicked.
        if self.coin() {
            chosen.reverse();
        }
        chosen
    }
}

const ACCOUNTS: [&str; 3] = ["acct_1", "acct 2 ✓", "acct\"3\""];
const PEOPLE: [&str; 5] = ["alice", "bob", "carol", "dave", "émile"];

fn request() -> FormRequest<Everything> {
    Everything::form_request()
        .with_options(
            "account",
            ACCOUNTS.map(|a| EnumOption::titled(a, a.to_uppercase())),
        )
        .and_then(|r| r.with_options("cc", PEOPLE.map(EnumOption::new)))
        .expect("options")
}

fn generate(rng: &mut Rng) -> Everything {
    let colors: Vec<Color> = Color::OPTIONS
        .iter()
        .filter_map(|o| Color::from_value(o.value()))
        .collect();
    let sizes = [Size::S, Size::M, Size::L];
    let day = format!(
        "{:04}-{:02}-{:02}",
        rng.int::<u32>(0, 9999),
        rng.int::<u32>(1, 12),
        rng.int::<u32>(1, 28)
    );
    Everything {
        display_name: rng.text(1, 20),
        email: format!("user{}@example.com", rng.next()),
        home_page: rng
            .coin()
            .then(|| format!("https://example.com/{}?q={}#f", rng.next(), rng.below(9))),
        starts_at: rng.coin().then(|| {
            // Each offset with the local time of 23:59 UTC there: second 60, a leap second, is
            // valid only in that minute (RFC 3339 section 5.7).
            let &(offset, last_minute) = rng.pick(&[
                ("Z", (23, 59)),
                ("+02:00", (1, 59)),
                ("-11:30", (12, 29)),
                (".5Z", (23, 59)),
            ]);
            let second = rng.int::<u32>(0, 60);
            let (hour, minute) = if second == 60 {
                last_minute
            } else {
                (rng.int::<u32>(0, 23), rng.int::<u32>(0, 59))
            };
            format!("{day}T{hour:02}:{minute:02}:{second:02}{offset}")
        }),
        day,
        flag: rng.coin(),
        maybe: rng.coin().then(|| rng.coin()),
        a_i8: rng.int(i8::MIN.into(), i8::MAX.into()),
        a_i16: rng.int(i16::MIN.into(), i16::MAX.into()),
        a_i32: rng.int(i32::MIN.into(), i32::MAX.into()),
        a_i64: rng.int(i64::MIN.into(), i64::MAX.into()),
        a_isize: rng.int(i64::MIN.into(), i64::MAX.into()),
        a_u8: rng.int(0, u8::MAX.into()),
        a_u16: rng.int(0, u16::MAX.into()),
        a_u32: rng.int(0, u32::MAX.into()),
        a_u64: rng.int(0, u64::MAX.into()),
        a_usize: rng.int(0, u64::MAX.into()),
        small: rng.int(-5, 5),
        count: rng.coin().then(|| rng.int(0, u16::MAX.into())),
        // Dyadic fractions have short exact decimal forms, so the comparison is exact whichever
        // float parser serde_json was built with.
        ratio: f64::from(rng.int::<i32>(i32::MIN.into(), i32::MAX.into())) / 1024.0,
        weight: rng.int::<i32>(-1000 * 64, 1000 * 64) as f32 / 64.0,
        color: *rng.pick(&colors),
        size: rng.coin().then(|| *rng.pick(&sizes)),
        colors: rng.subset(&colors, 3),
        sizes: rng.subset(&sizes, 3).into_iter().collect(),
        tags: rng.subset(&colors, 3).into_iter().collect(),
        account: Choice::new(*rng.pick(&ACCOUNTS)),
        cc: Choices::new(rng.subset(&PEOPLE, 4)),
        local_only: 0,
    }
}

#[test]
fn a_generated_value_survives_the_trip_through_a_client() {
    let request = request();
    for seed in 0..500 {
        let mut rng = Rng(seed);
        let value = generate(&mut rng);
        let reply = serde_json::json!({"action": "accept", "content": value.to_content()});
        let text = serde_json::to_string(&reply).expect("serializes");
        match request.parse_reply_str(&text) {
            Ok(Elicitation::Accept(back)) => assert_eq!(back, value, "seed {seed}: {text}"),
            other => panic!("seed {seed}: {text} gave {other:?}"),
        }
    }
}

#[test]
fn content_omits_absent_optionals_and_uses_wire_names() {
    let mut value = generate(&mut Rng(7));
    value.home_page = None;
    value.size = None;
    value.local_only = 42;
    let content = value.to_content();
    assert!(!content.contains_key("homePage"));
    assert!(!content.contains_key("size"));
    assert!(!content.contains_key("localOnly") && !content.contains_key("local_only"));
    assert!(content.contains_key("displayName") && content.contains_key("aU64"));
    // The skipped field is local: it does not travel, and comes back as its default.
    let reply = serde_json::json!({"action": "accept", "content": content});
    let Ok(Elicitation::Accept(back)) = request().parse_reply(&reply) else {
        panic!("rejected")
    };
    assert_eq!(back.local_only, 0);
    assert_eq!(back.home_page, None);
}

#[test]
fn every_generated_content_validates_against_the_schema_it_was_made_for() {
    let request = request();
    for seed in 0..200 {
        let content = generate(&mut Rng(seed)).to_content();
        assert_eq!(request.schema().validate(&content), Ok(()), "seed {seed}");
    }
}
