//! `InputRequests` and `InputRequiredResult`: what a server answers when it needs input.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserializer};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::capability::{Capability, DeclaredCapabilities};
use super::error::MrtrError;
use crate::request::FormRequest;
use crate::url_mode::UrlRequest;

/// The input requests of one round, keyed by server-assigned identifiers: form elicitations,
/// and the other kinds (`sampling/createMessage`, `roots/list`) passed through as JSON.
///
/// Every key is unique (inserting a key twice is [`MrtrError::DuplicateKey`], naming the key),
/// and every value is one of the three request kinds the spec allows
/// ([`MrtrError::UnsupportedInputRequest`] otherwise). Several elicitations can go in one round:
/// ask for everything you need at once rather than in sequential prompts.
///
/// ```
/// # extern crate elicit_core as mcp_elicit;
/// use mcp_elicit::mrtr::{InputRequests, MrtrError};
/// use mcp_elicit::{FormRequest, schema::{Property, RequestedSchema, StringSchema}};
/// use serde_json::json;
///
/// let login = FormRequest::new(
///     "Please provide your GitHub username",
///     RequestedSchema::new(vec![Property::new("name", StringSchema::new())])?,
/// )?;
/// let requests = InputRequests::new()
///     .elicit("github_login", &login)?
///     .sampling("capital_of_france", json!({
///         "messages": [{"role": "user", "content": {"type": "text", "text": "What is the capital of France?"}}],
///         "maxTokens": 100,
///     }))?;
/// assert_eq!(requests.len(), 2);
///
/// let twice = requests.elicit("github_login", &login).unwrap_err();
/// assert_eq!(twice.to_string(), "input request key `github_login` is used twice; keys must be unique within a request");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Default)]
pub struct InputRequests(
    /// In the order they were added. A derived form's request is borrowed from where it was
    /// made, once per type ([`FormRequest`]'s cache), so asking it copies nothing.
    Vec<(String, Cow<'static, Value>)>,
);

impl PartialEq for InputRequests {
    /// The same keys with equal requests, in any order (as JSON objects compare).
    fn eq(&self, other: &Self) -> bool {
        fn by_key(requests: &InputRequests) -> Vec<(&str, &Value)> {
            let mut sorted: Vec<(&str, &Value)> = requests.iter().collect();
            sorted.sort_unstable_by_key(|(key, _)| *key);
            sorted
        }
        self.len() == other.len() && by_key(self) == by_key(other)
    }
}

impl fmt::Debug for InputRequests {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("InputRequests")
            .field(&DebugMap(self))
            .finish()
    }
}

/// The requests as a map, in their order, for [`InputRequests`]' `Debug`.
struct DebugMap<'a>(&'a InputRequests);

impl fmt::Debug for DebugMap<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.0.iter()).finish()
    }
}

impl Serialize for InputRequests {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (key, request) in &self.0 {
            map.serialize_entry(key, request.as_ref())?;
        }
        map.end()
    }
}

impl InputRequests {
    /// No requests yet.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a form-mode `elicitation/create` request under `key`.
    ///
    /// # Errors
    /// [`MrtrError::DuplicateKey`] if `key` is already used.
    pub fn elicit<T>(
        mut self,
        key: impl Into<String>,
        form: &FormRequest<T>,
    ) -> Result<Self, MrtrError> {
        self.insert_checked(key.into(), elicit_request(form))?;
        Ok(self)
    }

    /// Adds a URL-mode `elicitation/create` request under `key`.
    ///
    /// # Errors
    /// [`MrtrError::DuplicateKey`] if `key` is already used.
    pub fn elicit_url(
        mut self,
        key: impl Into<String>,
        request: &UrlRequest,
    ) -> Result<Self, MrtrError> {
        self.insert_checked(key.into(), elicit_request(request))?;
        Ok(self)
    }

    /// Adds a `sampling/createMessage` request under `key`; `params` is its
    /// `CreateMessageRequestParams`, passed through as given.
    ///
    /// # Errors
    /// [`MrtrError::DuplicateKey`] if `key` is already used;
    /// [`MrtrError::UnsupportedInputRequest`] if `params` is not an object.
    pub fn sampling(mut self, key: impl Into<String>, params: Value) -> Result<Self, MrtrError> {
        let request = Value::Object(Map::from_iter([
            ("method".to_owned(), Value::from("sampling/createMessage")),
            ("params".to_owned(), params),
        ]));
        self.insert(key, request)?;
        Ok(self)
    }

