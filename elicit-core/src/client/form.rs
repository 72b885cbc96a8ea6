//! Reading a form's requested schema into this crate's types, property by property, with a
//! note for what does not conform to the revision.

use serde_json::{Map, Value};

use super::error::IncomingError;
use super::incoming::{IncomingForm, Note};
use super::member::{bounded, bounded_at, nonconformant, object, object_at, string, too_large};
use crate::format::Format;
use crate::limits::{
    MAX_DEFAULT_BYTES, MAX_DESCRIPTION_BYTES, MAX_FORM_OPTIONS, MAX_NAME_BYTES, MAX_OPTIONS,
    MAX_PROPERTIES, MAX_TITLE_BYTES,
};
use crate::requested::{
    BooleanSchema, EnumOption, IntegerSchema, MultiSelectSchema, NumberSchema, Property,
    PropertyKind, RequestedSchema, SelectSchema, SelectStyle, StringSchema,
};
use crate::revision::Revision;
use crate::violation::quote;

/// Every bound in [`limits`](crate::limits) that a form's schema is held to is checked here, on
/// each member before it is copied, and before the schema's own rules (which then run in O(k)
/// for k options: `rules::first_repeat`). So the work of reading a form is linear in what the
/// limits let through, whatever the server sends.
///
/// A list of options, refused if it is longer than a select may offer, or than the options the
/// form has left (`options_left`, of [`MAX_FORM_OPTIONS`]).
fn check_option_count(
    count: usize,
    at: &str,
    options_left: &mut usize,
) -> Result<(), IncomingError> {
    if count > MAX_OPTIONS {
        return Err(too_large(at, "options", MAX_OPTIONS));
    }
    *options_left = options_left.checked_sub(count).ok_or_else(|| {
        too_large(
            at,
            "options, with the form's selects before it,",
            MAX_FORM_OPTIONS,
        )
    })?;
    Ok(())
}

pub(super) fn read_form(
    params: &Map<String, Value>,
    revision: Revision,
    message: String,
    mut notes: Vec<Note>,
) -> Result<IncomingForm, IncomingError> {
    let schema = object(
        params.get("requestedSchema").unwrap_or(&Value::Null),
        "requestedSchema",
    )?;
    if schema.get("type").and_then(Value::as_str) != Some("object") {
        return Err(IncomingError::Member {
            at: "requestedSchema.type".to_owned(),
            expected: "\"object\"",
        });
    }
    let properties = object(
        schema.get("properties").unwrap_or(&Value::Null),
        "requestedSchema.properties",
    )?;
    if properties.len() > MAX_PROPERTIES {
        return Err(too_large(
            "requestedSchema.properties",
            "properties",
            MAX_PROPERTIES,
        ));
    }
    let required: Vec<&str> = match schema.get("required") {
        None | Some(Value::Null) => Vec::new(),
        // Each name once, each a property: no more names than properties.
        Some(Value::Array(names)) if names.len() > MAX_PROPERTIES => {
            return Err(too_large(
                "requestedSchema.required",
                "names",
                MAX_PROPERTIES,
            ));
        }
        Some(Value::Array(names)) => names
            .iter()
            .map(|name| string(Some(name), "requestedSchema.required[]"))
            .collect::<Result<_, _>>()?,
        Some(_) => {
            return Err(IncomingError::Member {
                at: "requestedSchema.required".to_owned(),
                expected: "an array of property names",
            });
        }
    };
    let mut read = Vec::with_capacity(properties.len());
    let mut options_left = MAX_FORM_OPTIONS;
    for (name, property) in properties {
        let at = format!("requestedSchema.properties.{}", quote(name));
        if name.len() > MAX_NAME_BYTES {
            return Err(too_large(&at, "bytes in its name", MAX_NAME_BYTES));
        }
        let property = object(property, &at)?;
        let kind = read_kind(name, property, &at, revision, &mut notes, &mut options_left)?;
        let mut read_property =
            Property::new(name.clone(), kind).required(required.contains(&name.as_str()));
        if let Some(title) = property.get("title") {
            let title = bounded(Some(title), &format!("{at}.title"), MAX_TITLE_BYTES)?;
            read_property = read_property.title(title.to_owned());
        }
        if let Some(description) = property.get("description") {
            let at = format!("{at}.description");
            let description = bounded(Some(description), &at, MAX_DESCRIPTION_BYTES)?;
            read_property = read_property.description(description.to_owned());
        }
        let credential = crate::credential::field_credential_kind(
            name,
            read_property.title_text(),
            read_property.description_text(),
        );
        if let Some(kind) = credential {
            notes.push(Note::Credential {
                property: name.clone(),
                kind,
            });
        }
        read.push(read_property);
    }
    for name in required
        .iter()
        .filter(|name| !properties.contains_key(**name))
    {
        notes.push(nonconformant(format!(
            "`{}` is required but is not a property",
            quote(name)
        )));
    }
    let schema = RequestedSchema::new(read)?;
    Ok(IncomingForm {
        message,
        schema,
        notes,
    })
}

