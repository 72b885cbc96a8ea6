//! The checked model of the input: what the expansion reads, built once every rule holds. The
//! names the model decides (a field's property name, an option's value, which fields are asked)
//! are decided here, for the rules and the expansion alike.

use proc_macro2::Span;

use crate::attributes::{
    Body, DefaultExpr, FieldOpts, InputOpts, Number, SerdeAttrs, Target, VariantOpts, doc_text,
    serde_attrs,
};
use crate::case::RenameRule;
use crate::ty::{Class, classify};

/// The validated input, ready to expand.
pub enum Model {
    Form(Form),
    Url(UrlForm),
    Page(Page),
    Options(OptionsEnum),
}

pub struct Form {
    pub ident: syn::Ident,
    pub krate: syn::Path,
    pub message: String,
    /// Where `message = ".."` is written; `None` for a doc comment's.
    pub message_span: Option<Span>,
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
    /// Where `message = ".."` is written; `None` for a doc comment's.
    pub message_span: Option<Span>,
    pub metric_name: String,
}

/// A page the library serves (`mode = "url"` with fields): secrets the user types.
pub struct Page {
    pub ident: syn::Ident,
    pub krate: syn::Path,
    pub message: String,
    /// Where `message = ".."` is written; `None` for a doc comment's.
    pub message_span: Option<Span>,
    /// Where `mode = "url"` is written: what needs the runtime's `page` feature.
    pub mode_span: Span,
    /// The page's name: `name = ".."`, else the type's name in `snake_case`.
    pub name: String,
    /// Where the name is written: at `name = ".."`, else at the type's name.
    pub name_span: Span,
    /// The page's heading: `title = ".."`, else the doc comment.
    pub heading: String,
    /// Every field a secret (`SecretString`), with only the keys a secret takes (`title`,
    /// `description`, `min_length`, `max_length`, `pattern`, `rename`): the rules saw to that.
    pub fields: Vec<Field>,
    /// Fields skipped from the page; filled with `Default::default()`.
    pub skipped: Vec<syn::Ident>,
    /// What its sink returns and the tool reads: `receipt = ..`, else `None` (`serde_json::Value`).
    pub receipt: Option<Box<syn::Type>>,
}

pub struct Field {
    pub ident: syn::Ident,
    pub ty: syn::Type,
    pub name: String,
    /// Where the name is written: at `rename = ".."`, else at the field's name.
    pub name_span: Span,
    /// `#[elicit(consent)]` on the field: a confirmation checkbox that must be ticked.
    pub consent: bool,
    /// `#[elicit(not_secret = "..")]`: the name is not checked against the core's lexicon of
    /// credential names.
    pub not_secret: bool,
    pub title: Option<String>,
    pub description: Option<String>,
    pub class: Class,
    /// `format = ".."` as written, and where: the core's `Format::from_name` reads it.
    pub format: Option<(String, Span)>,
    pub min_length: Option<u32>,
    pub max_length: Option<u32>,
    /// A page field's `pattern = ".."` (the rules kept it off a form's field).
    pub pattern: Option<String>,
    pub minimum: Option<Number>,
    pub maximum: Option<Number>,
    pub min_items: Option<u32>,
    pub max_items: Option<u32>,
    pub default: Option<(DefaultExpr, Span)>,
    pub legacy_enum_names: bool,
    pub serde_default: bool,
    /// Where `min_length`, `min_items`, `minimum` and `maximum` are written, for the checks of
    /// their values.
    pub min_length_span: Option<Span>,
    pub min_items_span: Option<Span>,
    pub minimum_span: Option<Span>,
    pub maximum_span: Option<Span>,
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

impl KindAssert {
    /// Whether a field of `class` is of this kind, as far as the syntax shows.
    pub fn holds_for(self, class: &Class) -> bool {
        match self {
            KindAssert::String => class.is_string(),
            KindAssert::Number => class.is_numeric(),
            KindAssert::MultiSelect => class.is_multi(),
            KindAssert::Bool => matches!(class.inner(), Class::Bool),
        }
    }

    /// The fields of this kind, as an error names them.
    pub fn fields(self) -> &'static str {
        match self {
            KindAssert::String => "string",
            KindAssert::Number => "integer and number",
            KindAssert::MultiSelect => "multi-select",
            KindAssert::Bool => "boolean",
        }
    }
}

/// Every attribute on `f` that applies to one kind of field: its key, the kind, where it is.
pub fn kind_specific_attributes(f: &FieldOpts) -> Vec<(&'static str, KindAssert, Span)> {
    let span = |v: &Option<darling::util::SpannedValue<u32>>| v.as_ref().map(|v| v.span());
    let bound = |v: &Option<darling::util::SpannedValue<Number>>| v.as_ref().map(|v| v.span());
    [
        (
            "format",
            KindAssert::String,
            f.format.as_ref().map(|v| v.span()),
        ),
        ("min_length", KindAssert::String, span(&f.min_length)),
        ("max_length", KindAssert::String, span(&f.max_length)),
        ("minimum", KindAssert::Number, bound(&f.minimum)),
        ("maximum", KindAssert::Number, bound(&f.maximum)),
        ("min_items", KindAssert::MultiSelect, span(&f.min_items)),
        ("max_items", KindAssert::MultiSelect, span(&f.max_items)),
        (
            "consent",
            KindAssert::Bool,
            f.consent.is_present().then(|| f.consent.span()),
        ),
    ]
    .into_iter()
    .filter_map(|(key, kind, span)| span.map(|span| (key, kind, span)))
    .collect()
}

