//! The client's side of elicitation: reading what a server asks, as a careful host must, and
//! building the answer with the same rules the server will check it by.
//!
//! [`read_request`] turns the params of an `elicitation/create` (any revision) into an
//! [`Incoming`] form or URL request, and refuses what cannot be shown to a person (a nested
//! object, a malformed schema, an unsafe URL) with an [`IncomingError`] that names the member
//! and the rule. What a host should still know about a request it can show is a [`Note`]: the
//! request does not conform to the revision, a form field looks like a credential (form mode
//! must not ask for one), a URL's host is an IP address or an internationalised name that may
//! imitate another. [`read_input_required`] reads a 2026-07-28 input-required result the same
//! way.
//!
//! ```
//! # extern crate elicit_core as mcp_elicit;
//! use mcp_elicit::Revision;
//! use mcp_elicit::client::{Incoming, Note, read_request};
//! use serde_json::json;
//!
//! let params = json!({
//!     "mode": "form",
//!     "message": "Sign in to deploy.",
//!     "requestedSchema": {
//!         "type": "object",
//!         "properties": {
//!             "replicas": {"type": "integer", "minimum": 1, "maximum": 10, "default": 2},
//!             "apiKey": {"type": "string"}
//!         },
//!         "required": ["apiKey"]
//!     }
//! });
//! let Incoming::Form(form) = read_request(&params, Revision::V2025_11_25)? else { unreachable!() };
//! assert_eq!(form.notes(), [Note::Credential { property: "apiKey".into(), kind: "an API key" }]);
//!
//! // The user leaves `replicas` empty: its default is sent; the rules are checked first.
//! let answer = form.accept(json!({"apiKey": "…"}).as_object().unwrap().clone())?;
//! assert_eq!(answer, json!({"action": "accept", "content": {"apiKey": "…", "replicas": 2}}));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt;

use serde_json::{Map, Value};

use crate::format::Format;
use crate::outcome::Action;
use crate::requested::{
    BooleanSchema, EnumOption, IntegerSchema, MultiSelectSchema, NumberSchema, Property,
    PropertyKind, RequestedSchema, SchemaError, SelectSchema, SelectStyle, StringSchema,
};
use crate::revision::Revision;
use crate::url::{ElicitationUrl, UrlError, UrlPolicy};
use crate::violation::{Violations, quote};

mod answerer;

pub use answerer::{Answerer, FnAnswerer, Scripted, Step};

use crate::limits::{
    MAX_INPUT_REQUESTS, MAX_MESSAGE_BYTES, MAX_NAME_BYTES, MAX_OPTIONS, MAX_PROPERTIES,
};

/// A request a host can show: a form, or a page to open.
#[derive(Debug, Clone, PartialEq)]
pub enum Incoming {
    /// Form mode: fields to fill in.
    Form(IncomingForm),
    /// URL mode: a page to open, after the user's consent.
    Url(IncomingUrl),
}

impl Incoming {
    /// The message to show first.
    pub fn message(&self) -> &str {
        match self {
            Incoming::Form(form) => &form.message,
            Incoming::Url(url) => &url.message,
        }
    }

    /// What a careful host should know about this request.
    pub fn notes(&self) -> &[Note] {
        match self {
            Incoming::Form(form) => &form.notes,
            Incoming::Url(url) => &url.notes,
        }
    }
}

/// A form a server asks for, its schema read into this crate's types.
#[derive(Debug, Clone, PartialEq)]
pub struct IncomingForm {
    message: String,
    schema: RequestedSchema,
    notes: Vec<Note>,
}

impl IncomingForm {
    /// The message to show first.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The fields, in the server's order, with their rules.
    pub fn schema(&self) -> &RequestedSchema {
        &self.schema
    }

    /// What a careful host should know about this form.
    pub fn notes(&self) -> &[Note] {
        &self.notes
    }

    /// The `ElicitResult` accepting `content`, checked by the rules the server will check it by
    /// (every violation, naming the property and the rule), a default filled in for each field
    /// the user left empty (absent or `null`).
    ///
    /// # Errors
    /// The violations, if any: show them and let the user correct the answers.
    pub fn accept(&self, mut content: Map<String, Value>) -> Result<Value, Violations> {
        for property in self.schema.properties() {
            let empty = content.get(property.name()).is_none_or(Value::is_null);
            if !empty {
                continue;
            }
            content.remove(property.name());
            if let Some(default) = property.sent(None) {
                content.insert(property.name().to_owned(), default);
            }
        }
        self.schema.validate(&content)?;
        Ok(accepted(content))
    }
}

