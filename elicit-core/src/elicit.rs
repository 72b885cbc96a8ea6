//! The trait `#[derive(Elicit)]` implements for a form.

use serde_json::{Map, Value};

use crate::outcome::{Elicitation, ReplyError};
use crate::read::{FromContent, parse_text_with_schema, parse_with_schema};
use crate::request::FormRequest;
use crate::requested::RequestedSchema;

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
        crate::outcome::record_reply(Self::name(), &result);
        result
    }

    /// [`from_reply`](Elicit::from_reply) from JSON text (at most
    /// [`MAX_REPLY_BYTES`](crate::limits::MAX_REPLY_BYTES)).
    fn from_reply_str(reply: &str) -> Result<Elicitation<Self>, ReplyError> {
        let result = parse_text_with_schema(Self::requested_schema(), reply);
        crate::outcome::record_reply(Self::name(), &result);
        result
    }
}
