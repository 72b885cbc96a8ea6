//! Step 1: read `#[elicit(..)]` strictly (darling: unknown keys with did-you-mean, duplicates,
//! wrong value types) and `#[serde(..)]` leniently (only `rename`, `rename_all`, `skip` and
//! `default` matter; everything else is ignored, as serde itself reports it).
//!
//! Each part of the input (the container, every field, every variant) is read on its own and
//! keeps its own result, so that a mistake in one hides none in the others.

use darling::util::{Flag, SpannedValue};
use darling::{FromDeriveInput, FromField, FromMeta, FromVariant};
use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Attribute, Expr, ExprLit, ExprUnary, Lit, UnOp};

/// What darling read of the input, part by part.
pub struct Attributes {
    /// `#[elicit(..)]` on the type itself.
    pub container: darling::Result<InputOpts>,
    /// Where the runtime is and what the input implements: read even when `container` has a
    /// mistake, for the fallback's stub.
    pub target: Target,
    pub body: Body,
}

/// The fields or variants, each with its own result.
pub enum Body {
    Struct {
        fields: Vec<darling::Result<FieldOpts>>,
        is_unit: bool,
    },
    Enum {
        variants: Vec<darling::Result<VariantOpts>>,
    },
    /// A union is refused by its shape; its fields are not read.
    Union,
}

impl Body {
    /// The fields darling read without a mistake.
    pub fn fields(&self) -> impl Iterator<Item = &FieldOpts> {
        let fields = match self {
            Body::Struct { fields, .. } => fields.as_slice(),
            _ => &[],
        };
        fields.iter().filter_map(|f| f.as_ref().ok())
    }

    /// The variants darling read without a mistake.
    pub fn variants(&self) -> impl Iterator<Item = &VariantOpts> {
        let variants = match self {
            Body::Enum { variants } => variants.as_slice(),
            _ => &[],
        };
        variants.iter().filter_map(|v| v.as_ref().ok())
    }

    /// The mistakes darling found in the fields' or variants' `#[elicit(..)]`, in their order.
    pub fn errors(&self) -> Vec<&darling::Error> {
        match self {
            Body::Struct { fields, .. } => fields.iter().filter_map(|f| f.as_ref().err()).collect(),
            Body::Enum { variants } => variants.iter().filter_map(|v| v.as_ref().err()).collect(),
            Body::Union => Vec::new(),
        }
    }
}

/// Read every `#[elicit(..)]` and `#[serde(..)]` of the input.
pub fn parse(input: &syn::DeriveInput) -> Attributes {
    let container = InputOpts::from_derive_input(input);
    let target = Target::of(input, &container);
    let body = match &input.data {
        syn::Data::Struct(s) => Body::Struct {
            fields: s.fields.iter().map(FieldOpts::from_field).collect(),
            is_unit: matches!(s.fields, syn::Fields::Unit),
        },
        syn::Data::Enum(e) => Body::Enum {
            variants: e.variants.iter().map(VariantOpts::from_variant).collect(),
        },
        syn::Data::Union(_) => Body::Union,
    };
    Attributes {
        container,
        target,
        body,
    }
}

/// Where the runtime is and which traits the input implements: what the expansion and the
/// fallback's stub must agree on, decided here once.
pub struct Target {
    /// `crate = ..` (a path, or a path in a string), else `::mcp_elicit`.
    pub krate: syn::Path,
    /// `mode = "url"`: a URL-mode elicitation.
    pub is_url: bool,
    /// `mode = "url"` on a struct with named fields: a page the library serves, whose fields
    /// are secrets the user types (`SecretForm`).
    pub is_page: bool,
    /// `consent` on the container: a consent form.
    pub consent: bool,
}

