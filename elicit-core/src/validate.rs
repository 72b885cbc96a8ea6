//! Checking an accepted reply's `content` against the schema that was sent.
//!
//! Every violation is collected (not just the first), each naming the property and the rule.

use std::fmt;

use serde_json::{Map, Value};

use crate::field::Slot;
use crate::format::Format;
use crate::schema::{
    EnumOption, IntegerSchema, MultiSelectSchema, NumberSchema, PropertyKind, RequestedSchema,
    StringSchema,
};
use crate::text::same;

/// The longest piece of a client's value quoted back in an error message. Values are otherwise
/// never echoed, so an error message cannot carry a whole reply into a log.
const QUOTE_LIMIT: usize = 32;

/// A JSON type, as named in the schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum JsonType {
    /// `string`
    String,
    /// `integer`
    Integer,
    /// `number`
    Number,
    /// `boolean`
    Boolean,
    /// `array` of strings
    Array,
    /// `object`
    Object,
}

impl JsonType {
    fn name(self) -> &'static str {
        match self {
            JsonType::String => "a string",
            JsonType::Integer => "an integer",
            JsonType::Number => "a number",
            JsonType::Boolean => "a boolean",
            JsonType::Array => "an array of strings",
            JsonType::Object => "an object",
        }
    }

    /// The JSON type of `value`, with its article, for messages (`"a string"`, `"null"`).
    pub(crate) fn of(value: &Value) -> &'static str {
        match value {
            Value::Null => "null",
            Value::Bool(_) => "a boolean",
            Value::Number(_) => "a number",
            Value::String(_) => "a string",
            Value::Array(_) => "an array",
            Value::Object(_) => "an object",
        }
    }
}

/// A rule of the schema that a value broke.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Rule {
    /// A required property is absent (or `null`).
    Required,
    /// The value has the wrong JSON type.
    Type {
        /// What the schema asks for.
        expected: JsonType,
        /// What was sent, e.g. `"a string"`.
        found: &'static str,
    },
    /// An `integer` property received a number with a fractional part.
    NotAnInteger,
    /// Below `minimum`.
    Minimum {
        /// The bound, as written in the schema.
        minimum: String,
    },
    /// Above `maximum`.
    Maximum {
        /// The bound, as written in the schema.
        maximum: String,
    },
    /// Fewer characters than `minLength`.
    MinLength {
        /// The bound.
        min_length: u32,
        /// Characters sent.
        length: usize,
    },
    /// More characters than `maxLength`.
    MaxLength {
        /// The bound.
        max_length: u32,
        /// Characters sent.
        length: usize,
    },
    /// Not in the declared `format`.
    Format(Format),
    /// Not one of the options offered.
    NotAnOption {
        /// The value sent (shortened).
        value: String,
    },
    /// Fewer selections than `minItems`.
    MinItems {
        /// The bound.
        min_items: u32,
        /// Selections sent.
        count: usize,
    },
    /// More selections than `maxItems`.
    MaxItems {
        /// The bound.
        max_items: u32,
        /// Selections sent.
        count: usize,
    },
    /// The same option selected twice.
    DuplicateSelection {
        /// The repeated value (shortened).
        value: String,
    },
    /// A string longer than [`MAX_STRING_BYTES`](crate::MAX_STRING_BYTES): refused before it is
    /// read, whatever the schema allows.
    TooLarge {
        /// Its size in bytes.
        bytes: usize,
    },
    /// The value is valid JSON of the right type but does not fit the Rust field (e.g. an `f32`
    /// field given a number beyond `f32::MAX`).
    OutOfRange,
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Rule::Required => f.write_str("is required but missing"),
            Rule::Type { expected, found } => {
                write!(f, "must be {} but is {found}", expected.name())
            }
            Rule::NotAnInteger => f.write_str("must be a whole number"),
            Rule::Minimum { minimum } => write!(f, "must be at least {minimum} (minimum)"),
            Rule::Maximum { maximum } => write!(f, "must be at most {maximum} (maximum)"),
            Rule::MinLength { min_length, length } => write!(
                f,
                "must be at least {min_length} characters long (minLength) but has {length}"
            ),
            Rule::MaxLength { max_length, length } => write!(
                f,
                "must be at most {max_length} characters long (maxLength) but has {length}"
            ),
            Rule::Format(format) => {
                write!(f, "must be {} (format \"{format}\")", format.describe())
            }
            Rule::NotAnOption { value } => write!(f, "{value:?} is not one of the offered options"),
            Rule::MinItems { min_items, count } => {
                write!(
                    f,
                    "must select at least {min_items} (minItems) but selects {count}"
                )
            }
            Rule::MaxItems { max_items, count } => {
                write!(
                    f,
                    "must select at most {max_items} (maxItems) but selects {count}"
                )
            }
            Rule::DuplicateSelection { value } => write!(f, "selects {value:?} more than once"),
            Rule::TooLarge { bytes } => write!(
                f,
                "is {bytes} bytes, more than the {}-byte limit for a string in a reply",
                crate::reply::MAX_STRING_BYTES
            ),
            Rule::OutOfRange => f.write_str("is out of range for this field"),
        }
    }
}

