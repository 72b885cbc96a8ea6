//! A secret the user types on the page: [`SecretPage`], [`Secrets`], [`SecretSink`].

use std::fmt;
use std::future::{Future, ready};
use std::pin::Pin;

use secrecy::SecretString;
use serde_json::Value;

use super::error::PageError;
use super::html::escape;
use super::posted::Fields;
use crate::schema::{Property, PropertyKind, RequestedSchema, Rule, Text};

/// A page that takes a secret the user types — an API key, a password — described like a form's
/// fields ([`Property`] of [`StringSchema`](crate::schema::StringSchema)s, checked by the same
/// rules: names, titles, lengths), rendered as password inputs, and handed to a [`SecretSink`]
/// as [`Secrets`]. The secret never passes through the MCP client or its model.
///
/// ```
/// use mcp_elicit::page::SecretPage;
/// use mcp_elicit::schema::{Property, StringSchema};
///
/// let page = SecretPage::new(
///     "api_key",
///     "Your Example Co. API key",
///     vec![Property::new("key", StringSchema::new().min_length(20).max_length(200))
///         .title("API key")
///         .description("Settings → API keys on example.com")],
/// )?;
/// assert_eq!(page.name(), "api_key");
/// # Ok::<(), mcp_elicit::page::PageError>(())
/// ```
#[derive(Debug, Clone)]
pub struct SecretPage {
    name: Text,
    title: Text,
    schema: RequestedSchema,
    /// The fields' [patterns](SecretPage::with_pattern), by field name.
    patterns: Vec<FieldPattern>,
}

/// A field's `pattern`: as written, and compiled to match the whole value.
#[derive(Debug, Clone)]
struct FieldPattern {
    field: String,
    written: String,
    whole: regex::Regex,
}

/// Why the page refused what was typed in a field: a rule of its schema, or its
/// [pattern](SecretPage::with_pattern). Neither holds the value.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Refused {
    /// A rule of the field's [`StringSchema`](crate::schema::StringSchema).
    Rule(Rule),
    /// The value does not match the field's pattern.
    Pattern,
}

impl fmt::Display for Refused {
    /// What follows the field's label on the page: never the value, nor the pattern (which
    /// only a developer reads; the field's description says the expected form in words).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refused::Rule(rule) => fmt::Display::fmt(&rule.for_user(), f),
            Refused::Pattern => f.write_str("must match the expected format"),
        }
    }
}

/// The hidden field that carries the CSRF token; no field of a page may take its name.
pub(super) const CSRF_FIELD: &str = "_csrf";

impl SecretPage {
    /// The page `name` (what [`Asker::url_flow`](crate::rmcp::Asker::url_flow) asks for: 1 to 64
    /// ASCII letters, digits, `_` or `-`), headed `title`, with `fields`: strings, every one
    /// required.
    ///
    /// # Errors
    /// [`PageError`]: a bad name, no field, a field that is not a string (naming it), or the
    /// schema rules a form's fields keep.
    pub fn new(
        name: impl Into<Text>,
        title: impl Into<Text>,
        fields: Vec<Property>,
    ) -> Result<Self, PageError> {
        let name = name.into();
        check_page_name(&name)?;
        if fields.is_empty() {
            return Err(PageError::NoFields);
        }
        for field in &fields {
            if !matches!(field.kind(), PropertyKind::String(_)) {
                return Err(PageError::NotAString {
                    field: field.name().to_owned(),
                });
            }
            if !field_name_is_free(field.name()) {
                return Err(PageError::ReservedField);
            }
        }
        let fields = fields
            .into_iter()
            .map(|field| field.required(true))
            .collect();
        let schema = RequestedSchema::new(fields).map_err(PageError::Schema)?;
        Ok(Self {
            name,
            title: title.into(),
            schema,
            patterns: Vec::new(),
        })
    }

