//! When the input has errors, emit them together with a stub impl of the trait the input was
//! meant to implement, so the user sees only the real diagnostics — not a pile of "trait not
//! implemented" errors wherever the type is used.
//!
//! What to implement, and where the runtime is, come from the attributes step's `Target`, the
//! very value the expansion would have used: the stub cannot name another runtime than the
//! user's `crate = ..`, in whichever form it is written.
//!
//! Beside the stub go the value rules the compiler checks through the core's `const fn`s (an
//! unknown `format`, inverted bounds, a default outside its constraints, a repeated name:
//! `value_rules.rs`), read from the model as far as it can be built: no error of the derive's
//! own replaces them, so they are reported with the rest. Only the checks that need a field's
//! type (a default against its options enum, `min_items` against the number of options) wait
//! for the derive's own errors to be fixed.

use proc_macro2::TokenStream;
use quote::quote;

use crate::attributes::{Attributes, Target};
use crate::model::Model;
use crate::value_rules;

pub fn expand(
    input: &syn::DeriveInput,
    attributes: &Attributes,
    errors: syn::Error,
) -> TokenStream {
    let errors = errors.into_compile_error();
    // Generics are already an error of their own; a stub for a generic type would add noise.
    let stub = input
        .generics
        .params
        .is_empty()
        .then(|| stub(input, &attributes.target));
    let (checks, page_checks) = compile_time_checks(attributes);
    // A page's: behind the runtime's gate, which without its `page` feature drops them, so that
    // the feature's own error waits until the derive's are fixed.
    let page_stub = (attributes.target.is_page && input.generics.params.is_empty())
        .then(|| {
            let receipt = attributes
                .container
                .as_ref()
                .ok()
                .and_then(|opts| opts.receipt.as_ref())
                .map(|receipt| (**receipt).clone());
            page_stub(&input.ident, receipt.as_ref())
        })
        .map(|stub| {
            quote! {
                _elicit::__private::page! { stub:
                    #stub
                    #page_checks
                }
            }
        });
    let stub = quote!(#stub #page_stub);
    if stub.is_empty() && checks.is_empty() {
        return errors;
    }
    let krate = &attributes.target.krate;
    quote! {
        #errors
        #[allow(unreachable_code, clippy::all)]
        const _: () = {
            use #krate as _elicit;
            #stub
            #checks
        };
    }
}

/// Impls of every trait the input was meant to implement, each method `unreachable!()`.
fn stub(input: &syn::DeriveInput, target: &Target) -> TokenStream {
    let ident = &input.ident;
    // Only a form can be a consent form; on an enum or a URL elicitation `consent` is itself the
    // error, and a stub would add a follow-on one.
    let is_form = matches!(input.data, syn::Data::Struct(_)) && !target.is_url;
    let consent_stub = (target.consent && is_form).then(|| {
        quote! {
            impl _elicit::__private::ConsentForm for #ident {
                fn granted(&self) -> bool { ::core::unreachable!() }
            }
        }
    });
    let stub = match &input.data {
        syn::Data::Enum(e) => {
            let variants: Vec<_> = e.variants.iter().map(|v| &v.ident).collect();
            let names = variants.iter().map(|v| v.to_string());
            quote! {
                impl _elicit::__private::Select for #ident {
                    const OPTIONS: &'static [_elicit::__private::EnumOption] = &[];
                    const DANGEROUS: &'static [bool] = &[];
                    fn from_value(_: &str) -> ::core::option::Option<Self> { ::core::unreachable!() }
                    fn value(&self) -> &'static str { ::core::unreachable!() }
                    fn is_dangerous(&self) -> bool { ::core::unreachable!() }
                }
                impl _elicit::__private::SealedField for #ident {}
                impl _elicit::__private::ElicitField for #ident {
                    fn property_kind(_: &_elicit::__private::FieldSpec) -> _elicit::__private::PropertyKind { ::core::unreachable!() }
                    fn from_value(_: _elicit::__private::FieldValue<'_>) -> ::core::result::Result<Self, _elicit::__private::Rule> { ::core::unreachable!() }
                    fn to_json(&self) -> ::core::option::Option<_elicit::__private::Value> { ::core::unreachable!() }
                }
                impl #ident {
                    #[doc(hidden)]
                    pub const fn __elicit_is_dangerous(&self) -> bool { false }
                    // A value per variant, so that a form's default of two variants is not read as
                    // one option selected twice.
                    #[doc(hidden)]
                    pub const fn __elicit_value(&self) -> &'static str {
                        match *self {
                            #(Self::#variants { .. } => #names,)*
                        }
                    }
                }
            }
        }
        _ if target.is_url => quote! {
            impl _elicit::__private::ElicitUrl for #ident {
                fn message() -> &'static str { ::core::unreachable!() }
                fn name() -> &'static str { ::core::unreachable!() }
            }
        },
        _ => quote! {
            impl _elicit::__private::FromContent for #ident {
                fn from_content(_: _elicit::__private::Content<'_>)
                    -> ::core::result::Result<Self, _elicit::__private::Violations> { ::core::unreachable!() }
            }
            impl _elicit::__private::Elicit for #ident {
                fn message() -> &'static str { ::core::unreachable!() }
                fn name() -> &'static str { ::core::unreachable!() }
                fn requested_schema() -> &'static _elicit::__private::RequestedSchema { ::core::unreachable!() }
                fn to_content(&self) -> _elicit::__private::Map<::std::string::String, _elicit::__private::Value> { ::core::unreachable!() }
            }
        },
    };
    quote! {
        #stub
        #consent_stub
    }
}

