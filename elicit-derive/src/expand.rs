//! The last step: generate the impls. Everything lives in a `const _: () = { .. }` block, names
//! the runtime through one alias (`_elicit`), and uses only absolute paths.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};

use crate::attributes::{DefaultExpr, Number};
use crate::model::{Field, Form, KindAssert, Model, OptionsEnum, Page, UrlForm};
use crate::ty::Class;
use crate::value_rules;

pub fn expand(model: &Model) -> TokenStream {
    match model {
        Model::Form(form) => expand_form(form),
        Model::Url(url) => expand_url(url),
        Model::Page(page) => expand_page(page),
        Model::Options(options) => expand_options(options),
    }
}

fn wrap(krate: &syn::Path, body: TokenStream) -> TokenStream {
    quote! {
        #[doc(hidden)]
        #[allow(non_upper_case_globals, unused_qualifications, clippy::all)]
        const _: () = {
            use #krate as _elicit;
            #body
        };
    }
}

fn number(n: Number) -> TokenStream {
    match n {
        Number::Int(i) => {
            let i = value_rules::int(i);
            quote!(_elicit::__private::Bound::Int(#i))
        }
        Number::Float(x) => {
            let x = value_rules::float(x);
            quote!(_elicit::__private::Bound::Float(#x))
        }
    }
}

fn opt<T: quote::ToTokens>(value: Option<T>) -> TokenStream {
    match value {
        Some(v) => quote!(_elicit::__private::Some(#v)),
        None => quote!(_elicit::__private::None),
    }
}

/// The enum type of a select or multi-select field, when the syntax names it.
fn options_type(class: &Class) -> Option<&syn::Type> {
    match class.inner() {
        Class::Select(t) | Class::Multi(t) => Some(t),
        _ => None,
    }
}

/// The `FieldSpec` literal and the compile-time checks of one field that need its type (the value
/// rules, which do not, are `value_rules::form`'s).
fn field_spec(f: &Field) -> (TokenStream, TokenStream) {
    let name = &f.name;
    let format = match &f.format {
        Some((format, _)) => quote!(_elicit::__private::Format::from_name(#format)),
        None => quote!(_elicit::__private::None),
    };
    let min_length = opt(f.min_length);
    let max_length = opt(f.max_length);
    let minimum = opt(f.minimum.map(number));
    let maximum = opt(f.maximum.map(number));
    let min_items = opt(f.min_items);
    let max_items = opt(f.max_items);
    let legacy = f.legacy_enum_names;
    let ty = &f.ty;
    let mut checks = TokenStream::new();

    // `min_items` against the number of options, through the field's type whatever its
    // spelling (an alias of a multi-select too): the compiler counts the options.
    if let (Some(min_items), Class::Multi(_) | Class::Select(_)) = (f.min_items, f.class.inner()) {
        let msg = format!(
            "`{name}`: min_items = {min_items} is more than the number of options, so no selection can satisfy it; lower min_items or add options"
        );
        let span = f.min_items_span.unwrap_or_else(|| e_span(ty));
        checks.extend(quote_spanned! {span=>
            const _: () = if !_elicit::__private::min_items_fit::<#ty>(#min_items) {
                ::core::panic!(#msg)
            };
        });
    }

    // Kinds and ranges the syntax could not confirm (an alias): the compiler checks them, each
    // on the attribute's tokens. `__Field` names the type so that the whole checking expression
    // carries the attribute's span.
    for (kind, span) in &f.kind_asserts {
        let assert = match kind {
            KindAssert::String => "assert_string_field",
            KindAssert::MultiSelect => "assert_multi_select_field",
            KindAssert::Bool => "assert_bool_field",
            // Asserted by the range check below (`bound_fits` has the same bound), once.
            KindAssert::Number => continue,
        };
        let assert = syn::Ident::new(assert, *span);
        checks.extend(quote_spanned! {*span=>
            const _: () = {
                type __Field = #ty;
                _elicit::__private::#assert::<__Field>()
            };
        });
    }
    for (key, bound, span) in &f.unchecked_bounds {
        let msg = format!(
            "`{key} = {bound}` does not fit the type of `{name}`: it is outside the type's range, or not a whole number for an integer type; change the bound or the type"
        );
        let bound = number(*bound);
        checks.extend(quote_spanned! {*span=>
            const _: () = {
                type __Field = #ty;
                if !_elicit::__private::bound_fits::<__Field>(#bound) {
                    ::core::panic!(#msg)
                }
            };
        });
    }

    let default = match &f.default {
        None => quote!(_elicit::__private::None),
        Some((value, span)) => {
            let span = *span;
            let value_tokens = default_tokens(f, value, span, &mut checks);
            quote_spanned!(span=> _elicit::__private::Some(#value_tokens))
        }
    };
    let spec = quote! {
        _elicit::__private::FieldSpec {
            format: #format,
            min_length: #min_length,
            max_length: #max_length,
            minimum: #minimum,
            maximum: #maximum,
            min_items: #min_items,
            max_items: #max_items,
            default: #default,
            legacy_enum_names: #legacy,
        }
    };
    (spec, checks)
}

fn e_span(ty: &syn::Type) -> Span {
    syn::spanned::Spanned::span(ty)
}

/// A default value's tokens, adding the checks only the compiler can make.
fn default_tokens(
    f: &Field,
    value: &DefaultExpr,
    span: Span,
    checks: &mut TokenStream,
) -> TokenStream {
    let name = &f.name;
    let ty = &f.ty;
    match value {
        DefaultExpr::Bool(b) => quote_spanned!(span=> _elicit::__private::DefaultValue::Bool(#b)),
        DefaultExpr::Number(n) => {
            let n = number(*n);
            quote_spanned!(span=> _elicit::__private::DefaultValue::Number(#n))
        }
        DefaultExpr::Str(s) => {
            if let Some(e) = options_type(&f.class) {
                select_value_check(name, e, s, span, checks);
            }
            quote_spanned!(span=> _elicit::__private::DefaultValue::Str(#s))
        }
        DefaultExpr::Path(path) => {
            dangerous_path_check(name, path, span, checks);
            quote_spanned!(span=> _elicit::__private::default_of::<#ty, _>(&#path))
        }
        DefaultExpr::Array(items) => {
            let all_paths = items.iter().all(|(i, _)| matches!(i, DefaultExpr::Path(_)));
            let e = options_type(&f.class);
            let mut strs = Vec::new();
            let mut paths = Vec::new();
            for (item, item_span) in items {
                match item {
                    DefaultExpr::Path(p) => {
                        dangerous_path_check(name, p, *item_span, checks);
                        paths.push(p.clone());
                    }
                    DefaultExpr::Str(s) => {
                        if let Some(e) = e {
                            select_value_check(name, e, s, *item_span, checks);
                        }
                        strs.push(s.clone());
                    }
                    _ => {}
                }
            }
            if all_paths {
                quote_spanned!(span=> _elicit::__private::default_of::<#ty, _>(&[#(#paths),*]))
            } else {
                quote_spanned!(span=> _elicit::__private::DefaultValue::Strs(_elicit::__private::Vec::from([#(#strs),*])))
            }
        }
    }
}

/// The error is put on the variant's own name (`Production` in `Env::Production`).
fn dangerous_path_check(name: &str, path: &syn::Path, span: Span, checks: &mut TokenStream) {
    let span = path.segments.last().map_or(span, |s| s.ident.span());
    let shown = quote!(#path).to_string().replace(' ', "");
    let msg = format!(
        "`{name}` cannot default to `{shown}`: that option is marked `#[elicit(dangerous)]`, and a dangerous path is never pre-selected; choose a safe default or none"
    );
    checks.extend(quote_spanned! {span=>
        const _: () = if #path.__elicit_is_dangerous() {
            ::core::panic!(#msg)
        };
    });
}

fn select_value_check(
    name: &str,
    e: &syn::Type,
    value: &str,
    span: Span,
    checks: &mut TokenStream,
) {
    let missing = format!("the default of `{name}` ({value:?}) is not one of the options");
    let dangerous = format!(
        "`{name}` cannot default to {value:?}: that option is marked `#[elicit(dangerous)]`, and a dangerous path is never pre-selected; choose a safe default or none"
    );
    checks.extend(quote_spanned! {span=>
        const _: () = match _elicit::__private::rules::option_index(<#e as _elicit::__private::Select>::OPTIONS, #value) {
            ::core::option::Option::Some(i) => if <#e as _elicit::__private::Select>::DANGEROUS[i] {
                ::core::panic!(#dangerous)
            },
            ::core::option::Option::None => ::core::panic!(#missing),
        };
    });
}

fn expand_form(form: &Form) -> TokenStream {
    let ident = &form.ident;
    let message = &form.message;
    let metric_name = &form.metric_name;
    let mut properties = Vec::new();
    let mut checks = TokenStream::new();
    let mut takes = Vec::new();
    let mut bindings = Vec::new();
    let mut puts = Vec::new();
    for (i, f) in form.fields.iter().enumerate() {
        let ty = &f.ty;
        let name = &f.name;
        let title = opt(f.title.as_deref());
        let description = opt(f.description.as_deref());
        let serde_default = f.serde_default;
        let (spec, field_checks) = field_spec(f);
        checks.extend(field_checks);
        // Every use of the field's type goes through `field_ops::<T>()`, spanned on the type:
        // a type that is not a form field is then one error on the field, not one per use (see
        // `__private::field_ops`).
        let ty_span = e_span(ty);
        let ops = quote_spanned!(ty_span=> _elicit::__private::field_ops::<#ty>());
        properties.push(quote! {
            (#ops.property)(#name, #title, #description, #serde_default, &#spec)
        });
        let var = syn::Ident::new(&format!("__field{i}"), Span::call_site());
        let take = quote! { (#ops.take)(&mut content, #i, #name, &mut violations) };
        if f.serde_default {
            // `#[serde(default)]` or `#[serde(default = "path")]`: absent means the default.
            let default = match &f.serde_default_fn {
                Some(path) => quote_spanned!(ty_span=> #path()),
                None => quote_spanned!(ty_span=> <#ty as ::core::default::Default>::default()),
            };
            takes.push(quote! {
                let #var = if _elicit::__private::is_absent(&content, #i) {
                    _elicit::__private::Some(#default)
                } else {
                    #take
                };
            });
        } else {
            takes.push(quote! { let #var = #take; });
        }
        let field_ident = &f.ident;
        bindings.push((var, field_ident.clone()));
        puts.push(quote! { (#ops.put)(&mut content, #name, &self.#field_ident); });
    }
    let value_checks = value_rules::form(form, true);
    let vars: Vec<_> = bindings.iter().map(|(v, _)| v).collect();
    let assigns: Vec<_> = bindings.iter().map(|(v, f)| quote!(#f: #v)).collect();
    let skipped: Vec<_> = form
        .skipped
        .iter()
        .map(|s| quote!(#s: ::core::default::Default::default()))
        .collect();
    let consent = form.consent.then(|| {
        let ticked = form.fields.iter().filter(|f| f.consent).map(|f| {
            let field = &f.ident;
            quote!(&& _elicit::__private::ticked(&self.#field))
        });
        quote! {
            #[automatically_derived]
            impl _elicit::__private::ConsentForm for #ident {
                fn granted(&self) -> bool {
                    true #(#ticked)*
                }
            }
        }
    });
    let body = quote! {
        #[automatically_derived]
        impl _elicit::__private::FromContent for #ident {
            fn from_content(
                mut content: _elicit::__private::Content<'_>,
            ) -> _elicit::__private::Result<Self, _elicit::__private::Violations> {
                let mut violations = _elicit::__private::Vec::new();
                #(#takes)*
                let (#(_elicit::__private::Some(#vars),)*) = (#(#vars,)*) else {
                    return _elicit::__private::Err(_elicit::__private::violations(violations));
                };
                _elicit::__private::Ok(Self { #(#assigns,)* #(#skipped,)* })
            }
        }

        #[automatically_derived]
        impl _elicit::__private::Elicit for #ident {
            fn message() -> &'static str {
                #message
            }

            fn name() -> &'static str {
                #metric_name
            }

            fn requested_schema() -> &'static _elicit::__private::RequestedSchema {
                static SCHEMA: _elicit::__private::OnceLock<_elicit::__private::RequestedSchema> =
                    _elicit::__private::OnceLock::new();
                SCHEMA.get_or_init(|| {
                    _elicit::__private::schema(_elicit::__private::Vec::from([
                        #(#properties),*
                    ]))
                })
            }

            fn form_request() -> _elicit::__private::FormRequest<Self> {
                static WIRE: _elicit::__private::WireCache = _elicit::__private::WireCache::new();
                _elicit::__private::form_request(
                    <Self as _elicit::__private::Elicit>::name(),
                    <Self as _elicit::__private::Elicit>::message(),
                    <Self as _elicit::__private::Elicit>::requested_schema(),
                    &WIRE,
                )
            }

            fn to_content(&self) -> _elicit::__private::Map<::std::string::String, _elicit::__private::Value> {
                let mut content = _elicit::__private::Map::new();
                #(#puts)*
                content
            }
        }

        #consent
        #checks
        #value_checks
    };
    wrap(&form.krate, body)
}

fn expand_url(url: &UrlForm) -> TokenStream {
    let ident = &url.ident;
    let message = &url.message;
    let metric_name = &url.metric_name;
    let value_checks = value_rules::url(url);
    let body = quote! {
        #[automatically_derived]
        impl _elicit::__private::ElicitUrl for #ident {
            fn message() -> &'static str {
                #message
            }
            fn name() -> &'static str {
                #metric_name
            }
        }

        #value_checks
    };
    wrap(&url.krate, body)
}

/// A page: `ElicitUrl` (its message, and its name, which is the page's), and behind the
/// runtime's `page` gate (`__private::page!`, which without the feature is one error naming it)
/// `SecretForm` and the pages' own rules.
fn expand_page(page: &Page) -> TokenStream {
    let ident = &page.ident;
    let message = &page.message;
    let name = &page.name;
    let heading = &page.heading;
    let mut properties = Vec::new();
    let mut takes = Vec::new();
    let mut vars = Vec::new();
    let mut assigns = Vec::new();
    let mut patterns = Vec::new();
    for (i, f) in page.fields.iter().enumerate() {
        let ty = &f.ty;
        let field_name = &f.name;
        // Every use of the field's type goes through `secret_ops::<T>()`, spanned on the type: a
        // type that is not `SecretString` is one error on the field, as for a form's field.
        let ops = quote_spanned!(e_span(ty)=> _elicit::__private::secret_ops::<#ty>());
        let (title, description) = (opt(f.title.as_deref()), opt(f.description.as_deref()));
        let (min_length, max_length) = (opt(f.min_length), opt(f.max_length));
        properties.push(quote! {
            (#ops.property)(#field_name, #title, #description, #min_length, #max_length)
        });
        if let Some(pattern) = &f.pattern {
            patterns.push(quote!((#field_name, #pattern)));
        }
        let var = syn::Ident::new(&format!("__field{i}"), Span::call_site());
        takes.push(quote! { let #var = (#ops.take)(&mut secrets, #field_name, &mut missing); });
        let field_ident = &f.ident;
        assigns.push(quote!(#field_ident: #var));
        vars.push(var);
    }
    let skipped = page
        .skipped
        .iter()
        .map(|s| quote!(#s: ::core::default::Default::default()));
    let (core_checks, page_checks) = value_rules::page(page);
    let receipt = page.receipt.as_ref().map_or_else(
        || quote!(_elicit::__private::Value),
        |receipt| quote_spanned!(e_span(receipt)=> #receipt),
    );
    let page_impl = quote! {
            #[automatically_derived]
            impl _elicit::__private::SecretForm for #ident {
                type Receipt = #receipt;

                fn secret_page() -> &'static _elicit::__private::SecretPage {
                    static PAGE: _elicit::__private::OnceLock<_elicit::__private::SecretPage> =
                        _elicit::__private::OnceLock::new();
                    PAGE.get_or_init(|| {
                        _elicit::__private::secret_page(
                            <Self as _elicit::__private::ElicitUrl>::name(),
                            #heading,
                            _elicit::__private::Vec::from([#(#properties),*]),
                            &[#(#patterns),*],
                        )
                    })
                }

                fn from_secrets(
                    mut secrets: _elicit::__private::Secrets,
                ) -> _elicit::__private::Result<Self, _elicit::__private::Violations> {
                    let mut missing = _elicit::__private::Vec::new();
                    #(#takes)*
                    let (#(_elicit::__private::Some(#vars),)*) = (#(#vars,)*) else {
                        return _elicit::__private::Err(_elicit::__private::missing(missing));
                    };
                    _elicit::__private::Ok(Self { #(#assigns,)* #(#skipped,)* })
                }
            }

            #page_checks
    };
    // The gate's invocation on `mode = "url"`: without the feature, its error points there.
    let gated = quote_spanned! {page.mode_span=>
        _elicit::__private::page! { items: #page_impl }
    };
    let body = quote! {
        #[automatically_derived]
        impl _elicit::__private::ElicitUrl for #ident {
            fn message() -> &'static str {
                #message
            }
            fn name() -> &'static str {
                #name
            }
        }

        #gated

        #core_checks
    };
    wrap(&page.krate, body)
}

fn expand_options(options: &OptionsEnum) -> TokenStream {
    let ident = &options.ident;
    let values: Vec<_> = options.variants.iter().map(|v| &v.value).collect();
    let idents: Vec<_> = options.variants.iter().map(|v| &v.ident).collect();
    let titles = options.variants.iter().map(|v| opt(v.title.as_deref()));
    let dangerous: Vec<_> = options.variants.iter().map(|v| v.dangerous).collect();
    let value_checks = value_rules::options(options);
    let body = quote! {
        #[automatically_derived]
        impl _elicit::__private::Select for #ident {
            const OPTIONS: &'static [_elicit::__private::EnumOption] = &[
                #(_elicit::__private::enum_option(#values, #titles)),*
            ];
            const DANGEROUS: &'static [bool] = &[#(#dangerous),*];

            fn from_value(value: &str) -> _elicit::__private::Option<Self> {
                match value {
                    #(#values => _elicit::__private::Some(Self::#idents),)*
                    _ => _elicit::__private::None,
                }
            }

            fn value(&self) -> &'static str {
                match self {
                    #(Self::#idents => #values,)*
                }
            }

            fn is_dangerous(&self) -> bool {
                self.__elicit_is_dangerous()
            }
        }

        #[automatically_derived]
        impl _elicit::__private::SealedField for #ident {}

        #[automatically_derived]
        impl _elicit::__private::ElicitField for #ident {
            fn property_kind(spec: &_elicit::__private::FieldSpec) -> _elicit::__private::PropertyKind {
                _elicit::__private::select_kind::<Self>(spec)
            }
            fn from_value(
                value: _elicit::__private::FieldValue<'_>,
            ) -> _elicit::__private::Result<Self, _elicit::__private::Rule> {
                _elicit::__private::select_from_value::<Self>(value)
            }
            fn to_json(&self) -> _elicit::__private::Option<_elicit::__private::Value> {
                _elicit::__private::Some(_elicit::__private::Value::from(_elicit::__private::Select::value(self)))
            }
        }

        #[automatically_derived]
        impl #ident {
            /// Whether this option is marked `#[elicit(dangerous)]` (a `const fn`, so defaults
            /// are checked at compile time).
            #[doc(hidden)]
            pub const fn __elicit_is_dangerous(&self) -> bool {
                match self {
                    #(Self::#idents => #dangerous,)*
                }
            }

            /// The option's value (a `const fn`, so defaults are checked at compile time).
            #[doc(hidden)]
            pub const fn __elicit_value(&self) -> &'static str {
                match self {
                    #(Self::#idents => #values,)*
                }
            }
        }

        #value_checks
    };
    wrap(&options.krate, body)
}