    /// The page, with `field`'s value held to `pattern`: a regular expression in the syntax of
    /// the [`regex`](https://docs.rs/regex) crate, which the whole value must match (as if
    /// written `^(?:pattern)$`). It is checked on the page when the user submits, after the
    /// field's lengths; a value that does not match re-shows the page (422) with "*Field* must
    /// match the expected format." under the field, never the value, and nothing reaches the
    /// sink. Say the expected form in the field's description, which the page shows.
    ///
    /// The spec's `StringSchema` has no `pattern`, so a form cannot carry one; a page's field
    /// never leaves the server, so it can. The page sends no HTML `pattern` attribute: a
    /// browser reads one in JavaScript's syntax, which is not this one.
    ///
    /// ```
    /// use mcp_elicit::page::SecretPage;
    /// use mcp_elicit::schema::{Property, StringSchema};
    ///
    /// let page = SecretPage::new(
    ///     "api_key",
    ///     "Your Example Co. API key",
    ///     vec![Property::new("key", StringSchema::new().max_length(200))
    ///         .title("API key")
    ///         .description("It starts with ex_: Settings → API keys on example.com")],
    /// )?
    /// .with_pattern("key", "ex_[A-Za-z0-9]{20,}")?;
    /// assert_eq!(page.pattern("key"), Some("ex_[A-Za-z0-9]{20,}"));
    ///
    /// let bad = page.clone().with_pattern("key", "ex_[A-Z");
    /// assert!(bad.unwrap_err().to_string().starts_with("field `key`: `pattern`"));
    /// # Ok::<(), mcp_elicit::page::PageError>(())
    /// ```
    ///
    /// # Errors
    /// [`PageError::Pattern`], naming the field: `pattern` is not a regular expression (the
    /// error says where and why), compiles larger than the `regex` crate's default size
    /// limit, or `field` is not one of the page's fields or has a pattern already.
    pub fn with_pattern(
        mut self,
        field: impl Into<String>,
        pattern: impl Into<String>,
    ) -> Result<Self, PageError> {
        let (field, written) = (field.into(), pattern.into());
        let refused = |why: String| PageError::Pattern {
            field: field.chars().take(64).collect(),
            why,
        };
        if self.schema.property(&field).is_none() {
            return Err(refused("the page has no such field".to_owned()));
        }
        if self.pattern(&field).is_some() {
            return Err(refused("the field has a pattern already".to_owned()));
        }
        // The pattern alone first: wrapped, `a)|(b` would parse, and mean something else.
        regex::Regex::new(&written).map_err(|error| refused(error.to_string()))?;
        let whole = regex::Regex::new(&format!(r"\A(?:{written})\z"))
            .map_err(|error| refused(error.to_string()))?;
        self.patterns.push(FieldPattern {
            field,
            written,
            whole,
        });
        Ok(self)
    }

    /// The `pattern` of `field`, as written ([`with_pattern`](SecretPage::with_pattern)).
    #[must_use]
    pub fn pattern(&self, field: &str) -> Option<&str> {
        self.patterns
            .iter()
            .find(|pattern| pattern.field == field)
            .map(|pattern| pattern.written.as_str())
    }

    /// The page's name.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The page's heading.
    #[must_use]
    pub fn title(&self) -> &str {
        &self.title
    }

    /// The fields.
    #[must_use]
    pub fn fields(&self) -> &[Property] {
        self.schema.properties()
    }

    /// The form's fields as HTML: a password input per field, with `errors` (by field) under
    /// each.
    pub(super) fn render_fields(&self, errors: &[(String, Refused)]) -> String {
        let mut html = String::new();
        for field in self.fields() {
            let name = escape(field.name());
            let label = escape(field.title_text().unwrap_or(field.name()));
            html.push_str(&format!("<label for=\"f-{name}\">{label}</label>\n"));
            if let Some(description) = field.description_text() {
                html.push_str(&format!("<p class=\"hint\">{}</p>\n", escape(description)));
            }
            let mut bounds = String::new();
            if let PropertyKind::String(schema) = field.kind() {
                if let Some(min) = schema.min_length_bound() {
                    bounds.push_str(&format!(" minlength=\"{min}\""));
                }
                if let Some(max) = schema.max_length_bound() {
                    bounds.push_str(&format!(" maxlength=\"{max}\""));
                }
            }
            html.push_str(&format!(
                "<input type=\"password\" id=\"f-{name}\" name=\"{name}\" required \
                 autocomplete=\"off\" spellcheck=\"false\"{bounds}>\n"
            ));
            for (_, refused) in errors.iter().filter(|(f, _)| f == field.name()) {
                html.push_str(&format!(
                    "<p class=\"error\">{} {}.</p>\n",
                    escape(field.title_text().unwrap_or(field.name())),
                    escape(&refused.to_string())
                ));
            }
        }
        html
    }

