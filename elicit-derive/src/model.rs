//! The checked model of the input: what the expansion reads, built once every rule holds.

use proc_macro2::Span;

use crate::attributes::{DefaultExpr, Number};
use crate::ty::Class;

/// The validated input, ready to expand.
pub enum Model {
    Form(Form),
    Url(UrlForm),
    Options(OptionsEnum),
}

pub struct Form {
    pub ident: syn::Ident,
    pub krate: syn::Path,
    pub message: String,
    pub fields: Vec<Field>,
    /// Fields skipped from the schema; filled with `Default::default()`.
    pub skipped: Vec<syn::Ident>,
    pub metric_name: String,
    /// `#[elicit(consent)]`: implement `ConsentForm`.
    pub consent: bool,
}

/// A URL-mode elicitation: a message only, the URL is given when asking.
pub struct UrlForm {
    pub ident: syn::Ident,
    pub krate: syn::Path,
    pub message: String,
    pub metric_name: String,
}

pub struct Field {
    pub ident: syn::Ident,
    pub ty: syn::Type,
    pub name: String,
    /// `#[elicit(consent)]` on the field: a confirmation checkbox that must be ticked.
    pub consent: bool,
    pub title: Option<String>,
    pub description: Option<String>,
    pub class: Class,
    pub format: Option<&'static str>,
    pub min_length: Option<u32>,
    pub max_length: Option<u32>,
    pub minimum: Option<Number>,
    pub maximum: Option<Number>,
    pub min_items: Option<u32>,
    pub max_items: Option<u32>,
    pub default: Option<(DefaultExpr, Span)>,
    pub legacy_enum_names: bool,
    pub serde_default: bool,
    /// Where `min_items` was written, for the check against the number of options.
    pub min_items_span: Option<Span>,
    /// Kinds the syntax could not confirm (an alias, a path): asserted by the compiler, each on
    /// the attribute that needs it.
    pub kind_asserts: Vec<(KindAssert, Span)>,
    /// `minimum`/`maximum` on a type the syntax could not classify: range-checked at compile
    /// time against the type's own range.
    pub unchecked_bounds: Vec<(&'static str, Number, Span)>,
    /// `#[serde(default = "path")]`: the function that fills an absent field.
    pub serde_default_fn: Option<syn::ExprPath>,
}

/// A field kind an attribute needs, asserted by a marker trait of the runtime
/// (`__private::StringField` ..) when the type's spelling does not show it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KindAssert {
    String,
    Number,
    MultiSelect,
    Bool,
}

pub struct OptionsEnum {
    pub ident: syn::Ident,
    pub krate: syn::Path,
    pub variants: Vec<Variant>,
}

pub struct Variant {
    pub ident: syn::Ident,
    pub value: String,
    pub title: Option<String>,
    pub dangerous: bool,
}
