//! What a broken rule is: the rule, the property that broke it, and every violation of a reply.
//!
//! Every violation is collected (not just the first), each naming the property and the rule.

use std::fmt;

use crate::format::Format;

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
}

/// The JSON type of `value`, with its article, for messages: `"a string"`, `"an object"`,
/// `"null"`.
///
/// ```
/// # extern crate elicit_core as mcp_elicit;
/// assert_eq!(mcp_elicit::schema::json_kind(&serde_json::json!([1])), "an array");
/// ```
pub fn json_kind(value: &serde_json::Value) -> &'static str {
    use serde_json::Value;
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// `"s"` unless `n` is one.
pub(crate) const fn plural(n: u32) -> &'static str {
    if n == 1 { "" } else { "s" }
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
    /// A string longer than [`MAX_STRING_BYTES`](crate::limits::MAX_STRING_BYTES): refused before it is
    /// read, whatever the schema allows.
    TooLarge {
        /// Its size in bytes.
        bytes: usize,
    },
    /// The value is valid JSON of the right type but does not fit the Rust field (e.g. an `f32`
    /// field given a number beyond `f32::MAX`).
    OutOfRange,
    /// An integer too large to be read exactly: beyond 64 bits, or beyond 2^53 written with a
    /// fraction or an exponent (JSON numbers are read as `i64`, `u64` or `f64`).
    Inexact,
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
                crate::limits::MAX_STRING_BYTES
            ),
            Rule::OutOfRange => f.write_str("is out of range for this field"),
            Rule::Inexact => f.write_str(
                "is too large to read exactly (a whole number within 64 bits, written without a fraction or exponent, is needed)",
            ),
        }
    }
}

impl Rule {
    /// The rule in words for the person filling in the form, after the field's label ("must be
    /// at most 10"): no schema keywords, and nothing the client sent is quoted back — a re-asked
    /// form shows this to the user, and the client's value may be long or not theirs.
    ///
    /// ```
    /// # extern crate elicit_core as mcp_elicit;
    /// use mcp_elicit::{schema::{Format, Rule}};
    /// assert_eq!(Rule::Maximum { maximum: "10".into() }.for_user().to_string(), "must be at most 10");
    /// assert_eq!(
    ///     Rule::Format(Format::Email).for_user().to_string(),
    ///     "must be an email address like name@example.com",
    /// );
    /// ```
    #[must_use]
    pub fn for_user(&self) -> impl fmt::Display + '_ {
        ForUser(self)
    }
}

/// [`Rule::for_user`].
struct ForUser<'a>(&'a Rule);

impl fmt::Display for ForUser<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Rule::Required => f.write_str("is required"),
            Rule::Type { expected, .. } => f.write_str(match expected {
                JsonType::String => "must be text",
                JsonType::Integer => "must be a whole number",
                JsonType::Number => "must be a number",
                JsonType::Boolean => "must be yes or no",
                JsonType::Array => "must be a list of the choices offered",
                JsonType::Object => "must be a set of fields",
            }),
            Rule::NotAnInteger => f.write_str("must be a whole number"),
            Rule::Minimum { minimum } => write!(f, "must be at least {minimum}"),
            Rule::Maximum { maximum } => write!(f, "must be at most {maximum}"),
            Rule::MinLength { min_length, .. } => write!(
                f,
                "must be at least {min_length} character{} long",
                plural(*min_length)
            ),
            Rule::MaxLength { max_length, .. } => write!(
                f,
                "must be at most {max_length} character{} long",
                plural(*max_length)
            ),
            Rule::Format(format) => write!(f, "must be {}", format.describe()),
            Rule::NotAnOption { .. } => f.write_str("must be one of the choices offered"),
            Rule::MinItems { min_items, .. } => {
                write!(f, "needs at least {min_items} choice{}", plural(*min_items))
            }
            Rule::MaxItems { max_items, .. } => {
                write!(f, "allows at most {max_items} choice{}", plural(*max_items))
            }
            Rule::DuplicateSelection { .. } => f.write_str("has the same choice more than once"),
            Rule::TooLarge { .. } => f.write_str("is too long"),
            Rule::OutOfRange | Rule::Inexact => f.write_str("is out of range"),
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
