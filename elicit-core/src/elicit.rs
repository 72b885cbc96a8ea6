//! The trait `#[derive(Elicit)]` implements for a form.

use serde_json::{Map, Value};

use crate::field::Slot;
use crate::reply::{Elicitation, RawReply, ReplyError, reply_json};
use crate::reply_text::parse_reply_text;
use crate::request::FormRequest;
use crate::schema::RequestedSchema;
use crate::validate::Violations;

/// A type that validated form `content` can be turned into.
///
/// Derived forms implement it; so does `serde_json::Map<String, Value>`, the untyped content of a
/// hand-built [`RequestedSchema`].
pub trait FromContent: Sized {
    /// Build the value from `content` that already satisfied the schema. Must not panic on any
    /// input; a value that does not fit the Rust type is reported as a violation.
    fn from_content(content: &Map<String, Value>) -> Result<Self, Violations>;

    /// Whether [`__from_fields`](FromContent::__from_fields) reads exactly what `from_content`
    /// reads, so that a reply's text may be read into one slot per property instead of a whole
    /// `Map` (derived forms). Generated code sets it; not public API.
    #[doc(hidden)]
    const __READS_FIELDS: bool = false;

    /// [`from_content`](FromContent::from_content) from one value per property of `schema`, in
    /// its order, checked against `schema` here (every violation, as
    /// [`RequestedSchema::validate`] reports them); values may be taken. Generated code
    /// implements it, checking each value as it takes it.
    #[doc(hidden)]
    fn __from_fields(
        schema: &RequestedSchema,
        fields: &mut [Slot<'_>],
    ) -> Result<Self, Violations> {
        schema.validate_each(|i, _| fields.get(i))?;
        let content = schema
            .properties()
            .iter()
            .zip(fields.iter_mut())
            .filter_map(|(p, v)| match v.take() {
                Slot::Absent => None,
                slot => Some((p.name().to_owned(), slot.into_value())),
            })
            .collect();
        Self::from_content(&content)
    }
}

impl FromContent for Map<String, Value> {
    fn from_content(content: &Map<String, Value>) -> Result<Self, Violations> {
        Ok(content.clone())
    }
}

/// A form-mode elicitation declared as a type: its message, its schema, and how to read the
/// answer back into the type.
///
/// Derive it (`#[derive(Elicit)]`) on a struct of named fields; the derive checks at compile time
/// everything the spec forbids. Then [`form_request`](Elicit::form_request) gives the
/// `elicitation/create` params, and [`from_reply`](Elicit::from_reply) (or
/// [`from_reply_str`](Elicit::from_reply_str)) reads the client's answer into an
/// [`Elicitation<Self>`], validated against every rule of the form:
///
/// ```
/// # extern crate elicit_core as mcp_elicit;
/// # use elicit_derive::Elicit;
/// use mcp_elicit::{Elicit, Elicitation};
///
/// /// Which branch should be deleted?
/// #[derive(Elicit, Debug)]
/// struct Branch {
///     #[elicit(min_length = 1, max_length = 64)]
///     name: String,
/// }
///
/// let params = serde_json::to_value(Branch::form_request())?;
/// assert_eq!(params["requestedSchema"]["required"], serde_json::json!(["name"]));
///
/// let reply = serde_json::json!({"action": "accept", "content": {"name": "old-login"}});
/// match Branch::from_reply(&reply)? {
///     Elicitation::Accept(branch) => assert_eq!(branch.name, "old-login"),
///     Elicitation::Decline | Elicitation::Cancel | Elicitation::NoReply => unreachable!(),
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// The facade crate, `mcp-elicit`, re-exports this trait together with the derive; its README
/// walks through every attribute.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an elicitation form",
    label = "needs `#[derive(Elicit)]` on a struct with named fields",
    note = "a form is a struct of named fields; a unit-only enum deriving `Elicit` is a select field inside a form, not a form itself"
)]
pub trait Elicit: FromContent {
    /// The message shown to the user: one sentence saying what is asked and why.
    fn message() -> &'static str;

    /// The name this elicitation is reported under (metrics, logs): the type's name, or
    /// `#[elicit(name = "...")]`.
    fn name() -> &'static str;

    /// The `requestedSchema`, built once and shared.
    fn requested_schema() -> &'static RequestedSchema;

    /// The content a client would send for this value (for tests, and for clients).
    fn to_content(&self) -> Map<String, Value>;

    /// The `elicitation/create` params of this form: `mode`, `message`, `requestedSchema`.
    /// Borrows the shared schema; it allocates nothing.
    fn form_request() -> FormRequest<Self> {
        FormRequest::from_static(Self::name(), Self::message(), Self::requested_schema())
    }

    /// Read a client's `ElicitResult` into an outcome, validating accepted content against every
    /// rule of the schema.
    ///
    /// The outcome is recorded for the interrupt budget ([`crate::observe`]) under
    /// [`name`](Elicit::name).
    fn from_reply(reply: &Value) -> Result<Elicitation<Self>, ReplyError> {
        let result = parse_with_schema(Self::requested_schema(), reply);
        crate::observe::record_reply(Self::name(), &result);
        result
    }

    /// [`from_reply`](Elicit::from_reply) from JSON text (at most
    /// [`MAX_REPLY_BYTES`](crate::MAX_REPLY_BYTES)).
    fn from_reply_str(reply: &str) -> Result<Elicitation<Self>, ReplyError> {
        if Self::__READS_FIELDS {
            let result = parse_reply_text::<Self>(Self::requested_schema(), reply);
            crate::observe::record_reply(Self::name(), &result);
            return result;
        }
        match reply_json(reply) {
            Ok(value) => Self::from_reply(&value),
            Err(error) => {
                let result = Err(error);
                crate::observe::record_reply::<Self, _>(Self::name(), &result);
                result
            }
        }
    }
}

/// Parse a reply against a schema into any [`FromContent`] type: the one path every reply takes.
pub(crate) fn parse_with_schema<T: FromContent>(
    schema: &RequestedSchema,
    reply: &Value,
) -> Result<Elicitation<T>, ReplyError> {
    static EMPTY: std::sync::OnceLock<Map<String, Value>> = std::sync::OnceLock::new();
    match RawReply::parse(reply)? {
        RawReply::Decline => Ok(Elicitation::Decline),
        RawReply::Cancel => Ok(Elicitation::Cancel),
        RawReply::Accept(content) => {
            let content = content.unwrap_or_else(|| EMPTY.get_or_init(Map::new));
            schema.validate(content)?;
            Ok(Elicitation::Accept(T::from_content(content)?))
        }
    }
}

impl RequestedSchema {
    /// Read a client's `ElicitResult` against this hand-built schema: the same validation the
    /// derive gets, with the content left as JSON.
    ///
    /// ```
    /// # extern crate elicit_core as mcp_elicit;
    /// use mcp_elicit::{Elicitation, Property, RequestedSchema, StringSchema};
    /// let schema = RequestedSchema::new(vec![Property::new("name", StringSchema::new())])?;
    /// let reply = serde_json::json!({"action": "accept", "content": {"name": "octocat"}});
    /// let Elicitation::Accept(content) = schema.parse_reply(&reply)? else { panic!() };
    /// assert_eq!(content["name"], "octocat");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn parse_reply(
        &self,
        reply: &Value,
    ) -> Result<Elicitation<Map<String, Value>>, ReplyError> {
        parse_with_schema(self, reply)
    }
}
