//! A secret page declared as a type: [`SecretForm`], what `#[derive(Elicit)]` writes for a
//! `#[elicit(mode = "url")]` struct of [`SecretString`] fields, and its typed sink
//! [`SecretFormSink`]. Below it, the thin helpers the generated code calls (`__private`).

use std::future::ready;
use std::marker::PhantomData;

use secrecy::SecretString;
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::secret::{SecretSink, SinkError, SinkFuture, receipt_json};
// What the generated code names, and the page's own rules for its compile-time checks: public
// here for `__private` below (this module is not).
pub use super::secret::{SecretPage, Secrets, field_name_is_free, page_name_fits};
use crate::schema::{Property, Rule, StringSchema, Violation, Violations};
use crate::url_mode::ElicitUrl;

/// A page that takes secrets the user types, declared as a type: `#[derive(Elicit)]` on a struct
/// with `#[elicit(mode = "url")]` and [`SecretString`] fields implements it.
///
/// - The page is [`secret_page`](SecretForm::secret_page): named [`ElicitUrl::name`] (the
///   type's name in `snake_case`, or `#[elicit(name = "..")]`), headed by the doc comment (or
///   `#[elicit(title = "..")]`), with a password input per field, every one required. A field's
///   doc comment (or `description = ".."`) is its hint; `title`, `min_length`, `max_length` and
///   `rename` mean what they mean on a form's field, and are checked by the same rules, at
///   compile time.
/// - The tool asks for it with [`Asker::url_page`](crate::rmcp::Asker::url_page), with the
///   type's message ([`ElicitUrl::message`]).
/// - The server serves it with [`Pages::secret_form`](super::Pages::secret_form): what the user
///   typed arrives in the sink as the type itself ([`from_secrets`](SecretForm::from_secrets)).
///
/// The derive implements no `Debug`: a field is a [`SecretString`], whose own `Debug` redacts, if
/// you derive it yourself.
///
/// ```
/// use mcp_elicit::Elicit;
/// use mcp_elicit::page::{SecretForm, SecretString};
/// use mcp_elicit::url_mode::ElicitUrl;
///
/// /// Your Example Co. API key
/// #[derive(Elicit)]
/// #[elicit(
///     mode = "url",
///     message = "Enter your Example Co. API key on our page, never in the chat."
/// )]
/// struct ApiKey {
///     /// Settings → API keys on example.com
///     #[elicit(title = "API key", min_length = 20, max_length = 200)]
///     key: SecretString,
/// }
///
/// let page = ApiKey::secret_page();
/// assert_eq!((page.name(), page.title()), ("api_key", "Your Example Co. API key"));
/// assert_eq!(page.fields()[0].title_text(), Some("API key"));
/// assert_eq!(ApiKey::name(), "api_key");
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a secret page",
    label = "needs `#[derive(Elicit)]` with `#[elicit(mode = \"url\")]` and `SecretString` fields"
)]
pub trait SecretForm: ElicitUrl + Sized {
    /// What the page's sink returns and the tool reads
    /// ([`FlowOutcome::Completed`](crate::url_mode::FlowOutcome::Completed)): the server's own
    /// type, kept in the flows' store as JSON. The derive sets it from
    /// `#[elicit(receipt = KeyEnding)]`, and to [`serde_json::Value`] without one.
    type Receipt: Serialize + DeserializeOwned + Send + 'static;

    /// The page: named [`ElicitUrl::name`], its fields this type's, every one required.
    fn secret_page() -> &'static SecretPage;

    /// The value, from what the user typed on the page: every field of
    /// [`secret_page`](SecretForm::secret_page), which the page has checked by its rules.
    ///
    /// # Errors
    /// [`Violations`]: a field of the page missing from `secrets` (secrets of another page),
    /// each [`Rule::Required`].
    fn from_secrets(secrets: Secrets) -> Result<Self, Violations>;
}

/// Where a [`SecretForm`]'s value goes: the server's vault, under the principal whose flow it is.
/// It returns the type's [`Receipt`](SecretForm::Receipt), what the tool reads (never the
/// secret), or a [`SinkError`] whose words the user may read on the page; as [`SecretSink`]
/// does, with the secrets already read as `T`.
///
/// A closure `Fn(String, T) -> Result<T::Receipt, SinkError>` is one: the principal comes owned,
/// so `|user, typed: ApiKey| ..` needs no annotation on `user`.
pub trait SecretFormSink<T: SecretForm>: Send + Sync + 'static {
    /// Keeps `value` for `principal`.
    fn store(&self, principal: String, value: T) -> SinkFuture<'_, T::Receipt>;
}

impl<T, F> SecretFormSink<T> for F
where
    T: SecretForm,
    F: Fn(String, T) -> Result<T::Receipt, SinkError> + Send + Sync + 'static,
{
    fn store(&self, principal: String, value: T) -> SinkFuture<'_, T::Receipt> {
        Box::pin(ready(self(principal, value)))
    }
}

/// The [`SecretSink`] of a [`SecretForm`]'s page: the secrets read as `T`, handed to the typed
/// sink, and its receipt written as JSON for the store.
pub(super) struct Typed<T, S> {
    sink: S,
    form: PhantomData<fn() -> T>,
}

impl<T, S> Typed<T, S> {
    pub(super) fn new(sink: S) -> Self {
        Self {
            sink,
            form: PhantomData,
        }
    }
}

