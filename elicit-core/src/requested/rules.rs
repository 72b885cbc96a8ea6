//! The rules on a schema's values, each written once, as a `const fn`.
//!
//! A schema built by hand is held to them at run time ([`RequestedSchema::new`], and
//! `FormRequest::with_options` for options supplied then); a derived schema is held to the very
//! same functions at compile time, by `const _` items that `#[derive(Elicit)]` writes on the
//! attribute's tokens. A reply is held to the rules it shares with a default (its length, its
//! bounds, its selections) through them too (`schema::check`), so that a default obeys
//! exactly what a reply must.
//!
//! Each rule says whether the value keeps it: `true` (or `Ok`) when it does. What a caller does
//! with a broken rule — a [`SchemaError`], a [`Rule`] of a reply, a compile error — is the
//! caller's; the rule itself is only here.
//!
//! | rule | function |
//! |---|---|
//! | the message says something | [`message_is_not_empty`] |
//! | a property has a name | [`name_is_not_empty`] |
//! | property names are unique | [`name_is_unique`] |
//! | option values are unique | [`option_value_is_unique`] |
//! | a select offers at most `MAX_OPTIONS` options | [`option_count_fits`] |
//! | a value is one of the options | [`option_index`] |
//! | `minItems` leaves a selection possible | [`min_items_fit_the_options`] |
//! | `minLength` ≤ `maxLength` | [`lengths_are_ordered`] |
//! | `minItems` ≤ `maxItems` | [`item_counts_are_ordered`] |
//! | `minimum` ≤ `maximum` | [`integer_bounds_are_ordered`], [`number_bounds_are_ordered`] |
//! | a number bound or default is finite | [`number_is_finite`] |
//! | a string fits in a reply | [`string_fits_a_reply`] |
//! | a string's length is within `[minLength, maxLength]` | [`length_is_within`] |
//! | a number is within `[minimum, maximum]` | [`integer_is_within`], [`number_is_within`] |
//! | a selection's size is within `[minItems, maxItems]` | [`item_count_is_within`] |
//! | each option is selected once | [`selection_is_new`] |
//!
//! Three of these rules compare a value with every value before it, which a `const fn` can only
//! do in a loop: O(k²) for a list of k. At run time, on lists a server or a client may make long
//! (a client reads up to [`MAX_OPTIONS`](crate::limits::MAX_OPTIONS) options per select), the
//! same rules are asked of the whole list at once, in O(k) with a hash set: `first_repeat`
//! (for [`name_is_unique`], [`option_value_is_unique`], [`selection_is_new`]) and
//! `OptionLookup` (for [`option_index`]), both crate-private. Each gives the verdict of its `const fn` (it runs the
//! `const fn` itself on short lists, where the loop is cheaper than a hash set); the tests below
//! check that they agree.
//!
//! A string's `format` is the one rule kept beside its table: [`Format::matches`] (and, at run
//! time, [`Format::accepts`]).
//!
//! [`RequestedSchema::new`]: crate::schema::RequestedSchema::new
//! [`SchemaError`]: crate::schema::SchemaError
//! [`Rule`]: crate::schema::Rule
//! [`Format::matches`]: crate::schema::Format::matches
//! [`Format::accepts`]: crate::schema::Format::accepts

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use crate::requested::EnumOption;

/// Which bound of an inclusive range `[min, max]` a value breaks, and the bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outside<T> {
    /// Below the lower bound (`minLength`, `minimum`, `minItems`).
    Below(T),
    /// Above the upper bound (`maxLength`, `maximum`, `maxItems`).
    Above(T),
}

// ---------------------------------------------------------------------------------------------
// The message

/// The message says something: it is not empty, nor only white space.
///
/// ```
/// # extern crate elicit_core as mcp_elicit;
/// use mcp_elicit::__private::rules::message_is_not_empty;
/// assert!(message_is_not_empty("Which account should we bill?"));
/// assert!(!message_is_not_empty(" \n\u{3000}"));
/// ```
pub const fn message_is_not_empty(message: &str) -> bool {
    !is_blank(message)
}

// ---------------------------------------------------------------------------------------------
// Names and options

/// A property has a name: it is not empty.
pub const fn name_is_not_empty(name: &str) -> bool {
    !name.is_empty()
}

/// The name at `index` of a form's property names is not one of the names before it.
///
/// ```
/// # extern crate elicit_core as mcp_elicit;
/// use mcp_elicit::__private::rules::name_is_unique;
/// const NAMES: &[&str] = &["email", "name", "email"];
/// assert!(name_is_unique(NAMES, 1));
/// assert!(!name_is_unique(NAMES, 2));
/// ```
pub const fn name_is_unique(names: &[&str], index: usize) -> bool {
    let Some((mut earlier, [name, ..])) = names.split_at_checked(index) else {
        return true;
    };
    while let [first, rest @ ..] = earlier {
        if same_text(first, name) {
            return false;
        }
        earlier = rest;
    }
    true
}

