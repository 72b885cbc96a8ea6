//! The rules on values alone — a bound against a bound, a default against its constraints, a
//! name against the other names and against the lexicon of credential names, the message —
//! checked by the compiler through the core's `rules` and `credential_kind` (`const fn`s), each
//! in a `const _` on the tokens that break it. A page's own (its name; no field named as its
//! token) are the facade's `const fn`s, behind its `page` feature.
//!
//! The derive decides which rules the attributes call for and words each error (it knows the
//! field's name and where each value is written); whether a rule holds is decided only by the
//! core, by the very function that checks a hand-built schema at run time. rustc reports every
//! failing constant, so every broken rule of a form shows at once.
//!
//! None of these checks names the field's type, so the fallback emits them too, beside the
//! derive's own errors. The checks that need the field's type (a default against an options
//! enum, `min_items` against its number of options) are the expansion's (`expand.rs`).

use proc_macro2::{Literal, Span, TokenStream};
use quote::{quote, quote_spanned};

use crate::attributes::{DefaultExpr, Number};
use crate::model::{Field, Form, OptionsEnum, Page, UrlForm};
use crate::ty::Class;

/// Every value rule of a form. `variant_paths`: whether a default's variants (`Env::A`) may be
/// read through their enum's generated code (not in the fallback, where that code may be a
/// stub).
pub fn form(form: &Form, variant_paths: bool) -> TokenStream {
    let mut checks = message_is_not_empty(form.message_span, &form.message);
    if !form.fields.is_empty() {
        let names = form.fields.iter().map(|f| &f.name);
        checks.extend(quote! {
            const __ELICIT_NAMES: &[&str] = &[#(#names),*];
        });
    }
    for (i, f) in form.fields.iter().enumerate() {
        checks.extend(property_name_is_valid(f, i));
        checks.extend(name_is_not_a_credential(f));
        checks.extend(format_is_known(f));
        checks.extend(counts_are_ordered(f));
        checks.extend(bounds_are_ordered(f));
        checks.extend(bounds_are_finite(f));
        checks.extend(default_string_keeps_the_rules(f));
        checks.extend(default_number_keeps_the_rules(f));
        checks.extend(default_selection_keeps_the_rules(f, i, variant_paths));
    }
    checks
}

/// The value rules of a URL-mode elicitation: its message.
pub fn url(url: &UrlForm) -> TokenStream {
    message_is_not_empty(url.message_span, &url.message)
}

/// The value rules of a page: the core's, as a form's fields keep them (the message, names,
/// lengths), and the pages' own (its name, no field named as the page's token), which only the
/// facade's `page` feature has: the expansion puts those behind its gate.
pub fn page(page: &Page) -> (TokenStream, TokenStream) {
    let mut core = message_is_not_empty(page.message_span, &page.message);
    let names = page.fields.iter().map(|f| &f.name);
    core.extend(quote! {
        const __ELICIT_NAMES: &[&str] = &[#(#names),*];
    });
    let mut pages = page_name_fits(page);
    for (i, f) in page.fields.iter().enumerate() {
        core.extend(property_name_is_valid(f, i));
        core.extend(counts_are_ordered(f));
        pages.extend(field_name_is_free(f));
    }
    (core, pages)
}

/// The value rules of an options enum: not too many, and its values are unique.
pub fn options(options: &OptionsEnum) -> TokenStream {
    if options.variants.is_empty() {
        return TokenStream::new();
    }
    let values = options.variants.iter().map(|v| &v.value);
    let mut checks = quote! {
        const __ELICIT_OPTIONS: &[_elicit::__private::EnumOption] =
            &[#(_elicit::__private::enum_option(#values, _elicit::__private::None)),*];
    };
    let too_many = format!(
        "`{}` has {} options, more than a select may offer (`limits::MAX_OPTIONS`); a list that long is not one to scroll through: ask for text and check it, or narrow the list first",
        options.ident,
        options.variants.len()
    );
    checks.extend(check(
        options.ident.span(),
        quote!(_elicit::__private::rules::option_count_fits(
            __ELICIT_OPTIONS.len()
        )),
        &too_many,
    ));
    for (i, v) in options.variants.iter().enumerate() {
        let message = format!(
            "two options have the value {:?}; option values must be unique after renaming",
            v.value
        );
        checks.extend(check(
            v.value_span,
            quote!(_elicit::__private::rules::option_value_is_unique(__ELICIT_OPTIONS, #i)),
            &message,
        ));
    }
    checks
}

// ---------------------------------------------------------------------------------------------
// The rules, one function each

fn message_is_not_empty(span: Option<Span>, message: &str) -> TokenStream {
    let Some(span) = span else {
        // A doc comment's text is never empty.
        return TokenStream::new();
    };
    check(
        span,
        quote!(_elicit::__private::rules::message_is_not_empty(#message)),
        "the message is empty; say in one sentence what is asked and why",
    )
}

/// Not empty, and not the name of a field before it.
fn property_name_is_valid(f: &Field, index: usize) -> TokenStream {
    let name = &f.name;
    let empty = format!(
        "the property name of `{}` is empty; give it a name with `#[elicit(rename = \"...\")]`",
        f.ident
    );
    let repeated = format!(
        "two fields are named `{name}` in the form: property names must be unique after renaming; give one of them another name with `#[elicit(rename = \"...\")]`"
    );
    quote_spanned! {f.name_span=>
        const _: () = if !_elicit::__private::rules::name_is_not_empty(#name) {
            ::core::panic!(#empty)
        } else if !_elicit::__private::rules::name_is_unique(__ELICIT_NAMES, #index) {
            ::core::panic!(#repeated)
        };
    }
}

/// A page's name is one its URL and its flows can carry: the pages' own rule
/// (`page_name_fits`), which `SecretPage::new` checks at run time.
fn page_name_fits(page: &Page) -> TokenStream {
    let name = &page.name;
    let message = format!(
        "the page's name {name:?} must be 1 to 64 ASCII letters, digits, `_` or `-`; give it one with `#[elicit(name = \"...\")]`"
    );
    check(
        page.name_span,
        quote!(_elicit::__private::page_name_fits(#name)),
        &message,
    )
}

/// No field of a page is named as the page's CSRF token: the pages' own rule
/// (`field_name_is_free`), which `SecretPage::new` checks at run time.
fn field_name_is_free(f: &Field) -> TokenStream {
    let name = &f.name;
    let message = format!(
        "a page's field cannot be named {name:?}: the page's token has that name; rename it with `#[elicit(rename = \"...\")]`"
    );
    check(
        f.name_span,
        quote!(_elicit::__private::field_name_is_free(#name)),
        &message,
    )
}

/// Form mode MUST NOT ask for credentials: a name the core's lexicon reads as one (`api_key`,
/// `refreshToken`) is refused unless `not_secret = ".."` says why it is not. The lexicon names
/// the kind, so the message is joined at compile time around it (`__private::Message`).
fn name_is_not_a_credential(f: &Field) -> TokenStream {
    if f.not_secret {
        return TokenStream::new();
    }
    let name = &f.name;
    let before = format!("field `{name}` looks like ");
    let after = ", and form mode MUST NOT ask for credentials; ask for it on a page (`#[elicit(mode = \"url\")]` with a `SecretString` field), or if it is not a secret say why with `#[elicit(not_secret = \"reason\")]`";
    let room = before.len() + after.len();
    quote_spanned! {f.name_span=>
        const _: () = if let _elicit::__private::Some(kind) =
            _elicit::__private::credential_kind(#name)
        {
            ::core::panic!(
                "{}",
                _elicit::__private::Message::<{ #room + _elicit::__private::LONGEST_CREDENTIAL_KIND }>::join(
                    &[#before, kind, #after]
                )
                .as_str()
            )
        };
    }
}

/// `format = ".."` is read by the core's `Format::from_name`: the one table of format names is
/// the core's, and an unknown name is a compile error on the user's string.
fn format_is_known(f: &Field) -> TokenStream {
    let Some((format, span)) = &f.format else {
        return TokenStream::new();
    };
    let message = format!(
        "unknown format {format:?} on `{}`; the spec allows only \"email\", \"uri\", \"date\" and \"date-time\"",
        f.name
    );
    check(
        *span,
        quote!(_elicit::__private::Format::from_name(#format).is_some()),
        &message,
    )
}

/// `min_length` ≤ `max_length`, and `min_items` ≤ `max_items`, each on the lower bound.
fn counts_are_ordered(f: &Field) -> TokenStream {
    let rules = quote!(_elicit::__private::rules);
    let pairs = [
        (
            ("min_length", "max_length"),
            (f.min_length_span, f.min_length, f.max_length),
            quote!(#rules::lengths_are_ordered),
        ),
        (
            ("min_items", "max_items"),
            (f.min_items_span, f.min_items, f.max_items),
            quote!(#rules::item_counts_are_ordered),
        ),
    ];
    let mut checks = TokenStream::new();
    for ((lo, hi), (span, min, max), rule) in pairs {
        if let (Some(span), Some(_)) = (span, max) {
            let (min, max) = (opt_u32(min), opt_u32(max));
            checks.extend(check(
                span,
                quote!(#rule(#min, #max)),
                &inverted(lo, hi, &f.name),
            ));
        }
    }
    checks
}

/// `minimum` ≤ `maximum`: as integers when both are, else as numbers (an integer field's bounds
/// are integers; a bound that is not is `bounds_fit_the_type`'s error).
fn bounds_are_ordered(f: &Field) -> TokenStream {
    let (Some(span), Some(min), Some(max)) = (f.minimum_span, f.minimum, f.maximum) else {
        return TokenStream::new();
    };
    let some = quote!(_elicit::__private::Some);
    let holds = match (min, max) {
        (Number::Int(min), Number::Int(max)) => {
            let (min, max) = (int(min), int(max));
            quote!(_elicit::__private::rules::integer_bounds_are_ordered(#some(#min), #some(#max)))
        }
        (min, max) => {
            let (min, max) = (float(min.as_f64()), float(max.as_f64()));
            quote!(_elicit::__private::rules::number_bounds_are_ordered(#some(#min), #some(#max)))
        }
    };
    check(span, holds, &inverted("minimum", "maximum", &f.name))
}

/// On an integer or `f32` field, `bounds_fit_the_type` already refuses a bound that is not
/// finite (as not whole, or outside `f32`).
fn bounds_are_finite(f: &Field) -> TokenStream {
    if matches!(
        f.class.inner(),
        Class::Int { .. } | Class::Float { name: "f32" }
    ) {
        return TokenStream::new();
    }
    let mut checks = TokenStream::new();
    for (key, bound, span) in [
        ("minimum", f.minimum, f.minimum_span),
        ("maximum", f.maximum, f.maximum_span),
    ] {
        if let (Some(Number::Float(x)), Some(span)) = (bound, span) {
            let x = float(x);
            checks.extend(check(
                span,
                quote!(_elicit::__private::rules::number_is_finite(#x)),
                &format!("`{key}` on `{}` must be a finite number", f.name),
            ));
        }
    }
    checks
}

/// A string field's default: it fits in a reply, is in the field's format, and has a length
/// within `[min_length, max_length]`.
fn default_string_keeps_the_rules(f: &Field) -> TokenStream {
    let (Class::String, Some((DefaultExpr::Str(s), span))) = (f.class.inner(), &f.default) else {
        return TokenStream::new();
    };
    let span = *span;
    let mut checks = check(
        span,
        quote!(_elicit::__private::rules::string_fits_a_reply(#s)),
        &never_submitted(f, "is longer than any string a reply may hold"),
    );
    if let Some((format, _)) = &f.format {
        let message = format!(
            "the default of `{}` is not in its format; a default must satisfy the field's own constraints",
            f.name
        );
        // An unknown format is `format_is_known`'s error alone.
        checks.extend(quote_spanned! {span=>
            const _: () = match _elicit::__private::Format::from_name(#format) {
                ::core::option::Option::Some(format) if !format.matches(#s) => {
                    ::core::panic!(#message)
                }
                _ => {}
            };
        });
    }
    if f.min_length.is_some() || f.max_length.is_some() {
        let (min, max) = (opt_u32(f.min_length), opt_u32(f.max_length));
        checks.extend(within(
            span,
            quote!(_elicit::__private::rules::length_is_within(#s, #min, #max)),
            &never_submitted(
                f,
                &format!(
                    "has fewer characters than `min_length = {}`",
                    show(f.min_length)
                ),
            ),
            &never_submitted(
                f,
                &format!(
                    "has more characters than `max_length = {}`",
                    show(f.max_length)
                ),
            ),
        ));
    }
    checks
}

/// A number field's default: finite, and within `[minimum, maximum]`. An integer default
/// outside its type's range is `default_fits_the_type`'s error alone.
fn default_number_keeps_the_rules(f: &Field) -> TokenStream {
    let Some((DefaultExpr::Number(d), span)) = &f.default else {
        return TokenStream::new();
    };
    let span = *span;
    let bounded = f.minimum.is_some() || f.maximum.is_some();
    let below = never_submitted(
        f,
        &format!("({d}) is below `minimum = {}`", show(f.minimum)),
    );
    let above = never_submitted(
        f,
        &format!("({d}) is above `maximum = {}`", show(f.maximum)),
    );
    match (f.class.inner(), *d) {
        (Class::Int { min, max, .. }, Number::Int(n)) if *min <= n && n <= *max && bounded => {
            let as_int = |b: Option<Number>| match b {
                Some(Number::Int(b)) => {
                    let b = int(b);
                    quote!(_elicit::__private::Some(#b))
                }
                _ => quote!(_elicit::__private::None),
            };
            let (n, min, max) = (int(n), as_int(f.minimum), as_int(f.maximum));
            within(
                span,
                quote!(_elicit::__private::rules::integer_is_within(#n, #min, #max)),
                &below,
                &above,
            )
        }
        (Class::Float { .. }, d) => {
            let d = float(d.as_f64());
            let mut checks = check(
                span,
                quote!(_elicit::__private::rules::number_is_finite(#d)),
                &format!("the default of `{}` must be a finite number", f.name),
            );
            if bounded {
                let as_float = |b: Option<Number>| match b {
                    Some(b) => {
                        let b = float(b.as_f64());
                        quote!(_elicit::__private::Some(#b))
                    }
                    None => quote!(_elicit::__private::None),
                };
                let (min, max) = (as_float(f.minimum), as_float(f.maximum));
                checks.extend(within(
                    span,
                    quote!(_elicit::__private::rules::number_is_within(#d, #min, #max)),
                    &below,
                    &above,
                ));
            }
            checks
        }
        _ => TokenStream::new(),
    }
}

/// A multi-select's default: each option selected once, and as many as `[min_items, max_items]`
/// allows. That each is an option is the expansion's check, against the field's enum.
fn default_selection_keeps_the_rules(f: &Field, index: usize, variant_paths: bool) -> TokenStream {
    let (Class::Multi(_), Some((DefaultExpr::Array(items), span))) = (f.class.inner(), &f.default)
    else {
        return TokenStream::new();
    };
    let mut checks = TokenStream::new();
    if f.min_items.is_some() || f.max_items.is_some() {
        let count = items.len();
        let (min, max) = (opt_u32(f.min_items), opt_u32(f.max_items));
        checks.extend(within(
            *span,
            quote!(_elicit::__private::rules::item_count_is_within(#count, #min, #max)),
            &never_submitted(
                f,
                &format!(
                    "selects {count}, fewer than `min_items = {}`",
                    show(f.min_items)
                ),
            ),
            &never_submitted(
                f,
                &format!(
                    "selects {count}, more than `max_items = {}`",
                    show(f.max_items)
                ),
            ),
        ));
    }
    // Each item's value: a string as written, a variant's through its enum (`__elicit_value`).
    let values: Option<Vec<TokenStream>> = items
        .iter()
        .map(|(item, _)| match item {
            DefaultExpr::Str(s) => Some(quote!(#s)),
            DefaultExpr::Path(p) if variant_paths => Some(quote!(#p.__elicit_value())),
            // Not an option (`default_has_the_field_type`'s error), or a variant the fallback
            // cannot read.
            _ => None,
        })
        .collect();
    let Some(values) = values else {
        return checks;
    };
    let list = syn::Ident::new(&format!("__ELICIT_DEFAULT_{index}"), Span::call_site());
    checks.extend(quote! {
        const #list: &[_elicit::__private::Option<_elicit::__private::Cow<'static, str>>] = &[
            #(_elicit::__private::Some(_elicit::__private::Cow::Borrowed(#values))),*
        ];
    });
    for (i, (item, item_span)) in items.iter().enumerate() {
        let shown = match item {
            DefaultExpr::Path(p) => quote!(#p).to_string().replace(' ', ""),
            DefaultExpr::Str(s) => format!("{s:?}"),
            _ => continue,
        };
        let message = format!(
            "the default of `{}` selects {shown} twice; list each option once",
            f.name
        );
        checks.extend(check(
            *item_span,
            quote!(_elicit::__private::rules::selection_is_new(#list, #i)),
            &message,
        ));
    }
    checks
}

// ---------------------------------------------------------------------------------------------
// How a check is written

/// A `const _` that fails with `message`, on `span`, unless `holds` (a call of the core's
/// `rules`, or any `bool` expression).
fn check(span: Span, holds: TokenStream, message: &str) -> TokenStream {
    quote_spanned! {span=>
        const _: () = if !#holds {
            ::core::panic!(#message)
        };
    }
}

/// A `const _` that fails with `below` or `above`, on `span`, when `result` (a rule of a range,
/// giving `Result<(), Outside<_>>`) says the value lies beyond that bound.
fn within(span: Span, result: TokenStream, below: &str, above: &str) -> TokenStream {
    quote_spanned! {span=>
        const _: () = match #result {
            ::core::result::Result::Err(_elicit::__private::rules::Outside::Below(_)) => {
                ::core::panic!(#below)
            }
            ::core::result::Result::Err(_elicit::__private::rules::Outside::Above(_)) => {
                ::core::panic!(#above)
            }
            ::core::result::Result::Ok(()) => {}
        };
    }
}

fn inverted(lo: &str, hi: &str, name: &str) -> String {
    format!(
        "`{lo}` is greater than `{hi}` on `{name}`, so no value can satisfy both; lower `{lo}` or raise `{hi}`"
    )
}

/// A default that breaks one of the field's own constraints: `what` says how.
fn never_submitted(f: &Field, what: &str) -> String {
    format!(
        "the default of `{}` {what}, so it could never be submitted; change the default or the constraint",
        f.name
    )
}

fn show<T: std::fmt::Display>(bound: Option<T>) -> String {
    bound.map(|b| b.to_string()).unwrap_or_default()
}

fn opt_u32(value: Option<u32>) -> TokenStream {
    match value {
        Some(v) => quote!(_elicit::__private::Some(#v)),
        None => quote!(_elicit::__private::None),
    }
}

/// An integer literal of `n`, its type that of its context (`i128` for a rule).
pub fn int(n: i128) -> TokenStream {
    let abs = Literal::u128_unsuffixed(n.unsigned_abs());
    if n < 0 { quote!(-#abs) } else { quote!(#abs) }
}

/// An `f64` expression of `x`, infinities included (a literal such as `1e999` reads as one).
pub fn float(x: f64) -> TokenStream {
    if x.is_nan() {
        return quote!(::core::f64::NAN);
    }
    let abs = if x.is_infinite() {
        quote!(::core::f64::INFINITY)
    } else {
        let lit = Literal::f64_unsuffixed(x.abs());
        quote!(#lit)
    };
    if x.is_sign_negative() {
        quote!(-#abs)
    } else {
        abs
    }
}
