//! The rules a reply's value must keep for its property: its JSON type, then the constraints of
//! its kind (lengths and format, bounds, options, selections). A `default` is held to them too.

use std::borrow::Cow;
use std::fmt;

use super::rules::{self, Outside};
use super::value::FieldValue;
use super::{
    EnumOption, IntegerSchema, MultiSelectSchema, NumberSchema, PropertyKind, StringSchema,
};
use crate::violation::{JsonType, Rule, quote};

/// The rule broken by a value of the wrong JSON type.
pub(crate) fn wrong_type(expected: JsonType, value: &FieldValue<'_>) -> Rule {
    Rule::Type {
        expected,
        found: value.json_type(),
    }
}

/// Check one present value against its property kind; the first broken rule of that value.
pub(crate) fn check_value(kind: &PropertyKind, value: &FieldValue<'_>) -> Result<(), Rule> {
    match (kind, value) {
        (PropertyKind::String(s), FieldValue::Str(text)) => check_string(s, text),
        (PropertyKind::Integer(n), FieldValue::Int(_) | FieldValue::Float(_)) => {
            match integer_value(value) {
                Ok(int) => check_integer_value(n, int),
                Err(Rule::Inexact) => Err(inexact_integer(n, value)),
                Err(rule) => Err(rule),
            }
        }
        (PropertyKind::Number(n), FieldValue::Int(_) | FieldValue::Float(_)) => {
            check_number(n, number_value(value)?)
        }
        (PropertyKind::Boolean(_), FieldValue::Bool(_)) => Ok(()),
        (PropertyKind::Select(s), FieldValue::Str(text)) => check_option(&s.options, text),
        (PropertyKind::MultiSelect(m), FieldValue::Items(items)) => check_selections(m, items),
        (kind, value) => Err(wrong_type(kind.json_type(), value)),
    }
}

/// A string's rules: its lengths, then its format.
pub(crate) fn check_string(s: &StringSchema, text: &str) -> Result<(), Rule> {
    // Bounded before the string is counted or format-checked, on every entry point.
    if !rules::string_fits_a_reply(text) {
        return Err(Rule::TooLarge { bytes: text.len() });
    }
    check_length(text, s.min_length, s.max_length)?;
    match s.format {
        Some(format) if !format.accepts(text) => Err(Rule::Format(format)),
        _ => Ok(()),
    }
}

/// An integer's bounds, on its value.
pub(crate) fn check_integer_value(n: &IntegerSchema, int: i128) -> Result<(), Rule> {
    rules::integer_is_within(int, n.minimum, n.maximum).map_err(bound_broken)
}

/// A number's rules: its bounds.
pub(crate) fn check_number(n: &NumberSchema, x: f64) -> Result<(), Rule> {
    rules::number_is_within(x, n.minimum, n.maximum).map_err(bound_broken)
}

/// The rule of the `minimum` or `maximum` a number lies beyond.
fn bound_broken<T: fmt::Display>(outside: Outside<T>) -> Rule {
    match outside {
        Outside::Below(min) => Rule::Minimum {
            minimum: min.to_string(),
        },
        Outside::Above(max) => Rule::Maximum {
            maximum: max.to_string(),
        },
    }
}

/// A multi-select's rules: each item a string, an option, and not selected before (in order);
/// then the count. `items` holds each item's text, `None` for a non-string.
///
/// In O(k) for k options and items (a reply holds at most one item more than the options): the
/// rules that compare an item with the options and with the items before it are asked of the
/// whole list at once ([`rules::OptionLookup`], [`rules::first_repeated_selection`]).
fn check_selections(m: &MultiSelectSchema, items: &[Option<Cow<'_, str>>]) -> Result<(), Rule> {
    let options = rules::OptionLookup::new(&m.options, items.len());
    let repeated = rules::first_repeated_selection(items);
    for (i, item) in items.iter().enumerate() {
        let Some(text) = item else {
            return Err(Rule::Type {
                expected: JsonType::Array,
                found: "an array holding a non-string",
            });
        };
        if options.index(text).is_none() {
            return Err(Rule::NotAnOption { value: quote(text) });
        }
        if repeated == Some(i) {
            return Err(Rule::DuplicateSelection { value: quote(text) });
        }
    }
    let count = items.len();
    rules::item_count_is_within(count, m.min_items, m.max_items).map_err(|outside| match outside {
        Outside::Below(min_items) => Rule::MinItems { min_items, count },
        Outside::Above(max_items) => Rule::MaxItems { max_items, count },
    })
}

/// The largest magnitude below which every integer is an exact `f64`: a number given with a
/// fraction or exponent (or beyond 64 bits, which `serde_json` reads as an `f64`) denotes an
/// integer only below it, since past it the `f64` may be a rounding of what was sent.
const EXACT_F64_INTEGERS: f64 = 9_007_199_254_740_992.0; // 2^53

/// The integer a number denotes, accepting `3.0` but not `3.5`, and refusing one that may have
/// been rounded on its way to an `f64` (`-9223372036854775809` is not `i64::MIN`).
pub(crate) fn integer_value(value: &FieldValue<'_>) -> Result<i128, Rule> {
    match *value {
        FieldValue::Int(i) => Ok(i),
        FieldValue::Float(x) if x.is_finite() && x.fract() == 0.0 => {
            if x.abs() < EXACT_F64_INTEGERS {
                #[allow(clippy::cast_possible_truncation)]
                Ok(x as i128)
            } else {
                Err(Rule::Inexact)
            }
        }
        FieldValue::Float(_) => Err(Rule::NotAnInteger),
        _ => Err(wrong_type(JsonType::Integer, value)),
    }
}

/// The rule an integer too large to read exactly breaks: a bound it lies beyond whatever it was
/// rounded from, or else [`Rule::Inexact`].
#[allow(clippy::cast_precision_loss)]
fn inexact_integer(n: &IntegerSchema, value: &FieldValue<'_>) -> Rule {
    let FieldValue::Float(x) = *value else {
        return Rule::Inexact;
    };
    let as_f64 = |bound: i128| bound as f64;
    let within = rules::number_is_within(x, n.minimum.map(as_f64), n.maximum.map(as_f64));
    // The bound as the schema writes it, not as its nearest `f64`.
    match (within, n.minimum, n.maximum) {
        (Err(Outside::Below(_)), Some(min), _) => bound_broken(Outside::Below(min)),
        (Err(Outside::Above(_)), _, Some(max)) => bound_broken(Outside::Above(max)),
        _ => Rule::Inexact,
    }
}

/// The `f64` a number denotes.
pub(crate) fn number_value(value: &FieldValue<'_>) -> Result<f64, Rule> {
    match *value {
        #[allow(clippy::cast_precision_loss)]
        FieldValue::Int(i) => Ok(i as f64),
        FieldValue::Float(x) => Ok(x),
        _ => Err(wrong_type(JsonType::Number, value)),
    }
}

fn check_length(text: &str, min: Option<u32>, max: Option<u32>) -> Result<(), Rule> {
    // The characters are counted again only to report a broken bound.
    rules::length_is_within(text, min, max).map_err(|outside| {
        let length = rules::char_count(text);
        match outside {
            Outside::Below(min_length) => Rule::MinLength { min_length, length },
            Outside::Above(max_length) => Rule::MaxLength { max_length, length },
        }
    })
}

pub(crate) fn check_option(options: &[EnumOption], text: &str) -> Result<(), Rule> {
    match rules::option_index(options, text) {
        Some(_) => Ok(()),
        None => Err(Rule::NotAnOption { value: quote(text) }),
    }
}