    /// The submitted fields, each checked by its schema's rules, then by its pattern: every
    /// field once, none other.
    /// A value is never echoed in an error: the rule and the field name only. Every value comes
    /// and goes in a wiped buffer: one that is refused (a broken rule, a field sent twice, a
    /// field the page does not have) is wiped as it is dropped, and an accepted one becomes a
    /// [`SecretString`] of its exact length (no reallocation leaves a copy behind).
    pub(super) fn read(&self, submitted: Fields) -> Result<Secrets, Vec<(String, Refused)>> {
        let mut secrets = Vec::with_capacity(self.fields().len());
        let mut errors = Vec::new();
        for (name, value) in submitted {
            if name == CSRF_FIELD {
                continue;
            }
            let Some(field) = self.schema.property(&name) else {
                // Not one of the page's fields: ignored, and never kept.
                continue;
            };
            if secrets
                .iter()
                .any(|(seen, _): &(String, SecretString)| *seen == name)
            {
                continue;
            }
            if let PropertyKind::String(schema) = field.kind()
                && let Err(rule) = schema.check(&value)
            {
                errors.push((name, Refused::Rule(rule)));
                continue;
            }
            // Matched in place: the regex reads the wiped buffer and keeps no copy of it.
            if let Some(pattern) = self.patterns.iter().find(|p| p.field == name)
                && !pattern.whole.is_match(&value)
            {
                errors.push((name, Refused::Pattern));
                continue;
            }
            secrets.push((name, SecretString::from(value.as_str())));
        }
        for field in self.fields() {
            let given = secrets.iter().any(|(name, _)| name == field.name())
                || errors.iter().any(|(name, _)| name == field.name());
            if !given {
                errors.push((field.name().to_owned(), Refused::Rule(Rule::Required)));
            }
        }
        if errors.is_empty() {
            Ok(Secrets { fields: secrets })
        } else {
            Err(errors)
        }
    }
}

/// A page's name is 1 to 64 ASCII letters, digits, `_` or `-`: the rule [`SecretPage::new`]
/// checks at run time, and a derived [`SecretForm`](super::SecretForm)'s name at compile time.
pub const fn page_name_fits(name: &str) -> bool {
    let mut bytes = name.as_bytes();
    if bytes.is_empty() || bytes.len() > 64 {
        return false;
    }
    while let [b, rest @ ..] = bytes {
        if !(b.is_ascii_alphanumeric() || *b == b'_' || *b == b'-') {
            return false;
        }
        bytes = rest;
    }
    true
}

/// No field of a page takes the name of its CSRF token (`_csrf`): the rule
/// [`SecretPage::new`] checks at run time, and a derived page's fields at compile time.
pub const fn field_name_is_free(name: &str) -> bool {
    let (mut a, mut b) = (name.as_bytes(), CSRF_FIELD.as_bytes());
    if a.len() != b.len() {
        return true;
    }
    while let ([x, a_rest @ ..], [y, b_rest @ ..]) = (a, b) {
        if *x != *y {
            return true;
        }
        (a, b) = (a_rest, b_rest);
    }
    false
}

pub(super) fn check_page_name(name: &str) -> Result<(), PageError> {
    if page_name_fits(name) {
        Ok(())
    } else {
        Err(PageError::Name {
            name: name.chars().take(64).collect(),
        })
    }
}

/// What the user typed on a [`SecretPage`], by field name: each a [`SecretString`], wiped
/// from memory when dropped, never printed by `Debug` (which lists the field names only).
pub struct Secrets {
    fields: Vec<(String, SecretString)>,
}

impl Secrets {
    /// The secret typed in `field`, taken out.
    pub fn take(&mut self, field: &str) -> Option<SecretString> {
        let at = self.fields.iter().position(|(name, _)| name == field)?;
        Some(self.fields.swap_remove(at).1)
    }

    /// The secret typed in `field`.
    #[must_use]
    pub fn get(&self, field: &str) -> Option<&SecretString> {
        self.fields
            .iter()
            .find(|(name, _)| name == field)
            .map(|(_, secret)| secret)
    }
}