/// The options of an `enum` (+ `enumNames`) or a `oneOf`/`anyOf` of `{const, title}`.
fn options(
    property: &Map<String, Value>,
    at: &str,
    list: &str,
    options_left: &mut usize,
) -> Result<Option<Vec<EnumOption>>, IncomingError> {
    let mut titled = |member: &str| -> Result<Option<Vec<EnumOption>>, IncomingError> {
        let Some(entries) = property.get(member) else {
            return Ok(None);
        };
        let at = format!("{at}.{member}");
        let entries = entries.as_array().ok_or_else(|| IncomingError::Member {
            at: at.clone(),
            expected: "an array of {const, title}",
        })?;
        check_option_count(entries.len(), &at, options_left)?;
        entries
            .iter()
            .enumerate()
            .map(|(i, entry)| {
                let entry = object_at(entry, || format!("{at}[{i}]"))?;
                let value = bounded_at(entry.get("const"), MAX_NAME_BYTES, || {
                    format!("{at}[{i}].const")
                })?;
                Ok(match entry.get("title") {
                    Some(title @ Value::String(_)) => {
                        let title = bounded_at(Some(title), MAX_TITLE_BYTES, || {
                            format!("{at}[{i}].title")
                        })?;
                        EnumOption::titled(value.to_owned(), title.to_owned())
                    }
                    _ => EnumOption::new(value.to_owned()),
                })
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some)
    };
    if let Some(values) = property.get(list) {
        let list_at = format!("{at}.{list}");
        let values = values.as_array().ok_or_else(|| IncomingError::Member {
            at: list_at.clone(),
            expected: "an array of strings",
        })?;
        check_option_count(values.len(), &list_at, options_left)?;
        let names = property.get("enumNames").and_then(Value::as_array);
        return values
            .iter()
            .enumerate()
            .map(|(i, value)| {
                let value = bounded_at(Some(value), MAX_NAME_BYTES, || format!("{list_at}[{i}]"))?;
                let value = value.to_owned();
                Ok(match names.and_then(|n| n.get(i)) {
                    Some(title @ Value::String(_)) => {
                        let title = bounded_at(Some(title), MAX_TITLE_BYTES, || {
                            format!("{at}.enumNames[{i}]")
                        })?;
                        EnumOption::titled(value, title.to_owned())
                    }
                    _ => EnumOption::new(value),
                })
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some);
    }
    match titled("oneOf")? {
        Some(options) => Ok(Some(options)),
        None => titled("anyOf"),
    }
}

fn read_kind(
    name: &str,
    property: &Map<String, Value>,
    at: &str,
    revision: Revision,
    notes: &mut Vec<Note>,
    options_left: &mut usize,
) -> Result<PropertyKind, IncomingError> {
    let unsupported = |found: String| IncomingError::UnsupportedProperty {
        property: quote(name),
        found,
    };
    let kind = property.get("type").and_then(Value::as_str);
    let u32_of = |member: &str| -> Result<Option<u32>, IncomingError> {
        match property.get(member) {
            None | Some(Value::Null) => Ok(None),
            Some(value) => value
                .as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .map(Some)
                .ok_or_else(|| IncomingError::Member {
                    at: format!("{at}.{member}"),
                    expected: "a whole number from 0 to 4294967295",
                }),
        }
    };
    let number_of = |member: &str| -> Result<Option<f64>, IncomingError> {
        match property.get(member) {
            None | Some(Value::Null) => Ok(None),
            Some(value) => value
                .as_f64()
                .map(Some)
                .ok_or_else(|| IncomingError::Member {
                    at: format!("{at}.{member}"),
                    expected: "a number",
                }),
        }
    };
    // A default on anything but a boolean, where the revision has none (2025-06-18).
    let kind_has_default = kind != Some("boolean") && property.contains_key("default");
    if kind_has_default && !revision.has_defaults_beyond_booleans() {
        notes.push(nonconformant(format!(
            "`{}` has a `default`, which {revision} allows on booleans only",
            quote(name)
        )));
    }
    match kind {
        Some("string") => {
            if let Some(options) = options(property, at, "enum", options_left)? {
                let style = if property.contains_key("enumNames") {
                    if !revision.has_enum_names() {
                        notes.push(nonconformant(format!(
                            "`{}` titles its options with `enumNames`, which {revision} does not have",
                            quote(name)
                        )));
                    }
                    SelectStyle::Legacy
                } else {
                    if !property.contains_key("enum")
                        && property.contains_key("oneOf")
                        && !revision.has_one_of_selects()
                    {
                        notes.push(nonconformant(format!(
                            "`{}` is a `oneOf` single-select, which {revision} does not have (it titles options with `enumNames`)",
                            quote(name)
                        )));
                    }
                    SelectStyle::Standard
                };
                let mut select = SelectSchema::new(options).style(style);
                if let Some(default) = property.get("default") {
                    // An option's value, so no longer than one.
                    let default = bounded(Some(default), &format!("{at}.default"), MAX_NAME_BYTES)?;
                    select = select.default_value(default.to_owned());
                }
                return Ok(select.into());
            }
            let mut text = StringSchema::new();
            if let Some(format) = property.get("format") {
                let format = string(Some(format), &format!("{at}.format"))?;
                match Format::from_name(format) {
                    Some(known) => text = text.format(known),
                    None => notes.push(nonconformant(format!(
                        "`{}` has the format \"{}\", which no revision defines; it is read as plain text",
                        quote(name),
                        quote(format)
                    ))),
                }
            }
            if let Some(min) = u32_of("minLength")? {
                text = text.min_length(min);
            }
            if let Some(max) = u32_of("maxLength")? {
                text = text.max_length(max);
            }
            if let Some(default) = property.get("default") {
                let default = bounded(Some(default), &format!("{at}.default"), MAX_DEFAULT_BYTES)?;
                text = text.default_value(default.to_owned());
            }
            Ok(text.into())
        }
        Some("integer") => {
            let integer = |member: &str| -> Result<Option<i128>, IncomingError> {
                match property.get(member) {
                    None | Some(Value::Null) => Ok(None),
                    Some(value) => value
                        .as_i64()
                        .map(i128::from)
                        .or_else(|| value.as_u64().map(i128::from))
                        .map(Some)
                        .ok_or_else(|| IncomingError::Member {
                            at: format!("{at}.{member}"),
                            expected: "a whole number within 64 bits",
                        }),
                }
            };
            let mut schema = IntegerSchema::new();
            if let Some(min) = integer("minimum")? {
                schema = schema.minimum(min);
            }
            if let Some(max) = integer("maximum")? {
                schema = schema.maximum(max);
            }
            if let Some(default) = integer("default")? {
                schema = schema.default_value(default);
            }
            Ok(schema.into())
        }
        Some("number") => {
            let mut schema = NumberSchema::new();
            if let Some(min) = number_of("minimum")? {
                schema = schema.minimum(min);
            }
            if let Some(max) = number_of("maximum")? {
                schema = schema.maximum(max);
            }
            if let Some(default) = number_of("default")? {
                schema = schema.default_value(default);
            }
            Ok(schema.into())
        }
        Some("boolean") => {
            let mut schema = BooleanSchema::new();
            match property.get("default") {
                None | Some(Value::Null) => {}
                Some(Value::Bool(default)) => schema = schema.default_value(*default),
                Some(_) => {
                    return Err(IncomingError::Member {
                        at: format!("{at}.default"),
                        expected: "a boolean",
                    });
                }
            }
            Ok(schema.into())
        }
        Some("array") => {
            if !revision.has_multi_select() {
                notes.push(nonconformant(format!(
                    "`{}` is a multi-select, which {revision} does not have",
                    quote(name)
                )));
            }
            let items = object(
                property.get("items").unwrap_or(&Value::Null),
                &format!("{at}.items"),
            )?;
            let options = options(items, &format!("{at}.items"), "enum", options_left)?
                .ok_or_else(|| {
                    unsupported("an array that is not a multi-select of options".to_owned())
                })?;
            let mut select = MultiSelectSchema::new(options);
            if let Some(min) = u32_of("minItems")? {
                select = select.min_items(min);
            }
            if let Some(max) = u32_of("maxItems")? {
                select = select.max_items(max);
            }
            if let Some(default) = property.get("default") {
                let at = format!("{at}.default");
                let default = default.as_array().ok_or_else(|| IncomingError::Member {
                    at: at.clone(),
                    expected: "an array of strings",
                })?;
                // Each option at most once: no more values than a select may offer, each an
                // option's value, so no longer than one.
                if default.len() > MAX_OPTIONS {
                    return Err(too_large(&at, "values", MAX_OPTIONS));
                }
                let default = default
                    .iter()
                    .enumerate()
                    .map(|(i, value)| {
                        bounded_at(Some(value), MAX_NAME_BYTES, || format!("{at}[{i}]"))
                            .map(|s| s.to_owned().into())
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                select = select.default_value(default);
            }
            Ok(select.into())
        }
        Some("object") => Err(unsupported("a nested object".to_owned())),
        Some(other) => Err(unsupported(format!("of type \"{}\"", quote(other)))),
        None => Err(IncomingError::Member {
            at: format!("{at}.type"),
            expected: "one of \"string\", \"number\", \"integer\", \"boolean\", \"array\"",
        }),
    }
}