/// A page's `SecretForm`, each method `unreachable!()`; its receipt the one written, so the
/// tool's reading of it adds no follow-on error.
fn page_stub(ident: &syn::Ident, receipt: Option<&syn::Type>) -> TokenStream {
    let receipt = receipt.map_or_else(|| quote!(_elicit::__private::Value), |r| quote!(#r));
    quote! {
        impl _elicit::__private::SecretForm for #ident {
            type Receipt = #receipt;
            fn secret_page() -> &'static _elicit::__private::SecretPage { ::core::unreachable!() }
            fn from_secrets(_: _elicit::__private::Secrets)
                -> ::core::result::Result<Self, _elicit::__private::Violations> { ::core::unreachable!() }
        }
    }
}

/// The value rules of the model, built from what darling read (nothing, if the container's own
/// attribute has a mistake); a page's own rules apart. A default's variants are not read: their
/// enum's code may be a stub.
fn compile_time_checks(attributes: &Attributes) -> (TokenStream, TokenStream) {
    let model = attributes
        .container
        .as_ref()
        .ok()
        .and_then(|opts| Model::build(opts, &attributes.target, &attributes.body));
    match model {
        Some(Model::Form(form)) => (value_rules::form(&form, false), TokenStream::new()),
        Some(Model::Url(url)) => (value_rules::url(&url), TokenStream::new()),
        Some(Model::Page(page)) => value_rules::page(&page),
        Some(Model::Options(options)) => (value_rules::options(&options), TokenStream::new()),
        None => (TokenStream::new(), TokenStream::new()),
    }
}

#[cfg(test)]
mod tests {
    use crate::{attributes, validation};
    use syn::parse_quote;

    /// The derive's output for an input with a mistake: the errors and the stub.
    fn output(input: &syn::DeriveInput) -> String {
        let attributes = attributes::parse(input);
        let Err(errors) = validation::validate(input, &attributes) else {
            panic!("the input has a mistake")
        };
        super::expand(input, &attributes, errors).to_string()
    }

    #[test]
    fn the_stub_names_the_runtime_by_the_crate_path_in_either_form() {
        let inputs: [syn::DeriveInput; 3] = [
            parse_quote! { /// Why.
                #[elicit(crate = elicit_core)]
                struct A { #[elicit(titel = "Name")] name: String }
            },
            parse_quote! { /// Why.
                #[elicit(crate = "elicit_core")]
                struct A { #[elicit(titel = "Name")] name: String }
            },
            // Darling gives no options when the container's own attribute has a mistake.
            parse_quote! { /// Why.
                #[elicit(crate = elicit_core, mesage = "Why.")]
                struct A { name: String }
            },
        ];
        for input in &inputs {
            let out = output(input);
            assert!(out.contains("use elicit_core as _elicit"), "{out}");
            assert!(!out.contains("mcp_elicit"), "{out}");
        }
    }

    #[test]
    fn without_a_crate_path_the_stub_names_the_facade() {
        let out = output(&parse_quote! { /// Why.
            struct A { #[elicit(titel = "Name")] name: String }
        });
        assert!(out.contains("use :: mcp_elicit as _elicit"), "{out}");
    }

    #[test]
    fn an_unknown_format_is_checked_beside_the_derive_s_own_errors() {
        // A generic type gets no stub, but still the check.
        for input in [
            parse_quote! { struct A { #[elicit(format = "phone")] email: String } },
            parse_quote! { /// Why.
                struct A<T> { #[elicit(format = "phone")] email: String, other: T }
            },
        ] {
            let out = output(&input);
            assert!(out.contains(r#"Format :: from_name ("phone")"#), "{out}");
        }
    }

    #[test]
    fn value_rules_are_checked_beside_the_derive_s_own_errors() {
        // No message: the derive's own error. Each value rule is the core's, in a constant.
        let out = output(&parse_quote! {
            struct A {
                #[elicit(min_length = 3, max_length = 1, default = "ab")]
                email: String,
                #[elicit(rename = "email", minimum = 2.5, maximum = 1.5)]
                contact: f64,
                #[elicit(min_items = 2, max_items = 1, default = ["a", "a"])]
                tags: Vec<Tag>,
            }
        });
        for rule in [
            "lengths_are_ordered",
            "length_is_within",
            "name_is_unique",
            "number_bounds_are_ordered",
            "item_counts_are_ordered",
            "item_count_is_within",
            "selection_is_new",
        ] {
            assert!(out.contains(&format!("rules :: {rule} (")), "{rule}: {out}");
        }
        let options = output(&parse_quote! {
            enum Tag { A, #[elicit(rename = "A")] B, C(u8) }
        });
        for rule in ["option_value_is_unique", "option_count_fits"] {
            assert!(
                options.contains(&format!("rules :: {rule} (")),
                "{rule}: {options}"
            );
        }
        let message = output(&parse_quote! {
            #[elicit(message = " ")]
            struct A { password: String, tags: Vec<String> }
        });
        assert!(
            message.contains("rules :: message_is_not_empty ("),
            "{message}"
        );
        assert!(
            message.contains(r#"credential_kind ("password")"#),
            "{message}"
        );
    }

    #[test]
    fn a_name_is_checked_against_the_lexicon_unless_not_secret_says_why() {
        // The message's mistake sends the derive here; the names are still checked.
        let out = output(&parse_quote! {
            struct A {
                api_key: String,
                #[elicit(not_secret = "the key's public id")]
                key_id_token: String,
            }
        });
        assert!(out.contains(r#"credential_kind ("api_key")"#), "{out}");
        assert!(
            !out.contains(r#"credential_kind ("key_id_token")"#),
            "{out}"
        );
    }

    #[test]
    fn a_default_s_variants_are_not_read_in_the_fallback() {
        // Their enum's code may be a stub; its other checks still stand.
        let out = output(&parse_quote! {
            struct A {
                #[elicit(max_items = 1, default = [Tag::A, Tag::A])]
                tags: Vec<Tag>,
            }
        });
        assert!(out.contains("rules :: item_count_is_within ("), "{out}");
        assert!(!out.contains("__elicit_value"), "{out}");
    }

    #[test]
    fn a_page_s_stub_and_its_own_rules_are_behind_the_runtime_s_gate() {
        // Without the facade's `page` feature the gate drops them: the derive's own error shows
        // alone, and the feature's once it is fixed.
        let out = output(&parse_quote! { /// Your key
            #[elicit(mode = "url", message = "Why.")]
            struct A { #[elicit(default = "x")] key: SecretString }
        });
        let gate = out
            .find("_elicit :: __private :: page ! { stub :")
            .unwrap_or_else(|| panic!("no gate: {out}"));
        let (outside, inside) = out.split_at(gate);
        assert!(
            outside.contains("impl _elicit :: __private :: ElicitUrl for A"),
            "{out}"
        );
        assert!(
            inside.contains("impl _elicit :: __private :: SecretForm for A"),
            "{out}"
        );
        assert!(inside.contains("page_name_fits"), "{out}");
        assert!(!outside.contains("page_name_fits"), "{out}");
    }

    #[test]
    fn the_stub_implements_what_the_container_asks_beside_its_mistake() {
        let url = output(&parse_quote! { /// Why.
            #[elicit(mode = "url", mesage = "Why.")]
            struct A;
        });
        assert!(
            url.contains("impl _elicit :: __private :: ElicitUrl for A"),
            "{url}"
        );
        let consent = output(&parse_quote! { /// Why.
            #[elicit(consent, mesage = "Why.")]
            struct A { #[elicit(consent)] agree: bool }
        });
        assert!(
            consent.contains("impl _elicit :: __private :: ConsentForm for A"),
            "{consent}"
        );
    }
}