/// The value of the option at `index` is not the value of an option before it.
pub const fn option_value_is_unique(options: &[EnumOption], index: usize) -> bool {
    let Some((mut earlier, [option, ..])) = options.split_at_checked(index) else {
        return true;
    };
    while let [first, rest @ ..] = earlier {
        if first.value_is(option.value()) {
            return false;
        }
        earlier = rest;
    }
    true
}

/// A select's value is one of its options: the index of the option whose value is `value`.
pub const fn option_index(options: &[EnumOption], value: &str) -> Option<usize> {
    let (mut rest, mut i) = (options, 0);
    while let [option, tail @ ..] = rest {
        if option.value_is(value) {
            return Some(i);
        }
        (rest, i) = (tail, i + 1);
    }
    None
}

/// A select offers no more than [`MAX_OPTIONS`](crate::limits::MAX_OPTIONS) options (`count`):
/// what a client of this crate reads, so a server learns of a longer list when it builds it.
pub const fn option_count_fits(count: usize) -> bool {
    count <= crate::limits::MAX_OPTIONS
}

/// `minItems` asks for no more selections than there are options (`options` of them).
pub const fn min_items_fit_the_options(min_items: Option<u32>, options: usize) -> bool {
    match min_items {
        Some(min) => min as usize <= options,
        None => true,
    }
}

// ---------------------------------------------------------------------------------------------
// Bounds against bounds

/// `minLength` is not above `maxLength`, so some string can satisfy both.
pub const fn lengths_are_ordered(min_length: Option<u32>, max_length: Option<u32>) -> bool {
    counts_are_ordered(min_length, max_length)
}

/// `minItems` is not above `maxItems`, so some selection can satisfy both.
pub const fn item_counts_are_ordered(min_items: Option<u32>, max_items: Option<u32>) -> bool {
    counts_are_ordered(min_items, max_items)
}

const fn counts_are_ordered(min: Option<u32>, max: Option<u32>) -> bool {
    match (min, max) {
        (Some(min), Some(max)) => min <= max,
        _ => true,
    }
}

/// An integer's `minimum` is not above its `maximum`.
pub const fn integer_bounds_are_ordered(minimum: Option<i128>, maximum: Option<i128>) -> bool {
    match (minimum, maximum) {
        (Some(min), Some(max)) => min <= max,
        _ => true,
    }
}

/// A number's `minimum` is not above its `maximum`.
pub const fn number_bounds_are_ordered(minimum: Option<f64>, maximum: Option<f64>) -> bool {
    match (minimum, maximum) {
        (Some(min), Some(max)) => min <= max,
        _ => true,
    }
}

/// A number's bound or default is a finite number (not NaN, not infinite): JSON has no other.
pub const fn number_is_finite(x: f64) -> bool {
    x.is_finite()
}

// ---------------------------------------------------------------------------------------------
// A value against its property: a reply's, or a default's

/// A string is at most [`MAX_STRING_BYTES`](crate::limits::MAX_STRING_BYTES), the most a reply may
/// hold.
pub const fn string_fits_a_reply(text: &str) -> bool {
    text.len() <= crate::limits::MAX_STRING_BYTES
}

/// A string's length in characters (Unicode scalar values, not bytes) is within
/// `[min_length, max_length]`.
///
/// ```
/// # extern crate elicit_core as mcp_elicit;
/// use mcp_elicit::__private::rules::{Outside, length_is_within};
/// assert_eq!(length_is_within("日本語", None, Some(3)), Ok(()));
/// assert_eq!(length_is_within("日本語", None, Some(2)), Err(Outside::Above(2)));
/// assert_eq!(length_is_within("x", Some(4), None), Err(Outside::Below(4)));
/// ```
pub const fn length_is_within(
    text: &str,
    min_length: Option<u32>,
    max_length: Option<u32>,
) -> Result<(), Outside<u32>> {
    // A character is 1 to 4 bytes: when the byte length alone settles both bounds, the
    // characters need no counting.
    let bytes = text.len();
    let max_settled = match max_length {
        Some(max) => bytes <= max as usize,
        None => true,
    };
    let min_settled = match min_length {
        Some(min) => bytes.div_ceil(4) >= min as usize,
        None => true,
    };
    if max_settled && min_settled {
        return Ok(());
    }
    count_is_within(char_count(text), min_length, max_length)
}

