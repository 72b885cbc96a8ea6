//! The Rust types a form field may have, and how each maps to a schema property and back.

use std::borrow::Cow;
use std::collections::{BTreeSet, HashSet};
use std::hash::Hash;

use serde_json::Value;

use crate::format::Format;
use crate::schema::{
    BooleanSchema, EnumOption, IntegerSchema, MultiSelectSchema, NumberSchema, PropertyKind,
    SelectSchema, SelectStyle, StringSchema,
};
use crate::validate::{
    JsonType, Member, Rule, check_integer_value, check_number, check_option, check_selections_each,
    check_string, integer_value, quote, wrong_type,
};

/// A Rust type that can be one field of an elicitation form.
///
/// Implemented for `String`, `bool`, every integer type, `f32`, `f64`, unit-only enums deriving
/// `Elicit` (single-select), `Vec`/`BTreeSet`/`HashSet` of such an enum (multi-select),
/// [`Choice`] and [`Choices`] (options supplied when the request is built), and `Option` of any of
/// these (an optional field). Nothing else: the spec's forms are flat objects of primitives.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a field of an elicitation form",
    label = "not a flat primitive that form mode allows",
    note = "form fields are `String`, `bool`, integers, `f32`/`f64`, a unit-only enum deriving `Elicit` (single-select), `Vec`/`BTreeSet`/`HashSet` of such an enum (multi-select), `elicit::Choice`/`elicit::Choices`, or an `Option` of one of these",
    note = "the spec's requestedSchema is a flat object: nested objects, free-form arrays, maps and references cannot be asked for; split the question or use URL mode"
)]
pub trait ElicitField: Sized {
    /// Whether the field may be absent from the reply (`Option<T>`).
    const OPTIONAL: bool = false;

    /// The schema of this field, with the constraints its attributes declared.
    fn property_kind(spec: &FieldSpec) -> PropertyKind;

    /// The value of a present JSON value (already checked against the schema). Never panics.
    fn from_json(value: &Value) -> Result<Self, Rule>;

    /// [`from_json`](ElicitField::from_json) from a value the caller no longer needs: a
    /// `String` field takes the text instead of copying it. Same result, same rules.
    #[doc(hidden)]
    fn from_json_owned(value: Value) -> Result<Self, Rule> {
        Self::from_json(&value)
    }

    /// [`from_json_owned`](ElicitField::from_json_owned) from a member value as read from a
    /// reply's text (present and not `null`): the same result, without building a `Value` where
    /// the type can read the slot directly (strings borrowed from the text, select values
    /// matched without allocating).
    #[doc(hidden)]
    fn from_slot(slot: Slot<'_>) -> Result<Self, Rule> {
        Self::from_json_owned(slot.into_value())
    }

    /// [`from_slot`](ElicitField::from_slot) of a value first checked against `kind`, the
    /// field's property: what [`RequestedSchema::validate`](crate::RequestedSchema::validate)
    /// and then `from_slot` give, in one visit of the slot. Types whose check and reading can
    /// share their work do so (an integer's value is computed once; a multi-select's items are
    /// checked and converted in one loop).
    #[doc(hidden)]
    fn from_checked_slot(kind: &PropertyKind, slot: Slot<'_>) -> Result<Self, SlotError> {
        check_then_read(kind, slot)
    }

    /// The value for an absent (or `null`) member; only `Option` has one.
    fn absent() -> Option<Self> {
        None
    }

    /// The JSON a client sends for this value; `None` to omit the member.
    fn to_json(&self) -> Option<Value>;
}

/// [`ElicitField::from_checked_slot`] in two steps: the slot's check, then its reading. Every
/// case a type's own version does not share the work of.
fn check_then_read<T: ElicitField>(kind: &PropertyKind, slot: Slot<'_>) -> Result<T, SlotError> {
    slot.check(kind).map_err(SlotError::Broken)?;
    T::from_slot(slot).map_err(SlotError::Unfit)
}

/// Why a present slot gave no value (see [`ElicitField::from_checked_slot`]).
#[doc(hidden)]
#[derive(Debug, Clone, PartialEq)]
pub enum SlotError {
    /// A rule of the schema is broken.
    Broken(Rule),
    /// The value keeps every rule but does not fit the Rust type.
    Unfit(Rule),
}

