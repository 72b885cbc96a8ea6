//! The Rust types a form field may have, and how each maps to a schema property and back.

use std::borrow::Cow;
use std::collections::{BTreeSet, HashSet};
use std::hash::Hash;

use serde_json::Value;

use crate::requested::check::{integer_value, number_value, wrong_type};
use crate::requested::value::FieldValue;
use crate::requested::{
    BooleanSchema, EnumOption, IntegerSchema, MultiSelectSchema, NumberSchema, PropertyKind,
    SelectSchema, SelectStyle, StringSchema,
};
use crate::violation::{JsonType, Rule, quote};

pub(crate) mod kinds;
pub(crate) mod spec;

pub use spec::{Bound, DefaultValue, FieldSpec};

/// A Rust type that can be one field of an elicitation form.
///
/// Implemented for `String`, `bool`, every integer type, `f32`, `f64`, unit-only enums deriving
/// `Elicit` (single-select), `Vec`/`BTreeSet`/`HashSet` of such an enum (multi-select),
/// [`Choice`] and [`Choices`] (options supplied when the request is built), and `Option` of any of
/// these (an optional field). Nothing else: the spec's forms are flat objects of primitives.
///
/// The trait is sealed: each implementation is tied to one schema kind and to the rules the
/// derive checks for it at compile time, so it is implemented here and by `#[derive(Elicit)]` on
/// unit-only enums, not by hand. A field of your own type (an `Email` newtype, say) is a `String`
/// field (with `format = "email"`) converted after the reply is accepted, e.g. with `TryFrom`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a field of an elicitation form",
    label = "not a flat primitive that form mode allows",
    note = "form fields are `String`, `bool`, integers, `f32`/`f64`, a unit-only enum deriving `Elicit` (single-select), `Vec`/`BTreeSet`/`HashSet` of such an enum (multi-select), `mcp_elicit::schema::Choice`/`mcp_elicit::schema::Choices`, or an `Option` of one of these",
    note = "the spec's requestedSchema is a flat object: nested objects, free-form arrays, maps and references cannot be asked for; split the question or use URL mode"
)]
pub trait ElicitField: Sized + sealed::Field {
    /// Whether the field may be absent from the reply (`Option<T>`).
    #[doc(hidden)]
    const OPTIONAL: bool = false;

    /// The schema of this field, with the constraints its attributes declared.
    #[doc(hidden)]
    fn property_kind(spec: &FieldSpec) -> PropertyKind;

