//! The one reader of a client's `ElicitResult`: from its JSON text, from a `serde_json::Value`,
//! or from the `content` of an SDK's already-parsed result, all through serde's `Deserializer`.
//!
//! JSON is parsed by `serde_json`; this module only decides what a reply *means*. It reads the
//! `action` and, against a schema, one [`FieldValue`] per property of `content` (members the
//! schema does not name are skipped unread, as the spec says to ignore them; for a member sent
//! twice the last counts, as in a `Map`). Strings are borrowed from the input where the
//! deserializer lends them, so a `&Value` is read without copying its text; the one copy is into
//! the form's own field, after every rule is checked ([`crate::requested`]).

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use crate::limits::MAX_REPLY_BYTES;
use crate::outcome::{Action, Elicitation, MalformedReply, ReplyError, action_named};
use crate::requested::RequestedSchema;
use crate::requested::value::{
    FieldValue, ValueSeed, drain_map, drain_seq, numbers_booleans_arrays,
};
use crate::violation::Violations;

/// A type an accepted reply's content can be turned into, once every rule of the schema holds.
///
/// Derived forms implement it; so does `serde_json::Map<String, Value>`, the untyped content of
/// a hand-built [`RequestedSchema`] (every property the reply gave a value, members the schema
/// does not name dropped). A type of your own may implement it too, reading
/// [`Content::into_map`].
pub trait FromContent: Sized {
    /// Build the value from `content`, which kept every rule of its schema. Must not panic on
    /// any input; a value that does not fit the Rust type is reported as a violation.
    fn from_content(content: Content<'_>) -> Result<Self, Violations>;
}

impl FromContent for Map<String, Value> {
    fn from_content(content: Content<'_>) -> Result<Self, Violations> {
        Ok(content.into_map())
    }
}

/// The `content` of an accepted reply, read against its schema: one value per property, in the
/// schema's order (`None`: absent or `null`).
///
/// A [`FromContent`](crate::reply::FromContent) type is built from it once every rule of the schema
/// holds, so a form's own reading only converts values to their Rust types.
#[derive(Debug)]
pub struct Content<'r> {
    schema: &'r RequestedSchema,
    values: Vec<Option<FieldValue<'r>>>,
}

impl<'r> Content<'r> {
    fn empty(schema: &'r RequestedSchema) -> Self {
        Self {
            schema,
            values: std::iter::repeat_with(|| None)
                .take(schema.properties().len())
                .collect(),
        }
    }

    /// The schema the content was read against.
    pub fn schema(&self) -> &'r RequestedSchema {
        self.schema
    }

    /// The content as JSON: every property the reply gave a value, under its name (members the
    /// schema does not name are not kept).
    pub fn into_map(mut self) -> Map<String, Value> {
        self.schema
            .properties()
            .iter()
            .zip(self.values.as_mut_slice())
            .filter_map(|(p, v)| Some((p.name().to_owned(), v.take()?.into_value())))
            .collect()
    }

    /// The value of the property at `index`.
    pub(crate) fn value(&self, index: usize) -> Option<&FieldValue<'r>> {
        self.values.get(index).and_then(Option::as_ref)
    }

    /// Take the value of the property at `index`, leaving it absent.
    pub(crate) fn take(&mut self, index: usize) -> Option<FieldValue<'r>> {
        self.values
            .as_mut_slice()
            .get_mut(index)
            .and_then(Option::take)
    }
}

/// A reply as read: its action (or why it has none) and its content.
pub(crate) struct Reply<'r> {
    pub(crate) action: Result<Action, ReplyError>,
    pub(crate) content: ContentRead<'r>,
}

/// What a reply's `content` was.
pub(crate) enum ContentRead<'r> {
    /// Absent or `null`.
    Absent,
    /// Present but not an object.
    NotAnObject,
    /// An object, read against the schema.
    Object(Content<'r>),
}

impl<'r> Reply<'r> {
    /// The outcome of this reply, before the content is checked: the action, and for an accepted
    /// form its content (absent content is an empty object).
    pub(crate) fn into_parts(
        self,
        schema: &'r RequestedSchema,
    ) -> Result<(Action, Content<'r>), ReplyError> {
        let action = self.action?;
        match self.content {
            ContentRead::NotAnObject if action == Action::Accept => {
                Err(ReplyError::Malformed(MalformedReply::ContentNotAnObject))
            }
            ContentRead::Object(content) => Ok((action, content)),
            ContentRead::Absent | ContentRead::NotAnObject => Ok((action, Content::empty(schema))),
        }
    }
}