    /// Adds a `roots/list` request under `key`.
    ///
    /// # Errors
    /// [`MrtrError::DuplicateKey`] if `key` is already used.
    pub fn roots(mut self, key: impl Into<String>) -> Result<Self, MrtrError> {
        let request = Value::Object(Map::from_iter([(
            "method".to_owned(),
            Value::from("roots/list"),
        )]));
        self.insert(key, request)?;
        Ok(self)
    }

    /// Adds any input request given as JSON (`{"method": .., "params": ..}`), checking that it is
    /// an `elicitation/create`, `sampling/createMessage` or `roots/list` request with object
    /// `params` (required for the first two).
    ///
    /// # Errors
    /// [`MrtrError::DuplicateKey`] if `key` is already used;
    /// [`MrtrError::UnsupportedInputRequest`] naming the rule the request breaks.
    pub fn insert(&mut self, key: impl Into<String>, request: Value) -> Result<(), MrtrError> {
        let key = key.into();
        if let Err(rule) = check_input_request(&request) {
            return Err(MrtrError::UnsupportedInputRequest { key, rule });
        }
        self.insert_checked(key, request)
    }

    fn insert_checked(&mut self, key: String, request: Value) -> Result<(), MrtrError> {
        if self.get(&key).is_some() {
            return Err(MrtrError::DuplicateKey { key });
        }
        self.0.push((key, Cow::Owned(request)));
        Ok(())
    }

    /// Inserts or replaces, for requests built by this crate (already known to be allowed).
    pub(crate) fn replace(&mut self, key: String, request: Cow<'static, Value>) {
        match self.0.iter_mut().find(|(k, _)| *k == key) {
            Some((_, kept)) => *kept = request,
            None => self.0.push((key, request)),
        }
    }

    /// The request under `key`.
    #[must_use]
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.0
            .iter()
            .find_map(|(k, request)| (k == key).then_some(request.as_ref()))
    }

    /// The keys, in the order the requests were added.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(|(key, _)| key.as_str())
    }

    /// Each key with its request, in the order they were added.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.0
            .iter()
            .map(|(key, request)| (key.as_str(), request.as_ref()))
    }

    /// Where each request was made, by key, if every one is a derived form's request made once
    /// per type (`None` otherwise): requests with the same places are the same JSON, for as long
    /// as the process runs. For a transport that converts the same requests on every call.
    pub(crate) fn places(&self) -> Option<Vec<(&str, usize)>> {
        self.0
            .iter()
            .map(|(key, request)| match request {
                Cow::Borrowed(made) => Some((key.as_str(), std::ptr::from_ref(*made) as usize)),
                Cow::Owned(_) => None,
            })
            .collect()
    }

    /// How many requests there are.
    #[must_use]
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are none.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Checks that the client declared every capability these requests need; the spec forbids
    /// sending any other.
    ///
    /// # Errors
    /// [`MrtrError::MissingCapabilities`], listing every key whose capability is missing.
    ///
    /// ```
    /// # extern crate elicit_core as mcp_elicit;
    /// use mcp_elicit::mrtr::{DeclaredCapabilities, InputRequests};
    /// let requests = InputRequests::new().roots("workspace")?;
    /// let error = requests.check_capabilities(&DeclaredCapabilities::NONE).unwrap_err();
    /// assert_eq!(error.to_jsonrpc_error().code(), -32021);
    /// assert_eq!(error.to_jsonrpc_error().data(), Some(&serde_json::json!({"requiredCapabilities": {"roots": {}}})));
    /// # Ok::<(), mcp_elicit::mrtr::MrtrError>(())
    /// ```
    pub fn check_capabilities(&self, declared: &DeclaredCapabilities) -> Result<(), MrtrError> {
        let missing: Vec<(String, Capability)> = self
            .iter()
            .filter_map(|(key, request)| {
                let needed = Capability::of_input_request(request)?;
                (!declared.supports(needed)).then(|| (key.to_owned(), needed))
            })
            .collect();
        if missing.is_empty() {
            Ok(())
        } else {
            Err(MrtrError::MissingCapabilities(missing))
        }
    }

    /// The requests as a JSON map, for a transport's own types.
    #[must_use]
    pub fn into_map(self) -> Map<String, Value> {
        self.0
            .into_iter()
            .map(|(key, request)| (key, request.into_owned()))
            .collect()
    }
}

/// The `elicitation/create` input request for a form or a URL request. Their params serialize
/// to a map of strings and schemas, which cannot fail.
pub(crate) fn elicit_request(params: &impl Serialize) -> Value {
    let params = serde_json::to_value(params).unwrap_or(Value::Null);
    Value::Object(Map::from_iter([
        ("method".to_owned(), Value::from("elicitation/create")),
        ("params".to_owned(), params),
    ]))
}

