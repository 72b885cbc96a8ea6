//! The `elicitation/create` params of a form-mode request.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::hosts::{Adaptation, FieldKinds};
use crate::outcome::{Action, Elicitation, ReplyError};
use crate::read::{
    FromContent, parse_parts_with_schema, parse_text_with_schema, parse_with_schema,
};
use crate::requested::{
    EnumOption, PropertyKind, RequestedSchema, SchemaError, SchemaOnWire, Text,
};
use crate::revision::{Revision, RevisionError};

/// A form-mode request: serializes to exactly the `elicitation/create` params
/// (`mode: "form"`, `message`, `requestedSchema`), and checks its own reply against the schema
/// it actually sent — including options and a message supplied at run time.
///
/// `T` is what an accepted reply becomes: a derived form, or `serde_json::Map` for a hand-built
/// schema.
pub struct FormRequest<T = Map<String, Value>> {
    name: Text,
    message: Text,
    schema: Cow<'static, RequestedSchema>,
    /// The params text of a derived form as it was declared, cached on first use; `None` once
    /// the message or options are changed at run time.
    wire: Option<&'static WireCache>,
    target: PhantomData<fn() -> T>,
}

/// The serialized params of a derived form (latest revision), written once, on first use, by
/// the one serializer ([`write_form_params`]) and then copied as they are. `None` inside: the
/// declared form cannot be written (a select whose options come at run time), so every call
/// takes the ordinary path and reports the error itself.
///
/// With `mrtr`, also the form's input request and the digest that binds an answer to it, made
/// once by [`crate::mrtr`] (a 2026-07-28 question asks and reads them on every round); and the
/// same, once per adaptation, for the form adapted to the field kinds a host draws
/// ([`FormRequest::adapted`]): one slot per [`FieldKinds::bits`] (eight), so the cache is as
/// bounded as the unadapted one.
#[doc(hidden)]
pub struct WireCache {
    params: std::sync::OnceLock<Option<Box<RawValue>>>,
    #[cfg(feature = "mrtr")]
    question: std::sync::OnceLock<(Value, String)>,
    #[cfg(feature = "mrtr")]
    adapted: [std::sync::OnceLock<Option<AdaptedQuestion>>; 8],
}

/// A derived form adapted to some field kinds, as [`crate::mrtr`] asks it: its input request
/// and question digest, and how to read an answer back into the form's shape.
#[cfg(feature = "mrtr")]
pub(crate) struct AdaptedQuestion {
    /// The adapted form's input request and the digest of it.
    pub(crate) question: (Value, String),
    /// How the adapted answer is read back ([`Adaptation::restore_map`]).
    pub(crate) adaptation: Adaptation,
}

impl WireCache {
    /// An empty cache, for a `static` in generated code.
    #[allow(clippy::new_without_default)]
    pub const fn new() -> Self {
        Self {
            params: std::sync::OnceLock::new(),
            #[cfg(feature = "mrtr")]
            question: std::sync::OnceLock::new(),
            #[cfg(feature = "mrtr")]
            adapted: [const { std::sync::OnceLock::new() }; 8],
        }
    }
}

impl<T> Clone for FormRequest<T> {
    fn clone(&self) -> Self {
        Self {
            name: self.name.clone(),
            message: self.message.clone(),
            schema: self.schema.clone(),
            wire: self.wire,
            target: PhantomData,
        }
    }
}

impl<T> fmt::Debug for FormRequest<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FormRequest")
            .field("name", &self.name)
            .field("message", &self.message)
            .field("schema", &self.schema)
            .finish()
    }
}