/// Read a reply's text against `schema` (`None`: only the action matters), refusing text over
/// [`MAX_REPLY_BYTES`] before parsing it.
pub(crate) fn read_text<'r>(
    schema: Option<&'r RequestedSchema>,
    text: &'r str,
) -> Result<Reply<'r>, ReplyError> {
    if text.len() > MAX_REPLY_BYTES {
        return Err(ReplyError::Malformed(MalformedReply::TooLarge {
            bytes: text.len(),
        }));
    }
    let mut de = serde_json::Deserializer::from_str(text);
    let reply = ReplySeed { schema }
        .deserialize(&mut de)
        .map_err(not_json)?;
    de.end().map_err(not_json)?;
    reply
}

/// Read a reply already parsed into a `Value` against `schema` (`None`: only the action).
pub(crate) fn read_value<'r>(
    schema: Option<&'r RequestedSchema>,
    reply: &'r Value,
) -> Result<Reply<'r>, ReplyError> {
    ReplySeed { schema }.deserialize(reply).map_err(not_json)?
}

/// Read the `content` of an SDK's already-parsed reply against `schema`: an owned `Value` hands
/// its strings over, a borrowed one lends them.
pub(crate) fn read_content<'r, D: Deserializer<'r>>(
    schema: &'r RequestedSchema,
    content: Option<D>,
) -> ContentRead<'r> {
    match content {
        None => ContentRead::Absent,
        Some(content) => ContentSeed { schema }
            .deserialize(content)
            .unwrap_or(ContentRead::NotAnObject),
    }
}

/// A JSON syntax error, by position only (never the text).
fn not_json(e: serde_json::Error) -> ReplyError {
    ReplyError::Malformed(MalformedReply::NotJson {
        line: e.line(),
        column: e.column(),
    })
}

/// The whole `ElicitResult` object.
struct ReplySeed<'r> {
    schema: Option<&'r RequestedSchema>,
}

/// What the reader found, before it is judged: a `Reply`, or a reply that is not an object.
type Read<'r> = Result<Reply<'r>, ReplyError>;

impl<'r> DeserializeSeed<'r> for ReplySeed<'r> {
    type Value = Read<'r>;
    fn deserialize<D: Deserializer<'r>>(self, deserializer: D) -> Result<Read<'r>, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'r> Visitor<'r> for ReplySeed<'r> {
    type Value = Read<'r>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an ElicitResult object")
    }

    numbers_booleans_arrays!('r, Err(ReplyError::Malformed(MalformedReply::NotAnObject)));

    fn visit_str<E: de::Error>(self, _: &str) -> Result<Read<'r>, E> {
        Ok(Err(ReplyError::Malformed(MalformedReply::NotAnObject)))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Read<'r>, E> {
        Ok(Err(ReplyError::Malformed(MalformedReply::NotAnObject)))
    }

    fn visit_map<A: MapAccess<'r>>(self, mut map: A) -> Result<Read<'r>, A::Error> {
        let mut action = Err(ReplyError::Malformed(MalformedReply::MissingAction));
        let mut content = ContentRead::Absent;
        while let Some(key) = map.next_key::<ReplyKey>()? {
            match key {
                ReplyKey::Action => action = map.next_value::<ActionRead>()?.0,
                ReplyKey::Content => match self.schema {
                    Some(schema) => content = map.next_value_seed(ContentSeed { schema })?,
                    None => {
                        map.next_value::<IgnoredAny>()?;
                    }
                },
                ReplyKey::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(Ok(Reply { action, content }))
    }
}

/// A member name of an `ElicitResult`, matched without allocating.
enum ReplyKey {
    Action,
    Content,
    Other,
}

impl<'de> de::Deserialize<'de> for ReplyKey {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Names;
        impl Visitor<'_> for Names {
            type Value = ReplyKey;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a member name")
            }
            fn visit_str<E: de::Error>(self, name: &str) -> Result<ReplyKey, E> {
                Ok(match name {
                    "action" => ReplyKey::Action,
                    "content" => ReplyKey::Content,
                    _ => ReplyKey::Other,
                })
            }
        }
        deserializer.deserialize_str(Names)
    }
}

/// The value of `action`: an action, or why it names none.
struct ActionRead(Result<Action, ReplyError>);

impl<'de> de::Deserialize<'de> for ActionRead {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Name;
        impl<'de> Visitor<'de> for Name {
            type Value = ActionRead;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("`accept`, `decline` or `cancel`")
            }
            numbers_booleans_arrays!('de, ActionRead(Err(ReplyError::Malformed(
                MalformedReply::UnknownAction
            ))));
            fn visit_str<E: de::Error>(self, name: &str) -> Result<ActionRead, E> {
                Ok(ActionRead(action_named(name)))
            }
            fn visit_unit<E: de::Error>(self) -> Result<ActionRead, E> {
                Ok(ActionRead(Err(ReplyError::Malformed(
                    MalformedReply::MissingAction,
                ))))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<ActionRead, A::Error> {
                drain_map(map)?;
                Ok(ActionRead(Err(ReplyError::Malformed(
                    MalformedReply::UnknownAction,
                ))))
            }
        }
        deserializer.deserialize_any(Name)
    }
}

