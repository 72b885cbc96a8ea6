//! What a request brings to a round: the client's declared capabilities, its `inputResponses`
//! and its `requestState`.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::capability::DeclaredCapabilities;
use super::error::MrtrError;

/// What a request brings to a round: the client's declared capabilities, its `inputResponses`
/// and its `requestState`. Borrowed from the request; nothing is copied.
///
/// [`from_params`](Retry::from_params) reads all three from a request's `params`; a transport
/// that has already parsed them (`CallToolRequestParams`) uses [`new`](Retry::new) and the
/// `with_*` methods instead.
///
/// ```
/// # extern crate elicit_core as mcp_elicit;
/// use mcp_elicit::Mode;
/// use mcp_elicit::mrtr::{Capability, Retry};
/// use serde_json::json;
///
/// let params = json!({
///     "name": "deploy",
///     "arguments": { "service": "api" },
///     "_meta": { "io.modelcontextprotocol/clientCapabilities": { "elicitation": {} } },
///     "inputResponses": { "target": { "action": "decline" } },
///     "requestState": "…",
/// });
/// let retry = Retry::from_params(&params)?;
/// assert!(retry.capabilities().supports(Capability::Elicitation(Mode::Form)));
/// assert_eq!(retry.request_state(), Some("…"));
/// # Ok::<(), mcp_elicit::mrtr::MrtrError>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct Retry<'a> {
    pub(super) capabilities: DeclaredCapabilities,
    pub(super) responses: Responses<'a>,
    pub(super) request_state: Option<&'a str>,
}

#[derive(Clone, Debug, Default)]
pub(super) enum Responses<'a> {
    #[default]
    None,
    Object(&'a Map<String, Value>),
    Pairs(BTreeMap<&'a str, &'a Value>),
}

impl Responses<'_> {
    /// The responses, copied for a round to own (they are small: one answer per key asked).
    pub(super) fn to_owned_map(&self) -> BTreeMap<String, Value> {
        match self {
            Self::None => BTreeMap::new(),
            Self::Object(map) => map.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
            Self::Pairs(map) => map
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).clone()))
                .collect(),
        }
    }
}

impl<'a> Retry<'a> {
    /// A request with these capabilities and no responses or state (a first request).
    #[must_use]
    pub fn new(capabilities: DeclaredCapabilities) -> Self {
        Self {
            capabilities,
            ..Self::default()
        }
    }

    /// Reads `_meta` capabilities, `inputResponses` and `requestState` from a request's `params`.
    /// A `null` member counts as absent.
    ///
    /// # Errors
    /// `-32602` errors naming the member: [`MrtrError::ParamsNotAnObject`],
    /// [`MrtrError::Capabilities`] (`_meta` and its capabilities are required in 2026-07-28), [`MrtrError::InputResponsesNotAnObject`],
    /// [`MrtrError::RequestStateNotAString`].
    pub fn from_params(params: &'a Value) -> Result<Self, MrtrError> {
        let Value::Object(members) = params else {
            return Err(MrtrError::ParamsNotAnObject {
                found: crate::violation::json_kind(params),
            });
        };
        let member = |name: &str| members.get(name).filter(|value| !value.is_null());
        let capabilities = DeclaredCapabilities::from_request_params(params)?;
        let mut retry = Self::new(capabilities);
        if let Some(responses) = member("inputResponses") {
            retry = retry.with_input_responses(responses)?;
        }
        match member("requestState") {
            None => {}
            Some(Value::String(state)) => retry.request_state = Some(state),
            Some(other) => {
                return Err(MrtrError::RequestStateNotAString {
                    found: crate::violation::json_kind(other),
                });
            }
        }
        Ok(retry)
    }

    /// The retry's `inputResponses`, as JSON.
    ///
    /// # Errors
    /// [`MrtrError::InputResponsesNotAnObject`] (`-32602`) if it is not an object.
    pub fn with_input_responses(mut self, responses: &'a Value) -> Result<Self, MrtrError> {
        match responses {
            Value::Object(map) => {
                self.responses = Responses::Object(map);
                Ok(self)
            }
            other => Err(MrtrError::InputResponsesNotAnObject {
                found: crate::violation::json_kind(other),
            }),
        }
    }

    /// The retry's `inputResponses` as already-parsed key–value pairs, e.g. a
    /// `BTreeMap<String, Value>` from a transport's own request type.
    #[must_use]
    pub fn with_input_response_pairs<I, K>(mut self, responses: I) -> Self
    where
        I: IntoIterator<Item = (&'a K, &'a Value)>,
        K: AsRef<str> + ?Sized + 'a,
    {
        self.responses = Responses::Pairs(
            responses
                .into_iter()
                .map(|(key, value)| (key.as_ref(), value))
                .collect(),
        );
        self
    }

    /// The retry's `requestState`, exactly as the client echoed it.
    #[must_use]
    pub fn with_request_state(mut self, request_state: Option<&'a str>) -> Self {
        self.request_state = request_state;
        self
    }

    /// The capabilities the client declared on this request.
    #[must_use]
    pub fn capabilities(&self) -> &DeclaredCapabilities {
        &self.capabilities
    }

    /// The `requestState` the client echoed, if any.
    #[must_use]
    pub fn request_state(&self) -> Option<&'a str> {
        self.request_state
    }
}