impl FormRequest<Map<String, Value>> {
    /// A request for a hand-built schema.
    ///
    /// ```
    /// # extern crate elicit_core as mcp_elicit;
    /// use mcp_elicit::{FormRequest, schema::{Property, RequestedSchema, StringSchema}};
    /// let schema = RequestedSchema::new(vec![Property::new("name", StringSchema::new())])?;
    /// let request = FormRequest::new("Please provide your GitHub username", schema)?;
    /// assert_eq!(serde_json::to_value(&request)?, serde_json::json!({
    ///     "mode": "form",
    ///     "message": "Please provide your GitHub username",
    ///     "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
    /// }));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// Its [`name`](FormRequest::name) is `"form"` until set with
    /// [`with_name`](FormRequest::with_name).
    pub fn new(message: impl Into<Text>, schema: RequestedSchema) -> Result<Self, SchemaError> {
        let message = non_empty(message.into())?;
        Ok(Self {
            name: Cow::Borrowed("form"),
            message,
            schema: Cow::Owned(schema),
            wire: None,
            target: PhantomData,
        })
    }
}

fn non_empty(message: Text) -> Result<Text, SchemaError> {
    if !crate::requested::rules::message_is_not_empty(&message) {
        Err(SchemaError::EmptyMessage)
    } else {
        Ok(message)
    }
}

impl<T> FormRequest<T> {
    /// Used by `Elicit::form_request`: borrows the type's shared schema.
    pub(crate) fn from_static(
        name: &'static str,
        message: &'static str,
        schema: &'static RequestedSchema,
    ) -> Self {
        Self {
            name: Cow::Borrowed(name),
            message: Cow::Borrowed(message),
            schema: Cow::Borrowed(schema),
            wire: None,
            target: PhantomData,
        }
    }

    /// Used by `#[derive(Elicit)]`'s `form_request`: as [`from_static`](Self::from_static), with
    /// a per-type cache of the serialized params.
    pub(crate) fn from_static_cached(
        name: &'static str,
        message: &'static str,
        schema: &'static RequestedSchema,
        wire: &'static WireCache,
    ) -> Self {
        Self {
            wire: Some(wire),
            ..Self::from_static(name, message, schema)
        }
    }

    /// A derived form unchanged since [`Elicit::form_request`](crate::Elicit::form_request): its
    /// input request and question digest, made by `make` on the type's first use and kept for
    /// every later one. `None` for any other form (built or changed at run time).
    #[cfg(feature = "mrtr")]
    pub(crate) fn cached_question(
        &self,
        make: impl FnOnce(&Self) -> (Value, String),
    ) -> Option<&'static (Value, String)> {
        let wire = self.wire?;
        Some(wire.question.get_or_init(|| make(self)))
    }

    /// A derived form unchanged since [`Elicit::form_request`](crate::Elicit::form_request),
    /// adapted to `kinds`: made by `make` on the first ask for these kinds and kept for every
    /// later one (`Some(None)`: these kinds draw the form whole). `None` for any other form.
    #[cfg(feature = "mrtr")]
    pub(crate) fn cached_adapted(
        &self,
        kinds: FieldKinds,
        make: impl FnOnce(&Self) -> Option<AdaptedQuestion>,
    ) -> Option<Option<&'static AdaptedQuestion>> {
        let slot = self.wire?.adapted.get(usize::from(kinds.bits()))?;
        Some(slot.get_or_init(|| make(self)).as_ref())
    }

    /// The name this request is reported under in [`crate::observe`]: the derived type's name
    /// (or its `#[elicit(name = "...")]`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Report this request under another name (e.g. one per tool that asks it).
    pub fn with_name(mut self, name: impl Into<Text>) -> Self {
        self.name = name.into();
        self
    }

    /// The message shown to the user.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The schema this request sends and checks replies against.
    pub fn schema(&self) -> &RequestedSchema {
        &self.schema
    }

    /// Replace the message; the best message names the specific thing found mid-call.
    pub fn with_message(mut self, message: impl Into<Text>) -> Result<Self, SchemaError> {
        self.message = non_empty(message.into())?;
        self.wire = None;
        Ok(self)
    }

    /// Supply the options of a field declared as [`Choice`](crate::schema::Choice) or
    /// [`Choices`](crate::schema::Choices) — or of any select built with `SelectSchema::dynamic()`.
    /// On error (no such field, no options, duplicate values, a default that is not an option)
    /// the request is unchanged.
    pub fn with_options(
        mut self,
        property: &str,
        options: impl IntoIterator<Item = EnumOption>,
    ) -> Result<Self, SchemaError> {
        self.schema
            .to_mut()
            .set_options(property, options.into_iter().collect())?;
        self.wire = None;
        Ok(self)
    }

    /// Read the client's `ElicitResult` for this request, validating against the schema it sent.
    /// The outcome is recorded for the interrupt budget ([`crate::observe`]).
    pub fn parse_reply(&self, reply: &Value) -> Result<Elicitation<T>, ReplyError>
    where
        T: FromContent,
    {
        let result = parse_with_schema(&self.schema, reply);
        crate::outcome::record_reply(&self.name, &result);
        result
    }

    /// [`parse_reply`](FormRequest::parse_reply) from JSON text (at most
    /// [`MAX_REPLY_BYTES`](crate::limits::MAX_REPLY_BYTES)).
    pub fn parse_reply_str(&self, reply: &str) -> Result<Elicitation<T>, ReplyError>
    where
        T: FromContent,
    {
        let result = parse_text_with_schema(&self.schema, reply);
        crate::outcome::record_reply(&self.name, &result);
        result
    }

    /// [`parse_reply`](FormRequest::parse_reply) of a reply an SDK has already parsed and split
    /// into its action and `content` (rmcp's `ElicitResult`): the content is read as it is,
    /// its strings moved into the form's fields rather than copied, and nothing is rebuilt.
    pub fn parse_parts(
        &self,
        action: Action,
        content: Option<Value>,
    ) -> Result<Elicitation<T>, ReplyError>
    where
        T: FromContent,
    {
        let result = parse_parts_with_schema(&self.schema, action, content);
        crate::outcome::record_reply(&self.name, &result);
        result
    }
}