/// A page a server asks the user to open.
#[derive(Debug, Clone, PartialEq)]
pub struct IncomingUrl {
    message: String,
    url: ElicitationUrl,
    elicitation_id: Option<String>,
    notes: Vec<Note>,
}

impl IncomingUrl {
    /// The message to show first.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The URL, checked: `https` (plain `http` only to loopback), no userinfo, a valid host.
    /// Show it whole, its host set apart; open it only with the user's consent.
    pub fn url(&self) -> &ElicitationUrl {
        &self.url
    }

    /// The host, to show apart from the rest of the URL.
    pub fn host(&self) -> &str {
        self.url.host()
    }

    /// The `elicitationId` (2025-11-25), to match the server's completion notification.
    pub fn elicitation_id(&self) -> Option<&str> {
        self.elicitation_id.as_deref()
    }

    /// What a careful host should know about this page.
    pub fn notes(&self) -> &[Note] {
        &self.notes
    }

    /// The `ElicitResult` of a user who agreed to open the page.
    pub fn accept(&self) -> Value {
        answer(Action::Accept)
    }
}

/// The `ElicitResult` accepting a form with `content`, as it is.
pub(crate) fn accepted(content: Map<String, Value>) -> Value {
    let mut result = Map::new();
    result.insert("action".to_owned(), Value::from(Action::Accept.as_str()));
    result.insert("content".to_owned(), Value::Object(content));
    Value::Object(result)
}

/// The `ElicitResult` of a user who refused (`Decline`) or dismissed (`Cancel`) the request.
pub fn answer(action: Action) -> Value {
    let mut result = Map::new();
    result.insert("action".to_owned(), Value::from(action.as_str()));
    Value::Object(result)
}

/// What a careful host should know about a request it can show.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Note {
    /// The request does not conform to the negotiated revision (the rule, in words).
    Nonconformant(String),
    /// A form field whose name looks like a credential: the spec forbids asking for one in form
    /// mode. The host should say so before the user types anything.
    Credential {
        /// The property.
        property: String,
        /// What it looks like, e.g. `"an API key"`.
        kind: &'static str,
    },
    /// The URL's host has an internationalised label in its `xn--` form, which may imitate
    /// another name: show it as it is.
    InternationalisedHost,
    /// The URL's host is an IP address, not a name.
    IpHost,
    /// Plain `http`, to a loopback address (a server on this machine).
    Loopback,
}

impl fmt::Display for Note {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Note::Nonconformant(rule) => write!(f, "the request does not conform: {rule}"),
            Note::Credential { property, kind } => write!(
                f,
                "`{property}` looks like {kind}: a server must not ask for one in a form"
            ),
            Note::InternationalisedHost => f.write_str(
                "the host has an internationalised name (xn--), which may imitate another",
            ),
            Note::IpHost => f.write_str("the host is an IP address, not a name"),
            Note::Loopback => f.write_str("plain http to this machine"),
        }
    }
}

/// A request a host cannot show: the member and the rule.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum IncomingError {
    /// A member is missing or has the wrong JSON type.
    Member {
        /// Where, e.g. `requestedSchema.properties.port`.
        at: String,
        /// What it must be, e.g. `"an object"`.
        expected: &'static str,
    },
    /// `mode` is neither `form` nor `url`.
    UnknownMode,
    /// A property of a type a form cannot hold: an object (nested), or an unknown type.
    UnsupportedProperty {
        /// The property.
        property: String,
        /// What it is, e.g. `"a nested object"`.
        found: String,
    },
    /// The schema breaks a rule of a form (duplicate options, a default outside its bounds…).
    Schema(SchemaError),
    /// The URL is not one to open.
    Url(UrlError),
    /// More than the limit of a message, a form or a result.
    TooLarge {
        /// What, e.g. `"message"`.
        what: &'static str,
        /// The limit.
        limit: usize,
    },
}

impl fmt::Display for IncomingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IncomingError::Member { at, expected } => write!(f, "`{at}` must be {expected}"),
            IncomingError::UnknownMode => f.write_str("`mode` must be \"form\" or \"url\""),
            IncomingError::UnsupportedProperty { property, found } => write!(
                f,
                "`{property}` is {found}: a form holds strings, numbers, booleans and selects only"
            ),
            IncomingError::Schema(error) => write!(f, "the form's schema is invalid: {error}"),
            IncomingError::Url(error) => write!(f, "the URL is refused: {error}"),
            IncomingError::TooLarge { what, limit } => {
                write!(f, "the {what} is larger than the limit of {limit}")
            }
        }
    }
}

