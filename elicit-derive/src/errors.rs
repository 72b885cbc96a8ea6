//! The error collector: every error found, each on its own tokens, reported at once. Darling's
//! messages for `#[elicit(..)]` mistakes are restated in this crate's terms on the way in.

use darling::Error;
use proc_macro2::Span;

/// Every error found so far (like serde's `Ctxt`): checks push and carry on, so the user sees
/// all mistakes of an input at once.
///
/// Held as `syn::Error`s rather than `darling::Error`s: `syn::Error::new_spanned` keeps the first
/// and last token of a multi-token span (`Box<String>`, `Option<Option<u8>>`), so the whole type
/// is underlined on stable Rust, where a `darling::Error` keeps only its first token.
#[derive(Default)]
pub struct Errors(Vec<syn::Error>);

impl Errors {
    /// An error from darling (attribute parsing), its wording ("Duplicate field `title`")
    /// restated in this crate's terms.
    pub fn push(&mut self, error: Error) {
        for e in error.flatten() {
            let span = e.span();
            let message = reword(&e.to_string());
            self.0.push(syn::Error::new(span, message));
        }
    }
    /// An error on every token of `tokens`.
    pub fn spanned(&mut self, tokens: impl quote::ToTokens, message: impl std::fmt::Display) {
        self.0.push(syn::Error::new_spanned(tokens, message));
    }
    /// An error on one span.
    pub fn at(&mut self, span: Span, message: impl std::fmt::Display) {
        self.0.push(syn::Error::new(span, message));
    }
    /// Whether nothing was pushed yet.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    pub fn finish(self) -> Result<(), syn::Error> {
        let mut all = self.0.into_iter();
        match all.next() {
            None => Ok(()),
            Some(mut first) => {
                first.extend(all);
                Err(first)
            }
        }
    }
}

/// Darling's messages for `#[elicit(..)]` mistakes, restated: name the key, the rule, the fix.
/// Darling writes "<what> at <key>" when it knows the key; anything not recognised is kept.
fn reword(message: &str) -> String {
    let (what, key) = match message.rsplit_once(" at ") {
        Some((what, key)) if !key.contains(' ') => (what, Some(key)),
        _ => (message, None),
    };
    let key = key.unwrap_or("this key");
    if let Some(rest) = what.strip_prefix("Unknown field: ") {
        return match rest.split_once(". Did you mean ") {
            Some((unknown, suggestion)) => format!(
                "unknown key {unknown} in `#[elicit(..)]`; did you mean {}",
                suggestion.trim_end_matches('?')
            ),
            None => format!(
                "unknown key {rest} in `#[elicit(..)]`; see the derive's documentation for the keys"
            ),
        };
    }
    if let Some(field) = what.strip_prefix("Duplicate field ") {
        return format!("{field} is given twice; keep one");
    }
    if let Some(found) = what.strip_prefix("Unexpected type ") {
        return format!(
            "`{key}` does not take {found}: give a string (`{key} = \"...\"`) or, for bounds, a number"
        );
    }
    if what == "Unexpected meta-item format `word`" {
        return format!("`{key}` needs a value: `{key} = \"...\"`");
    }
    if what.starts_with("Unexpected literal type") {
        return format!("`{key}` is a flag and takes no value: write `{key}` alone");
    }
    match key {
        "this key" => what.to_owned(),
        key => format!("`{key}`: {what}"),
    }
}