/// One broken rule, naming the property.
#[derive(Debug, Clone, PartialEq)]
pub struct Violation {
    /// The property's name as sent in `requestedSchema`.
    pub property: String,
    /// The rule it broke.
    pub rule: Rule,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` {}", self.property, self.rule)
    }
}

/// Every violation of an accepted reply, in schema order. Never empty.
#[derive(Debug, Clone, PartialEq)]
pub struct Violations(Vec<Violation>);

impl Violations {
    /// Wrap a non-empty list; `None` when there is nothing to report.
    pub fn from_vec(violations: Vec<Violation>) -> Option<Self> {
        (!violations.is_empty()).then_some(Self(violations))
    }
    /// A single violation.
    pub fn one(property: impl Into<String>, rule: Rule) -> Self {
        Self(vec![Violation {
            property: property.into(),
            rule,
        }])
    }
    /// The violations, in schema order.
    pub fn as_slice(&self) -> &[Violation] {
        &self.0
    }
    /// How many rules were broken.
    pub fn len(&self) -> usize {
        self.0.len()
    }
    /// Always false: a `Violations` holds at least one.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    /// Whether `property` broke any rule.
    pub fn concerns(&self, property: &str) -> bool {
        self.0.iter().any(|v| v.property == property)
    }
}

impl IntoIterator for Violations {
    type Item = Violation;
    type IntoIter = std::vec::IntoIter<Violation>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl<'a> IntoIterator for &'a Violations {
    type Item = &'a Violation;
    type IntoIter = std::slice::Iter<'a, Violation>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl fmt::Display for Violations {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.0.len();
        write!(
            f,
            "the reply breaks {n} rule{} of the form: ",
            if n == 1 { "" } else { "s" }
        )?;
        for (i, v) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{v}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Violations {}

/// Shorten a client-sent string for quoting in an error.
pub(crate) fn quote(value: &str) -> String {
    match value.char_indices().nth(QUOTE_LIMIT) {
        Some((cut, _)) => format!("{}…", value.get(..cut).unwrap_or_default()),
        None => value.to_owned(),
    }
}

impl RequestedSchema {
    /// Check accepted `content` against every property. Unknown keys are ignored (the spec):
    /// each property is looked up by name, so keys the schema does not know are never visited,
    /// and the work done is set by the schema, not by the size of `content`. `null` for an
    /// optional property counts as absent. A string longer than
    /// [`MAX_STRING_BYTES`](crate::MAX_STRING_BYTES) is refused before it is read.
    ///
    /// ```
    /// # extern crate elicit_core as mcp_elicit;
    /// use mcp_elicit::{Format, Property, RequestedSchema, StringSchema, IntegerSchema};
    /// let schema = RequestedSchema::new(vec![
    ///     Property::new("email", StringSchema::new().format(Format::Email)),
    ///     Property::new("age", IntegerSchema::new().minimum(18)),
    /// ])?;
    /// let content = serde_json::json!({"email": "nope", "age": 3.5});
    /// let err = schema.validate(content.as_object().unwrap()).unwrap_err();
    /// assert_eq!(err.len(), 2);
    /// assert!(err.concerns("email") && err.concerns("age"));
    /// # Ok::<(), mcp_elicit::SchemaError>(())
    /// ```
    pub fn validate(&self, content: &Map<String, Value>) -> Result<(), Violations> {
        self.validate_each(|_, name| content.get(name))
    }

    /// The one loop behind [`validate`](RequestedSchema::validate): `value_of(index, name)` is
    /// the reply's value for the property at `index` (a map lookup, or a slot filled while
    /// reading the reply's text).
    pub(crate) fn validate_each<'v, M: Member + ?Sized + 'v>(
        &self,
        value_of: impl Fn(usize, &str) -> Option<&'v M>,
    ) -> Result<(), Violations> {
        let mut violations = Vec::new();
        for (i, p) in self.properties.iter().enumerate() {
            match value_of(i, p.name.as_ref()) {
                Some(value) if !value.counts_as_absent() => {
                    if let Err(rule) = value.check(&p.kind) {
                        violations.push(Violation {
                            property: p.name.to_string(),
                            rule,
                        });
                    }
                }
                _ => {
                    if p.required {
                        violations.push(Violation {
                            property: p.name.to_string(),
                            rule: Rule::Required,
                        });
                    }
                }
            }
        }
        Violations::from_vec(violations).map_or(Ok(()), Err)
    }
}