impl<T> FormRequest<T> {
    /// This form as a host that draws `kinds` can draw it ([`adapt`](crate::hosts::adapt)):
    /// the request to send (the same name and message, the adapted schema) and the
    /// [`Adaptation`] that reads its answer back, to be read by this form
    /// (`self.parse_parts(action, adaptation.restore(content))`), so that the tool gets the
    /// same typed value by the same rules. `None` when the host draws every field of it: send
    /// this form as it is.
    pub fn adapted(&self, kinds: FieldKinds) -> Option<(Self, Adaptation)> {
        let adaptation = crate::hosts::adapt(&self.schema, kinds)?;
        let sent = Self {
            name: self.name.clone(),
            message: self.message.clone(),
            schema: Cow::Owned(adaptation.schema().clone()),
            wire: None,
            target: PhantomData,
        };
        Some((sent, adaptation))
    }
}

/// The most broken rules a re-asked form lists; the rest are counted ("and 3 more").
const EXPLAINED_VIOLATIONS: usize = 5;

impl<T> FormRequest<T> {
    /// What was wrong with an answer, in words for the person who gave it: each broken rule
    /// after the field's title (or name), e.g. `"Replicas must be at most 10."`. Nothing the
    /// client sent is quoted.
    ///
    /// ```
    /// # extern crate elicit_core as mcp_elicit;
    /// use mcp_elicit::{FormRequest, schema::{IntegerSchema, Property, RequestedSchema}};
    /// use serde_json::json;
    ///
    /// let schema = RequestedSchema::new(vec![
    ///     Property::new("replicas", IntegerSchema::new().minimum(1).maximum(10)).title("Replicas"),
    /// ])?;
    /// let form = FormRequest::new("How many replicas?", schema)?;
    /// let error = form.parse_reply(&json!({"action": "accept", "content": {"replicas": 40}})).unwrap_err();
    /// assert_eq!(form.explain(&error), "Replicas must be at most 10.");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn explain(&self, error: &ReplyError) -> String {
        use std::fmt::Write as _;
        let Some(violations) = error.violations() else {
            return crate::outcome::explain_without_schema(error);
        };
        let mut text = String::new();
        for (i, violation) in violations.as_slice().iter().enumerate() {
            if i == EXPLAINED_VIOLATIONS {
                let rest = violations.len() - i;
                let _ = write!(text, "; and {rest} more");
                break;
            }
            if i > 0 {
                text.push_str("; ");
            }
            let label = self
                .schema
                .property(&violation.property)
                .and_then(|p| p.title_text())
                .unwrap_or(&violation.property);
            let _ = write!(text, "{label} {}", violation.rule.for_user());
        }
        text.push('.');
        text
    }

    /// The same form, asked again after an answer that broke its rules: the message first says
    /// what was wrong ([`explain`](FormRequest::explain)), then repeats this request's message.
    /// Built from this request each time, so asking again and again does not pile up
    /// corrections.
    #[must_use]
    pub fn reasked(&self, error: &ReplyError) -> Self {
        let mut again = self.clone();
        again.message = format!(
            "Your last answer could not be used: {}\n\n{}",
            self.explain(error),
            self.message
        )
        .into();
        again.wire = None;
        again
    }

    /// [`reasked`](FormRequest::reasked), keeping what was right: each field of the answer's
    /// `content` (the `ElicitResult`'s `content` member) whose value kept its rules is
    /// pre-filled, as the field's `default`, so that the user corrects what was wrong and
    /// retypes nothing else. The message says what was wrong, as `reasked`'s does.
    ///
    /// Never pre-filled: a field whose value broke a rule (it is asked as first asked, with its
    /// declared default if it has one), a field left empty, and a field that looks like a
    /// credential by its name, title or description (a form must not ask for one; what a user
    /// typed there is not sent back out). Pre-fill only what a person answered and may answer
    /// again: never a consent form, whose every answer must come from the person each time
    /// (the library's consent asks re-ask with [`reasked`](FormRequest::reasked)). Each revision
    /// writes the defaults it has: 2025-06-18 keeps only booleans'
    /// ([`for_revision`](FormRequest::for_revision)). An error that is not broken rules (a reply
    /// that could not be read) keeps nothing.
    ///
    /// ```
    /// # extern crate elicit_core as mcp_elicit;
    /// use mcp_elicit::{FormRequest, schema::{IntegerSchema, Property, RequestedSchema, StringSchema}};
    /// use serde_json::json;
    ///
    /// let schema = RequestedSchema::new(vec![
    ///     Property::new("service", StringSchema::new()).title("Service"),
    ///     Property::new("replicas", IntegerSchema::new().minimum(1).maximum(10)).title("Replicas"),
    /// ])?;
    /// let form = FormRequest::new("Deploy what, how wide?", schema)?;
    /// let reply = json!({"action": "accept", "content": {"service": "billing-api", "replicas": 40}});
    /// let error = form.parse_reply(&reply).unwrap_err();
    /// let again = serde_json::to_value(form.reasked_keeping(&error, reply.get("content")))?;
    /// let properties = &again["requestedSchema"]["properties"];
    /// assert_eq!(properties["service"]["default"], "billing-api");
    /// assert_eq!(properties["replicas"].get("default"), None);
    /// assert!(again["message"].as_str().unwrap().contains("Replicas must be at most 10."));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn reasked_keeping(&self, error: &ReplyError, content: Option<&Value>) -> Self {
        let mut again = self.reasked(error);
        if let (Some(broken), Some(Value::Object(content))) = (error.violations(), content)
            && let Some(kept) = self.schema.with_kept_answers_as_defaults(content, broken)
        {
            again.schema = Cow::Owned(kept);
        }
        again
    }
}

