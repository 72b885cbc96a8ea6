//! A schema on the wire: exactly the spec's shapes (`PrimitiveSchemaDefinition`), as each
//! revision writes them.

use serde::ser::{Error as _, SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};

use super::*;
use crate::revision::{Revision, RevisionError};

/// The latest revision's shape; `SchemaOnWire` writes it for any revision.
impl Serialize for RequestedSchema {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        SchemaOnWire {
            schema: self,
            revision: Revision::LATEST,
        }
        .serialize(serializer)
    }
}

/// A schema as a given protocol revision writes it.
///
/// What the revision can write is its profile's to say: without `oneOf` single-selects
/// ([`Revision::has_one_of_selects`], 2025-06-18) a titled single-select becomes `enum` +
/// `enumNames`; without defaults beyond booleans ([`Revision::has_defaults_beyond_booleans`])
/// the other defaults are dropped (a default is only a pre-fill hint; the question asked is the
/// same). Without multi-selects ([`Revision::has_multi_select`]) one cannot be written at all:
/// [`crate::FormRequest::for_revision`] refuses it before anything is serialized.
pub(crate) struct SchemaOnWire<'a> {
    pub(crate) schema: &'a RequestedSchema,
    pub(crate) revision: Revision,
}

impl Serialize for SchemaOnWire<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(3))?;
        map.serialize_entry("type", "object")?;
        map.serialize_entry(
            "properties",
            &PropertiesMap(&self.schema.properties, self.revision),
        )?;
        map.serialize_entry("required", &RequiredList(&self.schema.properties))?;
        map.end()
    }
}

struct PropertiesMap<'a>(&'a [Property], Revision);

impl Serialize for PropertiesMap<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for p in self.0 {
            map.serialize_entry(
                p.name.as_ref(),
                &PropertyOnWire {
                    property: p,
                    revision: self.1,
                },
            )?;
        }
        map.end()
    }
}

struct RequiredList<'a>(&'a [Property]);

impl Serialize for RequiredList<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(None)?;
        for p in self.0.iter().filter(|p| p.required) {
            seq.serialize_element(p.name.as_ref())?;
        }
        seq.end()
    }
}

/// The latest revision's shape of one property.
impl Serialize for Property {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        PropertyOnWire {
            property: self,
            revision: Revision::LATEST,
        }
        .serialize(serializer)
    }
}

struct PropertyOnWire<'a> {
    property: &'a Property,
    revision: Revision,
}