    /// The field's value from a present member that kept every rule of its property: only the
    /// conversion to the Rust type, which may still fail (an `f32` beyond its range). Never
    /// panics, whatever the value.
    #[doc(hidden)]
    fn from_value(value: FieldValue<'_>) -> Result<Self, Rule>;

    /// The value for an absent (or `null`) member; only `Option` has one.
    #[doc(hidden)]
    fn absent() -> Option<Self> {
        None
    }

    /// The JSON a client sends for this value; `None` to omit the member.
    #[doc(hidden)]
    fn to_json(&self) -> Option<Value>;
}

/// The seal of [`ElicitField`]: implemented here, and by the derive for options enums.
#[doc(hidden)]
pub mod sealed {
    /// Implemented only where `ElicitField` is.
    pub trait Field {}
}

macro_rules! sealed {
    ($($ty:ty),*) => {$( impl sealed::Field for $ty {} )*};
}
sealed!(
    String, bool, i8, i16, i32, i64, isize, u8, u16, u32, u64, usize, f32, f64, Choice, Choices
);
impl<T: ElicitField> sealed::Field for Option<T> {}
impl<E: Select> sealed::Field for Vec<E> {}
impl<E: Select + Ord> sealed::Field for BTreeSet<E> {}
impl<E: Select + Hash + Eq, S: std::hash::BuildHasher + Default> sealed::Field for HashSet<E, S> {}

impl ElicitField for String {
    fn property_kind(spec: &FieldSpec) -> PropertyKind {
        PropertyKind::String(StringSchema {
            format: spec.format,
            min_length: spec.min_length,
            max_length: spec.max_length,
            default: match &spec.default {
                Some(DefaultValue::Str(s)) => Some((*s).into()),
                _ => None,
            },
        })
    }
    fn from_value(value: FieldValue<'_>) -> Result<Self, Rule> {
        match value {
            FieldValue::Str(s) => Ok(s.into_owned()),
            other => Err(wrong_type(JsonType::String, &other)),
        }
    }
    fn to_json(&self) -> Option<Value> {
        Some(Value::String(self.clone()))
    }
}

impl ElicitField for bool {
    fn property_kind(spec: &FieldSpec) -> PropertyKind {
        PropertyKind::Boolean(BooleanSchema {
            default: match spec.default {
                Some(DefaultValue::Bool(b)) => Some(b),
                _ => None,
            },
        })
    }
    fn from_value(value: FieldValue<'_>) -> Result<Self, Rule> {
        match value {
            FieldValue::Bool(b) => Ok(b),
            other => Err(wrong_type(JsonType::Boolean, &other)),
        }
    }
    fn to_json(&self) -> Option<Value> {
        Some(Value::Bool(*self))
    }
}

macro_rules! integer_fields {
    ($($ty:ty),*) => {$(
        impl ElicitField for $ty {
            fn property_kind(spec: &FieldSpec) -> PropertyKind {
                PropertyKind::Integer(IntegerSchema {
                    minimum: Some(spec.minimum.and_then(Bound::as_i128).unwrap_or(<$ty>::MIN as i128)),
                    maximum: Some(spec.maximum.and_then(Bound::as_i128).unwrap_or(<$ty>::MAX as i128)),
                    default: match spec.default {
                        Some(DefaultValue::Number(b)) => b.as_i128(),
                        _ => None,
                    },
                })
            }
            fn from_value(value: FieldValue<'_>) -> Result<Self, Rule> {
                <$ty>::try_from(integer_value(&value)?).map_err(|_| Rule::OutOfRange)
            }
            fn to_json(&self) -> Option<Value> {
                Some(Value::from(*self))
            }
        }
    )*};
}
integer_fields!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

impl ElicitField for f64 {
    fn property_kind(spec: &FieldSpec) -> PropertyKind {
        PropertyKind::Number(NumberSchema {
            minimum: spec.minimum.map(Bound::as_f64),
            maximum: spec.maximum.map(Bound::as_f64),
            default: match spec.default {
                Some(DefaultValue::Number(b)) => Some(b.as_f64()),
                _ => None,
            },
        })
    }
    fn from_value(value: FieldValue<'_>) -> Result<Self, Rule> {
        number_value(&value)
    }
    fn to_json(&self) -> Option<Value> {
        // A NaN or infinity has no JSON form; a client could never send one.
        serde_json::Number::from_f64(*self).map(Value::Number)
    }
}

impl ElicitField for f32 {
    fn property_kind(spec: &FieldSpec) -> PropertyKind {
        f64::property_kind(spec)
    }
    fn from_value(value: FieldValue<'_>) -> Result<Self, Rule> {
        narrow(f64::from_value(value)?)
    }
    fn to_json(&self) -> Option<Value> {
        f64::from(*self).to_json()
    }
}

/// An `f64` as an `f32` field's value: out of range unless it narrows to a finite `f32`.
fn narrow(x: f64) -> Result<f32, Rule> {
    #[allow(clippy::cast_possible_truncation)]
    let narrowed = x as f32;
    if narrowed.is_finite() {
        Ok(narrowed)
    } else {
        Err(Rule::OutOfRange)
    }
}

impl<T: ElicitField> ElicitField for Option<T> {
    const OPTIONAL: bool = true;
    fn property_kind(spec: &FieldSpec) -> PropertyKind {
        T::property_kind(spec)
    }
    fn from_value(value: FieldValue<'_>) -> Result<Self, Rule> {
        T::from_value(value).map(Some)
    }
    fn absent() -> Option<Self> {
        Some(None)
    }
    fn to_json(&self) -> Option<Value> {
        self.as_ref().and_then(T::to_json)
    }
}

/// A unit-only enum whose variants are the options of a select. `#[derive(Elicit)]` on such an
/// enum implements it (and [`ElicitField`], so the enum is a single-select field). Sealed like
/// [`ElicitField`]: the derive checks the options (at least one, each value once) at compile
/// time, which a hand-written impl would skip.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a set of options for a select",
    label = "a multi-select holds a unit-only enum deriving `Elicit`",
    note = "free-form arrays (like `Vec<String>`) and arrays of objects are not part of the spec's form mode; derive `Elicit` on a unit-only enum of the allowed values, or use `mcp_elicit::schema::Choices` for options known only at run time"
)]
pub trait Select: Sized + 'static + sealed::Field {
    /// The options, one per variant, in declaration order.
    const OPTIONS: &'static [EnumOption];
    /// Whether each variant (same order as `OPTIONS`) was marked `#[elicit(dangerous)]`.
    const DANGEROUS: &'static [bool];
    /// The variant whose value is `value`.
    fn from_value(value: &str) -> Option<Self>;
    /// The value sent on the wire for this variant.
    fn value(&self) -> &'static str;
    /// Whether this variant was marked `#[elicit(dangerous)]` (it can never be a default).
    fn is_dangerous(&self) -> bool;
}