/// A member value of a reply's content, as [`RequestedSchema::validate_each`] reads it: a
/// `Value`, or a [`Slot`] read from the reply's text.
pub(crate) trait Member {
    /// `null` (or an absent slot): the property counts as absent.
    fn counts_as_absent(&self) -> bool;
    /// The first rule of `kind` this present value breaks.
    fn check(&self, kind: &PropertyKind) -> Result<(), Rule>;
}

impl Member for Value {
    fn counts_as_absent(&self) -> bool {
        Value::is_null(self)
    }
    fn check(&self, kind: &PropertyKind) -> Result<(), Rule> {
        check_value(kind, self)
    }
}

impl Member for Slot<'_> {
    fn counts_as_absent(&self) -> bool {
        Slot::is_null(self)
    }
    /// The same rules as [`check_value`] on the slot's `Value`, by the same functions: the common
    /// shapes are checked where they lie, anything else (a wrong type) through its `Value`.
    fn check(&self, kind: &PropertyKind) -> Result<(), Rule> {
        match (kind, self) {
            (PropertyKind::String(s), Slot::Str(text)) => check_string(s, text),
            (PropertyKind::Integer(n), Slot::Number(number)) => check_integer(n, number),
            (PropertyKind::Number(n), Slot::Number(number)) => match number.as_f64() {
                Some(x) => check_number(n, x),
                None => check_value(kind, &self.clone().into_value()),
            },
            (PropertyKind::Boolean(_), Slot::Bool(_)) => Ok(()),
            (PropertyKind::Select(s), Slot::Str(text)) => check_option(&s.options, text),
            (PropertyKind::MultiSelect(m), Slot::Strs(items)) => {
                check_selections(m, items.iter().map(|item| Some(item.as_ref())))
            }
            _ => check_value(kind, &self.clone().into_value()),
        }
    }
}

/// The rule broken by a value of the wrong JSON type.
pub(crate) fn wrong_type(expected: JsonType, value: &Value) -> Rule {
    Rule::Type {
        expected,
        found: JsonType::of(value),
    }
}

/// Check one present value against its property kind; the first broken rule of that value.
pub(crate) fn check_value(kind: &PropertyKind, value: &Value) -> Result<(), Rule> {
    let wrong = |expected| wrong_type(expected, value);
    match kind {
        PropertyKind::String(s) => {
            let Value::String(text) = value else {
                return Err(wrong(JsonType::String));
            };
            check_string(s, text)
        }
        PropertyKind::Integer(n) => {
            let Value::Number(number) = value else {
                return Err(wrong(JsonType::Integer));
            };
            check_integer(n, number)
        }
        PropertyKind::Number(n) => {
            let Some(x) = value.as_f64() else {
                return Err(wrong(JsonType::Number));
            };
            check_number(n, x)
        }
        PropertyKind::Boolean(_) => match value {
            Value::Bool(_) => Ok(()),
            _ => Err(wrong(JsonType::Boolean)),
        },
        PropertyKind::Select(s) => {
            let Value::String(text) = value else {
                return Err(wrong(JsonType::String));
            };
            check_option(&s.options, text)
        }
        PropertyKind::MultiSelect(m) => {
            let Value::Array(items) = value else {
                return Err(wrong(JsonType::Array));
            };
            check_selections(m, items.iter().map(Value::as_str))
        }
    }
}

/// A string's rules: its lengths, then its format.
pub(crate) fn check_string(s: &StringSchema, text: &str) -> Result<(), Rule> {
    // Bounded before the string is counted or format-checked, on every entry point.
    if text.len() > crate::reply::MAX_STRING_BYTES {
        return Err(Rule::TooLarge { bytes: text.len() });
    }
    check_length(text, s.min_length, s.max_length)?;
    match s.format {
        Some(format) if !format.accepts(text) => Err(Rule::Format(format)),
        _ => Ok(()),
    }
}

/// An integer's rules: a whole number, then its bounds.
fn check_integer(n: &IntegerSchema, number: &serde_json::Number) -> Result<(), Rule> {
    check_integer_value(n, integer_value(number)?)
}

/// An integer's bounds, on its value.
pub(crate) fn check_integer_value(n: &IntegerSchema, int: i128) -> Result<(), Rule> {
    if let Some(min) = n.minimum.filter(|min| int < *min) {
        return Err(Rule::Minimum {
            minimum: min.to_string(),
        });
    }
    if let Some(max) = n.maximum.filter(|max| int > *max) {
        return Err(Rule::Maximum {
            maximum: max.to_string(),
        });
    }
    Ok(())
}

