//! Step 2: every rule that needs the syntax (the input's shape, which attributes fit which field
//! type, secrets, where a default may be given), one function each, all called from
//! [`validate`] in the order their errors are reported. Errors are accumulated (never `?`), each
//! on the tokens that caused it, saying what to do instead.
//!
//! The rules on values alone (bounds against bounds, a default against its constraints, names
//! against names and against the lexicon of credential names, the message) are not here: they
//! are the core's `const fn`s (`elicit_core::__private::rules`, `elicit_core::credential_kind`),
//! which the same functions check a hand-built schema or a received form with at run time; a
//! page's name and its fields' names against the page's token are the pages' own (`SecretPage::new`
//! calls them). `value_rules.rs` writes the `const _` items that have the compiler call them.

use darling::util::SpannedValue;
use proc_macro2::Span;

use crate::attributes::{Attributes, Body, DefaultExpr, FieldOpts, InputOpts, Number, VariantOpts};
use crate::attributes::{doc_text, serde_attrs};
use crate::case::{RULE_NAMES, RenameRule};
use crate::errors::Errors;
use crate::model::{self, Model};
use crate::ty::{self, Class, classify};

/// Check every rule; the model to expand when all hold, else every error found.
pub fn validate(input: &syn::DeriveInput, attributes: &Attributes) -> Result<Model, syn::Error> {
    let mut found = Errors::default();
    let errors = &mut found;

    // The input's shape.
    type_has_no_generic_parameters(input, errors);
    input_is_not_a_union(input, errors);
    form_fields_have_names(input, errors);
    options_enum_has_an_option(input, errors);
    options_are_unit_variants(input, errors);

    // What darling refused: unknown keys, keys given twice, values of the wrong type.
    attributes_are_well_formed(attributes, errors);

    if let Ok(opts) = &attributes.container {
        match &attributes.body {
            Body::Struct { is_unit, .. } => {
                // A form: the container.
                form_says_why(opts, errors);
                name_is_not_empty(opts, errors);
                mode_is_known(opts, errors);
                if attributes.target.is_url {
                    consent_is_not_on_a_url_elicitation(opts, errors);
                }
                if !attributes.target.is_page {
                    title_is_on_a_page(opts, errors);
                    receipt_is_on_a_page(opts, errors);
                }
                if attributes.target.is_page {
                    // A page: its fields are secrets the user types.
                    rename_all_is_known(opts, errors);
                    page_has_a_heading(opts, errors);
                    let fields = fields_asked(opts, &attributes.body);
                    for field in &fields {
                        page_field_is_a_secret(field, errors);
                        page_field_takes_only_what_a_secret_takes(field, errors);
                        pattern_is_a_regular_expression(field, errors);
                    }
                    page_asks_something(opts, &fields, errors);
                } else if attributes.target.is_url {
                    // A URL elicitation without fields: a message, for the server's own page.
                } else if *is_unit {
                    unit_struct_is_not_a_form(opts, errors);
                } else {
                    rename_all_is_known(opts, errors);
                    // Every field, even one with other mistakes, so that all show at once.
                    let fields = fields_asked(opts, &attributes.body);
                    for field in &fields {
                        type_is_a_form_field(field, errors);
                        secret_is_not_asked_in_a_form(field, errors);
                        pattern_is_not_on_a_form_field(field, errors);
                        not_secret_gives_a_reason(field, errors);
                        attributes_fit_the_field_kind(field, errors);
                        legacy_enum_names_is_on_a_single_select(field, errors);
                        bounds_fit_the_type(field, errors);
                        default_has_the_field_type(field, errors);
                        run_time_options_have_no_default_here(field, errors);
                        consent_is_not_pre_ticked(field, errors);
                        default_fits_the_type(field, errors);
                    }
                    form_asks_something(opts, &fields, errors);
                }
            }
            Body::Enum { .. } => {
                // A set of options.
                form_keys_are_not_on_options(opts, errors);
                rename_all_is_known(opts, errors);
                let options = options_offered(opts, &attributes.body);
                for option in &options {
                    option_value_is_not_empty(option, errors);
                    option_is_not_skipped(option, errors);
                }
            }
            Body::Union => {}
        }
    }

    found.finish()?;
    attributes
        .container
        .as_ref()
        .ok()
        .and_then(|opts| Model::build(opts, &attributes.target, &attributes.body))
        .ok_or_else(|| syn::Error::new_spanned(&input.ident, "internal error: no model"))
}