impl fmt::Debug for Secrets {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set()
            .entries(self.fields.iter().map(|(name, _)| name))
            .finish()
    }
}

/// The last characters of a secret, safe to show: what a tool tells its user ("Connected the key
/// ending WXYZ") so that they know which key was kept, with nothing an attacker could use.
///
/// [`SecretEnding::of`] keeps the last [`SecretEnding::SHOWN`] (4) characters of a secret of at
/// least [`SecretEnding::LONG_ENOUGH`] (16) characters, so that at least 12 stay unknown, and
/// nothing of a shorter one: a short secret (a password) would give away a quarter of itself or
/// more. It is a ready receipt (`#[elicit(mode = "url", receipt = SecretEnding)]`), kept in the
/// flows' store as a JSON string; it prints as its characters.
///
/// ```
/// use mcp_elicit::page::{SecretEnding, SecretString};
///
/// let ending = SecretEnding::of(&SecretString::from("ex_live_0123456789WXYZ"));
/// assert_eq!(ending.to_string(), "WXYZ");
/// assert!(SecretEnding::of(&SecretString::from("hunter2")).is_empty());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct SecretEnding(String);

impl SecretEnding {
    /// How many characters are shown, at most.
    pub const SHOWN: usize = 4;
    /// The least length of a secret (in characters) whose ending is shown.
    pub const LONG_ENOUGH: usize = 16;

    /// The last [`SHOWN`](Self::SHOWN) characters of `secret`, or none if it is shorter than
    /// [`LONG_ENOUGH`](Self::LONG_ENOUGH).
    pub fn of(secret: &SecretString) -> Self {
        use secrecy::ExposeSecret;
        let secret = secret.expose_secret();
        let count = secret.chars().count();
        if count < Self::LONG_ENOUGH {
            return Self(String::new());
        }
        let start = secret
            .char_indices()
            .nth(count - Self::SHOWN)
            .map_or(0, |(at, _)| at);
        Self(secret[start..].to_owned())
    }

    /// The characters shown (empty for a short secret).
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether nothing is shown (the secret was shorter than [`LONG_ENOUGH`](Self::LONG_ENOUGH)).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Display for SecretEnding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Why a sink did not keep what the user sent, in words the user may read on the page: the flow
/// [fails](SinkError::fail) (the tool reads
/// [`FlowOutcome::Failed`](crate::url_mode::FlowOutcome::Failed)), or the page asks
/// [again](SinkError::retry).
///
/// A `String` or a `&str` converts into a failure, so `Err(format!(..))?` and
/// `.map_err(|e| e.to_string())?` read as they did before sinks could retry.
///
/// ```
/// use mcp_elicit::page::SinkError;
///
/// let refused = SinkError::retry("Example Co. refused that key: check it and try again.");
/// assert!(refused.is_retry());
/// let down: SinkError = "The vault is unreachable.".into();
/// assert!(!down.is_retry());
/// assert_eq!(down.message(), "The vault is unreachable.");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SinkError {
    message: String,
    retry: bool,
}

impl SinkError {
    /// The page is shown again with `message` (escaped) above its form, the flow stays open and
    /// the tool keeps waiting: for what the user can fix by typing again (a key the upstream
    /// service refused). A flow takes at most [`SinkError::MAX_RETRIES`] of them; the next
    /// one fails it as [`fail`](SinkError::fail) does.
    #[must_use]
    pub fn retry(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            retry: true,
        }
    }

    /// The flow fails for good with `message`: the page says it, and the tool reads it as
    /// [`FlowOutcome::Failed`](crate::url_mode::FlowOutcome::Failed).
    #[must_use]
    pub fn fail(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            retry: false,
        }
    }

    /// How many times a flow's page is shown again after a [`retry`](SinkError::retry): 5.
    /// The sixth retry fails the flow with its message, so a sink that always asks again
    /// cannot keep a tool waiting until the flow expires.
    pub const MAX_RETRIES: u64 = 5;

    /// Whether the page asks again.
    #[must_use]
    pub fn is_retry(&self) -> bool {
        self.retry
    }

    /// What the user reads.
    #[must_use]
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The message, for the flow's failure.
    pub(super) fn into_message(self) -> String {
        self.message
    }
}

