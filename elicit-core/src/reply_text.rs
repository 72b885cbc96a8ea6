//! Reading an `ElicitResult` straight from its text into a derived form, without building a
//! `serde_json::Value` of the whole reply first.
//!
//! The same rules, in the same places, as the `Value` path ([`crate::elicit::parse_with_schema`]):
//! the action's spelling is [`action_of`], the checks are [`RequestedSchema::validate_each`], the
//! conversion is the form's own [`FromContent::__from_fields`], which reads each field with its
//! `ElicitField` impl. Only the container changes: instead of a map of every member, one slot
//! per property of the schema, filled while the text is read. Every member *value* is still
//! parsed as a `Value` (unknown members too, then dropped), so what is and is not valid JSON is
//! decided by exactly the same parser as before, down to the error position; for duplicate
//! members the last one counts, as in a `Map`.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use crate::elicit::FromContent;
use crate::reply::{
    Action, Elicitation, MalformedReply, ReplyError, action_of, check_reply_size, not_json,
};
use crate::schema::RequestedSchema;

/// The value of one property, by the property's index in the schema.
pub(crate) type Fields = Vec<Option<Value>>;

/// Read `text` as the reply to a form with `schema`, into `T` (a type whose
/// [`FromContent::__READS_FIELDS`] is true). Same outcome, same errors, as parsing it into a
/// `Value` and then [`crate::elicit::parse_with_schema`].
pub(crate) fn parse_reply_text<T: FromContent>(
    schema: &RequestedSchema,
    text: &str,
) -> Result<Elicitation<T>, ReplyError> {
    check_reply_size(text)?;
    let mut de = serde_json::Deserializer::from_str(text);
    let reply = ReplySeed { schema }
        .deserialize(&mut de)
        .and_then(|reply| de.end().map(|()| reply))
        .map_err(not_json)?;
    let Reply::Object { action, content } = reply else {
        return Err(ReplyError::Malformed(MalformedReply::NotAnObject));
    };
    match action_of(action.as_ref())? {
        Action::Decline => Ok(Elicitation::Decline),
        Action::Cancel => Ok(Elicitation::Cancel),
        Action::Accept => {
            let mut fields = match content {
                Content::Absent | Content::Null => vec![None; schema.properties().len()],
                Content::Object(fields) => fields,
                Content::NotAnObject => {
                    return Err(ReplyError::Malformed(MalformedReply::ContentNotAnObject));
                }
            };
            schema.validate_each(|i, _| fields.get(i).and_then(Option::as_ref))?;
            Ok(Elicitation::Accept(T::__from_fields(schema, &mut fields)?))
        }
    }
}

enum Reply {
    NotAnObject,
    Object {
        action: Option<Value>,
        content: Content,
    },
}

enum Content {
    Absent,
    Null,
    NotAnObject,
    Object(Fields),
}

struct ReplySeed<'s> {
    schema: &'s RequestedSchema,
}

impl<'de> DeserializeSeed<'de> for ReplySeed<'_> {
    type Value = Reply;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Reply, D::Error> {
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

impl<'de> Visitor<'de> for ReplySeed<'_> {
    type Value = Reply;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    not_an_object!(Reply::NotAnObject);

    fn visit_unit<E: de::Error>(self) -> Result<Reply, E> {
        Ok(Reply::NotAnObject)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Reply, A::Error> {
        let mut action = None;
        let mut content = Content::Absent;
        while let Some(key) = map.next_key::<Key<'static>>()? {
            match key.0 {
                "action" => action = Some(map.next_value::<Value>()?),
                "content" => {
                    content = map.next_value_seed(ContentSeed {
                        schema: self.schema,
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

struct ContentSeed<'s> {
    schema: &'s RequestedSchema,
}

impl<'de> DeserializeSeed<'de> for ContentSeed<'_> {
    type Value = Content;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Content, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ContentSeed<'_> {
    type Value = Content;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    not_an_object!(Content::NotAnObject);

    fn visit_unit<E: de::Error>(self) -> Result<Content, E> {
        Ok(Content::Null)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Content, A::Error> {
        let properties = self.schema.properties();
        let mut fields: Fields = vec![None; properties.len()];
        while let Some(index) = map.next_key_seed(PropertyIndex {
            schema: self.schema,
        })? {
            let value = map.next_value::<Value>()?;
            if let Some(slot) = index.and_then(|i| fields.get_mut(i)) {
                *slot = Some(value);
            }
        }
        Ok(Content::Object(fields))
    }
}

/// A content member's name as the index of the property it names (`None`: not in the schema).
struct PropertyIndex<'s> {
    schema: &'s RequestedSchema,
}

impl<'de> DeserializeSeed<'de> for PropertyIndex<'_> {
    type Value = Option<usize>;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Option<usize>, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl Visitor<'_> for PropertyIndex<'_> {
    type Value = Option<usize>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a member name")
    }
    fn visit_str<E: de::Error>(self, name: &str) -> Result<Option<usize>, E> {
        Ok(self
            .schema
            .properties()
            .iter()
            .position(|p| p.name() == name))
    }
}