/// A reply's `content`, read against a schema.
struct ContentSeed<'r> {
    schema: &'r RequestedSchema,
}

impl<'r> DeserializeSeed<'r> for ContentSeed<'r> {
    type Value = ContentRead<'r>;
    fn deserialize<D: Deserializer<'r>>(
        self,
        deserializer: D,
    ) -> Result<ContentRead<'r>, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'r> Visitor<'r> for ContentSeed<'r> {
    type Value = ContentRead<'r>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the content object")
    }

    numbers_booleans_arrays!('r, ContentRead::NotAnObject);

    fn visit_str<E: de::Error>(self, _: &str) -> Result<ContentRead<'r>, E> {
        Ok(ContentRead::NotAnObject)
    }

    fn visit_unit<E: de::Error>(self) -> Result<ContentRead<'r>, E> {
        Ok(ContentRead::Absent)
    }

    fn visit_map<A: MapAccess<'r>>(self, mut map: A) -> Result<ContentRead<'r>, A::Error> {
        let mut content = Content::empty(self.schema);
        let properties = self.schema.properties();
        let mut next = 0;
        while let Some(index) = map.next_key_seed(PropertyIndex {
            schema: self.schema,
            next,
        })? {
            next = index.map_or(next, |i| i + 1);
            let Some((property, slot)) = index.and_then(|i| {
                properties
                    .get(i)
                    .zip(content.values.as_mut_slice().get_mut(i))
            }) else {
                map.next_value::<IgnoredAny>()?;
                continue;
            };
            *slot = map.next_value_seed(ValueSeed {
                kind: property.kind(),
            })?;
        }
        Ok(ContentRead::Object(content))
    }
}

/// A member name of `content`: the index of the property it names, if any. Clients send the
/// members in the schema's order more often than not, so the property after the last one read
/// (`next`) is tried first.
struct PropertyIndex<'r> {
    schema: &'r RequestedSchema,
    next: usize,
}

impl<'de> DeserializeSeed<'de> for PropertyIndex<'_> {
    type Value = Option<usize>;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Option<usize>, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for PropertyIndex<'_> {
    type Value = Option<usize>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a member name")
    }
    fn visit_str<E: de::Error>(self, name: &str) -> Result<Option<usize>, E> {
        let properties = self.schema.properties();
        if properties.get(self.next).is_some_and(|p| p.name() == name) {
            return Ok(Some(self.next));
        }
        Ok(properties.iter().position(|p| p.name() == name))
    }
}

/// The outcome of a reply read against `schema`: every rule of the schema checked (every
/// violation reported), and only then the content converted to `T`.
fn judge<'r, T: FromContent>(
    schema: &'r RequestedSchema,
    reply: Result<Reply<'r>, ReplyError>,
) -> Result<Elicitation<T>, ReplyError> {
    let (action, content) = reply?.into_parts(schema)?;
    Ok(match action {
        Action::Decline => Elicitation::Decline,
        Action::Cancel => Elicitation::Cancel,
        Action::Accept => {
            if content.values.iter().all(Option::is_none) && schema.required().next().is_some() {
                // Accepted with nothing in it, where something is required: what a client that
                // answers by itself sends (`{}`), counted per client. Asked again as any broken
                // rule is, naming the fields.
                crate::observe::accepted_empty();
            }
            schema.check_values(&content.values)?;
            Elicitation::Accept(T::from_content(content)?)
        }
    })
}

/// Parse a reply (a `Value`) against a schema into any [`FromContent`] type.
pub(crate) fn parse_with_schema<T: FromContent>(
    schema: &RequestedSchema,
    reply: &Value,
) -> Result<Elicitation<T>, ReplyError> {
    judge(schema, read_value(Some(schema), reply))
}

/// Parse a reply's text against a schema into any [`FromContent`] type.
pub(crate) fn parse_text_with_schema<T: FromContent>(
    schema: &RequestedSchema,
    reply: &str,
) -> Result<Elicitation<T>, ReplyError> {
    judge(schema, read_text(Some(schema), reply))
}

/// Parse a reply an SDK already split into its action and `content` (rmcp's `ElicitResult`),
/// reading the content where it lies.
pub(crate) fn parse_parts_with_schema<T: FromContent>(
    schema: &RequestedSchema,
    action: Action,
    content: Option<Value>,
) -> Result<Elicitation<T>, ReplyError> {
    let content = match action {
        // As on every path, the content of a decline or cancel is not read.
        Action::Decline | Action::Cancel => ContentRead::Absent,
        Action::Accept => read_content(schema, content),
    };
    judge(
        schema,
        Ok(Reply {
            action: Ok(action),
            content,
        }),
    )
}