/// The single-select schema of a [`Select`] enum, for generated `ElicitField` impls.
#[doc(hidden)]
pub fn select_kind<E: Select>(spec: &FieldSpec) -> PropertyKind {
    PropertyKind::Select(SelectSchema {
        options: E::OPTIONS.into(),
        dynamic: false,
        default: match &spec.default {
            Some(DefaultValue::Str(s)) => Some((*s).into()),
            _ => None,
        },
        style: if spec.legacy_enum_names {
            SelectStyle::Legacy
        } else {
            SelectStyle::Standard
        },
    })
}

/// [`ElicitField::from_value`] of a [`Select`] enum, for generated `ElicitField` impls.
#[doc(hidden)]
pub fn select_from_value<E: Select>(value: FieldValue<'_>) -> Result<E, Rule> {
    match value {
        FieldValue::Str(s) => select_from_str(&s),
        other => Err(wrong_type(JsonType::String, &other)),
    }
}

fn select_from_str<E: Select>(s: &str) -> Result<E, Rule> {
    E::from_value(s).ok_or_else(|| Rule::NotAnOption { value: quote(s) })
}

fn multi_kind<E: Select>(spec: &FieldSpec) -> PropertyKind {
    PropertyKind::MultiSelect(MultiSelectSchema {
        options: E::OPTIONS.into(),
        dynamic: false,
        min_items: spec.min_items,
        max_items: spec.max_items,
        default: match &spec.default {
            Some(DefaultValue::Strs(v)) => {
                Some(v.iter().map(|s| (*s).into()).collect::<Vec<_>>().into())
            }
            _ => None,
        },
    })
}

fn multi_from_value<E: Select, C: FromIterator<E>>(value: FieldValue<'_>) -> Result<C, Rule> {
    match value {
        FieldValue::Items(items) => items
            .iter()
            .map(|item| match item {
                Some(text) => select_from_str::<E>(text),
                None => Err(wrong_type(
                    JsonType::Array,
                    &FieldValue::Other("an array holding a non-string"),
                )),
            })
            .collect(),
        other => Err(wrong_type(JsonType::Array, &other)),
    }
}

fn multi_to_json<'a, E: Select>(items: impl Iterator<Item = &'a E>) -> Option<Value> {
    Some(Value::Array(
        items.map(|e| Value::String(e.value().to_owned())).collect(),
    ))
}