impl Target {
    fn new(
        input: &syn::DeriveInput,
        krate: Option<&syn::Path>,
        mode: Option<&str>,
        consent: bool,
    ) -> Self {
        let is_url = mode == Some("url");
        let has_named_fields = matches!(
            &input.data,
            syn::Data::Struct(syn::DataStruct { fields: syn::Fields::Named(f), .. })
                if !f.named.is_empty()
        );
        Target {
            krate: krate
                .cloned()
                .unwrap_or_else(|| syn::parse_quote!(::mcp_elicit)),
            is_url,
            is_page: is_url && has_named_fields,
            consent,
        }
    }

    /// From the container's options; when they have a mistake (reported on its own), darling
    /// gives none, and these three keys are read again alone, every other key ignored, so that
    /// a misspelt key beside `crate = ..` does not make the stub name the wrong runtime.
    fn of(input: &syn::DeriveInput, container: &darling::Result<InputOpts>) -> Self {
        match container {
            Ok(opts) => Self::new(
                input,
                opts.krate.as_ref(),
                opts.mode.as_ref().map(|m| m.as_str()),
                opts.consent.is_present(),
            ),
            Err(_) => match TargetKeys::from_derive_input(input) {
                Ok(keys) => Self::new(
                    input,
                    keys.krate.as_ref(),
                    keys.mode.as_deref(),
                    keys.consent.is_present(),
                ),
                Err(_) => Self::new(input, None, None, false),
            },
        }
    }
}

/// The keys of [`Target`], read with the same types as [`InputOpts`] reads them.
#[derive(FromDeriveInput)]
#[darling(attributes(elicit), allow_unknown_fields)]
struct TargetKeys {
    #[darling(rename = "crate")]
    krate: Option<syn::Path>,
    mode: Option<String>,
    consent: Flag,
}

/// The container: a form (struct), a URL-mode elicitation or page (`mode = "url"`), or a set of
/// options (unit-only enum).
#[derive(FromDeriveInput)]
#[darling(attributes(elicit), forward_attrs(doc, serde))]
pub struct InputOpts {
    pub ident: syn::Ident,
    pub attrs: Vec<Attribute>,
    /// One sentence: what is asked and why. Falls back to the doc comment.
    pub message: Option<SpannedValue<String>>,
    /// Rename every field (struct) or variant (enum), like serde's `rename_all`.
    pub rename_all: Option<SpannedValue<String>>,
    /// Path of the facade crate, for re-exports (default `::mcp_elicit`).
    #[darling(rename = "crate")]
    pub krate: Option<syn::Path>,
    /// `form` (default) or `url`.
    pub mode: Option<SpannedValue<String>>,
    /// The name this elicitation is counted under in metrics (default: the type's name); a
    /// page's name (default: the type's name in `snake_case`).
    pub name: Option<SpannedValue<String>>,
    /// A page's heading (default: the doc comment).
    pub title: Option<SpannedValue<String>>,
    /// The type a page's sink returns and the tool reads (`receipt = KeyEnding`; default
    /// `serde_json::Value`).
    pub receipt: Option<SpannedValue<syn::Type>>,
    /// Accepting this form is consent: an accepted reply yields an `mcp_elicit::Consent<Self>`.
    pub consent: Flag,
}

/// One field of a form, or of a page.
#[derive(FromField)]
#[darling(attributes(elicit), forward_attrs(doc, serde))]
pub struct FieldOpts {
    pub ident: Option<syn::Ident>,
    pub ty: syn::Type,
    pub attrs: Vec<Attribute>,
    pub title: Option<SpannedValue<String>>,
    pub description: Option<SpannedValue<String>>,
    pub format: Option<SpannedValue<String>>,
    pub min_length: Option<SpannedValue<u32>>,
    pub max_length: Option<SpannedValue<u32>>,
    /// A page field's regular expression, which the whole value must match (the string literal,
    /// for its span: an error in the pattern points at it).
    pub pattern: Option<syn::LitStr>,
    pub minimum: Option<SpannedValue<Number>>,
    pub maximum: Option<SpannedValue<Number>>,
    pub min_items: Option<SpannedValue<u32>>,
    pub max_items: Option<SpannedValue<u32>>,
    pub default: Option<SpannedValue<DefaultExpr>>,
    pub rename: Option<SpannedValue<String>>,
    pub skip: Flag,
    /// Declares the field a secret: always an error in form mode (secrets go through URL mode).
    pub secret: Flag,
    /// Opt out of the credential-name check, with the reason.
    pub not_secret: Option<SpannedValue<String>>,
    /// A confirmation checkbox: it can never default to `true`.
    pub consent: Flag,
    /// Emit a titled single-select as legacy `enum` + `enumNames`.
    pub legacy_enum_names: Flag,
}

