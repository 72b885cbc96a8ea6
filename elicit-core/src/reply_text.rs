//! Reading an `ElicitResult` straight from its text into a derived form, without building a
//! `serde_json::Value` of the whole reply first.
//!
//! The same rules as the `Value` path ([`crate::elicit::parse_with_schema`]): the action's
//! spelling is [`action_of`]; the form's own [`FromContent::__from_fields`] checks each slot
//! against its property with the rule functions of [`RequestedSchema::validate`] and reads it
//! with the field's `ElicitField` impl, both in one visit of the slot (a rule broken anywhere
//! is reported before a value that does not fit its Rust type, as on the `Value` path). Only
//! the container changes: instead of a map of every member, one [`Slot`] per property of the
//! schema, filled while the text is read. A slot holds a string borrowed from the text (when it
//! has no escape), a number, a boolean, or an array of strings as they are; anything else is
//! parsed as the `Value` the ordinary path builds (unknown members too, then dropped). For
//! duplicate members the last one counts, as in a `Map`.
//!
//! Two readers fill the slots. [`scan`] reads the common shape by hand (flat `content` members,
//! escapes in values decoded) and declines everything else, syntax errors included; the
//! `serde_json` reader below then reads the text from the start. So what is and is not valid
//! JSON is still decided by `serde_json`, down to the error position, and both readers fill the
//! slots alike (tested on every one-character edit of their test replies). A slot is checked by
//! the same per-kind rule functions as a `Value`, and a slot of an unexpected shape through its
//! `Value`, so the violations are the same.

use std::borrow::Cow;
use std::fmt;
use std::mem::ManuallyDrop;

use serde::de::value::MapAccessDeserializer;
use serde::de::{self, Deserialize, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use crate::elicit::FromContent;
use crate::field::Slot;
use crate::reply::{
    Action, Elicitation, MalformedReply, ReplyError, action_named, action_of, check_reply_size,
    not_json,
};
use crate::schema::RequestedSchema;
use crate::text::same;

mod scan;

/// Read `text` as the reply to a form with `schema`, into `T` (a type whose
/// [`FromContent::__READS_FIELDS`] is true). Same outcome, same errors, as parsing it into a
/// `Value` and then [`crate::elicit::parse_with_schema`].
///
/// Only the conversion depends on `T`: reading and checking ([`read_reply`]) are compiled once,
/// here, not once per form in every crate that derives one.
pub(crate) fn parse_reply_text<T: FromContent>(
    schema: &RequestedSchema,
    text: &str,
) -> Result<Elicitation<T>, ReplyError> {
    let mut slots = Slots::new(schema.properties().len());
    let fields = slots.as_mut_slice();
    Ok(match read_reply(schema, text, fields)? {
        Action::Decline => Elicitation::Decline,
        Action::Cancel => Elicitation::Cancel,
        Action::Accept => Elicitation::Accept(T::__from_fields(schema, fields)?),
    })
}

/// Read `text` as a reply to a form with `schema`: its action and, when accepted, one slot per
/// property (`fields`, all absent on entry), for the form to check and take.
fn read_reply<'de>(
    schema: &RequestedSchema,
    text: &'de str,
    fields: &mut [Slot<'de>],
) -> Result<Action, ReplyError> {
    check_reply_size(text)?;
    let (action, content) = match scan::scan_reply(schema, text, fields) {
        Some((action, content)) => (action.action()?, content),
        None => {
            let Reply::Object { action, content } = read_with_serde(schema, text, fields)? else {
                return Err(ReplyError::Malformed(MalformedReply::NotAnObject));
            };
            let action = match action {
                Some(Slot::Str(name)) => action_named(&name)?,
                other => action_of(other.map(Slot::into_value).as_ref())?,
            };
            (action, content)
        }
    };
    if action == Action::Accept && matches!(content, Content::NotAnObject) {
        return Err(ReplyError::Malformed(MalformedReply::ContentNotAnObject));
    }
    // Absent or `null` content leaves every slot absent. The form checks each slot as it takes
    // it (`FromContent::__from_fields`).
    Ok(action)
}

/// The reply as `serde_json`'s deserializer reads it, into `fields` (all absent on entry): the
/// reader of every reply [`scan::scan_reply`] does not read.
fn read_with_serde<'de>(
    schema: &RequestedSchema,
    text: &'de str,
    fields: &mut [Slot<'de>],
) -> Result<Reply<'de>, ReplyError> {
    let mut de = serde_json::Deserializer::from_str(text);
    ReplySeed { schema, fields }
        .deserialize(&mut de)
        .and_then(|reply| de.end().map(|()| reply))
        .map_err(not_json)
}

/// How many properties' slots live on the stack (40 bytes each); a larger form's go in a `Vec`.
const STACK_SLOTS: usize = 16;

