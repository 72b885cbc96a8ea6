//! Why a host cannot show a request: the member and the rule.

use std::fmt;

use crate::requested::SchemaError;
use crate::url::UrlError;

/// A request a host cannot show: the member and the rule.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum IncomingError {
    /// A member is missing or has the wrong JSON type.
    Member {
        /// Where, e.g. `requestedSchema.properties.port`.
        at: String,
        /// What it must be, e.g. `"an object"`.
        expected: &'static str,
    },
    /// `mode` is neither `form` nor `url`.
    UnknownMode,
    /// A property of a type a form cannot hold: an object (nested), or an unknown type.
    UnsupportedProperty {
        /// The property.
        property: String,
        /// What it is, e.g. `"a nested object"`.
        found: String,
    },
    /// The schema breaks a rule of a form (duplicate options, a default outside its bounds…).
    Schema(SchemaError),
    /// The URL is not one to open.
    Url(UrlError),
    /// A member holds more than a host reads: a string longer than its limit in
    /// [`limits`](crate::limits) (a message, a name, a title, a description, a default), or more
    /// items (properties, options, input requests). Refused before it is copied or checked.
    TooLarge {
        /// Where, e.g. `requestedSchema.properties.plan.oneOf[3].title`.
        at: String,
        /// What is counted, plural: `"bytes"`, `"options"`, `"properties"`…
        what: &'static str,
        /// The limit.
        limit: usize,
    },
}

impl fmt::Display for IncomingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IncomingError::Member { at, expected } => write!(f, "`{at}` must be {expected}"),
            IncomingError::UnknownMode => f.write_str("`mode` must be \"form\" or \"url\""),
            IncomingError::UnsupportedProperty { property, found } => write!(
                f,
                "`{property}` is {found}: a form holds strings, numbers, booleans and selects only"
            ),
            IncomingError::Schema(error) => write!(f, "the form's schema is invalid: {error}"),
            IncomingError::Url(error) => write!(f, "the URL is refused: {error}"),
            IncomingError::TooLarge { at, what, limit } => {
                write!(f, "`{at}` has more {what} than the limit of {limit}")
            }
        }
    }
}

impl std::error::Error for IncomingError {}

impl From<SchemaError> for IncomingError {
    fn from(error: SchemaError) -> Self {
        IncomingError::Schema(error)
    }
}
