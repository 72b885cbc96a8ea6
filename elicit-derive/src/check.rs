//! Step 2 of 3: every rule of the spec and of this crate, checked on the parsed input. Errors are
//! accumulated (never `?`), each on the tokens that caused it, saying what to do instead.

use darling::util::SpannedValue;
use darling::{Error, FromDeriveInput, FromField, FromVariant};
use proc_macro2::Span;

use crate::attributes::{
    DefaultExpr, FieldOpts, InputOpts, Number, VariantOpts, doc_text, serde_attrs,
};
use crate::case::{RULE_NAMES, RenameRule};
use crate::errors::Errors;
use crate::model::{Field, Form, KindAssert, Model, OptionsEnum, UrlForm, Variant};
use crate::secret::credential_kind;
use crate::ty::{Class, classify};

/// Format names the spec allows, with the `Format` variant each maps to.
const FORMATS: &[(&str, &str)] = &[
    ("email", "Email"),
    ("uri", "Uri"),
    ("date", "Date"),
    ("date-time", "DateTime"),
];

/// Parse and validate: the model to expand, or every error found.
pub fn check(input: &syn::DeriveInput) -> Result<Model, syn::Error> {
    let mut errors = Errors::default();
    check_shape(input, &mut errors);
    let opts = match InputOpts::from_derive_input(input) {
        Ok(opts) => Some(opts),
        Err(e) => {
            errors.push(e);
            None
        }
    };
    let model = match &input.data {
        syn::Data::Struct(s) => {
            let fields: Vec<FieldOpts> = s
                .fields
                .iter()
                .filter_map(|f| match FieldOpts::from_field(f) {
                    Ok(parsed) => Some(parsed),
                    Err(e) => {
                        errors.push(e);
                        None
                    }
                })
                .collect();
            let is_unit = matches!(s.fields, syn::Fields::Unit);
            opts.and_then(|opts| check_struct(&opts, &fields, is_unit, &mut errors))
        }
        syn::Data::Enum(e) => {
            let variants: Vec<VariantOpts> = e
                .variants
                .iter()
                .filter_map(|v| match VariantOpts::from_variant(v) {
                    Ok(parsed) => Some(parsed),
                    Err(e) => {
                        errors.push(e);
                        None
                    }
                })
                .collect();
            opts.and_then(|opts| check_enum(&opts, &variants, &mut errors))
        }
        syn::Data::Union(_) => None,
    };
    errors.finish()?;
    model.ok_or_else(|| syn::Error::new_spanned(&input.ident, "internal error: no model"))
}

fn krate(opts: &InputOpts) -> syn::Path {
    opts.krate
        .clone()
        .unwrap_or_else(|| syn::parse_quote!(::mcp_elicit))
}

/// Shapes the derive cannot take, each with the reason.
fn check_shape(input: &syn::DeriveInput, errors: &mut Errors) {
    let generics = &input.generics;
    if let Some(lt) = generics.lifetimes().next() {
        errors.spanned(
            lt,
            "an elicitation type cannot borrow: a reply is owned data; remove the lifetime and use owned fields such as `String`",
        );
    }
    if let Some(tp) = generics.type_params().next() {
        errors.spanned(
            tp,
            "an elicitation type cannot be generic: its schema is fixed at compile time; use concrete field types",
        );
    }
    if let Some(cp) = generics.const_params().next() {
        errors.spanned(
            cp,
            "an elicitation type cannot be generic over a const: its schema is fixed at compile time; use concrete field types",
        );
    }
    match &input.data {
        syn::Data::Union(u) => errors.spanned(
            u.union_token,
            "`#[derive(Elicit)]` does not support unions: a form is a struct with named fields, a set of options is a unit-only enum",
        ),
        syn::Data::Struct(s) => {
            if let syn::Fields::Unnamed(f) = &s.fields {
                errors.spanned(
                    f,
                    "a tuple struct cannot be a form: its fields have no names to become properties; use named fields",
                );
            }
        }
        syn::Data::Enum(e) => {
            if e.variants.is_empty() {
                errors.spanned(
                    &input.ident,
                    "an options enum needs at least one variant: a select with nothing to choose cannot be answered; add the options as unit variants",
                );
            }
            for v in &e.variants {
                if !matches!(v.fields, syn::Fields::Unit) {
                    errors.spanned(
                        &v.fields,
                        format!(
                            "option `{}` carries data, but a select's options are plain values; make it a unit variant (a form asking for more is a struct)",
                            v.ident
                        ),
                    );
                }
            }
        }
    }
}