impl std::error::Error for IncomingError {}

impl From<SchemaError> for IncomingError {
    fn from(error: SchemaError) -> Self {
        IncomingError::Schema(error)
    }
}

/// Read the params of an `elicitation/create` the server sent on `revision`.
///
/// # Errors
/// An [`IncomingError`] naming the member and the rule, when the request cannot be shown.
pub fn read_request(params: &Value, revision: Revision) -> Result<Incoming, IncomingError> {
    let params = object(params, "params")?;
    let mut notes = Vec::new();
    let message = string(params.get("message"), "message")?;
    if message.len() > MAX_MESSAGE_BYTES {
        return Err(IncomingError::TooLarge {
            what: "message",
            limit: MAX_MESSAGE_BYTES,
        });
    }
    let mode = match params.get("mode") {
        None => {
            if revision.has_mode_field() {
                notes.push(nonconformant(format!("{revision} requires `mode`")));
            }
            "form"
        }
        Some(mode) => {
            if !revision.has_mode_field() {
                notes.push(nonconformant(format!("{revision} has no `mode`")));
            }
            mode.as_str().ok_or(IncomingError::UnknownMode)?
        }
    };
    match mode {
        "form" => read_form(params, revision, message.to_owned(), notes).map(Incoming::Form),
        "url" => read_url(params, revision, message.to_owned(), notes).map(Incoming::Url),
        _ => Err(IncomingError::UnknownMode),
    }
}

/// One input request of an input-required result.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum IncomingInput {
    /// `elicitation/create`: a question to the user.
    Elicitation(Incoming),
    /// `sampling/createMessage`: its params, as sent.
    Sampling(Value),
    /// `roots/list`.
    Roots,
}

/// A 2026-07-28 input-required result, as a client reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct IncomingRound {
    /// The input requests by key, in the order of the result's map.
    pub inputs: Vec<(String, IncomingInput)>,
    /// The `requestState` to echo on the retry, unread.
    pub request_state: Option<String>,
}

/// Read a 2026-07-28 input-required result: its input requests by key and its `requestState`.
///
/// # Errors
/// An [`IncomingError`] naming the key and the rule; more than [`MAX_INPUT_REQUESTS`] requests
/// are refused before any is read.
pub fn read_input_required(result: &Value) -> Result<IncomingRound, IncomingError> {
    let result = object(result, "result")?;
    let requests = match result.get("inputRequests") {
        None | Some(Value::Null) => Map::new(),
        Some(requests) => object(requests, "inputRequests")?.clone(),
    };
    if requests.len() > MAX_INPUT_REQUESTS {
        return Err(IncomingError::TooLarge {
            what: "number of input requests",
            limit: MAX_INPUT_REQUESTS,
        });
    }
    let state = match result.get("requestState") {
        None | Some(Value::Null) => None,
        Some(state) => Some(string(Some(state), "requestState")?.to_owned()),
    };
    let mut inputs = Vec::with_capacity(requests.len());
    for (key, request) in &requests {
        let at = format!("inputRequests.{}", quote(key));
        let request = object(request, &at)?;
        let method = string(request.get("method"), &format!("{at}.method"))?;
        let input = match method {
            "elicitation/create" => {
                let params = request.get("params").unwrap_or(&Value::Null);
                let incoming =
                    read_request(params, Revision::V2026_07_28).map_err(|e| match e {
                        IncomingError::Member {
                            at: inner,
                            expected,
                        } => IncomingError::Member {
                            at: format!("{at}.params.{inner}"),
                            expected,
                        },
                        other => other,
                    })?;
                IncomingInput::Elicitation(incoming)
            }
            "sampling/createMessage" => {
                IncomingInput::Sampling(request.get("params").cloned().unwrap_or(Value::Null))
            }
            "roots/list" => IncomingInput::Roots,
            _ => {
                return Err(IncomingError::Member {
                    at: format!("{at}.method"),
                    expected: "elicitation/create, sampling/createMessage or roots/list",
                });
            }
        };
        inputs.push((key.clone(), input));
    }
    Ok(IncomingRound {
        inputs,
        request_state: state,
    })
}

fn check_option(value: &str) -> Result<(), IncomingError> {
    if value.len() > MAX_NAME_BYTES {
        return Err(IncomingError::TooLarge {
            what: "option value",
            limit: MAX_NAME_BYTES,
        });
    }
    Ok(())
}

