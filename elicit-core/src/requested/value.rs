//! A property's value as read from a reply: [`FieldValue`], and the serde seed that reads one
//! for its property's kind from any `Deserializer` (a reply's text, a `Value`, an SDK's result).

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use super::PropertyKind;

/// One present, non-`null` member of an accepted reply's `content`, as read for its property.
/// Generated code and [`ElicitField`](crate::schema::ElicitField) impls read it; not public API.
#[doc(hidden)]
#[derive(Debug, Clone, PartialEq)]
pub enum FieldValue<'de> {
    /// `true` or `false`.
    Bool(bool),
    /// A number written as an integer that fits `i64` or `u64`.
    Int(i128),
    /// Any other number: with a fraction or an exponent, or an integer beyond 64 bits (which
    /// `serde_json` can only give as the nearest `f64`).
    Float(f64),
    /// A string.
    Str(Cow<'de, str>),
    /// The array of a multi-select property: its items in order, `None` for a non-string.
    /// Reading stops at the first non-string, and after one item more than the options offered
    /// (the rules stop at the first broken item, and a list longer than the options has a
    /// duplicate or a non-option within that many), so a hostile array costs no more than the
    /// schema allows.
    Items(Vec<Option<Cow<'de, str>>>),
    /// Any other shape (an object; an array where no multi-select is asked): its JSON type,
    /// with its article, for messages.
    Other(&'static str),
}

impl FieldValue<'_> {
    /// The JSON type of the value, with its article (`"a string"`), for messages.
    pub fn json_type(&self) -> &'static str {
        match self {
            FieldValue::Bool(_) => "a boolean",
            FieldValue::Int(_) | FieldValue::Float(_) => "a number",
            FieldValue::Str(_) => "a string",
            FieldValue::Items(_) => "an array",
            FieldValue::Other(found) => found,
        }
    }

    /// The JSON value this member was.
    pub fn into_value(self) -> Value {
        match self {
            FieldValue::Bool(b) => Value::Bool(b),
            FieldValue::Int(i) => i64::try_from(i)
                .map(Value::from)
                .or_else(|_| u64::try_from(i).map(Value::from))
                .unwrap_or(Value::Null),
            FieldValue::Float(x) => {
                serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number)
            }
            FieldValue::Str(s) => Value::String(s.into_owned()),
            FieldValue::Items(items) => Value::Array(
                items
                    .into_iter()
                    .map(|item| item.map_or(Value::Null, |s| Value::String(s.into_owned())))
                    .collect(),
            ),
            FieldValue::Other(_) => Value::Null,
        }
    }
}

/// Drain the rest of a sequence, reading nothing.
pub(crate) fn drain_seq<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<(), A::Error> {
    while seq.next_element::<IgnoredAny>()?.is_some() {}
    Ok(())
}

/// Drain the rest of a map, reading nothing.
pub(crate) fn drain_map<'de, A: MapAccess<'de>>(mut map: A) -> Result<(), A::Error> {
    while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
    Ok(())
}

/// A visitor of any JSON value that keeps only which of a few shapes it was: `$scalar` for a
/// number, a boolean or an array (drained); strings, `null` and objects are the visitor's own.
macro_rules! numbers_booleans_arrays {
    ($de:lifetime, $scalar:expr) => {
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok($scalar)
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok($scalar)
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok($scalar)
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok($scalar)
        }
        fn visit_seq<A: SeqAccess<$de>>(self, seq: A) -> Result<Self::Value, A::Error> {
            drain_seq(seq).map(|()| $scalar)
        }
    };
}

pub(crate) use numbers_booleans_arrays;

/// One member value of `content`, read as its property needs it (`None`: `null`).
pub(crate) struct ValueSeed<'k> {
    pub(crate) kind: &'k PropertyKind,
}