/// A form field as the rules see it.
struct FieldView<'a> {
    opts: &'a FieldOpts,
    /// The property name, after renaming.
    name: String,
    class: Class,
}

impl FieldView<'_> {
    /// `default = ..`, with where it is written.
    fn default(&self) -> Option<(&DefaultExpr, Span)> {
        self.opts.default.as_ref().map(|d| (&**d, d.span()))
    }

    /// `minimum` and `maximum`, where given.
    fn bounds(&self) -> impl Iterator<Item = (&'static str, &SpannedValue<Number>)> {
        [
            ("minimum", &self.opts.minimum),
            ("maximum", &self.opts.maximum),
        ]
        .into_iter()
        .filter_map(|(key, v)| v.as_ref().map(|v| (key, v)))
    }

    /// A default that breaks one of the field's own constraints: `what` says how.
    fn never_submitted(&self, what: String) -> String {
        format!(
            "the default of `{}` {what}, so it could never be submitted; change the default or the constraint",
            self.name
        )
    }
}

/// The fields that become properties: named, read by darling, not skipped.
fn fields_asked<'a>(opts: &InputOpts, body: &'a Body) -> Vec<FieldView<'a>> {
    let rename_all = model::rename_all(opts);
    body.fields()
        .filter_map(|f| {
            let ident = f.ident.as_ref()?;
            let serde = serde_attrs(&f.attrs);
            (!model::is_skipped(f, &serde)).then(|| FieldView {
                opts: f,
                name: model::property_name(f, ident, rename_all, &serde),
                class: classify(&f.ty),
            })
        })
        .collect()
}

/// An option as the rules see it.
struct OptionView<'a> {
    opts: &'a VariantOpts,
    /// The value sent on the wire, after renaming.
    value: String,
    skipped: bool,
}