/// Whether the syntax could not classify the field's type (an alias, an options enum, a type the
/// trait will refuse): then the compiler, not the derive, decides what fits it.
pub fn is_unclassified(class: &Class) -> bool {
    matches!(class.inner(), Class::Select(_))
}

/// The container's renaming rule: `#[elicit(rename_all)]`, else `#[serde(rename_all)]`. An
/// unknown rule renames nothing (the elicit one is an error of its own; serde's is serde's).
pub fn rename_all(opts: &InputOpts) -> Option<RenameRule> {
    match &opts.rename_all {
        Some(rule) => RenameRule::from_name(rule),
        None => serde_attrs(&opts.attrs)
            .rename_all
            .as_deref()
            .and_then(RenameRule::from_name),
    }
}

/// Whether a field is left out of the form: `#[elicit(skip)]` or `#[serde(skip)]`.
pub fn is_skipped(f: &FieldOpts, serde: &SerdeAttrs) -> bool {
    f.skip.is_present() || serde.skip
}

/// The property name of a field: `#[elicit(rename)]`, else `#[serde(rename)]`, else the field's
/// name under `rename_all`.
pub fn property_name(
    f: &FieldOpts,
    ident: &syn::Ident,
    rename_all: Option<RenameRule>,
    serde: &SerdeAttrs,
) -> String {
    let raw = ident.to_string();
    let raw = raw.strip_prefix("r#").unwrap_or(&raw);
    match (&f.rename, &serde.rename) {
        (Some(r), _) => r.as_str().to_owned(),
        (None, Some(r)) => r.clone(),
        (None, None) => rename_all.map_or_else(|| raw.to_owned(), |rule| rule.apply_to_field(raw)),
    }
}

/// Where a field's property name is written: at `rename = ".."`, else at the field's name.
fn name_span(f: &FieldOpts, ident: &syn::Ident) -> Span {
    f.rename.as_ref().map_or_else(|| ident.span(), |r| r.span())
}

/// The value of an option: `#[elicit(rename)]`, else `#[serde(rename)]`, else the variant's
/// name under `rename_all`.
pub fn option_value(v: &VariantOpts, rename_all: Option<RenameRule>, serde: &SerdeAttrs) -> String {
    let raw = v.ident.to_string();
    match (&v.rename, &serde.rename) {
        (Some(r), _) => r.as_str().to_owned(),
        (None, Some(r)) => r.clone(),
        (None, None) => rename_all.map_or(raw.clone(), |rule| rule.apply_to_variant(&raw)),
    }
}

impl Model {
    /// The model of an input that every rule holds for; `None` for a union, which is always an
    /// error.
    pub fn build(opts: &InputOpts, target: &Target, body: &Body) -> Option<Model> {
        let message = || {
            opts.message
                .as_ref()
                .map(|m| m.as_str().to_owned())
                .or_else(|| doc_text(&opts.attrs))
                .unwrap_or_default()
        };
        let message_span = opts.message.as_ref().map(|m| m.span());
        let metric_name = opts
            .name
            .as_ref()
            .map_or_else(|| opts.ident.to_string(), |n| n.as_str().to_owned());
        match body {
            Body::Struct { .. } if target.is_page => {
                let (fields, skipped) = fields_of(opts, body);
                let name = match &opts.name {
                    Some(n) => (n.as_str().to_owned(), n.span()),
                    None => (
                        RenameRule::Snake.apply_to_variant(&opts.ident.to_string()),
                        opts.ident.span(),
                    ),
                };
                Some(Model::Page(Page {
                    ident: opts.ident.clone(),
                    krate: target.krate.clone(),
                    message: message(),
                    message_span,
                    mode_span: opts
                        .mode
                        .as_ref()
                        .map_or_else(|| opts.ident.span(), |m| m.span()),
                    name: name.0,
                    name_span: name.1,
                    heading: opts
                        .title
                        .as_ref()
                        .map(|t| t.as_str().to_owned())
                        .or_else(|| doc_text(&opts.attrs))
                        .unwrap_or_default(),
                    fields,
                    skipped,
                    receipt: opts.receipt.as_ref().map(|r| Box::new((**r).clone())),
                }))
            }
            Body::Struct { .. } if target.is_url => Some(Model::Url(UrlForm {
                ident: opts.ident.clone(),
                krate: target.krate.clone(),
                message: message(),
                message_span,
                metric_name,
            })),
            Body::Struct { .. } => {
                let (fields, skipped) = fields_of(opts, body);
                Some(Model::Form(Form {
                    ident: opts.ident.clone(),
                    krate: target.krate.clone(),
                    message: message(),
                    message_span,
                    fields,
                    skipped,
                    metric_name,
                    consent: target.consent,
                }))
            }
            Body::Enum { .. } => {
                let rename_all = rename_all(opts);
                let variants = body
                    .variants()
                    .map(|v| Variant {
                        ident: v.ident.clone(),
                        value: option_value(v, rename_all, &serde_attrs(&v.attrs)),
                        value_span: v
                            .rename
                            .as_ref()
                            .map_or_else(|| v.ident.span(), |r| r.span()),
                        title: v.title.as_ref().map(|t| t.as_str().to_owned()),
                        dangerous: v.dangerous.is_present(),
                    })
                    .collect();
                Some(Model::Options(OptionsEnum {
                    ident: opts.ident.clone(),
                    krate: target.krate.clone(),
                    variants,
                }))
            }
            Body::Union => None,
        }
    }
}

