//! A form adapted to the field kinds a host draws, and its answer read back: a pure pair
//! ([`adapt`], [`Adaptation::restore`]), so that the restored content is validated by the
//! form's own rules, exactly as an answer from a host that drew the form as it was.

use std::borrow::Cow;

use serde_json::{Map, Value};

use super::{FieldKind, FieldKinds};
use crate::requested::{
    BooleanSchema, EnumOption, Property, PropertyKind, RequestedSchema, SelectSchema, StringSchema,
    Text,
};

/// The most values an integer field may have to be asked as a single-select (a longer list is
/// asked as text, with its bounds said).
pub const MAX_INTEGER_OPTIONS: i128 = 12;

/// A form's schema adapted to what a host draws ([`adapt`]), and how to read its answers back.
#[derive(Debug, Clone, PartialEq)]
pub struct Adaptation {
    schema: RequestedSchema,
    changes: Vec<Change>,
}

/// One field asked in another kind.
#[derive(Debug, Clone, PartialEq)]
enum Change {
    /// An integer asked as a single-select of its values' text.
    IntegerAsSelect { name: Text },
    /// An integer or a number asked as text.
    NumberAsText { name: Text },
    /// A multi-select asked as one boolean per option: `(boolean's name, option's value)`.
    MultiSelectAsBooleans {
        name: Text,
        required: bool,
        options: Vec<(String, Text)>,
    },
}

/// `schema` as a host that draws `kinds` can draw it, or `None` when it draws every field of
/// it (then send the form as it is):
///
/// - an integer with at most [`MAX_INTEGER_OPTIONS`] values (both bounds set) is a
///   single-select of its values' text (`"1"` … `"12"`);
/// - any other integer, and a number, is a text field whose description ends with its bounds
///   ("A whole number from 1 to 100.");
/// - a multi-select is one boolean per option, named `<field>.<n>` (`n` from 0) and titled
///   with the option's title, none required.
///
/// Titles, `required` and defaults carry over. A field whose adapted form would not make a
/// well-formed schema (a boolean's name taken, too many fields) makes the whole form
/// unadaptable: `None`, and the form goes as it is.
///
/// ```
/// # extern crate elicit_core as mcp_elicit;
/// use mcp_elicit::hosts::{FieldKinds, adapt};
/// use mcp_elicit::schema::{IntegerSchema, Property, RequestedSchema};
/// use serde_json::json;
///
/// let schema = RequestedSchema::new(vec![
///     Property::new("size", IntegerSchema::new().minimum(1).maximum(12)).title("Party size"),
/// ])?;
/// let adapted = adapt(&schema, FieldKinds::BASIC).expect("an integer to adapt");
/// let restored = adapted.restore(Some(json!({"size": "4"})));
/// assert_eq!(restored, Some(json!({"size": 4})));
/// assert!(adapt(&schema, FieldKinds::ALL).is_none());
/// # Ok::<(), mcp_elicit::schema::SchemaError>(())
/// ```
pub fn adapt(schema: &RequestedSchema, kinds: FieldKinds) -> Option<Adaptation> {
    if kinds.draws_all() || !schema.properties().iter().any(|p| needs(p, kinds)) {
        return None;
    }
    let mut properties = Vec::with_capacity(schema.properties().len());
    let mut changes = Vec::new();
    for property in schema.properties() {
        if !needs(property, kinds) {
            properties.push(property.clone());
            continue;
        }
        match &property.kind {
            PropertyKind::Integer(integer) => match (integer.minimum, integer.maximum) {
                (Some(min), Some(max))
                    if max
                        .checked_sub(min)
                        .is_some_and(|d| d < MAX_INTEGER_OPTIONS) =>
                {
                    let options: Vec<EnumOption> = (min..=max)
                        .map(|v| EnumOption::new(v.to_string()))
                        .collect();
                    let mut select = SelectSchema::new(options);
                    if let Some(default) = integer.default {
                        select = select.default_value(default.to_string());
                    }
                    properties.push(with_kind(property, select.into(), None));
                    changes.push(Change::IntegerAsSelect {
                        name: property.name.clone(),
                    });
                }
                (min, max) => {
                    let words = bounds("A whole number", min, max);
                    let mut text = StringSchema::new();
                    if let Some(default) = integer.default {
                        text = text.default_value(default.to_string());
                    }
                    properties.push(with_kind(property, text.into(), Some(words)));
                    changes.push(Change::NumberAsText {
                        name: property.name.clone(),
                    });
                }
            },
            PropertyKind::Number(number) => {
                let words = bounds("A number", number.minimum, number.maximum);
                let mut text = StringSchema::new();
                if let Some(default) = number.default {
                    text = text.default_value(default.to_string());
                }
                properties.push(with_kind(property, text.into(), Some(words)));
                changes.push(Change::NumberAsText {
                    name: property.name.clone(),
                });
            }
            PropertyKind::MultiSelect(multi) => {
                let label = property.title.as_deref().unwrap_or(&property.name);
                let mut options = Vec::with_capacity(multi.options.len());
                for (i, option) in multi.options.iter().enumerate() {
                    let name = format!("{}.{i}", property.name);
                    let chosen = multi
                        .default
                        .as_ref()
                        .is_some_and(|d| d.iter().any(|v| v.as_ref() == option.value()));
                    let mut boolean = BooleanSchema::new();
                    if multi.default.is_some() {
                        boolean = boolean.default_value(chosen);
                    }
                    let shown = option.title().unwrap_or(option.value());
                    let mut one = Property::new(name.clone(), boolean)
                        .optional()
                        .title(format!("{label}: {shown}"));
                    if i == 0
                        && let Some(description) = &property.description
                    {
                        one = one.description(description.clone());
                    }
                    properties.push(one);
                    options.push((name, Cow::Owned(option.value().to_owned())));
                }
                changes.push(Change::MultiSelectAsBooleans {
                    name: property.name.clone(),
                    required: property.required,
                    options,
                });
            }
            _ => properties.push(property.clone()),
        }
    }
    let schema = RequestedSchema::new(properties).ok()?;
    Some(Adaptation { schema, changes })
}

