//! What is wrong with a schema: a mistake in a hand-built one, or in a run-time change to one.

use std::fmt;

/// A mistake in a hand-built schema or a run-time change to one, naming the property and the rule.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SchemaError {
    /// Two properties share a name.
    DuplicateProperty {
        /// The repeated name.
        name: String,
    },
    /// A property name is empty.
    EmptyName,
    /// A lower bound is above its upper bound.
    InvertedBounds {
        /// The property.
        property: String,
        /// Which pair of bounds, e.g. `minLength > maxLength`.
        bounds: &'static str,
    },
    /// A select offers no options.
    NoOptions {
        /// The property.
        property: String,
    },
    /// Two options of a select share a value.
    DuplicateOption {
        /// The property.
        property: String,
        /// The repeated value.
        value: String,
    },
    /// A select offers more options than [`MAX_OPTIONS`](crate::limits::MAX_OPTIONS), which a
    /// client of this crate refuses to show.
    TooManyOptions {
        /// The property.
        property: String,
        /// How many options it offers.
        count: usize,
        /// The limit.
        limit: usize,
    },
    /// A default does not satisfy the property's own constraints.
    InvalidDefault {
        /// The property.
        property: String,
        /// Why.
        reason: String,
    },
    /// `minItems` asks for more selections than there are options.
    MinItemsExceedsOptions {
        /// The property.
        property: String,
    },
    /// No property of that name, or not one whose options are supplied at run time.
    NotADynamicSelect {
        /// The name given.
        property: String,
    },
    /// The message is empty.
    EmptyMessage,
    /// A number bound or default is NaN or infinite.
    NotFinite {
        /// The property.
        property: String,
    },
}

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::DuplicateProperty { name } => {
                write!(
                    f,
                    "property `{name}` is defined twice; property names must be unique"
                )
            }
            Self::EmptyName => f.write_str("a property has an empty name"),
            Self::InvertedBounds { property, bounds } => {
                write!(
                    f,
                    "property `{property}`: {bounds}, so no value can satisfy it"
                )
            }
            Self::NoOptions { property } => write!(
                f,
                "property `{property}` offers no options; a select needs at least one (for run-time options use `FormRequest::with_options`)"
            ),
            Self::DuplicateOption { property, value } => {
                write!(
                    f,
                    "property `{property}` offers the value {value:?} twice; option values must be unique"
                )
            }
            Self::TooManyOptions {
                property,
                count,
                limit,
            } => write!(
                f,
                "property `{property}` offers {count} options, more than the limit of {limit} (`limits::MAX_OPTIONS`); a list that long is not one to scroll through: let the user type and check the value, or narrow the list first"
            ),
            Self::InvalidDefault { property, reason } => {
                write!(f, "property `{property}`: the default {reason}")
            }
            Self::MinItemsExceedsOptions { property } => write!(
                f,
                "property `{property}`: minItems is larger than the number of options, so no selection can satisfy it"
            ),
            Self::NotADynamicSelect { property } => write!(
                f,
                "`{property}` is not a select of this form whose options are supplied at run time"
            ),
            Self::EmptyMessage => {
                f.write_str("the message is empty; say in one sentence what is asked and why")
            }
            Self::NotFinite { property } => {
                write!(
                    f,
                    "property `{property}`: bounds and defaults must be finite numbers"
                )
            }
        }
    }
}

impl std::error::Error for SchemaError {}