fn check_struct(
    opts: &InputOpts,
    fields: &[FieldOpts],
    is_unit: bool,
    errors: &mut Errors,
) -> Option<Model> {
    let message = message_of(opts, errors);
    let metric_name = metric_name_of(opts, errors);
    let is_url = match &opts.mode {
        None => false,
        Some(m) if m.as_str() == "form" => false,
        Some(m) if m.as_str() == "url" => true,
        Some(m) => {
            errors.push(
                Error::custom(format!(
                    "unknown mode {:?}; the modes are \"form\" (the default) and \"url\"",
                    m.as_str()
                ))
                .with_span(&m.span()),
            );
            false
        }
    };
    if is_url {
        if opts.consent.is_present() {
            errors.push(
                Error::custom(
                    "`consent` needs a form: accepting a URL-mode elicitation only means the user agreed to open the page, which is not consent to the operation",
                )
                .with_span(&opts.consent.span()),
            );
        }
        if !fields.is_empty() {
            errors.push(
                Error::custom(
                    "a URL-mode elicitation has no form fields: the user enters the value on the page the URL opens, never in the client; remove the fields (use a unit struct)",
                )
                .with_span(&opts.ident),
            );
        }
        return message.map(|message| {
            Model::Url(UrlForm {
                ident: opts.ident.clone(),
                krate: krate(opts),
                message,
                metric_name,
            })
        });
    }
    if is_unit {
        errors.push(
            Error::custom(
                "a unit struct asks nothing: give the form named fields, or declare a URL-mode elicitation with `#[elicit(mode = \"url\")]`",
            )
            .with_span(&opts.ident),
        );
        return None;
    }
    let container_serde = serde_attrs(&opts.attrs);
    let rename_all = match &opts.rename_all {
        Some(r) => rename_rule(r, errors),
        None => container_serde
            .rename_all
            .as_deref()
            .and_then(RenameRule::from_name),
    };

    let mut out = Vec::new();
    let mut skipped = Vec::new();
    let mut names: Vec<(String, Span)> = Vec::new();
    for f in fields {
        let Some(ident) = f.ident.clone() else {
            continue;
        };
        let serde = serde_attrs(&f.attrs);
        if f.skip.is_present() || serde.skip {
            skipped.push(ident);
            continue;
        }
        // Uniqueness is checked on every field, even one with other mistakes, so that all
        // errors show at once.
        let name = property_name(f, &ident, rename_all, &serde);
        let span = f.rename.as_ref().map_or_else(|| ident.span(), |r| r.span());
        if names.iter().any(|(n, _)| *n == name) {
            errors.push(
                Error::custom(format!(
                    "two fields are named `{name}` in the form: property names must be unique after renaming; give one of them another name with `#[elicit(rename = \"...\")]`"
                ))
                .with_span(&span),
            );
        }
        names.push((name, span));
        if let Some(field) = check_field(f, &ident, rename_all, &serde, errors) {
            out.push(field);
        }
    }
    if out.is_empty() && errors.len() == 0 {
        errors.push(
            Error::custom("a form needs at least one field that is not skipped")
                .with_span(&opts.ident),
        );
    }
    message.map(|message| {
        Model::Form(Form {
            ident: opts.ident.clone(),
            krate: krate(opts),
            message,
            fields: out,
            skipped,
            metric_name,
            consent: opts.consent.is_present(),
        })
    })
}

fn message_of(opts: &InputOpts, errors: &mut Errors) -> Option<String> {
    match &opts.message {
        Some(m) if m.trim().is_empty() => {
            errors.push(
                Error::custom("the message is empty; say in one sentence what is asked and why")
                    .with_span(&m.span()),
            );
            None
        }
        Some(m) => Some(m.as_str().to_owned()),
        None => match doc_text(&opts.attrs) {
            Some(text) => Some(text),
            None => {
                errors.push(
                    Error::custom(
                        "a form must say why it asks: add `#[elicit(message = \"...\")]` or a doc comment with one sentence saying what is asked and why",
                    )
                    .with_span(&opts.ident),
                );
                None
            }
        },
    }
}