impl fmt::Display for SinkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for SinkError {}

impl From<String> for SinkError {
    fn from(message: String) -> Self {
        Self::fail(message)
    }
}

impl From<&str> for SinkError {
    fn from(message: &str) -> Self {
        Self::fail(message)
    }
}

/// What a sink's `store` returns: the receipt `R` (what the tool reads), or why not.
pub type SinkFuture<'a, R = Value> =
    Pin<Box<dyn Future<Output = Result<R, SinkError>> + Send + 'a>>;

/// Where a [`SecretPage`]'s secrets go: the server's vault, or its own store, under the principal
/// whose flow it is. It returns what the tool reads
/// ([`FlowOutcome::Completed`](crate::url_mode::FlowOutcome::Completed)): a receipt `R`, the
/// server's own type (`Serialize`; the store keeps it as JSON), never the secret; or a
/// [`SinkError`], whose words the user may read on the page.
///
/// A closure `Fn(String, Secrets) -> Result<R, SinkError>` is a sink: the principal comes owned,
/// so `|user, secrets| ..` needs no annotation.
pub trait SecretSink<R = Value>: Send + Sync + 'static {
    /// Keeps `secrets` for `principal`.
    fn store(&self, principal: String, secrets: Secrets) -> SinkFuture<'_, R>;
}

impl<F, R> SecretSink<R> for F
where
    F: Fn(String, Secrets) -> Result<R, SinkError> + Send + Sync + 'static,
    R: Send + 'static,
{
    fn store(&self, principal: String, secrets: Secrets) -> SinkFuture<'_, R> {
        Box::pin(ready(self(principal, secrets)))
    }
}

/// A sink of receipts `R`, as the pages keep it: its receipt written as JSON for the store.
pub(super) struct Serialized<S, R> {
    sink: S,
    receipt: std::marker::PhantomData<fn() -> R>,
}

impl<S, R> Serialized<S, R> {
    pub(super) fn new(sink: S) -> Self {
        Self {
            sink,
            receipt: std::marker::PhantomData,
        }
    }
}

/// A receipt as JSON; one that `serde_json` cannot write (a map with keys that are not strings)
/// fails the flow, naming its type to the server's log and nothing to the user.
pub(super) fn receipt_json<R: serde::Serialize>(receipt: R) -> Result<Value, SinkError> {
    serde_json::to_value(receipt).map_err(|error| {
        tracing::error!(
            target: crate::events::FLOW,
            receipt = std::any::type_name::<R>(),
            %error,
            "a sink's receipt cannot be written as JSON"
        );
        SinkError::fail("The server could not record the result.")
    })
}

impl<S, R> SecretSink<Value> for Serialized<S, R>
where
    S: SecretSink<R>,
    R: serde::Serialize + Send + 'static,
{
    fn store(&self, principal: String, secrets: Secrets) -> SinkFuture<'_, Value> {
        let stored = self.sink.store(principal, secrets);
        Box::pin(async move { stored.await.and_then(receipt_json) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ending(secret: &str) -> SecretEnding {
        SecretEnding::of(&SecretString::from(secret))
    }

    #[test]
    fn an_ending_is_shown_only_of_a_secret_long_enough_to_keep_twelve_characters_unknown() {
        assert_eq!(ending("0123456789abWXYZ").as_str(), "WXYZ");
        assert!(ending("123456789abWXYZ").is_empty(), "15 characters");
        assert!(ending("").is_empty());
        assert_eq!(ending("0123456789abWXYZ").to_string(), "WXYZ");
    }

    #[test]
    fn an_ending_counts_characters_not_bytes() {
        // Each `é` is two bytes: the ending is four characters, cut on a character's boundary.
        assert_eq!(ending("éééééééééééééééé").as_str(), "éééé");
        assert!(
            ending("ééééééééééééééé").is_empty(),
            "15 characters, 30 bytes"
        );
    }

    #[test]
    fn an_ending_is_kept_as_a_json_string() {
        let json = serde_json::to_value(ending("0123456789abWXYZ")).unwrap();
        assert_eq!(json, serde_json::json!("WXYZ"));
        let back: SecretEnding = serde_json::from_value(json).unwrap();
        assert_eq!(back.as_str(), "WXYZ");
    }
}