// Three impls written out, not one macro: a field of the wrong collection type (`Vec<Struct>`)
// shows these impls in its error, and a macro's would show its internals.
impl<E: Select> ElicitField for Vec<E> {
    fn property_kind(spec: &FieldSpec) -> PropertyKind {
        multi_kind::<E>(spec)
    }
    fn from_value(value: FieldValue<'_>) -> Result<Self, Rule> {
        multi_from_value::<E, _>(value)
    }
    fn to_json(&self) -> Option<Value> {
        multi_to_json(self.iter())
    }
}

impl<E: Select + Ord> ElicitField for BTreeSet<E> {
    fn property_kind(spec: &FieldSpec) -> PropertyKind {
        multi_kind::<E>(spec)
    }
    fn from_value(value: FieldValue<'_>) -> Result<Self, Rule> {
        multi_from_value::<E, _>(value)
    }
    fn to_json(&self) -> Option<Value> {
        multi_to_json(self.iter())
    }
}

impl<E: Select + Hash + Eq, S: std::hash::BuildHasher + Default> ElicitField for HashSet<E, S> {
    fn property_kind(spec: &FieldSpec) -> PropertyKind {
        multi_kind::<E>(spec)
    }
    fn from_value(value: FieldValue<'_>) -> Result<Self, Rule> {
        multi_from_value::<E, _>(value)
    }
    fn to_json(&self) -> Option<Value> {
        multi_to_json(self.iter())
    }
}

/// A single-select whose options are known only mid-call (the three accounts the server just
/// found). Supply them with [`FormRequest::with_options`](crate::FormRequest::with_options); the
/// reply is checked against the options actually offered. Holds the chosen option's value.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Choice(String);

impl Choice {
    /// The chosen option's value.
    pub fn value(&self) -> &str {
        &self.0
    }
    /// The chosen option's value, owned.
    pub fn into_value(self) -> String {
        self.0
    }
    /// A choice of this value, as a client would send it (for tests and client-side code).
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }
}

impl ElicitField for Choice {
    fn property_kind(spec: &FieldSpec) -> PropertyKind {
        PropertyKind::Select(SelectSchema {
            style: if spec.legacy_enum_names {
                SelectStyle::Legacy
            } else {
                SelectStyle::Standard
            },
            // Checked against the options when they are supplied (`with_options`).
            default: match &spec.default {
                Some(DefaultValue::Str(s)) => Some((*s).into()),
                _ => None,
            },
            ..SelectSchema::dynamic()
        })
    }
    fn from_value(value: FieldValue<'_>) -> Result<Self, Rule> {
        String::from_value(value).map(Choice)
    }
    fn to_json(&self) -> Option<Value> {
        Some(Value::String(self.0.clone()))
    }
}

/// A multi-select whose options are known only mid-call. Holds the chosen values, in the order
/// the client sent them.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Choices(Vec<String>);

impl Choices {
    /// The chosen values.
    pub fn values(&self) -> &[String] {
        &self.0
    }
    /// The chosen values, owned.
    pub fn into_values(self) -> Vec<String> {
        self.0
    }
    /// Choices of these values, as a client would send them.
    pub fn new(values: impl IntoIterator<Item = impl Into<String>>) -> Self {
        Self(values.into_iter().map(Into::into).collect())
    }
}

impl ElicitField for Choices {
    fn property_kind(spec: &FieldSpec) -> PropertyKind {
        PropertyKind::MultiSelect(MultiSelectSchema {
            min_items: spec.min_items,
            max_items: spec.max_items,
            ..MultiSelectSchema::dynamic()
        })
    }
    fn from_value(value: FieldValue<'_>) -> Result<Self, Rule> {
        match value {
            FieldValue::Items(items) => items
                .into_iter()
                .map(|item| {
                    item.map(Cow::into_owned).ok_or_else(|| {
                        wrong_type(
                            JsonType::Array,
                            &FieldValue::Other("an array holding a non-string"),
                        )
                    })
                })
                .collect::<Result<_, _>>()
                .map(Choices),
            other => Err(wrong_type(JsonType::Array, &other)),
        }
    }
    fn to_json(&self) -> Option<Value> {
        Some(Value::Array(
            self.0.iter().cloned().map(Value::String).collect(),
        ))
    }
}
