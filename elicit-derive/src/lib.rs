//! The `#[derive(Elicit)]` macro of the [`mcp-elicit`](https://docs.rs/mcp-elicit) crate.
//!
//! Use it through the `mcp-elicit` crate, which documents the attributes.
//!
//! A file per step, in the order they run:
//! - `attributes.rs`: read `#[elicit(..)]` (darling) and `#[serde(..)]`, each part of the input
//!   with its own result;
//! - `validation.rs`: every rule, one function each, all called from `validate`; every error is
//!   collected (`errors.rs`) on the tokens that caused it and reported at once;
//! - `model.rs`: the checked model, built once every rule holds;
//! - `expand.rs`: the impls, from the model;
//! - `value_rules.rs`: the rules on values alone (bounds, defaults, names, the message; a page's
//!   name), written as `const _` items that call the core's `rules` (and the pages' own), so the
//!   compiler checks them; emitted by the expansion and by the fallback;
//! - `fallback.rs`: on error, a stub impl beside the errors, from what the attributes step read,
//!   so that the user sees only the real diagnostics.
//!
//! Beside them: `ty.rs` (what a field's type is, as far as the syntax shows) and `case.rs`
//! (`rename_all`). Which field names denote credentials is the core's lexicon
//! (`credential_kind`), called from a `const _` (`value_rules.rs`).
#![forbid(unsafe_code)]

mod attributes;
mod case;
mod errors;
mod expand;
mod fallback;
mod model;
mod ty;
mod validation;
mod value_rules;

use proc_macro::TokenStream;

/// Derive an elicitation: on a struct with named fields, a form-mode request and typed,
/// validated parsing of the reply (`mcp_elicit::Elicit`); on a unit-only enum, the options of a
/// select (`mcp_elicit::schema::Select`); with `#[elicit(mode = "url")]`, a URL-mode elicitation
/// (`mcp_elicit::url_mode::ElicitUrl`), and on a struct of `SecretString` fields also the page
/// the library serves for it (`mcp_elicit::page::SecretForm`, the facade's `page` feature).
#[proc_macro_derive(Elicit, attributes(elicit))]
pub fn derive_elicit(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    let attributes = attributes::parse(&input);
    match validation::validate(&input, &attributes) {
        Ok(model) => expand::expand(&model).into(),
        Err(errors) => fallback::expand(&input, &attributes, errors).into(),
    }
}