impl<T> FormRequest<T> {
    /// The `elicitation/create` params as `revision` writes them, or why that revision cannot
    /// express this form. Checked here, before anything is serialized:
    ///
    /// - 2025-06-18 has no `mode` field, writes every single-select as `enum` (+ `enumNames`
    ///   when options have titles), keeps only boolean defaults, and cannot express a
    ///   multi-select ([`RevisionError::MultiSelectUnsupported`]);
    /// - later revisions write the full schema, exactly as `FormRequest`'s own `Serialize`.
    ///
    /// ```
    /// # extern crate elicit_core as mcp_elicit;
    /// use mcp_elicit::{FormRequest, Revision, schema::{EnumOption, Property, RequestedSchema, SelectSchema}};
    /// let schema = RequestedSchema::new(vec![Property::new(
    ///     "env",
    ///     SelectSchema::new(vec![EnumOption::titled("stg", "Staging"), EnumOption::titled("prd", "Production")])
    ///         .default_value("stg"),
    /// )])?;
    /// let request = FormRequest::new("Choose the deploy environment.", schema)?;
    /// let old = serde_json::to_value(request.for_revision(Revision::V2025_06_18)?)?;
    /// assert_eq!(old, serde_json::json!({
    ///     "message": "Choose the deploy environment.",
    ///     "requestedSchema": {"type": "object", "required": ["env"], "properties": {
    ///         "env": {"type": "string", "enum": ["stg", "prd"], "enumNames": ["Staging", "Production"]}
    ///     }}
    /// }));
    /// let new = serde_json::to_value(request.for_revision(Revision::V2025_11_25)?)?;
    /// assert_eq!(new["mode"], "form");
    /// assert_eq!(new["requestedSchema"]["properties"]["env"]["oneOf"][1]["title"], "Production");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn for_revision(
        &self,
        revision: Revision,
    ) -> Result<RevisionedRequest<'_, T>, RevisionError> {
        for p in self.schema.properties() {
            match p.kind() {
                PropertyKind::MultiSelect(_) if !revision.has_multi_select() => {
                    return Err(RevisionError::MultiSelectUnsupported {
                        property: p.name().to_owned(),
                        revision,
                    });
                }
                PropertyKind::Select(s) if s.options().is_empty() => {
                    return Err(RevisionError::OptionsNotSupplied {
                        property: p.name().to_owned(),
                    });
                }
                PropertyKind::MultiSelect(m) if m.options().is_empty() => {
                    return Err(RevisionError::OptionsNotSupplied {
                        property: p.name().to_owned(),
                    });
                }
                _ => {}
            }
        }
        Ok(RevisionedRequest {
            request: self,
            revision,
        })
    }
}