/// The fields asked (a form's or a page's), and the fields skipped.
fn fields_of(opts: &InputOpts, body: &Body) -> (Vec<Field>, Vec<syn::Ident>) {
    let rename_all = rename_all(opts);
    let mut fields = Vec::new();
    let mut skipped = Vec::new();
    for f in body.fields() {
        let Some(ident) = &f.ident else { continue };
        let serde = serde_attrs(&f.attrs);
        if is_skipped(f, &serde) {
            skipped.push(ident.clone());
        } else {
            fields.push(Field::build(f, ident, rename_all, &serde));
        }
    }
    (fields, skipped)
}

impl Field {
    fn build(
        f: &FieldOpts,
        ident: &syn::Ident,
        rename_all: Option<RenameRule>,
        serde: &SerdeAttrs,
    ) -> Field {
        let class = classify(&f.ty);
        // What the syntax cannot confirm, the compiler asserts, each on the attribute's tokens.
        let (kind_asserts, unchecked_bounds) = if is_unclassified(&class) {
            let kinds = kind_specific_attributes(f)
                .into_iter()
                .map(|(_, kind, span)| (kind, span))
                .collect();
            let bounds = [("minimum", &f.minimum), ("maximum", &f.maximum)]
                .into_iter()
                .filter_map(|(key, v)| v.as_ref().map(|v| (key, **v, v.span())))
                .collect();
            (kinds, bounds)
        } else if matches!(
            class.inner(),
            Class::Int {
                name: "isize" | "usize",
                ..
            }
        ) {
            // A pointer-sized integer's range is the target's: the derive checked its bounds and
            // default against 64 bits, and the compiler checks them again, on the target.
            let default = f.default.as_ref().and_then(|d| match &**d {
                DefaultExpr::Number(n) => Some(("default", *n, d.span())),
                _ => None,
            });
            let bounds = [("minimum", &f.minimum), ("maximum", &f.maximum)]
                .into_iter()
                .filter_map(|(key, v)| v.as_ref().map(|v| (key, **v, v.span())))
                .chain(default)
                .collect();
            (Vec::new(), bounds)
        } else {
            (Vec::new(), Vec::new())
        };
        Field {
            ident: ident.clone(),
            ty: f.ty.clone(),
            name: property_name(f, ident, rename_all, serde),
            name_span: name_span(f, ident),
            consent: f.consent.is_present(),
            not_secret: f.not_secret.is_some(),
            title: f.title.as_ref().map(|t| t.as_str().to_owned()),
            description: f
                .description
                .as_ref()
                .map(|d| d.as_str().to_owned())
                .or_else(|| doc_text(&f.attrs)),
            format: f.format.as_ref().map(|v| (v.as_str().to_owned(), v.span())),
            min_length: f.min_length.as_ref().map(|v| **v),
            max_length: f.max_length.as_ref().map(|v| **v),
            pattern: f.pattern.as_ref().map(syn::LitStr::value),
            minimum: f.minimum.as_ref().map(|v| **v),
            maximum: f.maximum.as_ref().map(|v| **v),
            min_items: f.min_items.as_ref().map(|v| **v),
            max_items: f.max_items.as_ref().map(|v| **v),
            default: f.default.as_ref().map(|d| ((**d).clone(), d.span())),
            legacy_enum_names: f.legacy_enum_names.is_present(),
            serde_default: serde.default,
            min_length_span: f.min_length.as_ref().map(|v| v.span()),
            min_items_span: f.min_items.as_ref().map(|v| v.span()),
            minimum_span: f.minimum.as_ref().map(|v| v.span()),
            maximum_span: f.maximum.as_ref().map(|v| v.span()),
            kind_asserts,
            unchecked_bounds,
            serde_default_fn: serde.default_fn.clone(),
            class,
        }
    }
}

pub struct OptionsEnum {
    pub ident: syn::Ident,
    pub krate: syn::Path,
    pub variants: Vec<Variant>,
}

pub struct Variant {
    pub ident: syn::Ident,
    pub value: String,
    /// Where the value is written: at `rename = ".."`, else at the variant's name.
    pub value_span: Span,
    pub title: Option<String>,
    pub dangerous: bool,
}