/// One member value of a reply's `content`, as read from the reply's text: the common shapes
/// without a `Value` (strings borrowed from the text where they hold no escape), anything else
/// as the very `Value` the ordinary path builds. [`Slot::into_value`] is that `Value`, so every
/// reading and every check of a slot can be (and, outside the common shapes, is) the reading or
/// check of its `Value`. Generated code passes it around; it is not public API.
///
/// `repr(u8)`: the variant is one byte read, not decoded from a niche inside `Value` or `Cow`;
/// every check and conversion of a slot starts by reading it.
#[doc(hidden)]
#[derive(Debug, Clone, PartialEq)]
#[repr(u8)]
pub enum Slot<'a> {
    /// No such member.
    Absent,
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number.
    Number(serde_json::Number),
    /// A string.
    Str(Cow<'a, str>),
    /// An array of strings only (possibly empty).
    Strs(Vec<Cow<'a, str>>),
    /// Anything else (an object, an array holding a non-string).
    Value(Value),
}

impl Slot<'_> {
    /// The `Value` the ordinary path reads for this member (`null` for an absent one).
    pub fn into_value(self) -> Value {
        match self {
            Slot::Absent | Slot::Null => Value::Null,
            Slot::Bool(b) => Value::Bool(b),
            Slot::Number(n) => Value::Number(n),
            Slot::Str(s) => Value::String(s.into_owned()),
            Slot::Strs(items) => Value::Array(
                items
                    .into_iter()
                    .map(|s| Value::String(s.into_owned()))
                    .collect(),
            ),
            Slot::Value(value) => value,
        }
    }

    /// Whether the member is absent or `null` (both count as absent).
    pub fn is_null(&self) -> bool {
        matches!(self, Slot::Absent | Slot::Null | Slot::Value(Value::Null))
    }

    /// Take the value, leaving the slot absent.
    pub fn take(&mut self) -> Self {
        std::mem::replace(self, Slot::Absent)
    }
}

/// A number given in an attribute: an integer literal stays exact.
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Bound {
    Int(i128),
    Float(f64),
}