fn metric_name_of(opts: &InputOpts, errors: &mut Errors) -> String {
    match &opts.name {
        Some(n) if n.trim().is_empty() => {
            errors.push(Error::custom("`name` must not be empty").with_span(&n.span()));
            opts.ident.to_string()
        }
        Some(n) => n.as_str().to_owned(),
        None => opts.ident.to_string(),
    }
}

fn rename_rule(r: &SpannedValue<String>, errors: &mut Errors) -> Option<RenameRule> {
    let rule = RenameRule::from_name(r);
    if rule.is_none() {
        errors.push(
            Error::custom(format!(
                "unknown rename_all rule {:?}; use one of {}",
                r.as_str(),
                RULE_NAMES.join(", ")
            ))
            .with_span(&r.span()),
        );
    }
    rule
}

/// The property name of a field: `#[elicit(rename)]`, else `#[serde(rename)]`, else the field's
/// name under `rename_all`.
fn property_name(
    f: &FieldOpts,
    ident: &syn::Ident,
    rename_all: Option<RenameRule>,
    serde: &crate::attributes::SerdeAttrs,
) -> String {
    let raw = ident.to_string();
    let raw = raw.strip_prefix("r#").unwrap_or(&raw);
    match (&f.rename, &serde.rename) {
        (Some(r), _) => r.as_str().to_owned(),
        (None, Some(r)) => r.clone(),
        (None, None) => rename_all.map_or_else(|| raw.to_owned(), |rule| rule.apply_to_field(raw)),
    }
}