fn check_input_request(request: &Value) -> Result<(), &'static str> {
    let Value::Object(request) = request else {
        return Err("an input request must be an object with `method` and `params`");
    };
    let params_required = match request.get("method").and_then(Value::as_str) {
        Some("elicitation/create" | "sampling/createMessage") => true,
        Some("roots/list") => false,
        _ => {
            return Err(
                "`method` must be \"elicitation/create\", \"sampling/createMessage\" or \"roots/list\"",
            );
        }
    };
    match request.get("params") {
        Some(Value::Object(_)) => Ok(()),
        None if !params_required => Ok(()),
        None => Err("`params` is required for this method"),
        Some(_) => Err("`params` must be an object"),
    }
}

/// The result a server answers with when it needs input before it can complete a request
/// (`resultType: "input_required"`): keyed input requests, sealed request state, or both.
///
/// The spec requires at least one of the two; [`new`](InputRequiredResult::new) enforces it.
/// Serializes to exactly the `InputRequiredResult` object, ready to be the `result` of a
/// `tools/call`, `prompts/get` or `resources/read` response; deserializing checks the same rules.
/// Most handlers never build one by hand: [`Round::answer`](super::Round::answer) does.
///
/// ```
/// # extern crate elicit_core as mcp_elicit;
/// use mcp_elicit::mrtr::{InputRequests, InputRequiredResult};
/// use serde_json::json;
///
/// let result = InputRequiredResult::new(InputRequests::new().roots("workspace")?, None)?;
/// assert_eq!(serde_json::to_value(&result)?, json!({
///     "resultType": "input_required",
///     "inputRequests": { "workspace": { "method": "roots/list" } },
/// }));
///
/// let empty = InputRequiredResult::new(InputRequests::new(), None).unwrap_err();
/// assert_eq!(empty.to_string(), "an InputRequiredResult must carry at least one of `inputRequests` or `requestState`");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct InputRequiredResult {
    input_requests: InputRequests,
    request_state: Option<String>,
}

impl InputRequiredResult {
    /// The `resultType` of an input-required result.
    pub const RESULT_TYPE: &'static str = "input_required";

    /// A result asking for `input_requests` (omitted when empty) and carrying `request_state`.
    ///
    /// # Errors
    /// [`MrtrError::EmptyResult`] if there are no input requests and no state.
    pub fn new(
        input_requests: InputRequests,
        request_state: Option<String>,
    ) -> Result<Self, MrtrError> {
        if input_requests.is_empty() && request_state.is_none() {
            return Err(MrtrError::EmptyResult);
        }
        Ok(Self {
            input_requests,
            request_state,
        })
    }

    /// The input requests (empty when the result carries only state).
    #[must_use]
    pub fn input_requests(&self) -> &InputRequests {
        &self.input_requests
    }

    /// The opaque `requestState` the client must echo on its retry.
    #[must_use]
    pub fn request_state(&self) -> Option<&str> {
        self.request_state.as_deref()
    }

    /// The two parts, for a transport's own result type.
    #[must_use]
    pub fn into_parts(self) -> (InputRequests, Option<String>) {
        (self.input_requests, self.request_state)
    }

    /// The result as a JSON value.
    #[must_use]
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

impl Serialize for InputRequiredResult {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("resultType", Self::RESULT_TYPE)?;
        if !self.input_requests.is_empty() {
            map.serialize_entry("inputRequests", &self.input_requests)?;
        }
        if let Some(state) = &self.request_state {
            map.serialize_entry("requestState", state)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for InputRequiredResult {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Wire {
            result_type: String,
            #[serde(default)]
            input_requests: Option<Map<String, Value>>,
            #[serde(default)]
            request_state: Option<String>,
        }
        let wire = Wire::deserialize(deserializer)?;
        if wire.result_type != Self::RESULT_TYPE {
            return Err(de::Error::custom(format_args!(
                "`resultType` must be \"{}\", but is \"{}\"",
                Self::RESULT_TYPE,
                wire.result_type
            )));
        }
        let mut requests = InputRequests::new();
        for (key, request) in wire.input_requests.unwrap_or_default() {
            // The keys of a JSON map are unique already: checked one by one, a hostile result's
            // many keys would cost their square.
            if let Err(rule) = check_input_request(&request) {
                return Err(de::Error::custom(MrtrError::UnsupportedInputRequest {
                    key,
                    rule,
                }));
            }
            requests.0.push((key, Cow::Owned(request)));
        }
        Self::new(requests, wire.request_state).map_err(de::Error::custom)
    }
}