fn nonconformant(rule: String) -> Note {
    Note::Nonconformant(rule)
}

fn object<'v>(value: &'v Value, at: &str) -> Result<&'v Map<String, Value>, IncomingError> {
    value.as_object().ok_or_else(|| IncomingError::Member {
        at: at.to_owned(),
        expected: "an object",
    })
}

fn string<'v>(value: Option<&'v Value>, at: &str) -> Result<&'v str, IncomingError> {
    value
        .and_then(Value::as_str)
        .ok_or_else(|| IncomingError::Member {
            at: at.to_owned(),
            expected: "a string",
        })
}

fn read_url(
    params: &Map<String, Value>,
    revision: Revision,
    message: String,
    mut notes: Vec<Note>,
) -> Result<IncomingUrl, IncomingError> {
    if !revision.has_url_mode() {
        notes.push(nonconformant(format!("{revision} has no URL mode")));
    }
    let text = string(params.get("url"), "url")?;
    let url =
        ElicitationUrl::parse_with(text, UrlPolicy::Production).map_err(IncomingError::Url)?;
    let elicitation_id = match params.get("elicitationId") {
        None | Some(Value::Null) => {
            if revision.has_elicitation_id() {
                notes.push(nonconformant(format!(
                    "{revision} requires `elicitationId`"
                )));
            }
            None
        }
        Some(id) => {
            if !revision.has_elicitation_id() {
                notes.push(nonconformant(format!("{revision} has no `elicitationId`")));
            }
            Some(string(Some(id), "elicitationId")?.to_owned())
        }
    };
    let host = url.host();
    if host.split('.').any(|label| {
        label
            .get(..4)
            .is_some_and(|p| p.eq_ignore_ascii_case("xn--"))
    }) {
        notes.push(Note::InternationalisedHost);
    }
    if host.starts_with('[')
        || (!host.is_empty() && host.bytes().all(|b| b.is_ascii_digit() || b == b'.'))
    {
        notes.push(Note::IpHost);
    }
    if url.scheme() == "http" {
        notes.push(Note::Loopback);
    }
    Ok(IncomingUrl {
        message,
        url,
        elicitation_id,
        notes,
    })
}

fn read_form(
    params: &Map<String, Value>,
    revision: Revision,
    message: String,
    mut notes: Vec<Note>,
) -> Result<IncomingForm, IncomingError> {
    let schema = object(
        params.get("requestedSchema").unwrap_or(&Value::Null),
        "requestedSchema",
    )?;
    if schema.get("type").and_then(Value::as_str) != Some("object") {
        return Err(IncomingError::Member {
            at: "requestedSchema.type".to_owned(),
            expected: "\"object\"",
        });
    }
    let properties = object(
        schema.get("properties").unwrap_or(&Value::Null),
        "requestedSchema.properties",
    )?;
    if properties.len() > MAX_PROPERTIES {
        return Err(IncomingError::TooLarge {
            what: "number of properties",
            limit: MAX_PROPERTIES,
        });
    }
    let required: Vec<&str> = match schema.get("required") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(names)) => names
            .iter()
            .map(|name| string(Some(name), "requestedSchema.required[]"))
            .collect::<Result<_, _>>()?,
        Some(_) => {
            return Err(IncomingError::Member {
                at: "requestedSchema.required".to_owned(),
                expected: "an array of property names",
            });
        }
    };
    let mut read = Vec::with_capacity(properties.len());
    for (name, property) in properties {
        if name.len() > MAX_NAME_BYTES {
            return Err(IncomingError::TooLarge {
                what: "property name",
                limit: MAX_NAME_BYTES,
            });
        }
        let at = format!("requestedSchema.properties.{}", quote(name));
        let property = object(property, &at)?;
        let kind = read_kind(name, property, &at, revision, &mut notes)?;
        let mut read_property =
            Property::new(name.clone(), kind).required(required.contains(&name.as_str()));
        if let Some(title) = property.get("title") {
            read_property =
                read_property.title(string(Some(title), &format!("{at}.title"))?.to_owned());
        }
        if let Some(description) = property.get("description") {
            let description = string(Some(description), &format!("{at}.description"))?;
            read_property = read_property.description(description.to_owned());
        }
        if let Some(kind) = crate::credential::credential_kind(name) {
            notes.push(Note::Credential {
                property: name.clone(),
                kind,
            });
        }
        read.push(read_property);
    }
    for name in required
        .iter()
        .filter(|name| !properties.contains_key(**name))
    {
        notes.push(nonconformant(format!(
            "`{}` is required but is not a property",
            quote(name)
        )));
    }
    let schema = RequestedSchema::new(read)?;
    Ok(IncomingForm {
        message,
        schema,
        notes,
    })
}