impl Serialize for PropertyOnWire<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let this = self.property;
        // A boolean's default exists in every revision; the others' not in every one.
        let defaults = self.revision.has_defaults_beyond_booleans();
        let mut map = serializer.serialize_map(None)?;
        let type_name = match &this.kind {
            PropertyKind::String(_) | PropertyKind::Select(_) => "string",
            PropertyKind::Integer(_) => "integer",
            PropertyKind::Number(_) => "number",
            PropertyKind::Boolean(_) => "boolean",
            PropertyKind::MultiSelect(_) => "array",
        };
        map.serialize_entry("type", type_name)?;
        if let Some(title) = &this.title {
            map.serialize_entry("title", title)?;
        }
        if let Some(description) = &this.description {
            map.serialize_entry("description", description)?;
        }
        match &this.kind {
            PropertyKind::String(s) => {
                if let Some(format) = s.format {
                    map.serialize_entry("format", format.as_str())?;
                }
                if let Some(min) = s.min_length {
                    map.serialize_entry("minLength", &min)?;
                }
                if let Some(max) = s.max_length {
                    map.serialize_entry("maxLength", &max)?;
                }
                if let Some(default) = s.default.as_ref().filter(|_| defaults) {
                    map.serialize_entry("default", default)?;
                }
            }
            PropertyKind::Integer(n) => {
                write_range(
                    &mut map,
                    n.minimum,
                    n.maximum,
                    n.default.filter(|_| defaults),
                )?;
            }
            PropertyKind::Number(n) => {
                write_range(
                    &mut map,
                    n.minimum,
                    n.maximum,
                    n.default.filter(|_| defaults),
                )?;
            }
            PropertyKind::Boolean(b) => {
                if let Some(default) = b.default {
                    map.serialize_entry("default", &default)?;
                }
            }
            PropertyKind::Select(s) => {
                if s.options.is_empty() {
                    return Err(S::Error::custom(SchemaError::NoOptions {
                        property: this.name.to_string(),
                    }));
                }
                let titled = s.options.iter().any(|o| o.title.is_some());
                match (written_style(s.style, self.revision), titled) {
                    (SelectStyle::Standard, true) => {
                        map.serialize_entry("oneOf", &TitledOptions(&s.options))?;
                    }
                    (SelectStyle::Legacy, true) => {
                        map.serialize_entry("enum", &OptionValues(&s.options))?;
                        map.serialize_entry("enumNames", &OptionTitles(&s.options))?;
                    }
                    (_, false) => map.serialize_entry("enum", &OptionValues(&s.options))?,
                }
                if let Some(default) = s.default.as_ref().filter(|_| defaults) {
                    map.serialize_entry("default", default)?;
                }
            }
            PropertyKind::MultiSelect(m) => {
                if !self.revision.has_multi_select() {
                    return Err(S::Error::custom(RevisionError::MultiSelectUnsupported {
                        property: this.name.to_string(),
                        revision: self.revision,
                    }));
                }
                if m.options.is_empty() {
                    return Err(S::Error::custom(SchemaError::NoOptions {
                        property: this.name.to_string(),
                    }));
                }
                if let Some(min) = m.min_items {
                    map.serialize_entry("minItems", &min)?;
                }
                if let Some(max) = m.max_items {
                    map.serialize_entry("maxItems", &max)?;
                }
                map.serialize_entry("items", &MultiItems(&m.options))?;
                if let Some(default) = &m.default {
                    map.serialize_entry("default", default.as_ref())?;
                }
            }
        }
        map.end()
    }
}

/// The style a single-select asked to be written in `asked` is written in on `revision`: the
/// other one where the revision lacks it (2025-06-18 has no `oneOf`).
fn written_style(asked: SelectStyle, revision: Revision) -> SelectStyle {
    match asked {
        SelectStyle::Standard if !revision.has_one_of_selects() => SelectStyle::Legacy,
        SelectStyle::Legacy if !revision.has_enum_names() => SelectStyle::Standard,
        asked => asked,
    }
}

struct OptionValues<'a>(&'a [EnumOption]);
impl Serialize for OptionValues<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(|o| o.value.as_ref()))
    }
}

struct OptionTitles<'a>(&'a [EnumOption]);
impl Serialize for OptionTitles<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(
            self.0
                .iter()
                .map(|o| o.title.as_deref().unwrap_or(&o.value)),
        )
    }
}

struct TitledOptions<'a>(&'a [EnumOption]);
impl Serialize for TitledOptions<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.0.len()))?;
        for o in self.0 {
            seq.serialize_element(&ConstTitle(o))?;
        }
        seq.end()
    }
}

struct ConstTitle<'a>(&'a EnumOption);
impl Serialize for ConstTitle<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(2))?;
        map.serialize_entry("const", self.0.value.as_ref())?;
        map.serialize_entry("title", self.0.title.as_deref().unwrap_or(&self.0.value))?;
        map.end()
    }
}

struct MultiItems<'a>(&'a [EnumOption]);
impl Serialize for MultiItems<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let titled = self.0.iter().any(|o| o.title.is_some());
        let mut map = serializer.serialize_map(None)?;
        if titled {
            map.serialize_entry("anyOf", &TitledOptions(self.0))?;
        } else {
            map.serialize_entry("type", "string")?;
            map.serialize_entry("enum", &OptionValues(self.0))?;
        }
        map.end()
    }
}

/// An integer's or a number's `minimum`, `maximum` and `default`, each when it has one.
fn write_range<M: SerializeMap, T: Serialize>(
    map: &mut M,
    minimum: Option<T>,
    maximum: Option<T>,
    default: Option<T>,
) -> Result<(), M::Error> {
    for (key, value) in [
        ("minimum", minimum),
        ("maximum", maximum),
        ("default", default),
    ] {
        if let Some(value) = value {
            map.serialize_entry(key, &value)?;
        }
    }
    Ok(())
}