/// Every variant darling read, with its value.
fn options_offered<'a>(opts: &InputOpts, body: &'a Body) -> Vec<OptionView<'a>> {
    let rename_all = model::rename_all(opts);
    body.variants()
        .map(|v| {
            let serde = serde_attrs(&v.attrs);
            OptionView {
                opts: v,
                value: model::option_value(v, rename_all, &serde),
                skipped: serde.skip,
            }
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// The input's shape

/// No lifetime, type or const parameter: a reply is owned data, and a schema is fixed at compile
/// time. The first parameter of each kind is reported.
fn type_has_no_generic_parameters(input: &syn::DeriveInput, errors: &mut Errors) {
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
}

fn input_is_not_a_union(input: &syn::DeriveInput, errors: &mut Errors) {
    if let syn::Data::Union(u) = &input.data {
        errors.spanned(
            u.union_token,
            "`#[derive(Elicit)]` does not support unions: a form is a struct with named fields, a set of options is a unit-only enum",
        );
    }
}

fn form_fields_have_names(input: &syn::DeriveInput, errors: &mut Errors) {
    if let syn::Data::Struct(syn::DataStruct {
        fields: syn::Fields::Unnamed(f),
        ..
    }) = &input.data
    {
        errors.spanned(
            f,
            "a tuple struct cannot be a form: its fields have no names to become properties; use named fields",
        );
    }
}

fn options_enum_has_an_option(input: &syn::DeriveInput, errors: &mut Errors) {
    if let syn::Data::Enum(e) = &input.data
        && e.variants.is_empty()
    {
        errors.spanned(
            &input.ident,
            "an options enum needs at least one variant: a select with nothing to choose cannot be answered; add the options as unit variants",
        );
    }
}

fn options_are_unit_variants(input: &syn::DeriveInput, errors: &mut Errors) {
    let syn::Data::Enum(e) = &input.data else {
        return;
    };
    for v in e
        .variants
        .iter()
        .filter(|v| !matches!(v.fields, syn::Fields::Unit))
    {
        errors.spanned(
            &v.fields,
            format!(
                "option `{}` carries data, but a select's options are plain values; make it a unit variant (a form asking for more is a struct)",
                v.ident
            ),
        );
    }
}

/// Darling's own errors, restated in this crate's terms (see `errors::reword`): the container's
/// first, then each field's or variant's.
fn attributes_are_well_formed(attributes: &Attributes, errors: &mut Errors) {
    if let Err(e) = &attributes.container {
        errors.push(e.clone());
    }
    for e in attributes.body.errors() {
        errors.push(e.clone());
    }
}

// ---------------------------------------------------------------------------------------------
// The container

fn form_says_why(opts: &InputOpts, errors: &mut Errors) {
    if opts.message.is_none() && doc_text(&opts.attrs).is_none() {
        errors.at(
            opts.ident.span(),
            "a form must say why it asks: add `#[elicit(message = \"...\")]` or a doc comment with one sentence saying what is asked and why",
        );
    }
}

fn name_is_not_empty(opts: &InputOpts, errors: &mut Errors) {
    if let Some(n) = &opts.name
        && n.trim().is_empty()
    {
        errors.at(n.span(), "`name` must not be empty");
    }
}

fn mode_is_known(opts: &InputOpts, errors: &mut Errors) {
    if let Some(m) = &opts.mode
        && !matches!(m.as_str(), "form" | "url")
    {
        errors.at(
            m.span(),
            format!(
                "unknown mode {:?}; the modes are \"form\" (the default) and \"url\"",
                m.as_str()
            ),
        );
    }
}

fn consent_is_not_on_a_url_elicitation(opts: &InputOpts, errors: &mut Errors) {
    if opts.consent.is_present() {
        errors.at(
            opts.consent.span(),
            "`consent` needs a form: accepting a URL-mode elicitation only means the user agreed to open the page, which is not consent to the operation",
        );
    }
}

/// `title` is a page's heading: only a page the library serves has one.
fn title_is_on_a_page(opts: &InputOpts, errors: &mut Errors) {
    if let Some(title) = &opts.title {
        errors.at(
            title.span(),
            "`title` is the heading of a page the library serves (`#[elicit(mode = \"url\")]` with `SecretString` fields); a form or a URL elicitation without fields says what it asks in its message: remove `title`",
        );
    }
}

/// `receipt` is what a page's sink returns: only a page the library serves has a sink.
fn receipt_is_on_a_page(opts: &InputOpts, errors: &mut Errors) {
    if let Some(receipt) = &opts.receipt {
        errors.at(
            receipt.span(),
            "`receipt` is the type a sink of a page the library serves returns (`#[elicit(mode = \"url\")]` with `SecretString` fields); a form or a URL elicitation without fields has no sink: remove `receipt`",
        );
    }
}

fn page_has_a_heading(opts: &InputOpts, errors: &mut Errors) {
    if opts.title.is_none() && doc_text(&opts.attrs).is_none() {
        errors.at(
            opts.ident.span(),
            "a URL page needs a heading: add a doc comment (`/// Your Example Co. API key`) or `#[elicit(title = \"...\")]`",
        );
    }
}

/// Only when nothing else is wrong, as for a form.
fn page_asks_something(opts: &InputOpts, fields: &[FieldView<'_>], errors: &mut Errors) {
    if fields.is_empty() && errors.is_empty() {
        errors.at(
            opts.ident.span(),
            "a URL page needs at least one field that is not skipped: a `SecretString` the user types",
        );
    }
}

fn unit_struct_is_not_a_form(opts: &InputOpts, errors: &mut Errors) {
    errors.at(
        opts.ident.span(),
        "a unit struct asks nothing: give the form named fields, or declare a URL-mode elicitation with `#[elicit(mode = \"url\")]`",
    );
}

fn rename_all_is_known(opts: &InputOpts, errors: &mut Errors) {
    if let Some(r) = &opts.rename_all
        && RenameRule::from_name(r).is_none()
    {
        errors.at(
            r.span(),
            format!(
                "unknown rename_all rule {:?}; use one of {}",
                r.as_str(),
                RULE_NAMES.join(", ")
            ),
        );
    }
}

/// Only when nothing else is wrong: a form whose fields all have mistakes is not also empty.
fn form_asks_something(opts: &InputOpts, fields: &[FieldView<'_>], errors: &mut Errors) {
    if fields.is_empty() && errors.is_empty() {
        errors.at(
            opts.ident.span(),
            "a form needs at least one field that is not skipped",
        );
    }
}

fn form_keys_are_not_on_options(opts: &InputOpts, errors: &mut Errors) {
    let written = |v: &Option<SpannedValue<String>>| v.as_ref().map(|v| v.span());
    for (key, present) in [
        ("message", written(&opts.message)),
        ("mode", written(&opts.mode)),
        ("name", written(&opts.name)),
        ("title", written(&opts.title)),
        ("receipt", opts.receipt.as_ref().map(|r| r.span())),
        (
            "consent",
            opts.consent.is_present().then(|| opts.consent.span()),
        ),
    ] {
        if let Some(span) = present {
            errors.at(
                span,
                format!(
                    "`{key}` applies to a form (a struct); this enum is a set of options, a field type inside a form"
                ),
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// A field

fn type_is_a_form_field(field: &FieldView<'_>, errors: &mut Errors) {
    if let Class::Forbidden(reason) = &field.class {
        errors.spanned(
            &field.opts.ty,
            format!("field `{}` cannot be in a form: {reason}", field.name),
        );
    }
}

fn secret_is_not_asked_in_a_form(field: &FieldView<'_>, errors: &mut Errors) {
    if field.opts.secret.is_present() {
        errors.at(
            field.opts.secret.span(),
            format!(
                "field `{}` is marked secret, and form mode MUST NOT ask for secrets (the value would pass through the client and the model); ask for it on a page: `#[elicit(mode = \"url\")]` with a `SecretString` field",
                field.name
            ),
        );
    }
}

/// The spec's `StringSchema` has no `pattern`: a form's field cannot carry one.
fn pattern_is_not_on_a_form_field(field: &FieldView<'_>, errors: &mut Errors) {
    if let Some(pattern) = &field.opts.pattern {
        errors.spanned(
            pattern,
            format!(
                "`pattern` cannot be on `{}`, a form's field: the spec's `StringSchema` has no `pattern`, so the client would never see it; use a `format` (`email`, `uri`, `date`, `date-time`), or ask for a secret on a URL page (`#[elicit(mode = \"url\")]` with a `SecretString` field), whose fields take one",
                field.name
            ),
        );
    }
}

fn not_secret_gives_a_reason(field: &FieldView<'_>, errors: &mut Errors) {
    if let Some(reason) = &field.opts.not_secret
        && reason.trim().is_empty()
    {
        errors.at(
            reason.span(),
            "`not_secret` needs a reason, e.g. `not_secret = \"public username\"`",
        );
    }
}

/// When the syntax cannot classify the type (an alias like `type Email = String`, or an options
/// enum), the compiler decides instead, through a marker trait asserted on the attribute's
/// tokens (`model::Field::kind_asserts`).
fn attributes_fit_the_field_kind(field: &FieldView<'_>, errors: &mut Errors) {
    if model::is_unclassified(&field.class) {
        return;
    }
    for (key, kind, span) in model::kind_specific_attributes(field.opts) {
        if !kind.holds_for(&field.class) {
            errors.at(
                span,
                format!(
                    "`{key}` applies only to {} fields, and `{}` is not one; remove it or change the field's type",
                    kind.fields(),
                    field.name
                ),
            );
        }
    }
}

fn legacy_enum_names_is_on_a_single_select(field: &FieldView<'_>, errors: &mut Errors) {
    let flag = &field.opts.legacy_enum_names;
    if flag.is_present() && !field.class.is_single_select() {
        errors.at(
            flag.span(),
            format!(
                "`legacy_enum_names` applies only to single-select fields, and `{}` is not one; remove it",
                field.name
            ),
        );
    }
}

/// `minimum`/`maximum` inside the range of the field's type, and whole for an integer type. On a
/// type the syntax cannot classify, the compiler checks the range
/// (`model::Field::unchecked_bounds`).
fn bounds_fit_the_type(field: &FieldView<'_>, errors: &mut Errors) {
    let name = &field.name;
    for (key, bound) in field.bounds() {
        let message = match (field.class.inner(), **bound) {
            (Class::Int { name: ty, min, max }, Number::Int(n)) if n < *min || n > *max => format!(
                "`{key} = {n}` on `{name}` is outside the range of `{ty}` ({min}..={max}); use a bound inside it, or a wider type"
            ),
            (Class::Int { name: ty, .. }, Number::Float(x)) => format!(
                "`{key} = {x}` is not a whole number, but `{name}` is an integer (`{ty}`); use an integer bound, or make the field `f64`"
            ),
            (Class::Float { name: "f32" }, n) if !fits_f32(n) => {
                format!("`{key} = {n}` on `{name}` is outside the range of `f32`; use `f64`")
            }
            _ => continue,
        };
        errors.at(bound.span(), message);
    }
}

fn fits_f32(n: Number) -> bool {
    (f64::from(f32::MIN)..=f64::from(f32::MAX)).contains(&n.as_f64())
}

fn default_has_the_field_type(field: &FieldView<'_>, errors: &mut Errors) {
    let Some((value, span)) = field.default() else {
        return;
    };
    let name = &field.name;
    let expected = match (field.class.inner(), value) {
        // A default an `f32` cannot hold could never be submitted (the reply would not fit).
        (Class::Float { name: "f32" }, DefaultExpr::Number(n)) if !fits_f32(*n) => {
            errors.at(
                span,
                format!(
                    "the default of `{name}` is outside the range of `f32`, so it could never be submitted; use `f64`, or a default within `f32`"
                ),
            );
            return;
        }
        (Class::Bool, DefaultExpr::Bool(_))
        | (Class::Int { .. }, DefaultExpr::Number(Number::Int(_)))
        | (Class::Float { .. }, DefaultExpr::Number(_))
        | (Class::String | Class::Choice, DefaultExpr::Str(_))
        | (Class::Select(_), DefaultExpr::Str(_) | DefaultExpr::Path(_))
        | (Class::Choices | Class::Optional(_) | Class::Forbidden(_), _) => return,
        (Class::Multi(_), DefaultExpr::Array(items)) => {
            let has = |kind: fn(&DefaultExpr) -> bool| items.iter().any(|(item, _)| kind(item));
            if has(|i| matches!(i, DefaultExpr::Path(_)))
                && has(|i| matches!(i, DefaultExpr::Str(_)))
            {
                errors.at(
                    span,
                    format!(
                        "the default of `{name}` mixes variants and option values; write every item as a variant (`[Enum::A, Enum::B]`) or every one as a value (`[\"a\", \"b\"]`)"
                    ),
                );
            }
            for (item, item_span) in items {
                if !matches!(item, DefaultExpr::Str(_) | DefaultExpr::Path(_)) {
                    errors.at(
                        *item_span,
                        format!(
                            "each default of `{name}` must be one of the enum's variants, but this is {}",
                            item.describe()
                        ),
                    );
                }
            }
            return;
        }
        (Class::Select(_), _) => {
            errors.at(
                span,
                format!(
                    "the default of `{name}` must be one of its enum's variants (`Enum::Variant`) or an option's value (`\"value\"`), but it is {}; if the field's type is an alias of a primitive, spell the primitive so the default can be checked",
                    value.describe()
                ),
            );
            return;
        }
        (Class::Bool, _) => "`true` or `false`",
        (Class::Int { .. }, _) => "an integer",
        (Class::Float { .. }, _) => "a number",
        (Class::String, _) => "a string",
        (Class::Choice, _) => "a string, the value of one of the options",
        (Class::Multi(_), _) => "an array of the enum's variants, like `[Color::Red]`",
    };
    errors.at(
        span,
        format!(
            "the default of `{name}` must be {expected}, but it is {}",
            value.describe()
        ),
    );
}

fn run_time_options_have_no_default_here(field: &FieldView<'_>, errors: &mut Errors) {
    if let (Class::Choices, Some((_, span))) = (field.class.inner(), field.default()) {
        errors.at(
            span,
            format!(
                "`{}` takes its options at run time; give its default when supplying them, not here",
                field.name
            ),
        );
    }
}

fn consent_is_not_pre_ticked(field: &FieldView<'_>, errors: &mut Errors) {
    if let (Class::Bool, Some((DefaultExpr::Bool(true), span))) =
        (field.class.inner(), field.default())
        && field.opts.consent.is_present()
    {
        errors.at(
            span,
            format!(
                "`{}` is a consent checkbox and cannot default to `true`: consent must be given by the person, not pre-filled; remove the default or use `false`",
                field.name
            ),
        );
    }
}

fn default_fits_the_type(field: &FieldView<'_>, errors: &mut Errors) {
    if let (Class::Int { name: ty, min, max }, Some((DefaultExpr::Number(Number::Int(n)), span))) =
        (field.class.inner(), field.default())
        && (n < min || n > max)
    {
        errors.at(
            span,
            field.never_submitted(format!("({n}) is outside the range of `{ty}`")),
        );
    }
}

// ---------------------------------------------------------------------------------------------
// A page's field

/// A page's field is a `SecretString`. A type the syntax cannot classify (an alias) is left to
/// the compiler, whose `__private::SecretField` says the same.
fn page_field_is_a_secret(field: &FieldView<'_>, errors: &mut Errors) {
    if ty::is_secret_string(&field.opts.ty) || model::is_unclassified(&field.class) {
        return;
    }
    let ty = &field.opts.ty;
    errors.spanned(
        ty,
        format!(
            "`{}` cannot be the type of `{}`: a URL page's fields are secrets the user types: `secrecy::SecretString` (every one required); use `mcp_elicit::page::SecretString`, and ask for what is not a secret in a form",
            quote::quote!(#ty).to_string().replace(' ', ""),
            field.name
        ),
    );
}

/// A page field's `pattern` is a regular expression the page can check: parsed by
/// `regex-syntax`, the `regex` crate's own parser (its default limits: those the page's `regex`
/// uses), so what compiles here compiles on the page. The error is on the string literal, with
/// the parser's own words and where in the pattern.
fn pattern_is_a_regular_expression(field: &FieldView<'_>, errors: &mut Errors) {
    let Some(pattern) = &field.opts.pattern else {
        return;
    };
    let written = pattern.value();
    let why = match regex_syntax::Parser::new().parse(&written) {
        Ok(_) => return,
        Err(regex_syntax::Error::Parse(error)) => {
            format!("{} (at {})", error.kind(), at(&written, error.span()))
        }
        Err(regex_syntax::Error::Translate(error)) => {
            format!("{} (at {})", error.kind(), at(&written, error.span()))
        }
        Err(error) => error.to_string(),
    };
    errors.spanned(
        pattern,
        format!(
            "the `pattern` of `{}` is not a regular expression the page can check (the `regex` crate's syntax): {why}",
            field.name
        ),
    );
}

/// Where in a pattern an error is: the characters it covers, or the offset where it starts.
fn at(pattern: &str, span: &regex_syntax::ast::Span) -> String {
    let covered = pattern
        .get(span.start.offset..span.end.offset)
        .unwrap_or("");
    if covered.is_empty() {
        format!("offset {}", span.start.offset)
    } else {
        format!("`{covered}`, offset {}", span.start.offset)
    }
}

/// What a form's field may say and a secret cannot: each key with why.
fn page_field_takes_only_what_a_secret_takes(field: &FieldView<'_>, errors: &mut Errors) {
    let f = field.opts;
    let flag = |flag: &darling::util::Flag| flag.is_present().then(|| flag.span());
    for (key, span, why) in [
        (
            "default",
            f.default.as_ref().map(|d| d.span()),
            "a secret has no default: the user types it",
        ),
        (
            "format",
            f.format.as_ref().map(|v| v.span()),
            "a secret is checked by its length and its `pattern`",
        ),
        (
            "minimum",
            f.minimum.as_ref().map(|v| v.span()),
            "a secret is text, not a number",
        ),
        (
            "maximum",
            f.maximum.as_ref().map(|v| v.span()),
            "a secret is text, not a number",
        ),
        (
            "min_items",
            f.min_items.as_ref().map(|v| v.span()),
            "a secret is text, not a choice of options",
        ),
        (
            "max_items",
            f.max_items.as_ref().map(|v| v.span()),
            "a secret is text, not a choice of options",
        ),
        (
            "legacy_enum_names",
            flag(&f.legacy_enum_names),
            "a secret is text, not a choice of options",
        ),
        (
            "consent",
            flag(&f.consent),
            "a secret is not a confirmation: ask for consent in a form",
        ),
        (
            "secret",
            flag(&f.secret),
            "every field of a page is a secret already",
        ),
        (
            "not_secret",
            f.not_secret.as_ref().map(|v| v.span()),
            "every field of a page is a secret: ask for what is not one in a form",
        ),
    ] {
        if let Some(span) = span {
            errors.at(
                span,
                format!(
                    "`{key}` does not apply to `{}`, a secret the user types on a URL page ({why}): remove it; a page's field takes `title`, `description`, `min_length`, `max_length`, `pattern` and `rename`",
                    field.name
                ),
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// An option

fn option_value_is_not_empty(option: &OptionView<'_>, errors: &mut Errors) {
    if option.value.is_empty() {
        errors.at(
            option.opts.ident.span(),
            "an option's value must not be empty",
        );
    }
}

fn option_is_not_skipped(option: &OptionView<'_>, errors: &mut Errors) {
    if option.skipped {
        errors.at(
            option.opts.ident.span(),
            "a skipped variant could never be chosen; remove it from the options enum",
        );
    }
}

#[cfg(test)]
mod tests {
    use super::validate;
    use crate::attributes;
    use crate::model::{KindAssert, Model};
    use syn::parse_quote;

    fn check(input: &syn::DeriveInput) -> Result<Model, syn::Error> {
        validate(input, &attributes::parse(input))
    }

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
        // No message, then one mistake per field. The credential's name, the unknown format, the
        // inverted bounds and the repeated name break value rules, which the compiler checks
        // through the core's functions (the fallback emits those checks: see `fallback::tests`).
        assert_eq!(errors(input), 4);
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
    fn not_secret_gives_a_reason() {
        // Whether `api_key` is a credential is the core's lexicon's call, in a `const _`
        // (`value_rules::name_is_not_a_credential`): not an error of the derive's own.
        assert_eq!(
            errors(parse_quote! { /// Why.
                struct A { api_key: String }
            }),
            0
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
        // An empty message is the core's `message_is_not_empty`, checked by the compiler.
        assert_eq!(
            errors(parse_quote! {
                #[elicit(message = "")]
                struct A { name: String }
            }),
            0
        );
    }

    #[test]
    fn a_default_of_variants_and_values_is_refused() {
        assert_eq!(
            errors(parse_quote! { /// Why.
                struct A { #[elicit(default = [Color::Red, "blue"])] colors: Vec<Color> }
            }),
            1
        );
    }

    #[test]
    fn a_url_struct_of_secret_strings_is_a_page_named_in_snake_case() {
        let input = parse_quote! {
            /// Your Example Co. API key
            #[elicit(mode = "url", message = "Enter your key on the page that opens.")]
            struct ApiKey {
                /// Settings, then API keys.
                #[elicit(title = "API key", min_length = 20, max_length = 200)]
                key: secrecy::SecretString,
                // An alias is the compiler's to check (`SecretField`).
                second: Key,
            }
        };
        let Ok(Model::Page(page)) = check(&input) else {
            panic!("a URL struct of secrets must be a page")
        };
        assert_eq!(page.name, "api_key");
        assert_eq!(page.heading, "Your Example Co. API key");
        assert_eq!(page.message, "Enter your key on the page that opens.");
        assert_eq!(
            page.fields[0].description.as_deref(),
            Some("Settings, then API keys.")
        );
    }

    #[test]
    fn a_page_field_is_a_secret_string() {
        assert_eq!(
            errors(parse_quote! { /// Heading.
                #[elicit(mode = "url", message = "Why.")]
                struct A {
                    a: String,
                    b: u32,
                    c: Option<SecretString>,
                    d: Vec<SecretString>,
                    e: SecretString,
                }
            }),
            4
        );
    }

    #[test]
    fn a_page_field_takes_only_what_a_secret_takes() {
        assert_eq!(
            errors(parse_quote! { /// Heading.
                #[elicit(mode = "url", message = "Why.")]
                struct A {
                    #[elicit(default = "x", format = "email", minimum = 1, maximum = 2)]
                    a: SecretString,
                    #[elicit(min_items = 1, max_items = 2, legacy_enum_names, consent)]
                    b: SecretString,
                    #[elicit(secret, not_secret = "why")]
                    c: SecretString,
                    #[elicit(title = "T", description = "D", min_length = 1, max_length = 2, rename = "d2")]
                    d: SecretString,
                }
            }),
            10
        );
    }

    #[test]
    fn a_page_field_pattern_is_a_regular_expression() {
        let page = |pattern: &str| -> syn::DeriveInput {
            parse_quote! { /// Heading.
                #[elicit(mode = "url", message = "Why.")]
                struct A { #[elicit(pattern = #pattern)] a: SecretString }
            }
        };
        assert_eq!(errors(page("ex_[A-Za-z0-9]{20,}")), 0);
        assert_eq!(errors(page(r"(?i)\p{Greek}+\d{2}")), 0);
        // Syntax (`Parse`), and a class the parser knows but Unicode has not (`Translate`).
        assert_eq!(errors(page("ex_[A-Z")), 1);
        assert_eq!(errors(page(r"\p{Klingon}")), 1);
        let Ok(Model::Page(page)) = check(&page("ex_.+")) else {
            panic!("a page")
        };
        assert_eq!(page.fields[0].pattern.as_deref(), Some("ex_.+"));
    }

    #[test]
    fn pattern_is_not_on_a_form_field() {
        assert_eq!(
            errors(parse_quote! { /// Why.
                struct A { #[elicit(pattern = "^[a-z]+$")] branch: String }
            }),
            1
        );
    }

    #[test]
    fn a_page_has_a_heading_and_only_a_page_has_a_title() {
        let page = |title: Option<&str>| -> syn::DeriveInput {
            let title = title.map(|t| quote::quote!(title = #t,));
            parse_quote! {
                #[elicit(mode = "url", #title message = "Why.")]
                struct A { key: SecretString }
            }
        };
        assert_eq!(errors(page(None)), 1);
        assert_eq!(errors(page(Some("Your key"))), 0);
        assert_eq!(
            errors(parse_quote! {
                #[elicit(title = "Heading", message = "Why.")]
                struct A { name: String }
            }),
            1
        );
        assert_eq!(
            errors(parse_quote! {
                #[elicit(mode = "url", title = "Heading", message = "Why.")]
                struct A;
            }),
            1
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