/// One variant of an options enum.
#[derive(FromVariant)]
#[darling(attributes(elicit), forward_attrs(doc, serde))]
pub struct VariantOpts {
    pub ident: syn::Ident,
    pub attrs: Vec<Attribute>,
    pub title: Option<SpannedValue<String>>,
    pub rename: Option<SpannedValue<String>>,
    /// This option is dangerous: it can never be a default.
    pub dangerous: Flag,
}

/// A number literal in an attribute, kept exact when it is an integer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Number {
    Int(i128),
    Float(f64),
}

impl Number {
    pub fn as_f64(self) -> f64 {
        match self {
            Number::Int(i) => i as f64,
            Number::Float(x) => x,
        }
    }
}

impl std::fmt::Display for Number {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Number::Int(i) => write!(f, "{i}"),
            Number::Float(x) => write!(f, "{x}"),
        }
    }
}

fn number_of(expr: &Expr) -> darling::Result<Number> {
    match expr {
        Expr::Lit(ExprLit {
            lit: Lit::Int(i), ..
        }) => i
            .base10_parse::<i128>()
            .map(Number::Int)
            .map_err(|e| darling::Error::custom(e).with_span(i)),
        Expr::Lit(ExprLit {
            lit: Lit::Float(x), ..
        }) => x
            .base10_parse::<f64>()
            .map(Number::Float)
            .map_err(|e| darling::Error::custom(e).with_span(x)),
        Expr::Unary(ExprUnary {
            op: UnOp::Neg(_),
            expr,
            ..
        }) => match number_of(expr)? {
            Number::Int(i) => Ok(Number::Int(-i)),
            Number::Float(x) => Ok(Number::Float(-x)),
        },
        Expr::Group(g) => number_of(&g.expr),
        other => Err(
            darling::Error::custom("expected a number literal, like `0`, `-5` or `2.5`")
                .with_span(other),
        ),
    }
}

impl FromMeta for Number {
    fn from_expr(expr: &Expr) -> darling::Result<Self> {
        number_of(expr)
    }
}

/// A `default = ..` value: a literal, a variant path, or an array of those (multi-select).
#[derive(Debug, Clone)]
pub enum DefaultExpr {
    Bool(bool),
    Number(Number),
    Str(String),
    /// `Env::Staging`: a variant of the field's options enum.
    Path(syn::Path),
    Array(Vec<(DefaultExpr, Span)>),
}

impl DefaultExpr {
    pub fn describe(&self) -> &'static str {
        match self {
            DefaultExpr::Bool(_) => "a boolean",
            DefaultExpr::Number(Number::Int(_)) => "an integer",
            DefaultExpr::Number(Number::Float(_)) => "a number",
            DefaultExpr::Str(_) => "a string",
            DefaultExpr::Path(_) => "an enum variant",
            DefaultExpr::Array(_) => "an array",
        }
    }
}