impl<'de> DeserializeSeed<'de> for ValueSeed<'_> {
    type Value = Option<FieldValue<'de>>;
    fn deserialize<D: Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Option<FieldValue<'de>>, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ValueSeed<'_> {
    type Value = Option<FieldValue<'de>>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a member value")
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_bool<E: de::Error>(self, b: bool) -> Result<Self::Value, E> {
        Ok(Some(FieldValue::Bool(b)))
    }
    fn visit_i64<E: de::Error>(self, i: i64) -> Result<Self::Value, E> {
        Ok(Some(FieldValue::Int(i128::from(i))))
    }
    fn visit_u64<E: de::Error>(self, u: u64) -> Result<Self::Value, E> {
        Ok(Some(FieldValue::Int(i128::from(u))))
    }
    fn visit_f64<E: de::Error>(self, x: f64) -> Result<Self::Value, E> {
        Ok(Some(FieldValue::Float(x)))
    }
    fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<Self::Value, E> {
        Ok(Some(FieldValue::Str(Cow::Borrowed(s))))
    }
    fn visit_str<E: de::Error>(self, s: &str) -> Result<Self::Value, E> {
        Ok(Some(FieldValue::Str(Cow::Owned(s.to_owned()))))
    }
    fn visit_string<E: de::Error>(self, s: String) -> Result<Self::Value, E> {
        Ok(Some(FieldValue::Str(Cow::Owned(s))))
    }
    fn visit_i128<E: de::Error>(self, i: i128) -> Result<Self::Value, E> {
        Ok(Some(FieldValue::Int(i)))
    }
    fn visit_u128<E: de::Error>(self, u: u128) -> Result<Self::Value, E> {
        // Beyond `i128`, only its nearest `f64` (which no integer rule reads as exact).
        #[allow(clippy::cast_precision_loss)]
        Ok(Some(
            i128::try_from(u).map_or(FieldValue::Float(u as f64), FieldValue::Int),
        ))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        // serde_json's `arbitrary_precision` feature (any crate in a build can turn it on, and
        // cargo unifies it into ours) hands a number over as a one-member map holding its text.
        let key = map.next_key::<Cow<'de, str>>()?;
        if key.as_deref() == Some(ARBITRARY_PRECISION_NUMBER) {
            let text = map.next_value::<Cow<'de, str>>()?;
            drain_map(map)?;
            return Ok(Some(number_from_text(&text)));
        }
        if key.is_some() {
            map.next_value::<IgnoredAny>()?;
        }
        drain_map(map)?;
        Ok(Some(FieldValue::Other("an object")))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let PropertyKind::MultiSelect(m) = self.kind else {
            drain_seq(seq)?;
            return Ok(Some(FieldValue::Other("an array")));
        };
        let limit = m.options().len().saturating_add(1);
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(limit));
        while items.len() < limit {
            match seq.next_element_seed(ItemSeed)? {
                None => return Ok(Some(FieldValue::Items(items))),
                Some(item) => {
                    let stop = item.is_none();
                    items.push(item);
                    if stop {
                        break;
                    }
                }
            }
        }
        drain_seq(seq)?;
        Ok(Some(FieldValue::Items(items)))
    }
}

/// The member name under which serde_json's `arbitrary_precision` feature passes a number's text.
const ARBITRARY_PRECISION_NUMBER: &str = "$serde_json::private::Number";

/// A number passed as its text (`arbitrary_precision`), read as serde_json reads one without the
/// feature: an integer that fits 64 bits exactly, else the nearest `f64`.
fn number_from_text(text: &str) -> FieldValue<'static> {
    match text.parse::<serde_json::Number>() {
        Ok(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => FieldValue::Int(i128::from(i)),
            (None, Some(u), _) => FieldValue::Int(i128::from(u)),
            (None, None, Some(x)) => FieldValue::Float(x),
            (None, None, None) => FieldValue::Other("a number"),
        },
        Err(_) => FieldValue::Other("a number"),
    }
}

/// One item of a multi-select's array: its text, or `None` for a non-string.
struct ItemSeed;

impl<'de> DeserializeSeed<'de> for ItemSeed {
    type Value = Option<Cow<'de, str>>;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ItemSeed {
    type Value = Option<Cow<'de, str>>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an option's value")
    }
    numbers_booleans_arrays!('de, None);
    fn visit_str<E: de::Error>(self, s: &str) -> Result<Self::Value, E> {
        Ok(Some(Cow::Owned(s.to_owned())))
    }
    fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<Self::Value, E> {
        Ok(Some(Cow::Borrowed(s)))
    }
    fn visit_string<E: de::Error>(self, s: String) -> Result<Self::Value, E> {
        Ok(Some(Cow::Owned(s)))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        drain_map(map).map(|()| None)
    }
}
