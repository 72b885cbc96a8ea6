//! The `requestedSchema` of a form-mode elicitation: a flat object of primitive properties.
//!
//! A [`RequestedSchema`] is what the derive produces for a struct, and what a server builds by
//! hand when it does not use the derive. Either way the same schema serializes to the wire
//! (exactly the shapes of the spec's `PrimitiveSchemaDefinition`) and validates replies
//! ([`RequestedSchema::validate`]).

// The layers, bottom first: each module imports only from the ones above its line here.
// What breaks a schema.
mod error;
// The rules, one `const fn` each, and the kinds they hold (their options): one layer, as a rule
// on options reads an `EnumOption` and an option's value is read by a rule.
mod kind;
pub mod rules;
// A property's value as read from a reply.
pub(crate) mod value;
// The rules of its kind a value must keep.
pub(crate) mod check;
// One property: its rules on one value.
mod property;
// The schema: built only when satisfiable, and its check of content.
mod schema;
// The schema on the wire, and in words.
mod wire;
mod words;

pub use error::SchemaError;
pub use kind::{
    BooleanSchema, EnumOption, IntegerSchema, MultiSelectSchema, NumberSchema, Options,
    PropertyKind, SelectSchema, SelectStyle, StringSchema, Text,
};
pub use property::Property;
pub use schema::RequestedSchema;
pub(crate) use wire::SchemaOnWire;