fn default_of(expr: &Expr) -> darling::Result<DefaultExpr> {
    match expr {
        Expr::Lit(ExprLit { lit: Lit::Bool(b), .. }) => Ok(DefaultExpr::Bool(b.value)),
        Expr::Lit(ExprLit { lit: Lit::Str(s), .. }) => Ok(DefaultExpr::Str(s.value())),
        Expr::Lit(ExprLit { lit: Lit::Int(_) | Lit::Float(_), .. }) | Expr::Unary(_) => {
            number_of(expr).map(DefaultExpr::Number)
        }
        Expr::Path(p) if p.qself.is_none() => Ok(DefaultExpr::Path(p.path.clone())),
        Expr::Array(a) => a
            .elems
            .iter()
            .map(|e| default_of(e).map(|d| (d, e.span())))
            .collect::<darling::Result<Vec<_>>>()
            .map(DefaultExpr::Array),
        Expr::Group(g) => default_of(&g.expr),
        other => Err(darling::Error::custom(
            "a default is a literal (`true`, `3`, `2.5`, `\"text\"`), an enum variant (`Env::Staging`), or an array of variants",
        )
        .with_span(other)),
    }
}

impl FromMeta for DefaultExpr {
    fn from_expr(expr: &Expr) -> darling::Result<Self> {
        default_of(expr)
    }
}

/// The doc comment as one paragraph of text (lines trimmed and joined by spaces).
pub fn doc_text(attrs: &[Attribute]) -> Option<String> {
    let mut lines = Vec::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident("doc")) {
        if let syn::Meta::NameValue(nv) = &attr.meta
            && let Expr::Lit(ExprLit {
                lit: Lit::Str(s), ..
            }) = &nv.value
        {
            lines.push(s.value().trim().to_owned());
        }
    }
    let text = lines
        .into_iter()
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    (!text.is_empty()).then_some(text)
}

/// What `#[serde(..)]` says that matters to the schema.
#[derive(Default)]
pub struct SerdeAttrs {
    pub rename: Option<String>,
    pub rename_all: Option<String>,
    pub skip: bool,
    pub default: bool,
    /// `default = "path"`: the function serde calls for an absent field.
    pub default_fn: Option<syn::ExprPath>,
}

/// Read `#[serde(..)]` leniently: unknown keys and forms are ignored.
pub fn serde_attrs(attrs: &[Attribute]) -> SerdeAttrs {
    let mut out = SerdeAttrs::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        let _ = attr.parse_nested_meta(|meta| {
            let key = meta
                .path
                .get_ident()
                .map(ToString::to_string)
                .unwrap_or_default();
            match key.as_str() {
                "rename" | "rename_all" => {
                    let value = if meta.input.peek(syn::Token![=]) {
                        Some(meta.value()?.parse::<syn::LitStr>()?.value())
                    } else {
                        // `rename(deserialize = "..", serialize = "..")`: what we read back.
                        let mut de = None;
                        meta.parse_nested_meta(|inner| {
                            let v = inner.value()?.parse::<syn::LitStr>()?.value();
                            if inner.path.is_ident("deserialize") {
                                de = Some(v);
                            }
                            Ok(())
                        })?;
                        de
                    };
                    if key == "rename" {
                        out.rename = value.or(out.rename.take());
                    } else {
                        out.rename_all = value.or(out.rename_all.take());
                    }
                }
                "skip" | "skip_deserializing" => out.skip = true,
                "default" => {
                    out.default = true;
                    if meta.input.peek(syn::Token![=]) {
                        let path = meta.value()?.parse::<syn::LitStr>()?;
                        out.default_fn = path.parse::<syn::ExprPath>().ok();
                    }
                }
                _ => skip_meta_value(&meta)?,
            }
            Ok(())
        });
    }
    out
}

fn skip_meta_value(meta: &syn::meta::ParseNestedMeta<'_>) -> syn::Result<()> {
    if meta.input.peek(syn::Token![=]) {
        let _ = meta.value()?.parse::<Expr>()?;
    } else if meta.input.peek(syn::token::Paren) {
        meta.parse_nested_meta(|inner| skip_meta_value(&inner))?;
    }
    Ok(())
}