/// Whether `property` is of a kind the host does not draw.
fn needs(property: &Property, kinds: FieldKinds) -> bool {
    match property.kind {
        PropertyKind::Integer(_) => !kinds.draws(FieldKind::Integer),
        PropertyKind::Number(_) => !kinds.draws(FieldKind::Number),
        PropertyKind::MultiSelect(_) => !kinds.draws(FieldKind::MultiSelect),
        _ => false,
    }
}

/// `property` with another kind, and `words` after its description.
fn with_kind(property: &Property, kind: PropertyKind, words: Option<String>) -> Property {
    let description = match (&property.description, words) {
        (Some(description), Some(words)) => Some(Cow::Owned(format!("{description} ({words})"))),
        (None, Some(words)) => Some(Cow::Owned(words)),
        (description, None) => description.clone(),
    };
    Property {
        name: property.name.clone(),
        title: property.title.clone(),
        description,
        required: property.required,
        kind,
    }
}

/// "A number from 1 to 10.", "A number, at least 1.", …
fn bounds<T: std::fmt::Display>(what: &str, min: Option<T>, max: Option<T>) -> String {
    match (min, max) {
        (Some(min), Some(max)) => format!("{what} from {min} to {max}."),
        (Some(min), None) => format!("{what}, at least {min}."),
        (None, Some(max)) => format!("{what}, at most {max}."),
        (None, None) => format!("{what}."),
    }
}

impl Adaptation {
    /// The schema to send the host.
    pub fn schema(&self) -> &RequestedSchema {
        &self.schema
    }

    /// The answer's `content` in the original form's shape, to be read by the original form
    /// (its rules, its re-ask reasons): an integer's option text and a number's text are the
    /// number they spell (text that spells none stays text, which the form's rules refuse as
    /// they would a host's wrong type; empty text is a field left empty); the ticked booleans
    /// of a multi-select are the list of their options, in the options' order (nothing ticked:
    /// an empty list if the field is required, else no answer). Anything else is left as it is.
    pub fn restore(&self, content: Option<Value>) -> Option<Value> {
        match content {
            Some(Value::Object(mut map)) => {
                self.restore_map(&mut map);
                Some(Value::Object(map))
            }
            other => other,
        }
    }

