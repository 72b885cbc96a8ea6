//! When the input has errors, emit them together with a stub impl of the trait the input was
//! meant to implement, so the user sees only the real diagnostics — not a pile of "trait not
//! implemented" errors wherever the type is used.

use proc_macro2::TokenStream;
use quote::quote;

pub fn expand(input: &syn::DeriveInput, errors: TokenStream) -> TokenStream {
    // Generics are already an error of their own; a stub for a generic type would add noise.
    if input.generics.params.iter().next().is_some() {
        return errors;
    }
    let ident = &input.ident;
    let krate = krate_of(input);
    let ContainerFlags { is_url, is_consent } = container_flags(input);
    // Only a form can be a consent form; on an enum or a URL elicitation `consent` is itself the
    // error, and a stub would add a follow-on one.
    let is_form = matches!(input.data, syn::Data::Struct(_)) && !is_url;
    let consent_stub = (is_consent && is_form).then(|| {
        quote! {
            impl _elicit::ConsentForm for #ident {
                fn granted(&self) -> bool { ::core::unreachable!() }
            }
        }
    });
    let stub = match &input.data {
        syn::Data::Enum(_) => quote! {
            impl _elicit::Select for #ident {
                const OPTIONS: &'static [_elicit::EnumOption] = &[];
                const DANGEROUS: &'static [bool] = &[];
                fn from_value(_: &str) -> ::core::option::Option<Self> { ::core::unreachable!() }
                fn value(&self) -> &'static str { ::core::unreachable!() }
                fn is_dangerous(&self) -> bool { ::core::unreachable!() }
            }
            impl _elicit::__private::SealedField for #ident {}
            impl _elicit::ElicitField for #ident {
                fn property_kind(_: &_elicit::__private::FieldSpec) -> _elicit::PropertyKind { ::core::unreachable!() }
                fn from_value(_: _elicit::__private::FieldValue<'_>) -> ::core::result::Result<Self, _elicit::Rule> { ::core::unreachable!() }
                fn to_json(&self) -> ::core::option::Option<_elicit::__private::Value> { ::core::unreachable!() }
            }
            impl #ident {
                #[doc(hidden)]
                pub const fn __elicit_is_dangerous(&self) -> bool { false }
            }
        },
        _ if is_url => quote! {
            impl _elicit::ElicitUrl for #ident {
                fn message() -> &'static str { ::core::unreachable!() }
                fn name() -> &'static str { ::core::unreachable!() }
            }
        },
        _ => quote! {
            impl _elicit::FromContent for #ident {
                fn from_content(_: _elicit::Content<'_>)
                    -> ::core::result::Result<Self, _elicit::Violations> { ::core::unreachable!() }
            }
            impl _elicit::Elicit for #ident {
                fn message() -> &'static str { ::core::unreachable!() }
                fn name() -> &'static str { ::core::unreachable!() }
                fn requested_schema() -> &'static _elicit::RequestedSchema { ::core::unreachable!() }
                fn to_content(&self) -> _elicit::__private::Map<::std::string::String, _elicit::__private::Value> { ::core::unreachable!() }
            }
        },
    };
    quote! {
        #errors
        #[allow(unreachable_code, clippy::all)]
        const _: () = {
            use #krate as _elicit;
            #stub
            #consent_stub
        };
    }
}

/// `#[elicit(crate = ..)]`, read without validation (the errors are reported elsewhere).
fn krate_of(input: &syn::DeriveInput) -> syn::Path {
    let mut krate: syn::Path = syn::parse_quote!(::mcp_elicit);
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("elicit")) {
        let _ = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("crate") {
                if let Ok(s) = meta.value().and_then(|v| v.parse::<syn::LitStr>())
                    && let Ok(p) = s.parse::<syn::Path>()
                {
                    krate = p;
                }
            } else if meta.input.peek(syn::Token![=]) {
                let _ = meta.value()?.parse::<syn::Expr>()?;
            }
            Ok(())
        });
    }
    krate
}

/// The container flags that decide which stub to emit, read without validation.
struct ContainerFlags {
    is_url: bool,
    is_consent: bool,
}

fn container_flags(input: &syn::DeriveInput) -> ContainerFlags {
    let mut flags = ContainerFlags {
        is_url: false,
        is_consent: false,
    };
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("elicit")) {
        let _ = attr.parse_nested_meta(|meta| {
            if meta.input.peek(syn::Token![=]) {
                let value = meta.value()?.parse::<syn::Expr>()?;
                if meta.path.is_ident("mode")
                    && let syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Str(s),
                        ..
                    }) = value
                {
                    flags.is_url = s.value() == "url";
                }
            } else if meta.path.is_ident("consent") {
                flags.is_consent = true;
            }
            Ok(())
        });
    }
    flags
}