/// The slots of a reply, one per property: on the stack for a form of up to [`STACK_SLOTS`]
/// properties. Dropping them drops only the slots still holding a value: after a successful read
/// every slot has been taken, and running the drop glue of each (absent) slot cost more than the
/// check.
struct Slots<'de> {
    on_stack: ManuallyDrop<[Slot<'de>; STACK_SLOTS]>,
    on_heap: Vec<Slot<'de>>,
    len: usize,
}

impl<'de> Slots<'de> {
    fn new(len: usize) -> Self {
        Self {
            // One tag byte written per slot: `[Slot::Absent; N]` was a `memset` of all 640 bytes.
            on_stack: ManuallyDrop::new(std::array::from_fn(|_| Slot::Absent)),
            on_heap: if len > STACK_SLOTS {
                std::iter::repeat_with(|| Slot::Absent).take(len).collect()
            } else {
                Vec::new()
            },
            len,
        }
    }

    fn as_mut_slice(&mut self) -> &mut [Slot<'de>] {
        match self.on_stack.get_mut(..self.len) {
            Some(fields) => fields,
            None => &mut self.on_heap,
        }
    }
}

impl Drop for Slots<'_> {
    fn drop(&mut self) {
        // Slots past `len` on the stack are never filled.
        for slot in self.on_stack.iter_mut().take(self.len) {
            clear(slot);
        }
        // Every slot on the stack is now `Absent`, which owns nothing: not dropping the array
        // leaks nothing. The `Vec` drops as usual.
    }
}

/// Empty a slot, running its drop glue only when it holds something.
#[inline]
fn clear(slot: &mut Slot<'_>) {
    if !matches!(slot, Slot::Absent) {
        drop(slot.take());
    }
}

/// Fill a slot; the value it replaces (absent, unless the member was sent twice) is dropped
/// only when it holds something.
#[inline]
fn fill<'de>(slot: &mut Slot<'de>, value: Slot<'de>) {
    let previous = std::mem::replace(slot, value);
    if matches!(previous, Slot::Absent) {
        std::mem::forget(previous);
    }
}

#[derive(Debug, PartialEq)]
enum Reply<'de> {
    NotAnObject,
    Object {
        action: Option<Slot<'de>>,
        content: Content,
    },
}

/// What `content` was; an object's members are in the slots.
#[derive(Debug, PartialEq)]
enum Content {
    Absent,
    Null,
    NotAnObject,
    Object,
}

struct ReplySeed<'s, 'f, 'de> {
    schema: &'s RequestedSchema,
    fields: &'f mut [Slot<'de>],
}

impl<'de> DeserializeSeed<'de> for ReplySeed<'_, '_, 'de> {
    type Value = Reply<'de>;
    #[inline]
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Reply<'de>, D::Error> {
        deserializer.deserialize_any(self)
    }
}

/// Reads every value of a non-object as `Value` would, so that syntax errors surface the same.
fn drain<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<(), A::Error> {
    while seq.next_element::<Value>()?.is_some() {}
    Ok(())
}

macro_rules! not_an_object {
    ($result:expr) => {
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok($result)
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok($result)
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok($result)
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok($result)
        }
        fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
            Ok($result)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
            drain(seq).map(|()| $result)
        }
    };
}

impl<'de> Visitor<'de> for ReplySeed<'_, '_, 'de> {
    type Value = Reply<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    not_an_object!(Reply::NotAnObject);

    fn visit_unit<E: de::Error>(self) -> Result<Reply<'de>, E> {
        Ok(Reply::NotAnObject)
    }

    #[inline]
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Reply<'de>, A::Error> {
        let mut action = None;
        let mut content = Content::Absent;
        while let Some(key) = map.next_key::<Key<'static>>()? {
            match key.0 {
                "action" => action = Some(map.next_value::<Slot<'de>>()?),
                "content" => {
                    // The last `content` counts, as in a `Map`: forget an earlier one's members.
                    if !matches!(content, Content::Absent) {
                        self.fields.iter_mut().for_each(clear);
                    }
                    content = map.next_value_seed(ContentSeed {
                        schema: self.schema,
                        fields: &mut *self.fields,
                    })?;
                }
                _ => {
                    map.next_value::<Value>()?;
                }
            }
        }
        Ok(Reply::Object { action, content })
    }
}

/// A member name, matched against a fixed set without allocating; any other name is `""`.
struct Key<'n>(&'n str);

impl<'de> de::Deserialize<'de> for Key<'static> {
    #[inline]
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Names;
        impl Visitor<'_> for Names {
            type Value = Key<'static>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a member name")
            }
            fn visit_str<E: de::Error>(self, name: &str) -> Result<Key<'static>, E> {
                Ok(Key(match name {
                    "action" => "action",
                    "content" => "content",
                    _ => "",
                }))
            }
        }
        deserializer.deserialize_str(Names)
    }
}

