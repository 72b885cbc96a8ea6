//! The [`RequestedSchema`]: built only from properties that form a satisfiable schema (the
//! checks are here, by the [`rules`]), and the one loop that checks content against it.

use std::borrow::Cow;

use serde_json::{Map, Value};

use super::check;
use super::error::SchemaError;
use super::kind::{EnumOption, PropertyKind};
use super::property::{Property, read_value};
use super::rules;
use super::value::FieldValue;
use crate::limits::MAX_OPTIONS;
use crate::violation::{Violation, Violations};

/// The `requestedSchema` of a form: `type: object`, ordered `properties`, and `required`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RequestedSchema {
    pub(crate) properties: Cow<'static, [Property]>,
}

impl RequestedSchema {
    /// Build a schema from properties, checking that it can be satisfied and is well formed:
    /// unique names, consistent bounds, non-empty options, defaults that satisfy the constraints.
    /// The only way to build one: a derived schema is built here too, after the derive held it
    /// to the same rules (`rules`) at compile time.
    ///
    /// ```
    /// # extern crate elicit_core as mcp_elicit;
    /// use mcp_elicit::{schema::{IntegerSchema, Property, RequestedSchema, StringSchema}};
    /// let schema = RequestedSchema::new(vec![
    ///     Property::new("name", StringSchema::new().min_length(1)),
    ///     Property::new("age", IntegerSchema::new().minimum(18)).optional(),
    /// ])?;
    /// assert_eq!(schema.properties().len(), 2);
    ///
    /// let err = RequestedSchema::new(vec![
    ///     Property::new("n", StringSchema::new().min_length(5).max_length(2)),
    /// ]).unwrap_err();
    /// assert_eq!(err.to_string(), "property `n`: minLength > maxLength, so no value can satisfy it");
    /// # Ok::<(), mcp_elicit::schema::SchemaError>(())
    /// ```
    pub fn new(properties: Vec<Property>) -> Result<Self, SchemaError> {
        check_properties(&properties)?;
        Ok(Self {
            properties: Cow::Owned(properties),
        })
    }

    /// The properties, in order.
    pub fn properties(&self) -> &[Property] {
        &self.properties
    }

    /// The property with this name.
    pub fn property(&self, name: &str) -> Option<&Property> {
        self.properties.iter().find(|p| p.name == name)
    }

    /// Supply the options of a select declared with run-time options. The whole schema is
    /// re-checked; on error nothing is changed.
    pub(crate) fn set_options(
        &mut self,
        name: &str,
        options: Vec<EnumOption>,
    ) -> Result<(), SchemaError> {
        let index = self
            .properties
            .iter()
            .position(|p| p.name == name && p.kind.is_dynamic_select())
            .ok_or_else(|| SchemaError::NotADynamicSelect {
                property: name.to_owned(),
            })?;
        if options.is_empty() {
            return Err(SchemaError::NoOptions {
                property: name.to_owned(),
            });
        }
        let mut properties = self.properties.to_vec();
        if let Some(property) = properties.get_mut(index) {
            match &mut property.kind {
                PropertyKind::Select(s) => s.options = Cow::Owned(options),
                PropertyKind::MultiSelect(m) => m.options = Cow::Owned(options),
                _ => {}
            }
        }
        check_properties(&properties)?;
        self.properties = Cow::Owned(properties);
        Ok(())
    }

    /// The names of the properties a reply must contain, in order.
    pub fn required(&self) -> impl Iterator<Item = &str> {
        self.properties
            .iter()
            .filter(|p| p.required)
            .map(|p| p.name.as_ref())
    }

    /// Check accepted `content` against every property. Unknown keys are ignored (the spec):
    /// each property is looked up by name, so keys the schema does not know are never visited,
    /// and the work done is set by the schema, not by the size of `content`. `null` for an
    /// optional property counts as absent. A string longer than
    /// [`MAX_STRING_BYTES`](crate::limits::MAX_STRING_BYTES) is refused before it is read.
    ///
    /// ```
    /// # extern crate elicit_core as mcp_elicit;
    /// use mcp_elicit::{schema::{Format, Property, RequestedSchema, StringSchema, IntegerSchema}};
    /// let schema = RequestedSchema::new(vec![
    ///     Property::new("email", StringSchema::new().format(Format::Email)),
    ///     Property::new("age", IntegerSchema::new().minimum(18)),
    /// ])?;
    /// let content = serde_json::json!({"email": "nope", "age": 3.5});
    /// let err = schema.validate(content.as_object().unwrap()).unwrap_err();
    /// assert_eq!(err.len(), 2);
    /// assert!(err.concerns("email") && err.concerns("age"));
    /// # Ok::<(), mcp_elicit::schema::SchemaError>(())
    /// ```
    pub fn validate(&self, content: &Map<String, Value>) -> Result<(), Violations> {
        self.check_values(&self.values_of(content))
    }