/// The latest revision's params; [`FormRequest::for_revision`] writes any revision's.
///
/// A derived form, unchanged since [`Elicit::form_request`](crate::Elicit::form_request), is
/// written to compact JSON text (`serde_json::to_writer`, `to_vec`, `to_string`) by copying the
/// text this same code wrote on first use: the bytes are identical, and no allocation is made
/// when writing into a reused buffer. Every other serializer takes the ordinary path.
impl<T> Serialize for FormRequest<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if let Some(wire) = self.wire
            && writes_compact_json_text::<S>()
            && let Some(text) = wire.params.get_or_init(|| {
                let mut text = Vec::new();
                let mut writer = serde_json::Serializer::new(&mut text);
                write_form_params(self, Revision::LATEST, &mut writer).ok()?;
                RawValue::from_string(String::from_utf8(text).ok()?).ok()
            })
        {
            return text.serialize(serializer);
        }
        write_form_params(self, Revision::LATEST, serializer)
    }
}

/// Whether `S` is `serde_json`'s serializer to compact text, the one that writes a [`RawValue`]
/// verbatim. Other serializers (pretty text, `serde_json::Value`, other formats) must see the
/// params as a map. Told by the type's name: `&mut serde_json::ser::Serializer<W>` (rustc omits
/// a default formatter) or `<W, serde_json::ser::CompactFormatter>`. A name that ever reads
/// differently only costs the fast path: the ordinary one writes the same bytes.
fn writes_compact_json_text<S>() -> bool {
    let Some(args) = std::any::type_name::<S>()
        .strip_prefix("&mut serde_json::ser::Serializer<")
        .and_then(|rest| rest.strip_suffix('>'))
    else {
        return false;
    };
    // The formatter is the last argument at depth 0, if there are two.
    let mut depth = 0usize;
    let mut last_comma = None;
    for (i, c) in args.char_indices() {
        match c {
            '<' | '(' | '[' => depth += 1,
            '>' | ')' | ']' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => last_comma = Some(i),
            _ => {}
        }
    }
    match last_comma {
        None => true,
        Some(i) => args[i + 1..].trim() == "serde_json::ser::CompactFormatter",
    }
}

