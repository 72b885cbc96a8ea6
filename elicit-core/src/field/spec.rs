//! What the derive read from a field's attributes, for generated code to build its property:
//! the constraints, the default, and whether the field is required.

use super::{ElicitField, Select};
use crate::format::Format;

/// Whether a field must be present in the reply: the one place that decides it.
/// A field is optional when its type says so (`Option<T>`) or when `#[serde(default)]` supplies
/// a value for an absent member.
pub const fn is_required<T: ElicitField>(has_default: bool) -> bool {
    !T::OPTIONAL && !has_default
}

/// A number given in an attribute: an integer literal stays exact.
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Bound {
    Int(i128),
    Float(f64),
}

impl Bound {
    pub(crate) fn as_f64(self) -> f64 {
        match self {
            #[allow(clippy::cast_precision_loss)]
            Bound::Int(i) => i as f64,
            Bound::Float(x) => x,
        }
    }
    pub(crate) fn as_i128(self) -> Option<i128> {
        match self {
            Bound::Int(i) => Some(i),
            Bound::Float(_) => None,
        }
    }
}

/// A `default` given in an attribute.
#[doc(hidden)]
#[derive(Debug, Clone, PartialEq)]
pub enum DefaultValue {
    Bool(bool),
    Number(Bound),
    Str(&'static str),
    Strs(Vec<&'static str>),
}

/// The constraint attributes of one field, as the derive collected them (checked at compile
/// time). Generated code builds it; it is not public API.
#[doc(hidden)]
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FieldSpec {
    pub format: Option<Format>,
    pub min_length: Option<u32>,
    pub max_length: Option<u32>,
    pub minimum: Option<Bound>,
    pub maximum: Option<Bound>,
    pub min_items: Option<u32>,
    pub max_items: Option<u32>,
    pub default: Option<DefaultValue>,
    pub legacy_enum_names: bool,
}

/// The `DefaultValue` of a default given as variants: checks at compile time that the variant
/// (or array of variants) belongs to the field's options enum.
pub fn default_of<F: DefaultOf<V>, V>(value: &V) -> DefaultValue {
    F::default_of(value)
}

/// A field type that accepts `V` as its default.
#[diagnostic::on_unimplemented(
    message = "`{V}` cannot be the default of a `{Self}` field",
    label = "not an option of this field",
    note = "a select's default is one of its enum's variants (`Enum::Variant`); a multi-select's default is an array of them (`[Enum::A, Enum::B]`)"
)]
pub trait DefaultOf<V> {
    /// The default as the schema writes it.
    fn default_of(value: &V) -> DefaultValue;
}

impl<E: Select> DefaultOf<E> for E {
    fn default_of(value: &E) -> DefaultValue {
        DefaultValue::Str(value.value())
    }
}

impl<V, T: DefaultOf<V>> DefaultOf<V> for Option<T> {
    fn default_of(value: &V) -> DefaultValue {
        T::default_of(value)
    }
}

macro_rules! multi_default {
    ($($collection:ty),*) => {$(
        impl<E: Select, const N: usize> DefaultOf<[E; N]> for $collection {
            fn default_of(value: &[E; N]) -> DefaultValue {
                DefaultValue::Strs(value.iter().map(Select::value).collect())
            }
        }
    )*};
}
multi_default!(Vec<E>, std::collections::BTreeSet<E>);

impl<E: Select, S, const N: usize> DefaultOf<[E; N]> for std::collections::HashSet<E, S> {
    fn default_of(value: &[E; N]) -> DefaultValue {
        DefaultValue::Strs(value.iter().map(Select::value).collect())
    }
}