    /// The value of each property in `content`, looked up by name (so the members the schema
    /// does not name are never visited), read as a reply's would be.
    fn values_of<'c>(&self, content: &'c Map<String, Value>) -> Vec<Option<FieldValue<'c>>> {
        self.properties
            .iter()
            .map(|p| read_value(p.kind(), content.get(p.name())))
            .collect()
    }

    /// This schema with the value each property kept in `content` as its default, for the form
    /// asked again after an answer broke some of its rules; `None` when no property kept one.
    ///
    /// A property keeps no value when `broken` names it, when `content` has none for it (absent
    /// or `null`), when its value breaks one of its rules, or when it looks like a credential
    /// (its name, title or description, read by the lexicon clients read forms with): a form
    /// must not ask for one, and a value the user typed into such a field is not sent back out.
    /// The result is checked as [`new`](RequestedSchema::new) checks a schema; a schema that
    /// would not pass is not offered (`None`).
    pub(crate) fn with_kept_answers_as_defaults(
        &self,
        content: &Map<String, Value>,
        broken: &Violations,
    ) -> Option<Self> {
        let mut properties: Option<Vec<Property>> = None;
        for (i, p) in self.properties.iter().enumerate() {
            if broken.concerns(&p.name)
                || crate::credential::field_credential_kind(
                    &p.name,
                    p.title.as_deref(),
                    p.description.as_deref(),
                )
                .is_some()
            {
                continue;
            }
            let Some(value) = read_value(&p.kind, content.get(p.name())) else {
                continue;
            };
            if p.check_read(Some(&value)).is_err() {
                continue;
            }
            let Some(kind) = kind_with_default(&p.kind, &value) else {
                continue;
            };
            let properties = properties.get_or_insert_with(|| self.properties.to_vec());
            if let Some(property) = properties.get_mut(i) {
                property.kind = kind;
            }
        }
        let properties = properties?;
        check_properties(&properties).ok()?;
        Some(Self {
            properties: Cow::Owned(properties),
        })
    }

    /// Every rule of every property, on one value per property (`None`: absent or `null`): the
    /// one loop behind [`validate`](RequestedSchema::validate) and every reply.
    pub(crate) fn check_values(&self, values: &[Option<FieldValue<'_>>]) -> Result<(), Violations> {
        let mut violations = Vec::new();
        for (i, p) in self.properties.iter().enumerate() {
            if let Err(rule) = p.check_read(values.get(i).and_then(Option::as_ref)) {
                violations.push(Violation {
                    property: p.name.to_string(),
                    rule,
                });
            }
        }
        Violations::from_vec(violations).map_or(Ok(()), Err)
    }
}

/// The one place that decides whether a list of properties forms a satisfiable schema, by the
/// [`rules`] (which the derive checks at compile time). A select whose options come at run time
/// may be empty until they are supplied; serializing it before then is an error.
fn check_properties(properties: &[Property]) -> Result<(), SchemaError> {
    let names: Vec<&str> = properties.iter().map(Property::name).collect();
    // `name_is_unique` of every name, in one pass.
    let repeated = rules::first_repeated_name(&names);
    for (i, p) in properties.iter().enumerate() {
        if !rules::name_is_not_empty(&p.name) {
            return Err(SchemaError::EmptyName);
        }
        if repeated == Some(i) {
            return Err(SchemaError::DuplicateProperty {
                name: p.name.to_string(),
            });
        }
        check_kind(p)?;
    }
    Ok(())
}