/// A [`FormRequest`] as one revision writes it, checked to be expressible there.
pub struct RevisionedRequest<'a, T> {
    request: &'a FormRequest<T>,
    revision: Revision,
}

impl<T> Clone for RevisionedRequest<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for RevisionedRequest<'_, T> {}

impl<T> fmt::Debug for RevisionedRequest<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RevisionedRequest")
            .field("revision", &self.revision)
            .field("request", self.request)
            .finish()
    }
}

impl<T> RevisionedRequest<'_, T> {
    /// The revision written.
    pub fn revision(&self) -> Revision {
        self.revision
    }

    /// Read the client's `ElicitResult`. Replies look alike in every revision (2025-06-18
    /// clients send no arrays, which this form then does not ask for), so this is
    /// [`FormRequest::parse_reply`].
    pub fn parse_reply(&self, reply: &Value) -> Result<Elicitation<T>, ReplyError>
    where
        T: FromContent,
    {
        self.request.parse_reply(reply)
    }
}

impl<T> Serialize for RevisionedRequest<'_, T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        write_form_params(self.request, self.revision, serializer)
    }
}

fn write_form_params<T, S: Serializer>(
    request: &FormRequest<T>,
    revision: Revision,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    let mut map = serializer.serialize_map(Some(3))?;
    if revision.has_mode_field() {
        map.serialize_entry("mode", "form")?;
    }
    map.serialize_entry("message", request.message.as_ref())?;
    map.serialize_entry(
        "requestedSchema",
        &SchemaOnWire {
            schema: &request.schema,
            revision,
        },
    )?;
    map.end()
}

#[cfg(test)]
mod tests {
    use super::writes_compact_json_text;

    #[test]
    fn only_compact_json_text_is_written_from_the_cache() {
        type Compact<'a> = &'a mut serde_json::Serializer<&'a mut Vec<u8>>;
        type Pretty<'a> =
            &'a mut serde_json::Serializer<&'a mut Vec<u8>, serde_json::ser::PrettyFormatter<'a>>;
        assert!(writes_compact_json_text::<Compact<'_>>());
        assert!(writes_compact_json_text::<
            &mut serde_json::Serializer<std::fs::File>,
        >());
        assert!(!writes_compact_json_text::<Pretty<'_>>());
        assert!(!writes_compact_json_text::<serde_json::value::Serializer>());
        // A writer whose own type has commas and a formatter spelled out.
        struct Both<A, B>(A, B);
        impl<A: std::io::Write, B: std::io::Write> std::io::Write for Both<A, B> {
            fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
                self.1.write_all(buf)?;
                self.0.write(buf)
            }
            fn flush(&mut self) -> std::io::Result<()> {
                self.0.flush()
            }
        }
        type W = Both<Vec<u8>, Both<Vec<u8>, std::fs::File>>;
        assert!(writes_compact_json_text::<&mut serde_json::Serializer<W>>());
        assert!(writes_compact_json_text::<
            &mut serde_json::Serializer<W, serde_json::ser::CompactFormatter>,
        >());
        assert!(!writes_compact_json_text::<
            &mut serde_json::Serializer<W, serde_json::ser::PrettyFormatter<'_>>,
        >());
    }
}