impl Bound {
    fn as_f64(self) -> f64 {
        match self {
            #[allow(clippy::cast_precision_loss)]
            Bound::Int(i) => i as f64,
            Bound::Float(x) => x,
        }
    }
    fn as_i128(self) -> Option<i128> {
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
    fn from_json(value: &Value) -> Result<Self, Rule> {
        match value {
            Value::String(s) => Ok(s.clone()),
            other => Err(wrong_type(JsonType::String, other)),
        }
    }
    fn from_json_owned(value: Value) -> Result<Self, Rule> {
        match value {
            Value::String(s) => Ok(s),
            other => Err(wrong_type(JsonType::String, &other)),
        }
    }
    fn from_slot(slot: Slot<'_>) -> Result<Self, Rule> {
        match slot {
            Slot::Str(s) => Ok(s.into_owned()),
            other => Self::from_json_owned(other.into_value()),
        }
    }
    #[inline]
    fn from_checked_slot(kind: &PropertyKind, slot: Slot<'_>) -> Result<Self, SlotError> {
        match (kind, slot) {
            (PropertyKind::String(s), Slot::Str(text)) => {
                check_string(s, &text).map_err(SlotError::Broken)?;
                Ok(text.into_owned())
            }
            (kind, slot) => check_then_read(kind, slot),
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
    fn from_json(value: &Value) -> Result<Self, Rule> {
        match value {
            Value::Bool(b) => Ok(*b),
            other => Err(wrong_type(JsonType::Boolean, other)),
        }
    }
    fn from_slot(slot: Slot<'_>) -> Result<Self, Rule> {
        match slot {
            Slot::Bool(b) => Ok(b),
            other => Self::from_json_owned(other.into_value()),
        }
    }
    #[inline]
    fn from_checked_slot(kind: &PropertyKind, slot: Slot<'_>) -> Result<Self, SlotError> {
        match (kind, slot) {
            (PropertyKind::Boolean(_), Slot::Bool(b)) => Ok(b),
            (kind, slot) => check_then_read(kind, slot),
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
            fn from_json(value: &Value) -> Result<Self, Rule> {
                let Value::Number(n) = value else { return Err(wrong_type(JsonType::Integer, value)) };
                let int = integer_value(n)?;
                <$ty>::try_from(int).map_err(|_| Rule::OutOfRange)
            }
            fn from_slot(slot: Slot<'_>) -> Result<Self, Rule> {
                // `from_json` of the slot's `Value`, without building it.
                match slot {
                    Slot::Number(n) => {
                        <$ty>::try_from(integer_value(&n)?).map_err(|_| Rule::OutOfRange)
                    }
                    other => Self::from_json_owned(other.into_value()),
                }
            }
            #[inline]
            fn from_checked_slot(kind: &PropertyKind, slot: Slot<'_>) -> Result<Self, SlotError> {
                match (kind, slot) {
                    (PropertyKind::Integer(schema), Slot::Number(n)) => {
                        let int = integer_value(&n)
                            .and_then(|int| check_integer_value(schema, int).map(|()| int))
                            .map_err(SlotError::Broken)?;
                        <$ty>::try_from(int).map_err(|_| SlotError::Unfit(Rule::OutOfRange))
                    }
                    (kind, slot) => check_then_read(kind, slot),
                }
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
    fn from_json(value: &Value) -> Result<Self, Rule> {
        value
            .as_f64()
            .ok_or_else(|| wrong_type(JsonType::Number, value))
    }
    fn from_slot(slot: Slot<'_>) -> Result<Self, Rule> {
        match slot {
            Slot::Number(n) => match n.as_f64() {
                Some(x) => Ok(x),
                None => Self::from_json_owned(Value::Number(n)),
            },
            other => Self::from_json_owned(other.into_value()),
        }
    }
    #[inline]
    fn from_checked_slot(kind: &PropertyKind, slot: Slot<'_>) -> Result<Self, SlotError> {
        match (kind, slot) {
            (PropertyKind::Number(schema), Slot::Number(n)) => match n.as_f64() {
                Some(x) => check_number(schema, x)
                    .map(|()| x)
                    .map_err(SlotError::Broken),
                None => check_then_read(kind, Slot::Number(n)),
            },
            (kind, slot) => check_then_read(kind, slot),
        }
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
    fn from_json(value: &Value) -> Result<Self, Rule> {
        narrow(f64::from_json(value)?)
    }
    fn from_slot(slot: Slot<'_>) -> Result<Self, Rule> {
        narrow(f64::from_slot(slot)?)
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
    fn from_json(value: &Value) -> Result<Self, Rule> {
        T::from_json(value).map(Some)
    }
    fn from_json_owned(value: Value) -> Result<Self, Rule> {
        T::from_json_owned(value).map(Some)
    }
    fn from_slot(slot: Slot<'_>) -> Result<Self, Rule> {
        T::from_slot(slot).map(Some)
    }
    #[inline]
    fn from_checked_slot(kind: &PropertyKind, slot: Slot<'_>) -> Result<Self, SlotError> {
        T::from_checked_slot(kind, slot).map(Some)
    }
    fn absent() -> Option<Self> {
        Some(None)
    }
    fn to_json(&self) -> Option<Value> {
        self.as_ref().and_then(T::to_json)
    }
}

/// A unit-only enum whose variants are the options of a select. `#[derive(Elicit)]` on such an
/// enum implements it (and [`ElicitField`], so the enum is a single-select field).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a set of options for a select",
    label = "a multi-select holds a unit-only enum deriving `Elicit`",
    note = "free-form arrays (like `Vec<String>`) and arrays of objects are not part of the spec's form mode; derive `Elicit` on a unit-only enum of the allowed values, or use `elicit::Choices` for options known only at run time"
)]
pub trait Select: Sized + 'static {
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

/// Read a single-select value into a [`Select`] enum, for generated `ElicitField` impls.
#[doc(hidden)]
pub fn select_from_json<E: Select>(value: &Value) -> Result<E, Rule> {
    match value {
        Value::String(s) => select_from_str(s),
        other => Err(wrong_type(JsonType::String, other)),
    }
}

/// [`ElicitField::from_checked_slot`] of a single-select, for generated `ElicitField` impls.
#[doc(hidden)]
#[inline]
pub fn select_from_checked_slot<E: Select + ElicitField>(
    kind: &PropertyKind,
    slot: Slot<'_>,
) -> Result<E, SlotError> {
    match (kind, slot) {
        (PropertyKind::Select(s), Slot::Str(text)) => {
            check_option(&s.options, &text).map_err(SlotError::Broken)?;
            select_from_str(&text).map_err(SlotError::Unfit)
        }
        (kind, slot) => check_then_read(kind, slot),
    }
}

/// [`select_from_json`] from a [`Slot`], for generated `ElicitField` impls: a string is matched
/// where it lies in the reply's text.
#[doc(hidden)]
pub fn select_from_slot<E: Select>(slot: Slot<'_>) -> Result<E, Rule> {
    match slot {
        Slot::Str(s) => select_from_str(&s),
        other => select_from_json(&other.into_value()),
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

fn multi_from_json<E: Select, C: FromIterator<E>>(value: &Value) -> Result<C, Rule> {
    let Value::Array(items) = value else {
        return Err(wrong_type(JsonType::Array, value));
    };
    items.iter().map(select_from_json::<E>).collect()
}

fn multi_from_slot<E: Select, C: FromIterator<E>>(slot: Slot<'_>) -> Result<C, Rule> {
    match slot {
        Slot::Strs(items) => items.iter().map(|s| select_from_str::<E>(s)).collect(),
        other => multi_from_json::<E, C>(&other.into_value()),
    }
}

fn multi_to_json<'a, E: Select>(items: impl Iterator<Item = &'a E>) -> Option<Value> {
    Some(Value::Array(
        items.map(|e| Value::String(e.value().to_owned())).collect(),
    ))
}

impl<E: Select> ElicitField for Vec<E> {
    fn property_kind(spec: &FieldSpec) -> PropertyKind {
        multi_kind::<E>(spec)
    }
    fn from_json(value: &Value) -> Result<Self, Rule> {
        multi_from_json::<E, _>(value)
    }
    fn from_slot(slot: Slot<'_>) -> Result<Self, Rule> {
        multi_from_slot::<E, _>(slot)
    }
    #[inline]
    fn from_checked_slot(kind: &PropertyKind, slot: Slot<'_>) -> Result<Self, SlotError> {
        match (kind, slot) {
            (PropertyKind::MultiSelect(m), Slot::Strs(items)) => {
                // Each item converted as it is checked, into a `Vec` of the right size.
                let mut values = Vec::with_capacity(items.len());
                let mut unfit = None;
                check_selections_each(m, items.iter().map(|item| Some(item.as_ref())), |text| {
                    match E::from_value(text) {
                        Some(value) => values.push(value),
                        None => unfit = unfit.or(Some(text)),
                    }
                })
                .map_err(SlotError::Broken)?;
                match unfit {
                    None => Ok(values),
                    Some(text) => Err(SlotError::Unfit(Rule::NotAnOption { value: quote(text) })),
                }
            }
            (kind, slot) => check_then_read(kind, slot),
        }
    }
    fn to_json(&self) -> Option<Value> {
        multi_to_json(self.iter())
    }
}

impl<E: Select + Ord> ElicitField for BTreeSet<E> {
    fn property_kind(spec: &FieldSpec) -> PropertyKind {
        multi_kind::<E>(spec)
    }
    fn from_json(value: &Value) -> Result<Self, Rule> {
        multi_from_json::<E, _>(value)
    }
    fn from_slot(slot: Slot<'_>) -> Result<Self, Rule> {
        multi_from_slot::<E, _>(slot)
    }
    fn to_json(&self) -> Option<Value> {
        multi_to_json(self.iter())
    }
}

impl<E: Select + Hash + Eq, S: std::hash::BuildHasher + Default> ElicitField for HashSet<E, S> {
    fn property_kind(spec: &FieldSpec) -> PropertyKind {
        multi_kind::<E>(spec)
    }
    fn from_json(value: &Value) -> Result<Self, Rule> {
        multi_from_json::<E, _>(value)
    }
    fn from_slot(slot: Slot<'_>) -> Result<Self, Rule> {
        multi_from_slot::<E, _>(slot)
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
    fn from_json(value: &Value) -> Result<Self, Rule> {
        String::from_json(value).map(Choice)
    }
    fn from_json_owned(value: Value) -> Result<Self, Rule> {
        String::from_json_owned(value).map(Choice)
    }
    fn from_slot(slot: Slot<'_>) -> Result<Self, Rule> {
        String::from_slot(slot).map(Choice)
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
    fn from_json(value: &Value) -> Result<Self, Rule> {
        let Value::Array(items) = value else {
            return Err(wrong_type(JsonType::Array, value));
        };
        items
            .iter()
            .map(String::from_json)
            .collect::<Result<_, _>>()
            .map(Choices)
    }
    fn from_slot(slot: Slot<'_>) -> Result<Self, Rule> {
        match slot {
            Slot::Strs(items) => Ok(Choices(items.into_iter().map(Cow::into_owned).collect())),
            other => Self::from_json(&other.into_value()),
        }
    }
    fn to_json(&self) -> Option<Value> {
        Some(Value::Array(
            self.0.iter().cloned().map(Value::String).collect(),
        ))
    }
}