/// The options of an `enum` (+ `enumNames`) or a `oneOf`/`anyOf` of `{const, title}`.
fn options(
    property: &Map<String, Value>,
    at: &str,
    list: &str,
) -> Result<Option<Vec<EnumOption>>, IncomingError> {
    let titled = |member: &str| -> Result<Option<Vec<EnumOption>>, IncomingError> {
        let Some(entries) = property.get(member) else {
            return Ok(None);
        };
        let entries = entries.as_array().ok_or_else(|| IncomingError::Member {
            at: format!("{at}.{member}"),
            expected: "an array of {const, title}",
        })?;
        if entries.len() > MAX_OPTIONS {
            return Err(IncomingError::TooLarge {
                what: "number of options",
                limit: MAX_OPTIONS,
            });
        }
        entries
            .iter()
            .map(|entry| {
                let entry = object(entry, &format!("{at}.{member}[]"))?;
                let value = string(entry.get("const"), &format!("{at}.{member}[].const"))?;
                check_option(value)?;
                Ok(match entry.get("title").and_then(Value::as_str) {
                    Some(title) => EnumOption::titled(value.to_owned(), title.to_owned()),
                    None => EnumOption::new(value.to_owned()),
                })
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some)
    };
    if let Some(values) = property.get(list) {
        let values = values.as_array().ok_or_else(|| IncomingError::Member {
            at: format!("{at}.{list}"),
            expected: "an array of strings",
        })?;
        if values.len() > MAX_OPTIONS {
            return Err(IncomingError::TooLarge {
                what: "number of options",
                limit: MAX_OPTIONS,
            });
        }
        let names = property.get("enumNames").and_then(Value::as_array);
        return values
            .iter()
            .enumerate()
            .map(|(i, value)| {
                let value = string(Some(value), &format!("{at}.{list}[]"))?;
                check_option(value)?;
                let value = value.to_owned();
                Ok(match names.and_then(|n| n.get(i)).and_then(Value::as_str) {
                    Some(title) => EnumOption::titled(value, title.to_owned()),
                    None => EnumOption::new(value),
                })
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some);
    }
    match titled("oneOf")? {
        Some(options) => Ok(Some(options)),
        None => titled("anyOf"),
    }
}

fn read_kind(
    name: &str,
    property: &Map<String, Value>,
    at: &str,
    revision: Revision,
    notes: &mut Vec<Note>,
) -> Result<PropertyKind, IncomingError> {
    let unsupported = |found: String| IncomingError::UnsupportedProperty {
        property: quote(name),
        found,
    };
    let kind = property.get("type").and_then(Value::as_str);
    let u32_of = |member: &str| -> Result<Option<u32>, IncomingError> {
        match property.get(member) {
            None | Some(Value::Null) => Ok(None),
            Some(value) => value
                .as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .map(Some)
                .ok_or_else(|| IncomingError::Member {
                    at: format!("{at}.{member}"),
                    expected: "a whole number from 0 to 4294967295",
                }),
        }
    };
    let number_of = |member: &str| -> Result<Option<f64>, IncomingError> {
        match property.get(member) {
            None | Some(Value::Null) => Ok(None),
            Some(value) => value
                .as_f64()
                .map(Some)
                .ok_or_else(|| IncomingError::Member {
                    at: format!("{at}.{member}"),
                    expected: "a number",
                }),
        }
    };
    // A default on anything but a boolean, where the revision has none (2025-06-18).
    let kind_has_default = kind != Some("boolean") && property.contains_key("default");
    if kind_has_default && !revision.has_defaults_beyond_booleans() {
        notes.push(nonconformant(format!(
            "`{}` has a `default`, which {revision} allows on booleans only",
            quote(name)
        )));
    }
    match kind {
        Some("string") => {
            if let Some(options) = options(property, at, "enum")? {
                let style = if property.contains_key("enumNames") {
                    if !revision.has_enum_names() {
                        notes.push(nonconformant(format!(
                            "`{}` titles its options with `enumNames`, which {revision} does not have",
                            quote(name)
                        )));
                    }
                    SelectStyle::Legacy
                } else {
                    if !property.contains_key("enum")
                        && property.contains_key("oneOf")
                        && !revision.has_one_of_selects()
                    {
                        notes.push(nonconformant(format!(
                            "`{}` is a `oneOf` single-select, which {revision} does not have (it titles options with `enumNames`)",
                            quote(name)
                        )));
                    }
                    SelectStyle::Standard
                };
                let mut select = SelectSchema::new(options).style(style);
                if let Some(default) = property.get("default") {
                    select = select
                        .default_value(string(Some(default), &format!("{at}.default"))?.to_owned());
                }
                return Ok(select.into());
            }
            let mut text = StringSchema::new();
            if let Some(format) = property.get("format") {
                let format = string(Some(format), &format!("{at}.format"))?;
                match Format::from_name(format) {
                    Some(known) => text = text.format(known),
                    None => notes.push(nonconformant(format!(
                        "`{}` has the format \"{}\", which no revision defines; it is read as plain text",
                        quote(name),
                        quote(format)
                    ))),
                }
            }
            if let Some(min) = u32_of("minLength")? {
                text = text.min_length(min);
            }
            if let Some(max) = u32_of("maxLength")? {
                text = text.max_length(max);
            }
            if let Some(default) = property.get("default") {
                text =
                    text.default_value(string(Some(default), &format!("{at}.default"))?.to_owned());
            }
            Ok(text.into())
        }
        Some("integer") => {
            let integer = |member: &str| -> Result<Option<i128>, IncomingError> {
                match property.get(member) {
                    None | Some(Value::Null) => Ok(None),
                    Some(value) => value
                        .as_i64()
                        .map(i128::from)
                        .or_else(|| value.as_u64().map(i128::from))
                        .map(Some)
                        .ok_or_else(|| IncomingError::Member {
                            at: format!("{at}.{member}"),
                            expected: "a whole number within 64 bits",
                        }),
                }
            };
            let mut schema = IntegerSchema::new();
            if let Some(min) = integer("minimum")? {
                schema = schema.minimum(min);
            }
            if let Some(max) = integer("maximum")? {
                schema = schema.maximum(max);
            }
            if let Some(default) = integer("default")? {
                schema = schema.default_value(default);
            }
            Ok(schema.into())
        }
        Some("number") => {
            let mut schema = NumberSchema::new();
            if let Some(min) = number_of("minimum")? {
                schema = schema.minimum(min);
            }
            if let Some(max) = number_of("maximum")? {
                schema = schema.maximum(max);
            }
            if let Some(default) = number_of("default")? {
                schema = schema.default_value(default);
            }
            Ok(schema.into())
        }
        Some("boolean") => {
            let mut schema = BooleanSchema::new();
            match property.get("default") {
                None | Some(Value::Null) => {}
                Some(Value::Bool(default)) => schema = schema.default_value(*default),
                Some(_) => {
                    return Err(IncomingError::Member {
                        at: format!("{at}.default"),
                        expected: "a boolean",
                    });
                }
            }
            Ok(schema.into())
        }
        Some("array") => {
            if !revision.has_multi_select() {
                notes.push(nonconformant(format!(
                    "`{}` is a multi-select, which {revision} does not have",
                    quote(name)
                )));
            }
            let items = object(
                property.get("items").unwrap_or(&Value::Null),
                &format!("{at}.items"),
            )?;
            let options = options(items, &format!("{at}.items"), "enum")?.ok_or_else(|| {
                unsupported("an array that is not a multi-select of options".to_owned())
            })?;
            let mut select = MultiSelectSchema::new(options);
            if let Some(min) = u32_of("minItems")? {
                select = select.min_items(min);
            }
            if let Some(max) = u32_of("maxItems")? {
                select = select.max_items(max);
            }
            if let Some(default) = property.get("default") {
                let default = default.as_array().ok_or_else(|| IncomingError::Member {
                    at: format!("{at}.default"),
                    expected: "an array of strings",
                })?;
                let default = default
                    .iter()
                    .map(|value| {
                        string(Some(value), &format!("{at}.default[]")).map(|s| s.to_owned().into())
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                select = select.default_value(default);
            }
            Ok(select.into())
        }
        Some("object") => Err(unsupported("a nested object".to_owned())),
        Some(other) => Err(unsupported(format!("of type \"{}\"", quote(other)))),
        None => Err(IncomingError::Member {
            at: format!("{at}.type"),
            expected: "one of \"string\", \"number\", \"integer\", \"boolean\", \"array\"",
        }),
    }
}
