//! The `#[derive(Elicit)]` macro of the [`mcp-elicit`](https://docs.rs/mcp-elicit) crate.
//!
//! Attributes (`attributes.rs`, darling receivers) → check (`check.rs`, every rule, errors
//! accumulated on the tokens that caused them) → expand (`expand.rs`). On error, `fallback.rs`
//! emits a stub impl beside the errors. Use it through the `mcp-elicit` crate, which documents the attributes.
#![forbid(unsafe_code)]

mod attributes;
mod case;
mod check;
mod errors;
mod expand;
mod fallback;
mod model;
mod secret;
mod ty;

use proc_macro::TokenStream;

/// Derive an elicitation: on a struct with named fields, a form-mode request and typed,
/// validated parsing of the reply (`mcp_elicit::Elicit`); on a unit-only enum, the options of a
/// select (`mcp_elicit::Select`); with `#[elicit(mode = "url")]`, a URL-mode elicitation.
#[proc_macro_derive(Elicit, attributes(elicit))]
pub fn derive_elicit(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    match check::check(&input) {
        Ok(model) => expand::expand(&model).into(),
        Err(errors) => fallback::expand(&input, errors.into_compile_error()).into(),
    }
}