struct ContentSeed<'s, 'f, 'de> {
    schema: &'s RequestedSchema,
    fields: &'f mut [Slot<'de>],
}

impl<'de> DeserializeSeed<'de> for ContentSeed<'_, '_, 'de> {
    type Value = Content;
    #[inline]
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Content, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ContentSeed<'_, '_, 'de> {
    type Value = Content;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    not_an_object!(Content::NotAnObject);

    fn visit_unit<E: de::Error>(self) -> Result<Content, E> {
        Ok(Content::Null)
    }

    #[inline]
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Content, A::Error> {
        let mut expected = 0;
        while let Some(index) = map.next_key_seed(PropertyIndex {
            schema: self.schema,
            expected,
        })? {
            if let Some(i) = index {
                expected = i + 1;
            }
            match index.and_then(|i| self.fields.get_mut(i)) {
                Some(slot) => fill(slot, map.next_value::<Slot<'de>>()?),
                None => {
                    map.next_value::<Value>()?;
                }
            }
        }
        Ok(Content::Object)
    }
}

impl<'de> Deserialize<'de> for Slot<'de> {
    #[inline]
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(SlotVisitor)
    }
}

/// Reads a member value as a [`Slot`]: every case as `Value`'s own visitor reads it, except that
/// strings are kept where they lie and an array of strings is a list of them.
struct SlotVisitor;

impl<'de> Visitor<'de> for SlotVisitor {
    type Value = Slot<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any valid JSON value")
    }
    fn visit_bool<E: de::Error>(self, b: bool) -> Result<Slot<'de>, E> {
        Ok(Slot::Bool(b))
    }
    fn visit_i64<E: de::Error>(self, n: i64) -> Result<Slot<'de>, E> {
        Ok(Slot::Number(n.into()))
    }
    fn visit_u64<E: de::Error>(self, n: u64) -> Result<Slot<'de>, E> {
        Ok(Slot::Number(n.into()))
    }
    fn visit_f64<E: de::Error>(self, x: f64) -> Result<Slot<'de>, E> {
        // As `Value` reads it: a float with no JSON form is `null`.
        Ok(serde_json::Number::from_f64(x).map_or(Slot::Null, Slot::Number))
    }
    fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<Slot<'de>, E> {
        Ok(Slot::Str(Cow::Borrowed(s)))
    }
    fn visit_str<E: de::Error>(self, s: &str) -> Result<Slot<'de>, E> {
        Ok(Slot::Str(Cow::Owned(s.to_owned())))
    }
    fn visit_string<E: de::Error>(self, s: String) -> Result<Slot<'de>, E> {
        Ok(Slot::Str(Cow::Owned(s)))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Slot<'de>, E> {
        Ok(Slot::Null)
    }
    fn visit_none<E: de::Error>(self) -> Result<Slot<'de>, E> {
        Ok(Slot::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Slot<'de>, D::Error> {
        Slot::deserialize(deserializer)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Slot<'de>, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Slot<'de>>()? {
            match item {
                Slot::Str(text) => items.push(text),
                other => {
                    // Not an array of strings: the `Value` array, read on as `Value` reads it.
                    let mut values: Vec<Value> = items
                        .into_iter()
                        .map(|text| Value::String(text.into_owned()))
                        .collect();
                    values.push(other.into_value());
                    while let Some(value) = seq.next_element::<Value>()? {
                        values.push(value);
                    }
                    return Ok(Slot::Value(Value::Array(values)));
                }
            }
        }
        Ok(Slot::Strs(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Slot<'de>, A::Error> {
        Value::deserialize(MapAccessDeserializer::new(map)).map(Slot::Value)
    }
}

/// A content member's name as the index of the property it names ([`property_index`]).
struct PropertyIndex<'s> {
    schema: &'s RequestedSchema,
    expected: usize,
}

impl<'de> DeserializeSeed<'de> for PropertyIndex<'_> {
    type Value = Option<usize>;
    #[inline]
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Option<usize>, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl Visitor<'_> for PropertyIndex<'_> {
    type Value = Option<usize>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a member name")
    }
    #[inline]
    fn visit_str<E: de::Error>(self, name: &str) -> Result<Option<usize>, E> {
        Ok(property_index(self.schema, self.expected, name))
    }
}

/// The index of the property `name` names (`None`: not in the schema), for both readers.
/// Property names are unique in a schema; members usually come in the schema's order, so the
/// property at `expected` (the one after the previous member's) is tried first.
#[inline]
fn property_index(schema: &RequestedSchema, expected: usize, name: &str) -> Option<usize> {
    let properties = schema.properties();
    if properties
        .get(expected)
        .is_some_and(|p| same(p.name(), name))
    {
        return Some(expected);
    }
    properties.iter().position(|p| same(p.name(), name))
}