/// The number of characters (Unicode scalar values) in `text`: its bytes that do not continue
/// a character.
pub const fn char_count(text: &str) -> usize {
    // ASCII text has one character per byte; a quick check, cheaper than counting.
    if text.is_ascii() {
        return text.len();
    }
    let (mut rest, mut count) = (text.as_bytes(), 0);
    while let [byte, tail @ ..] = rest {
        if *byte & 0xC0 != 0x80 {
            count += 1;
        }
        rest = tail;
    }
    count
}

/// The rule "a value is within `[minimum, maximum]`" for one number type: written once, for
/// `i128` and `f64` (a `const fn` cannot be generic over a comparison).
macro_rules! is_within {
    ($(#[$doc:meta])* $name:ident: $ty:ty) => {
        $(#[$doc])*
        pub const fn $name(
            value: $ty,
            minimum: Option<$ty>,
            maximum: Option<$ty>,
        ) -> Result<(), Outside<$ty>> {
            match (minimum, maximum) {
                (Some(min), _) if value < min => Err(Outside::Below(min)),
                (_, Some(max)) if value > max => Err(Outside::Above(max)),
                _ => Ok(()),
            }
        }
    };
}
is_within!(
    /// An integer is within `[minimum, maximum]`.
    integer_is_within: i128
);
is_within!(
    /// A number is within `[minimum, maximum]`.
    number_is_within: f64
);

/// A multi-select's value selects `count` options, within `[min_items, max_items]`.
pub const fn item_count_is_within(
    count: usize,
    min_items: Option<u32>,
    max_items: Option<u32>,
) -> Result<(), Outside<u32>> {
    count_is_within(count, min_items, max_items)
}

/// A count (of characters, of selections) within `[min, max]`.
const fn count_is_within(
    count: usize,
    min: Option<u32>,
    max: Option<u32>,
) -> Result<(), Outside<u32>> {
    match (min, max) {
        (Some(min), _) if count < min as usize => Err(Outside::Below(min)),
        (_, Some(max)) if count > max as usize => Err(Outside::Above(max)),
        _ => Ok(()),
    }
}

/// A multi-select's value selects each option once: the item at `index` is not one of the items
/// before it. `items` are the value's items as a reply holds them, `None` for one that is not a
/// string (never equal to another).
///
/// ```
/// # extern crate elicit_core as mcp_elicit;
/// use std::borrow::Cow;
/// use mcp_elicit::__private::rules::selection_is_new;
/// const ITEMS: &[Option<Cow<'static, str>>] =
///     &[Some(Cow::Borrowed("red")), None, Some(Cow::Borrowed("red"))];
/// assert!(selection_is_new(ITEMS, 1));
/// assert!(!selection_is_new(ITEMS, 2));
/// ```
pub const fn selection_is_new(items: &[Option<Cow<'_, str>>], index: usize) -> bool {
    let Some((mut earlier, [Some(item), ..])) = items.split_at_checked(index) else {
        return true;
    };
    let item = text_of(item);
    while let [first, rest @ ..] = earlier {
        if let Some(first) = first
            && same_text(text_of(first), item)
        {
            return false;
        }
        earlier = rest;
    }
    true
}

// ---------------------------------------------------------------------------------------------
// Run time: the rules that compare a value with the values before it, over a whole list

/// A list at most this long is checked by the `const fn` loops themselves: with so few values,
/// their k²/2 comparisons (most settled by the lengths) cost less than hashing, and need no
/// allocation. A longer one is checked with a hash set, in O(k).
const SHORT_LIST: usize = 16;

/// The index of the first value equal to a value before it (`None` equals nothing): the first
/// index at which [`name_is_unique`], [`option_value_is_unique`] or [`selection_is_new`] is
/// false, found in one pass with a hash set (std's, keyed per process, so a hostile list cannot
/// make its values collide).
pub(crate) fn first_repeat<'a>(
    values: impl ExactSizeIterator<Item = Option<&'a str>>,
) -> Option<usize> {
    let mut seen = HashSet::with_capacity(values.len());
    values
        .enumerate()
        .find_map(|(i, value)| value.filter(|value| !seen.insert(*value)).map(|_| i))
}

/// [`name_is_unique`] over a form's names: the index of the first name repeated.
pub(crate) fn first_repeated_name(names: &[&str]) -> Option<usize> {
    if names.len() <= SHORT_LIST {
        return (0..names.len()).find(|&i| !name_is_unique(names, i));
    }
    first_repeat(names.iter().map(|name| Some(*name)))
}

/// [`option_value_is_unique`] over a select's options: the index of the first value repeated.
pub(crate) fn first_repeated_option(options: &[EnumOption]) -> Option<usize> {
    if options.len() <= SHORT_LIST {
        return (0..options.len()).find(|&i| !option_value_is_unique(options, i));
    }
    first_repeat(options.iter().map(|option| Some(option.value())))
}

/// [`selection_is_new`] over a multi-select's items: the index of the first item selected again.
pub(crate) fn first_repeated_selection(items: &[Option<Cow<'_, str>>]) -> Option<usize> {
    if items.len() <= SHORT_LIST {
        return (0..items.len()).find(|&i| !selection_is_new(items, i));
    }
    first_repeat(items.iter().map(|item| item.as_deref()))
}

/// [`option_index`] for many values against the same options: each lookup in O(1) once the
/// options are indexed (in O(k)), rather than O(k).
pub(crate) enum OptionLookup<'o> {
    /// Few options: [`option_index`] itself.
    Few(&'o [EnumOption]),
    /// Each value, and the index of the first option with it.
    Many(HashMap<&'o str, usize>),
}

impl<'o> OptionLookup<'o> {
    /// An index of `options` for `lookups` lookups: none is built when a scan of the options for
    /// each lookup costs no more.
    pub(crate) fn new(options: &'o [EnumOption], lookups: usize) -> Self {
        if options.len() <= SHORT_LIST || lookups <= 1 {
            return OptionLookup::Few(options);
        }
        let mut index = HashMap::with_capacity(options.len());
        for (i, option) in options.iter().enumerate() {
            index.entry(option.value()).or_insert(i);
        }
        OptionLookup::Many(index)
    }

    /// [`option_index`] of `value`.
    pub(crate) fn index(&self, value: &str) -> Option<usize> {
        match self {
            OptionLookup::Few(options) => option_index(options, value),
            OptionLookup::Many(index) => index.get(value).copied(),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Text, in a `const fn`

/// The text of a `Cow<str>` (`Deref` is not `const`).
#[allow(
    clippy::ptr_arg,
    reason = "`Cow`'s `Deref` to `&str` is what a `const fn` cannot call"
)]
pub(crate) const fn text_of<'a>(text: &'a Cow<'_, str>) -> &'a str {
    match text {
        Cow::Borrowed(text) => text,
        Cow::Owned(text) => text.as_str(),
    }
}

/// Whether two strings are equal (`==` is not `const` on `str`).
pub(crate) const fn same_text(a: &str, b: &str) -> bool {
    let (mut a, mut b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    // Slice patterns rather than indexing: `const`, and nothing to bounds-check.
    while let ([x, a_rest @ ..], [y, b_rest @ ..]) = (a, b) {
        if *x != *y {
            return false;
        }
        (a, b) = (a_rest, b_rest);
    }
    true
}

/// Whether `text` is empty or only white space, by [`char::is_whitespace`] (as `str::trim`).
const fn is_blank(text: &str) -> bool {
    let mut rest = text.as_bytes();
    // A `str` is UTF-8: each character is decoded from its lead byte and continuation bytes.
    while !rest.is_empty() {
        let (code, tail) = match rest {
            [b0 @ 0x00..=0x7F, tail @ ..] => (*b0 as u32, tail),
            [b0 @ 0xC0..=0xDF, b1, tail @ ..] => {
                ((*b0 as u32 & 0x1F) << 6 | (*b1 as u32 & 0x3F), tail)
            }
            [b0 @ 0xE0..=0xEF, b1, b2, tail @ ..] => (
                (*b0 as u32 & 0x0F) << 12 | (*b1 as u32 & 0x3F) << 6 | (*b2 as u32 & 0x3F),
                tail,
            ),
            [b0, b1, b2, b3, tail @ ..] => (
                (*b0 as u32 & 0x07) << 18
                    | (*b1 as u32 & 0x3F) << 12
                    | (*b2 as u32 & 0x3F) << 6
                    | (*b3 as u32 & 0x3F),
                tail,
            ),
            // Not UTF-8, which a `str` cannot be.
            _ => return false,
        };
        match char::from_u32(code) {
            Some(c) if c.is_whitespace() => rest = tail,
            _ => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Lists on either side of [`SHORT_LIST`], of values from a small alphabet (so repeats are
    /// common), some sharing long prefixes.
    fn values() -> impl Strategy<Value = Vec<Option<String>>> {
        let value = prop_oneof![
            "[ab]{0,3}".prop_map(Some),
            "[ab]{0,2}".prop_map(|tail| Some(format!("{}{tail}", "p".repeat(40)))),
            Just(None),
        ];
        proptest::collection::vec(value, 0..3 * SHORT_LIST)
    }

    proptest! {
        #[test]
        fn the_run_time_uniqueness_checks_agree_with_the_const_rules(values in values()) {
            let items: Vec<Option<Cow<'_, str>>> =
                values.iter().map(|v| v.as_deref().map(Cow::Borrowed)).collect();
            let by_rule = (0..items.len()).find(|&i| !selection_is_new(&items, i));
            prop_assert_eq!(first_repeated_selection(&items), by_rule);
            prop_assert_eq!(first_repeat(values.iter().map(Option::as_deref)), by_rule);

            let names: Vec<&str> = values.iter().flatten().map(String::as_str).collect();
            let by_rule = (0..names.len()).find(|&i| !name_is_unique(&names, i));
            prop_assert_eq!(first_repeated_name(&names), by_rule);
            prop_assert_eq!(first_repeat(names.iter().map(|n| Some(*n))), by_rule);

            let options: Vec<EnumOption> = names.iter().map(|n| EnumOption::new(n.to_string())).collect();
            let by_rule = (0..options.len()).find(|&i| !option_value_is_unique(&options, i));
            prop_assert_eq!(first_repeated_option(&options), by_rule);
            prop_assert_eq!(first_repeat(options.iter().map(|o| Some(o.value()))), by_rule);
        }

        #[test]
        fn the_run_time_option_lookup_agrees_with_option_index(
            values in values(),
            asked in proptest::collection::vec("[ab]{0,3}|p{40}[ab]{0,2}", 0..8),
        ) {
            let options: Vec<EnumOption> =
                values.iter().flatten().map(|v| EnumOption::new(v.clone())).collect();
            for lookups in [0, 1, 2, 100] {
                let lookup = OptionLookup::new(&options, lookups);
                for value in names_and(&options, &asked) {
                    prop_assert_eq!(lookup.index(value), option_index(&options, value));
                }
            }
        }
    }

    /// Every option's value, and the values asked.
    fn names_and<'a>(options: &'a [EnumOption], asked: &'a [String]) -> Vec<&'a str> {
        options
            .iter()
            .map(EnumOption::value)
            .chain(asked.iter().map(String::as_str))
            .collect()
    }

    #[test]
    fn long_lists_are_checked_by_the_hash_set_and_short_ones_by_the_rule() {
        // The two paths meet at `SHORT_LIST`; the proptests above cross it. Here, a repeat at the
        // end of a list of the most options a select may have, found by either path alike.
        let options: Vec<EnumOption> = (0..crate::limits::MAX_OPTIONS)
            .map(|i| EnumOption::new(format!("{i:0>256}")))
            .chain([EnumOption::new(format!("{:0>256}", 7))])
            .collect();
        assert_eq!(
            first_repeated_option(&options),
            Some(crate::limits::MAX_OPTIONS)
        );
        assert!(!option_value_is_unique(
            &options,
            crate::limits::MAX_OPTIONS
        ));
        assert!(matches!(
            OptionLookup::new(&options, 2),
            OptionLookup::Many(_)
        ));
        assert!(matches!(
            OptionLookup::new(&options[..SHORT_LIST], 2),
            OptionLookup::Few(_)
        ));
    }

    #[test]
    fn blank_is_what_trim_leaves_empty() {
        for text in [
            "",
            " ",
            "\t\n\r",
            "\u{85}",
            "\u{a0}",
            "\u{1680}",
            "\u{2000}\u{200a}",
            "\u{2028}",
            "\u{3000}",
            "a",
            " a ",
            "é",
            "日本",
            "😀",
            "\u{200b}",
            " \u{fffd}",
        ] {
            assert_eq!(is_blank(text), text.trim().is_empty(), "{text:?}");
        }
    }

    #[test]
    fn char_count_is_the_number_of_chars() {
        for text in [
            "",
            "abc",
            "é",
            "日本語",
            "a😀b",
            "\u{10ffff}\u{7f}\u{80}\u{7ff}\u{800}",
        ] {
            assert_eq!(char_count(text), text.chars().count(), "{text:?}");
        }
    }

    #[test]
    fn lengths_settled_by_bytes_agree_with_counting() {
        for text in ["", "abcd", "日本語", "a😀b", "éé"] {
            for min in [None, Some(0), Some(1), Some(2), Some(3), Some(4), Some(5)] {
                for max in [None, Some(0), Some(1), Some(2), Some(3), Some(4), Some(12)] {
                    assert_eq!(
                        length_is_within(text, min, max),
                        count_is_within(text.chars().count(), min, max),
                        "{text:?} {min:?} {max:?}"
                    );
                }
            }
        }
    }
}