impl<T: SecretForm + 'static, S: SecretFormSink<T>> SecretSink for Typed<T, S> {
    fn store(&self, principal: String, secrets: Secrets) -> SinkFuture<'_> {
        match T::from_secrets(secrets) {
            Ok(value) => {
                let stored = self.sink.store(principal, value);
                Box::pin(async move { stored.await.and_then(receipt_json) })
            }
            // Not from the page's own reading, which checks every field: names only, never a
            // value.
            Err(violations) => Box::pin(ready(Err(SinkError::fail(format!(
                "The page's fields did not match the server's ({violations})."
            ))))),
        }
    }
}

/// Helpers for the code `#[derive(Elicit)]` writes for a [`SecretForm`]; reached through
/// `mcp_elicit::__private`. Not public API.
pub mod __private {
    use super::{Property, Rule, SecretString, StringSchema, Violation, Violations};

    pub use super::{SecretForm, SecretPage, Secrets, field_name_is_free, page_name_fits};

    mod sealed {
        pub trait Sealed {}
        impl Sealed for secrecy::SecretString {}
    }

    /// The type of a page's field: [`SecretString`], and nothing else.
    #[diagnostic::on_unimplemented(
        message = "a URL page's fields are secrets the user types: `secrecy::SecretString` (every one required)",
        label = "`{Self}` is not `SecretString`",
        note = "use `mcp_elicit::page::SecretString`; a value that is not a secret is asked in a form"
    )]
    pub trait SecretField: sealed::Sealed + Sized {
        /// The field, from what the user typed.
        fn from_secret(secret: SecretString) -> Self;
    }

    impl SecretField for SecretString {
        fn from_secret(secret: SecretString) -> Self {
            secret
        }
    }

    /// Every use generated code makes of one field's type, behind its one [`SecretField`]
    /// bound, spanned on the type: a type that is not one is one error, not one per use (as the
    /// core's `field_ops`).
    #[derive(Clone, Copy)]
    pub struct SecretOps<T> {
        /// The field's property (see [`SecretPropertyFn`]).
        pub property: SecretPropertyFn,
        /// Take the field out of what the user typed, recording it as missing if it is not.
        pub take: fn(&mut Secrets, &'static str, &mut Vec<Violation>) -> Option<T>,
    }

    /// A page field's property: name, title, description, `min_length`, `max_length`.
    pub type SecretPropertyFn = fn(
        &'static str,
        Option<&'static str>,
        Option<&'static str>,
        Option<u32>,
        Option<u32>,
    ) -> Property;

    /// The uses of a page field's type.
    pub const fn secret_ops<T: SecretField>() -> SecretOps<T> {
        SecretOps {
            property,
            take: take::<T>,
        }
    }

    fn property(
        name: &'static str,
        title: Option<&'static str>,
        description: Option<&'static str>,
        min_length: Option<u32>,
        max_length: Option<u32>,
    ) -> Property {
        let mut schema = StringSchema::new();
        if let Some(min) = min_length {
            schema = schema.min_length(min);
        }
        if let Some(max) = max_length {
            schema = schema.max_length(max);
        }
        let mut property = Property::new(name, schema);
        if let Some(title) = title {
            property = property.title(title);
        }
        if let Some(description) = description {
            property = property.description(description);
        }
        property
    }

    fn take<T: SecretField>(
        secrets: &mut Secrets,
        name: &'static str,
        violations: &mut Vec<Violation>,
    ) -> Option<T> {
        let taken = secrets.take(name).map(T::from_secret);
        if taken.is_none() {
            violations.push(Violation {
                property: name.to_owned(),
                rule: Rule::Required,
            });
        }
        taken
    }

    /// The fields that could not be taken (generated code calls it only when one could not).
    pub fn missing(list: Vec<Violation>) -> Violations {
        Violations::from_vec(list).unwrap_or_else(|| Violations::one("(page)", Rule::Required))
    }

    /// A derived page, built by the one checking constructor, [`SecretPage::new`], with its
    /// fields' `patterns` ([`SecretPage::with_pattern`], by field name). The derive held its
    /// name, fields and patterns to the same rules at compile time (a pattern parsed by
    /// `regex-syntax`, the `regex` crate's own parser), so an error here is a bug in mcp-elicit,
    /// never the user's: it panics, naming the rule. The one check the derive cannot make is
    /// the `regex` crate's size limit on a compiled pattern (`\w{1000}` in Unicode), which a
    /// key's shape does not come near: it panics here too, the first time the page is built,
    /// naming the field and the limit.
    #[allow(
        clippy::panic,
        reason = "an error here is a bug in mcp-elicit, not the user's input"
    )]
    pub fn secret_page(
        name: &'static str,
        heading: &'static str,
        fields: Vec<Property>,
        patterns: &[(&'static str, &'static str)],
    ) -> SecretPage {
        let page = SecretPage::new(name, heading, fields).and_then(|page| {
            patterns.iter().try_fold(page, |page, (field, pattern)| {
                page.with_pattern(*field, *pattern)
            })
        });
        match page {
            Ok(page) => page,
            Err(error @ crate::page::PageError::Pattern { .. }) => panic!(
                "a derived page's pattern cannot be used ({error}): the derive checked its syntax at compile time, not its compiled size; write it shorter"
            ),
            Err(error) => panic!(
                "bug in mcp-elicit: a derived page passed its rules at compile time but breaks one at run time ({error}); please report it"
            ),
        }
    }
}