fn check_kind(p: &Property) -> Result<(), SchemaError> {
    let property = || p.name.to_string();
    let inverted = |bounds| {
        Err(SchemaError::InvertedBounds {
            property: property(),
            bounds,
        })
    };
    match &p.kind {
        PropertyKind::String(s) => {
            if !rules::lengths_are_ordered(s.min_length, s.max_length) {
                return inverted("minLength > maxLength");
            }
            if let Some(d) = &s.default {
                check_default(p, &FieldValue::Str(Cow::Borrowed(d)))?;
            }
        }
        PropertyKind::Integer(n) => {
            if !rules::integer_bounds_are_ordered(n.minimum, n.maximum) {
                return inverted("minimum > maximum");
            }
            if let Some(d) = n.default {
                check_default(p, &FieldValue::Int(d))?;
            }
        }
        PropertyKind::Number(n) => {
            if ![n.minimum, n.maximum, n.default]
                .into_iter()
                .flatten()
                .all(rules::number_is_finite)
            {
                return Err(SchemaError::NotFinite {
                    property: property(),
                });
            }
            if !rules::number_bounds_are_ordered(n.minimum, n.maximum) {
                return inverted("minimum > maximum");
            }
            if let Some(d) = n.default {
                check_default(p, &FieldValue::Float(d))?;
            }
        }
        PropertyKind::Boolean(_) => {}
        PropertyKind::Select(s) => {
            check_options(p, &s.options, s.dynamic)?;
            // A default of options still to come is checked once they are supplied.
            if let Some(d) = s.default.as_ref().filter(|_| !s.options.is_empty()) {
                check_default(p, &FieldValue::Str(Cow::Borrowed(d)))?;
            }
        }
        PropertyKind::MultiSelect(m) => {
            check_options(p, &m.options, m.dynamic)?;
            if !rules::item_counts_are_ordered(m.min_items, m.max_items) {
                return inverted("minItems > maxItems");
            }
            if !m.options.is_empty()
                && !rules::min_items_fit_the_options(m.min_items, m.options.len())
            {
                return Err(SchemaError::MinItemsExceedsOptions {
                    property: property(),
                });
            }
            if let Some(d) = m.default.as_ref().filter(|_| !m.options.is_empty()) {
                let items = d.iter().map(|v| Some(Cow::Borrowed(v.as_ref()))).collect();
                check_default(p, &FieldValue::Items(items))?;
            }
        }
    }
    Ok(())
}

/// A default keeps every rule a reply must keep: it is checked as one.
fn check_default(p: &Property, default: &FieldValue<'_>) -> Result<(), SchemaError> {
    check::check_value(&p.kind, default).map_err(|rule| SchemaError::InvalidDefault {
        property: p.name.to_string(),
        reason: rule.to_string(),
    })
}

fn check_options(p: &Property, options: &[EnumOption], dynamic: bool) -> Result<(), SchemaError> {
    if options.is_empty() && !dynamic {
        return Err(SchemaError::NoOptions {
            property: p.name.to_string(),
        });
    }
    if !rules::option_count_fits(options.len()) {
        return Err(SchemaError::TooManyOptions {
            property: p.name.to_string(),
            count: options.len(),
            limit: MAX_OPTIONS,
        });
    }
    // `option_value_is_unique` of every option, in one pass.
    if let Some(option) = rules::first_repeated_option(options).and_then(|i| options.get(i)) {
        return Err(SchemaError::DuplicateOption {
            property: p.name.to_string(),
            value: option.value().to_owned(),
        });
    }
    Ok(())
}

/// `kind` with `value`, which keeps its rules, as its default; `None` for a value no default of
/// this kind can hold.
fn kind_with_default(kind: &PropertyKind, value: &FieldValue<'_>) -> Option<PropertyKind> {
    let mut kind = kind.clone();
    match (&mut kind, value) {
        (PropertyKind::String(s), FieldValue::Str(text)) => {
            s.default = Some(text.clone().into_owned().into());
        }
        (PropertyKind::Select(s), FieldValue::Str(text)) => {
            s.default = Some(text.clone().into_owned().into());
        }
        (PropertyKind::Integer(n), FieldValue::Int(_) | FieldValue::Float(_)) => {
            n.default = Some(check::integer_value(value).ok()?);
        }
        (PropertyKind::Number(n), FieldValue::Int(_) | FieldValue::Float(_)) => {
            n.default = Some(check::number_value(value).ok()?);
        }
        (PropertyKind::Boolean(b), FieldValue::Bool(ticked)) => b.default = Some(*ticked),
        (PropertyKind::MultiSelect(m), FieldValue::Items(items)) => {
            let chosen: Option<Vec<_>> = items
                .iter()
                .map(|item| item.as_ref().map(|text| text.clone().into_owned().into()))
                .collect();
            m.default = Some(Cow::Owned(chosen?));
        }
        _ => return None,
    }
    Some(kind)
}