/// A number's rules: its bounds.
pub(crate) fn check_number(n: &NumberSchema, x: f64) -> Result<(), Rule> {
    if let Some(min) = n.minimum.filter(|min| x < *min) {
        return Err(Rule::Minimum {
            minimum: min.to_string(),
        });
    }
    if let Some(max) = n.maximum.filter(|max| x > *max) {
        return Err(Rule::Maximum {
            maximum: max.to_string(),
        });
    }
    Ok(())
}

/// A multi-select's rules: each item a string, an option, and not selected before (in order);
/// then the count. `items` gives each item's text, `None` for a non-string.
pub(crate) fn check_selections<'t>(
    m: &MultiSelectSchema,
    items: impl Iterator<Item = Option<&'t str>> + Clone,
) -> Result<(), Rule> {
    check_selections_each(m, items, |_| {})
}

/// [`check_selections`], handing each item that keeps the rules so far to `each`, in order:
/// a reader that converts the items as they are checked goes over them once.
pub(crate) fn check_selections_each<'t>(
    m: &MultiSelectSchema,
    items: impl Iterator<Item = Option<&'t str>> + Clone,
    mut each: impl FnMut(&'t str),
) -> Result<(), Rule> {
    // The options selected so far, by index (the first 64 options; past them, the items
    // before are compared).
    let mut selected: u64 = 0;
    let mut count = 0;
    for (i, item) in items.clone().enumerate() {
        let Some(text) = item else {
            return Err(Rule::Type {
                expected: JsonType::Array,
                found: "an array holding a non-string",
            });
        };
        let Some(index) = m.options.iter().position(|o| same(o.value(), text)) else {
            return Err(Rule::NotAnOption { value: quote(text) });
        };
        let bit = u32::try_from(index)
            .ok()
            .and_then(|index| 1u64.checked_shl(index));
        let again = match bit {
            Some(bit) => {
                let again = selected & bit != 0;
                selected |= bit;
                again
            }
            // Every earlier item is a string (else the loop would have stopped there).
            None => items.clone().take(i).any(|seen| seen == Some(text)),
        };
        if again {
            return Err(Rule::DuplicateSelection { value: quote(text) });
        }
        each(text);
        count += 1;
    }
    if let Some(min_items) = m.min_items.filter(|min| count < *min as usize) {
        return Err(Rule::MinItems { min_items, count });
    }
    if let Some(max_items) = m.max_items.filter(|max| count > *max as usize) {
        return Err(Rule::MaxItems { max_items, count });
    }
    Ok(())
}

/// The integer a JSON number denotes, accepting `3.0` but not `3.5`.
pub(crate) fn integer_value(number: &serde_json::Number) -> Result<i128, Rule> {
    if let Some(i) = number.as_i64() {
        return Ok(i128::from(i));
    }
    if let Some(u) = number.as_u64() {
        return Ok(i128::from(u));
    }
    match number.as_f64() {
        Some(x) if x.is_finite() && x.fract() == 0.0 => {
            // Beyond ±2^127 an f64 has no exact i128; such a value is out of every field's range.
            if x.abs() < 1.0e38 {
                #[allow(clippy::cast_possible_truncation)]
                Ok(x as i128)
            } else {
                Err(Rule::OutOfRange)
            }
        }
        _ => Err(Rule::NotAnInteger),
    }
}

fn check_length(text: &str, min: Option<u32>, max: Option<u32>) -> Result<(), Rule> {
    // A character is 1 to 4 bytes: when the byte length alone settles both bounds, the
    // characters need no counting (the count is only reported when a bound is broken).
    let bytes = text.len();
    if max.is_none_or(|max| bytes <= max as usize)
        && min.is_none_or(|min| bytes.div_ceil(4) >= min as usize)
    {
        return Ok(());
    }
    // ASCII text has one character per byte; a quick check, cheaper than counting.
    let length = if text.is_ascii() {
        bytes
    } else {
        text.chars().count()
    };
    if let Some(min_length) = min.filter(|min| length < *min as usize) {
        return Err(Rule::MinLength { min_length, length });
    }
    if let Some(max_length) = max.filter(|max| length > *max as usize) {
        return Err(Rule::MaxLength { max_length, length });
    }
    Ok(())
}

pub(crate) fn check_option(options: &[EnumOption], text: &str) -> Result<(), Rule> {
    if options.iter().any(|o| same(o.value(), text)) {
        Ok(())
    } else {
        Err(Rule::NotAnOption { value: quote(text) })
    }
}
