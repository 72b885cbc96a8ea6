//! One property of a form: its name, display text, whether it is required, its kind, and its
//! rules on one value.

use serde::de::DeserializeSeed;
use serde_json::Value;

use super::check;
use super::kind::{PropertyKind, Text};
use super::value::{FieldValue, ValueSeed};
use crate::violation::Rule;

/// One property of a form: its name, display text, whether it is required, and its kind.
#[derive(Debug, Clone, PartialEq)]
pub struct Property {
    pub(crate) name: Text,
    pub(crate) title: Option<Text>,
    pub(crate) description: Option<Text>,
    pub(crate) required: bool,
    pub(crate) kind: PropertyKind,
}

impl Property {
    /// A required property.
    ///
    /// ```
    /// # extern crate elicit_core as mcp_elicit;
    /// use mcp_elicit::{schema::{Format, Property, StringSchema}};
    /// let email = Property::new("email", StringSchema::new().format(Format::Email))
    ///     .title("Email")
    ///     .description("Where we send the receipt");
    /// assert!(email.is_required());
    /// ```
    pub fn new(name: impl Into<Text>, kind: impl Into<PropertyKind>) -> Self {
        let name: Text = name.into();
        Self {
            name,
            title: None,
            description: None,
            required: true,
            kind: kind.into(),
        }
    }
    /// Mark the property optional (absent from `required`).
    pub fn optional(mut self) -> Self {
        self.required = false;
        self
    }
    /// Set whether the property is required.
    pub fn required(mut self, required: bool) -> Self {
        self.required = required;
        self
    }
    /// The label a client shows.
    pub fn title(mut self, title: impl Into<Text>) -> Self {
        self.title = Some(title.into());
        self
    }
    /// Help text a client shows.
    pub fn description(mut self, description: impl Into<Text>) -> Self {
        self.description = Some(description.into());
        self
    }
    /// The property's name in `properties` and in the reply's `content`.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// Whether a reply must contain it.
    pub fn is_required(&self) -> bool {
        self.required
    }
    /// Its kind and constraints.
    pub fn kind(&self) -> &PropertyKind {
        &self.kind
    }
    /// Its display title, if any.
    pub fn title_text(&self) -> Option<&str> {
        self.title.as_deref()
    }
    /// Its description, if any.
    pub fn description_text(&self) -> Option<&str> {
        self.description.as_deref()
    }

    /// This property's rules on one value (`None` or `null`: left empty), the first one broken:
    /// what a host checks as its user answers a field, before the whole form. It is the check
    /// [`RequestedSchema::validate`](super::RequestedSchema::validate) runs on each property.
    ///
    /// ```
    /// # extern crate elicit_core as mcp_elicit;
    /// use mcp_elicit::{schema::{IntegerSchema, Property, Rule}};
    /// let replicas = Property::new("replicas", IntegerSchema::new().minimum(1).maximum(10));
    /// assert_eq!(replicas.check(Some(&serde_json::json!(3))), Ok(()));
    /// let too_many = replicas.check(Some(&serde_json::json!(11))).unwrap_err();
    /// assert_eq!(too_many.for_user().to_string(), "must be at most 10");
    /// assert_eq!(replicas.check(None), Err(Rule::Required));
    /// ```
    ///
    /// # Errors
    /// The first rule the value breaks.
    pub fn check(&self, value: Option<&Value>) -> Result<(), Rule> {
        self.check_read(read_value(&self.kind, value).as_ref())
    }

    /// What a client sends for this property when its user answered `answer` (`None`: left
    /// empty): the answer, or else the default, which clients pre-fill. A host shows and checks
    /// this value; [`IncomingForm::accept`](crate::client::IncomingForm::accept) sends it.
    ///
    /// ```
    /// # extern crate elicit_core as mcp_elicit;
    /// use mcp_elicit::{schema::{IntegerSchema, Property}};
    /// let replicas = Property::new("replicas", IntegerSchema::new().default_value(2));
    /// assert_eq!(replicas.sent(None), Some(serde_json::json!(2)));
    /// assert_eq!(replicas.sent(Some(serde_json::json!(5))), Some(serde_json::json!(5)));
    /// ```
    pub fn sent(&self, answer: Option<Value>) -> Option<Value> {
        answer.or_else(|| self.kind.default_json())
    }

    /// The rules on a value as read for this property (`None`: absent or `null`).
    pub(super) fn check_read(&self, value: Option<&FieldValue<'_>>) -> Result<(), Rule> {
        match value {
            Some(value) => check::check_value(&self.kind, value),
            None if self.required => Err(Rule::Required),
            None => Ok(()),
        }
    }
}

/// `value` read for a property of `kind`, as a reply's would be (`None`: absent or `null`).
pub(super) fn read_value<'c>(
    kind: &PropertyKind,
    value: Option<&'c Value>,
) -> Option<FieldValue<'c>> {
    value.and_then(|value| ValueSeed { kind }.deserialize(value).ok().flatten())
}