    /// [`restore`](Adaptation::restore), in place.
    pub fn restore_map(&self, content: &mut Map<String, Value>) {
        for change in &self.changes {
            match change {
                Change::IntegerAsSelect { name } | Change::NumberAsText { name } => {
                    let Some(Value::String(text)) = content.get(name.as_ref()) else {
                        continue;
                    };
                    let text = text.trim();
                    if text.is_empty() {
                        content.remove(name.as_ref());
                    } else if let Ok(number) = serde_json::from_str::<serde_json::Number>(text) {
                        content.insert(name.to_string(), Value::Number(number));
                    }
                }
                Change::MultiSelectAsBooleans {
                    name,
                    required,
                    options,
                } => {
                    let mut chosen = Vec::new();
                    for (boolean, value) in options {
                        if content.remove(boolean) == Some(Value::Bool(true)) {
                            chosen.push(Value::from(value.as_ref()));
                        }
                    }
                    if !chosen.is_empty() || *required {
                        content.insert(name.to_string(), Value::Array(chosen));
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::requested::{IntegerSchema, MultiSelectSchema, NumberSchema};
    use serde_json::json;

    fn schema() -> RequestedSchema {
        RequestedSchema::new(vec![
            Property::new("size", IntegerSchema::new().minimum(1).maximum(12)).title("Party"),
            Property::new("budget", NumberSchema::new().minimum(0.5).maximum(100.0)),
            Property::new("guests", IntegerSchema::new().minimum(0)).optional(),
            Property::new(
                "diet",
                MultiSelectSchema::new(vec![
                    EnumOption::titled("veg", "Vegetarian"),
                    EnumOption::new("gf"),
                ])
                .max_items(1),
            )
            .title("Diet"),
        ])
        .unwrap()
    }

    #[test]
    fn each_kind_is_asked_in_one_the_host_draws() {
        let adapted = adapt(&schema(), FieldKinds::BASIC).unwrap();
        let wire = serde_json::to_value(crate::requested::SchemaOnWire {
            schema: adapted.schema(),
            revision: crate::Revision::V2025_06_18,
        })
        .unwrap();
        let p = &wire["properties"];
        assert_eq!(p["size"]["enum"].as_array().unwrap().len(), 12);
        assert_eq!(p["size"]["enum"][3], "4");
        assert_eq!(p["budget"]["type"], "string");
        assert_eq!(p["budget"]["description"], "A number from 0.5 to 100.");
        assert_eq!(p["guests"]["description"], "A whole number, at least 0.");
        assert_eq!(p["diet.0"]["type"], "boolean");
        assert_eq!(p["diet.0"]["title"], "Diet: Vegetarian");
        assert_eq!(p["diet.1"]["title"], "Diet: gf");
        assert!(p.get("diet").is_none());
    }

    #[test]
    fn the_answer_is_read_back_in_the_forms_shape() {
        let adapted = adapt(&schema(), FieldKinds::BASIC).unwrap();
        let restored = adapted.restore(Some(json!({
            "size": "4", "budget": " 12.5 ", "guests": "", "diet.0": true, "diet.1": false
        })));
        assert_eq!(
            restored,
            Some(json!({"size": 4, "budget": 12.5, "diet": ["veg"]}))
        );
        // Text that spells no number stays text, for the form's rules to refuse.
        let restored = adapted.restore(Some(json!({"budget": "lots"})));
        assert_eq!(restored, Some(json!({"budget": "lots", "diet": []})));
    }

    #[test]
    fn a_host_that_draws_a_kind_gets_it_as_it_is() {
        let kinds = FieldKinds::ALL.without(FieldKind::MultiSelect);
        let adapted = adapt(&schema(), kinds).unwrap();
        assert_eq!(adapted.schema().property("size"), schema().property("size"));
        assert!(adapted.schema().property("diet.0").is_some());
        assert!(adapt(&schema(), FieldKinds::ALL).is_none());
    }
}
