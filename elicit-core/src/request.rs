//! The `elicitation/create` params of a form-mode request.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use serde_json::{Map, Value};

use crate::elicit::{FromContent, parse_with_schema};
use crate::reply::{Elicitation, ReplyError, reply_json};
use crate::schema::{EnumOption, RequestedSchema, SchemaError, Text};

/// A form-mode request: serializes to exactly the `elicitation/create` params
/// (`mode: "form"`, `message`, `requestedSchema`), and checks its own reply against the schema
/// it actually sent — including options and a message supplied at run time.
///
/// `T` is what an accepted reply becomes: a derived form, or `serde_json::Map` for a hand-built
/// schema.
pub struct FormRequest<T = Map<String, Value>> {
    message: Text,
    schema: Cow<'static, RequestedSchema>,
    target: PhantomData<fn() -> T>,
}

impl<T> Clone for FormRequest<T> {
    fn clone(&self) -> Self {
        Self {
            message: self.message.clone(),
            schema: self.schema.clone(),
            target: PhantomData,
        }
    }
}

impl<T> fmt::Debug for FormRequest<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FormRequest")
            .field("message", &self.message)
            .field("schema", &self.schema)
            .finish()
    }
}

impl FormRequest<Map<String, Value>> {
    /// A request for a hand-built schema.
    ///
    /// ```
    /// use elicit_core::{FormRequest, Property, RequestedSchema, StringSchema};
    /// let schema = RequestedSchema::new(vec![Property::new("name", StringSchema::new())])?;
    /// let request = FormRequest::new("Please provide your GitHub username", schema)?;
    /// assert_eq!(serde_json::to_value(&request)?, serde_json::json!({
    ///     "mode": "form",
    ///     "message": "Please provide your GitHub username",
    ///     "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
    /// }));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(message: impl Into<Text>, schema: RequestedSchema) -> Result<Self, SchemaError> {
        let message = non_empty(message.into())?;
        Ok(Self {
            message,
            schema: Cow::Owned(schema),
            target: PhantomData,
        })
    }
}

fn non_empty(message: Text) -> Result<Text, SchemaError> {
    if message.trim().is_empty() {
        Err(SchemaError::EmptyMessage)
    } else {
        Ok(message)
    }
}

impl<T> FormRequest<T> {
    /// Used by `Elicit::form_request`: borrows the type's shared schema.
    #[doc(hidden)]
    pub fn from_static(message: &'static str, schema: &'static RequestedSchema) -> Self {
        Self {
            message: Cow::Borrowed(message),
            schema: Cow::Borrowed(schema),
            target: PhantomData,
        }
    }

    /// The message shown to the user.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The schema this request sends and checks replies against.
    pub fn schema(&self) -> &RequestedSchema {
        &self.schema
    }

    /// Replace the message; the best message names the specific thing found mid-call.
    pub fn with_message(mut self, message: impl Into<Text>) -> Result<Self, SchemaError> {
        self.message = non_empty(message.into())?;
        Ok(self)
    }

    /// Supply the options of a field declared as [`Choice`](crate::Choice) or
    /// [`Choices`](crate::Choices) — or of any select built with `SelectSchema::dynamic()`.
    /// On error (no such field, no options, duplicate values, a default that is not an option)
    /// the request is unchanged.
    pub fn with_options(
        mut self,
        property: &str,
        options: impl IntoIterator<Item = EnumOption>,
    ) -> Result<Self, SchemaError> {
        self.schema
            .to_mut()
            .set_options(property, options.into_iter().collect())?;
        Ok(self)
    }

    /// Read the client's `ElicitResult` for this request, validating against the schema it sent.
    pub fn parse_reply(&self, reply: &Value) -> Result<Elicitation<T>, ReplyError>
    where
        T: FromContent,
    {
        parse_with_schema(&self.schema, reply)
    }

    /// [`parse_reply`](FormRequest::parse_reply) from JSON text.
    pub fn parse_reply_str(&self, reply: &str) -> Result<Elicitation<T>, ReplyError>
    where
        T: FromContent,
    {
        self.parse_reply(&reply_json(reply)?)
    }
}

impl<T> Serialize for FormRequest<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(3))?;
        map.serialize_entry("mode", "form")?;
        map.serialize_entry("message", self.message.as_ref())?;
        map.serialize_entry("requestedSchema", self.schema.as_ref())?;
        map.end()
    }
}