fn check_field(
    f: &FieldOpts,
    ident: &syn::Ident,
    rename_all: Option<RenameRule>,
    serde: &crate::attributes::SerdeAttrs,
    errors: &mut Errors,
) -> Option<Field> {
    let before = errors.len();
    if let Some(r) = &f.rename
        && r.is_empty()
    {
        errors.push(Error::custom("`rename` must not be empty").with_span(&r.span()));
    }
    let name = property_name(f, ident, rename_all, serde);
    let class = classify(&f.ty);
    if let Class::Forbidden(reason) = &class {
        errors.spanned(
            &f.ty,
            format!("field `{name}` cannot be in a form: {reason}"),
        );
    }

    // Secrets: never in form mode.
    if f.secret.is_present() {
        errors.push(
            Error::custom(format!(
                "field `{name}` is marked secret, and form mode MUST NOT ask for secrets (the value would pass through the client and the model); ask for it with a URL-mode elicitation (`#[elicit(mode = \"url\")]`) that opens your own page"
            ))
            .with_span(&f.secret.span()),
        );
    }
    match &f.not_secret {
        Some(reason) if reason.trim().is_empty() => errors.push(
            Error::custom("`not_secret` needs a reason, e.g. `not_secret = \"public username\"`")
                .with_span(&reason.span()),
        ),
        Some(_) => {}
        None => {
            if let Some(kind) = credential_kind(&name) {
                let span = f.rename.as_ref().map_or_else(|| ident.span(), |r| r.span());
                errors.push(
                    Error::custom(format!(
                        "field `{name}` looks like {kind}, and form mode MUST NOT ask for credentials; ask through URL mode (`#[elicit(mode = \"url\")]`), or if it is not a secret say why with `#[elicit(not_secret = \"reason\")]`"
                    ))
                    .with_span(&span),
                );
            }
        }
    }

    // Attributes that apply to one kind only. When the type is a path the syntax cannot
    // classify (an alias like `type Email = String`, or an options enum), the compiler decides
    // instead, through a marker trait asserted on the attribute's tokens.
    let unclassified = matches!(class.inner(), Class::Select(_));
    let mut kind_asserts: Vec<(KindAssert, Span)> = Vec::new();
    let mut needs = |ok: bool, assert: KindAssert, what: &str, kinds: &str, span: Span| {
        if ok {
        } else if unclassified {
            kind_asserts.push((assert, span));
        } else {
            errors.push(
                Error::custom(format!(
                    "`{what}` applies only to {kinds} fields, and `{name}` is not one; remove it or change the field's type"
                ))
                .with_span(&span),
            );
        }
    };
    let format = f.format.as_ref().and_then(|fmt| {
        let found = FORMATS
            .iter()
            .find(|(n, _)| *n == fmt.as_str())
            .map(|(_, v)| *v);
        needs(
            class.is_string(),
            KindAssert::String,
            "format",
            "string",
            fmt.span(),
        );
        found
    });
    for (key, value) in [("min_length", &f.min_length), ("max_length", &f.max_length)] {
        if let Some(v) = value {
            needs(
                class.is_string(),
                KindAssert::String,
                key,
                "string",
                v.span(),
            );
        }
    }
    for (key, value) in [("minimum", &f.minimum), ("maximum", &f.maximum)] {
        if let Some(v) = value {
            needs(
                class.is_numeric(),
                KindAssert::Number,
                key,
                "integer and number",
                v.span(),
            );
        }
    }
    for (key, value) in [("min_items", &f.min_items), ("max_items", &f.max_items)] {
        if let Some(v) = value {
            needs(
                class.is_multi(),
                KindAssert::MultiSelect,
                key,
                "multi-select",
                v.span(),
            );
        }
    }
    if f.consent.is_present() {
        needs(
            matches!(class.inner(), Class::Bool),
            KindAssert::Bool,
            "consent",
            "boolean",
            f.consent.span(),
        );
    }
    if f.legacy_enum_names.is_present() && !class.is_single_select() {
        errors.push(
            Error::custom(format!(
                "`legacy_enum_names` applies only to single-select fields, and `{name}` is not one; remove it"
            ))
            .with_span(&f.legacy_enum_names.span()),
        );
    }
    if let Some(fmt) = &f.format
        && !FORMATS.iter().any(|(n, _)| *n == fmt.as_str())
    {
        errors.push(
            Error::custom(format!(
                "unknown format {:?} on `{name}`; the spec allows only \"email\", \"uri\", \"date\" and \"date-time\"",
                fmt.as_str()
            ))
            .with_span(&fmt.span()),
        );
    }
    let unchecked_bounds: Vec<(&'static str, Number, Span)> = if unclassified {
        [("minimum", &f.minimum), ("maximum", &f.maximum)]
            .into_iter()
            .filter_map(|(key, v)| v.as_ref().map(|v| (key, **v, v.span())))
            .collect()
    } else {
        Vec::new()
    };

    // Bounds: ordered, and inside the type's own range.
    let inverted = |lo: &str, hi: &str, span: Span| {
        Error::custom(format!(
            "`{lo}` is greater than `{hi}` on `{name}`, so no value can satisfy both; lower `{lo}` or raise `{hi}`"
        ))
        .with_span(&span)
    };
    if let (Some(lo), Some(hi)) = (&f.min_length, &f.max_length)
        && **lo > **hi
    {
        errors.push(inverted("min_length", "max_length", lo.span()));
    }
    if let (Some(lo), Some(hi)) = (&f.min_items, &f.max_items)
        && **lo > **hi
    {
        errors.push(inverted("min_items", "max_items", lo.span()));
    }
    if let (Some(lo), Some(hi)) = (&f.minimum, &f.maximum)
        && lo.as_f64() > hi.as_f64()
    {
        errors.push(inverted("minimum", "maximum", lo.span()));
    }
    for (key, value) in [("minimum", &f.minimum), ("maximum", &f.maximum)] {
        let Some(v) = value else { continue };
        match (class.inner(), **v) {
            (Class::Int { name: ty, min, max }, Number::Int(n)) if n < *min || n > *max => {
                errors.push(
                    Error::custom(format!(
                        "`{key} = {n}` on `{name}` is outside the range of `{ty}` ({min}..={max}); use a bound inside it, or a wider type"
                    ))
                    .with_span(&v.span()),
                );
            }
            (Class::Int { name: ty, .. }, Number::Float(x)) => errors.push(
                Error::custom(format!(
                    "`{key} = {x}` is not a whole number, but `{name}` is an integer (`{ty}`); use an integer bound, or make the field `f64`"
                ))
                .with_span(&v.span()),
            ),
            (Class::Float { name: "f32" }, n)
                if !(f64::from(f32::MIN)..=f64::from(f32::MAX)).contains(&n.as_f64()) =>
            {
                errors.push(
                    Error::custom(format!("`{key} = {n}` on `{name}` is outside the range of `f32`; use `f64`"))
                        .with_span(&v.span()),
                );
            }
            (_, Number::Float(x)) if !x.is_finite() => errors.push(
                Error::custom(format!("`{key}` on `{name}` must be a finite number")).with_span(&v.span()),
            ),
            _ => {}
        }
    }

    let default = f.default.as_ref().map(|d| ((**d).clone(), d.span()));
    if let Some((value, span)) = &default {
        check_default(f, &name, &class, value, *span, errors);
    }

    let description = f
        .description
        .as_ref()
        .map(|d| d.as_str().to_owned())
        .or_else(|| doc_text(&f.attrs));
    if errors.len() > before {
        return None;
    }
    Some(Field {
        ident: ident.clone(),
        ty: f.ty.clone(),
        name,
        consent: f.consent.is_present(),
        title: f.title.as_ref().map(|t| t.as_str().to_owned()),
        description,
        class,
        format,
        min_length: f.min_length.as_ref().map(|v| **v),
        max_length: f.max_length.as_ref().map(|v| **v),
        minimum: f.minimum.as_ref().map(|v| **v),
        maximum: f.maximum.as_ref().map(|v| **v),
        min_items: f.min_items.as_ref().map(|v| **v),
        max_items: f.max_items.as_ref().map(|v| **v),
        default,
        legacy_enum_names: f.legacy_enum_names.is_present(),
        serde_default: serde.default,
        min_items_span: f.min_items.as_ref().map(|v| v.span()),
        kind_asserts,
        unchecked_bounds,
        serde_default_fn: serde.default_fn.clone(),
    })
}

