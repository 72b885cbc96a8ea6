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
    name: Text,
    message: Text,
    schema: Cow<'static, RequestedSchema>,
    target: PhantomData<fn() -> T>,
}

impl<T> Clone for FormRequest<T> {
    fn clone(&self) -> Self {
        Self {
            name: self.name.clone(),
            message: self.message.clone(),
            schema: self.schema.clone(),
            target: PhantomData,
        }
    }
}

impl<T> fmt::Debug for FormRequest<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FormRequest")
            .field("name", &self.name)
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
    ///
    /// Its [`name`](FormRequest::name) is `"form"` until set with
    /// [`with_name`](FormRequest::with_name).
    pub fn new(message: impl Into<Text>, schema: RequestedSchema) -> Result<Self, SchemaError> {
        let message = non_empty(message.into())?;
        Ok(Self {
            name: Cow::Borrowed("form"),
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
    pub fn from_static(
        name: &'static str,
        message: &'static str,
        schema: &'static RequestedSchema,
    ) -> Self {
        Self {
            name: Cow::Borrowed(name),
            message: Cow::Borrowed(message),
            schema: Cow::Borrowed(schema),
            target: PhantomData,
        }
    }

    /// The name this request is reported under in [`crate::observe`]: the derived type's name
    /// (or its `#[elicit(name = "...")]`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Report this request under another name (e.g. one per tool that asks it).
    pub fn with_name(mut self, name: impl Into<Text>) -> Self {
        self.name = name.into();
        self
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
    /// The outcome is recorded for the interrupt budget ([`crate::observe`]).
    pub fn parse_reply(&self, reply: &Value) -> Result<Elicitation<T>, ReplyError>
    where
        T: FromContent,
    {
        let result = parse_with_schema(&self.schema, reply);
        crate::observe::record_reply(&self.name, &result);
        result
    }

    /// [`parse_reply`](FormRequest::parse_reply) from JSON text.
    pub fn parse_reply_str(&self, reply: &str) -> Result<Elicitation<T>, ReplyError>
    where
        T: FromContent,
    {
        match reply_json(reply) {
            Ok(value) => self.parse_reply(&value),
            Err(error) => {
                let result = Err(error);
                crate::observe::record_reply::<T, _>(&self.name, &result);
                result
            }
        }
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