/// A default must have the field's type and satisfy its constraints. What only the compiler
/// can know (that a variant path exists, whether it is dangerous, whether a string is one of an
/// enum's values) is checked by the code `expand` generates.
fn check_default(
    f: &FieldOpts,
    name: &str,
    class: &Class,
    value: &DefaultExpr,
    span: Span,
    errors: &mut Errors,
) {
    let wrong = |expected: &str| {
        Error::custom(format!(
            "the default of `{name}` must be {expected}, but it is {}",
            value.describe()
        ))
        .with_span(&span)
    };
    let outside = |what: String| {
        Error::custom(format!(
            "the default of `{name}` {what}, so it could never be submitted; change the default or the constraint"
        ))
        .with_span(&span)
    };
    match (class.inner(), value) {
        (Class::Bool, DefaultExpr::Bool(b)) => {
            if *b && f.consent.is_present() {
                errors.push(
                    Error::custom(format!(
                        "`{name}` is a consent checkbox and cannot default to `true`: consent must be given by the person, not pre-filled; remove the default or use `false`"
                    ))
                    .with_span(&span),
                );
            }
        }
        (Class::Bool, _) => errors.push(wrong("`true` or `false`")),
        (Class::Int { name: ty, min, max }, DefaultExpr::Number(Number::Int(n))) => {
            let lo = f.minimum.as_ref().map_or(*min as f64, |m| m.as_f64());
            let hi = f.maximum.as_ref().map_or(*max as f64, |m| m.as_f64());
            if n < min || n > max {
                errors.push(outside(format!("({n}) is outside the range of `{ty}`")));
            } else if (*n as f64) < lo || (*n as f64) > hi {
                errors.push(outside(format!("({n}) is outside [minimum, maximum]")));
            }
        }
        (Class::Int { .. }, _) => errors.push(wrong("an integer")),
        (Class::Float { .. }, DefaultExpr::Number(n)) => {
            let x = n.as_f64();
            if f.minimum.as_ref().is_some_and(|m| x < m.as_f64())
                || f.maximum.as_ref().is_some_and(|m| x > m.as_f64())
            {
                errors.push(outside(format!("({x}) is outside [minimum, maximum]")));
            }
        }
        (Class::Float { .. }, _) => errors.push(wrong("a number")),
        (Class::String, DefaultExpr::Str(s)) => {
            let length = s.chars().count() as u64;
            if f.min_length.as_ref().is_some_and(|m| length < u64::from(**m)) {
                errors.push(outside(format!("has {length} characters, fewer than min_length")));
            }
            if f.max_length.as_ref().is_some_and(|m| length > u64::from(**m)) {
                errors.push(outside(format!("has {length} characters, more than max_length")));
            }
        }
        (Class::String, _) => errors.push(wrong("a string")),
        (Class::Select(_), DefaultExpr::Str(_) | DefaultExpr::Path(_)) => {}
        (Class::Select(_), _) => errors.push(
            Error::custom(format!(
                "the default of `{name}` must be one of its enum's variants (`Enum::Variant`) or an option's value (`\"value\"`), but it is {}; if the field's type is an alias of a primitive, spell the primitive so the default can be checked",
                value.describe()
            ))
            .with_span(&span),
        ),
        (Class::Choice, DefaultExpr::Str(_)) => {}
        (Class::Choice, _) => errors.push(wrong("a string, the value of one of the options")),
        (Class::Multi(_), DefaultExpr::Array(items)) => {
            let mut seen: Vec<String> = Vec::new();
            for (item, item_span) in items {
                let key = match item {
                    DefaultExpr::Str(s) => s.clone(),
                    DefaultExpr::Path(p) => quote::quote!(#p).to_string(),
                    other => {
                        errors.push(
                            Error::custom(format!(
                                "each default of `{name}` must be one of the enum's variants, but this is {}",
                                other.describe()
                            ))
                            .with_span(item_span),
                        );
                        continue;
                    }
                };
                if seen.contains(&key) {
                    errors.push(
                        Error::custom(format!("the default of `{name}` selects {key} twice; list each option once"))
                            .with_span(item_span),
                    );
                }
                seen.push(key);
            }
            let n = items.len() as u64;
            if f.min_items.as_ref().is_some_and(|m| n < u64::from(**m)) {
                errors.push(outside(format!("selects {n}, fewer than min_items")));
            }
            if f.max_items.as_ref().is_some_and(|m| n > u64::from(**m)) {
                errors.push(outside(format!("selects {n}, more than max_items")));
            }
        }
        (Class::Multi(_), _) => errors.push(wrong("an array of the enum's variants, like `[Color::Red]`")),
        (Class::Choices, _) => errors.push(
            Error::custom(format!(
                "`{name}` takes its options at run time; give its default when supplying them, not here"
            ))
            .with_span(&span),
        ),
        (Class::Optional(_) | Class::Forbidden(_), _) => {}
    }
}

fn check_enum(opts: &InputOpts, variants: &[VariantOpts], errors: &mut Errors) -> Option<Model> {
    for (key, present) in [
        ("message", opts.message.as_ref().map(|m| m.span())),
        ("mode", opts.mode.as_ref().map(|m| m.span())),
        ("name", opts.name.as_ref().map(|m| m.span())),
        (
            "consent",
            opts.consent.is_present().then(|| opts.consent.span()),
        ),
    ] {
        if let Some(span) = present {
            errors.push(
                Error::custom(format!(
                    "`{key}` applies to a form (a struct); this enum is a set of options, a field type inside a form"
                ))
                .with_span(&span),
            );
        }
    }
    let container_serde = serde_attrs(&opts.attrs);
    let rename_all = match &opts.rename_all {
        Some(r) => rename_rule(r, errors),
        None => container_serde
            .rename_all
            .as_deref()
            .and_then(RenameRule::from_name),
    };
    let mut out: Vec<Variant> = Vec::new();
    for v in variants {
        let serde = serde_attrs(&v.attrs);
        let raw = v.ident.to_string();
        let value = match (&v.rename, serde.rename) {
            (Some(r), _) => r.as_str().to_owned(),
            (None, Some(r)) => r,
            (None, None) => {
                rename_all.map_or_else(|| raw.clone(), |rule| rule.apply_to_variant(&raw))
            }
        };
        if value.is_empty() {
            errors.push(Error::custom("an option's value must not be empty").with_span(&v.ident));
        }
        if out.iter().any(|o| o.value == value) {
            errors.push(
                Error::custom(format!(
                    "two options have the value {value:?}; option values must be unique after renaming"
                ))
                .with_span(&v.rename.as_ref().map_or_else(|| v.ident.span(), |r| r.span())),
            );
        }
        if serde.skip {
            errors.push(
                Error::custom(
                    "a skipped variant could never be chosen; remove it from the options enum",
                )
                .with_span(&v.ident),
            );
        }
        out.push(Variant {
            ident: v.ident.clone(),
            value,
            title: v.title.as_ref().map(|t| t.as_str().to_owned()),
            dangerous: v.dangerous.is_present(),
        });
    }
    Some(Model::Options(OptionsEnum {
        ident: opts.ident.clone(),
        krate: krate(opts),
        variants: out,
    }))
}

#[cfg(test)]
mod tests {
    use super::{KindAssert, Model, check};
    use syn::parse_quote;

    /// How many errors the derive reports for `input` (0 when it expands).
    fn errors(input: syn::DeriveInput) -> usize {
        match check(&input) {
            Ok(_) => 0,
            Err(e) => e.into_iter().count(),
        }
    }

    #[test]
    fn every_mistake_of_a_form_is_reported_at_once() {
        let input = parse_quote! {
            struct Everything {
                password: String,
                tags: Vec<String>,
                #[elicit(format = "phone")]
                email: String,
                #[elicit(minimum = 10, maximum = 1)]
                replicas: u8,
                #[elicit(titel = "Env")]
                env: Env,
                #[elicit(consent, default = true)]
                agree: bool,
                #[elicit(rename = "email")]
                contact: String,
            }
        };
        // No message, then one mistake per field.
        assert_eq!(errors(input), 8);
    }

    #[test]
    fn a_type_the_syntax_cannot_classify_is_left_to_the_compiler() {
        assert_eq!(
            errors(parse_quote! { /// Why.
                struct Address { nested: Inner }
            }),
            0
        );
    }

    #[test]
    fn string_attributes_on_an_alias_become_one_assertion_each() {
        let input = parse_quote! { /// Why.
            struct OnCall {
                #[elicit(format = "email", max_length = 254)]
                notify: Email,
            }
        };
        let Ok(Model::Form(form)) = check(&input) else {
            panic!("an alias with `format` must expand")
        };
        let kinds: Vec<_> = form.fields[0]
            .kind_asserts
            .iter()
            .map(|(k, _)| *k)
            .collect();
        assert_eq!(kinds, [KindAssert::String, KindAssert::String]);
    }

    #[test]
    fn string_attributes_on_a_spelled_non_string_fail_in_the_macro() {
        assert_eq!(
            errors(parse_quote! { /// Why.
                struct Booking {
                    #[elicit(format = "email", min_length = 1)]
                    seats: u32,
                }
            }),
            2
        );
    }

    #[test]
    fn a_credential_name_fails_unless_not_secret_gives_a_reason() {
        assert_eq!(
            errors(parse_quote! { /// Why.
                struct A { api_key: String }
            }),
            1
        );
        assert_eq!(
            errors(parse_quote! { /// Why.
                struct A { #[elicit(not_secret = "the key's public id")] api_key: String }
            }),
            0
        );
        assert_eq!(
            errors(parse_quote! { /// Why.
                struct A { #[elicit(not_secret = " ")] api_key: String }
            }),
            1
        );
    }

    #[test]
    fn a_secret_field_fails_in_form_mode() {
        assert_eq!(
            errors(parse_quote! { /// Why.
                struct A { #[elicit(secret)] recovery: String }
            }),
            1
        );
    }

    #[test]
    fn consent_cannot_default_to_true() {
        assert_eq!(
            errors(parse_quote! { /// Why.
                struct A { #[elicit(consent, default = true)] agree: bool }
            }),
            1
        );
        assert_eq!(
            errors(parse_quote! { /// Why.
                struct A { #[elicit(consent, default = false)] agree: bool }
            }),
            0
        );
    }

    #[test]
    fn a_form_must_say_why() {
        assert_eq!(errors(parse_quote! { struct A { name: String } }), 1);
        assert_eq!(
            errors(parse_quote! {
                #[elicit(message = "")]
                struct A { name: String }
            }),
            1
        );
    }

    #[test]
    fn property_names_are_unique_even_beside_other_mistakes() {
        assert_eq!(
            errors(parse_quote! { /// Why.
                struct A {
                    #[elicit(format = "phone")]
                    email: String,
                    #[elicit(rename = "email")]
                    contact: String,
                }
            }),
            2
        );
    }

    #[test]
    fn a_union_is_reported_once() {
        assert_eq!(
            errors(parse_quote! { /// Why.
                union A { a: u32 }
            }),
            1
        );
    }

    #[test]
    fn an_options_enum_has_unit_variants_and_at_least_one() {
        assert_eq!(errors(parse_quote! { enum E {} }), 1);
        assert_eq!(
            errors(parse_quote! { enum E { A, B(String), C { x: u8 } } }),
            2
        );
    }
}
