//! What a host can show: a form or a page, what a careful host should know about it, and the
//! `ElicitResult` it answers with.

use std::fmt;

use serde_json::{Map, Value};

use crate::outcome::Action;
use crate::requested::RequestedSchema;
use crate::url::ElicitationUrl;
use crate::violation::Violations;

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
    pub(super) message: String,
    pub(super) schema: RequestedSchema,
    pub(super) notes: Vec<Note>,
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
    pub(super) message: String,
    pub(super) url: ElicitationUrl,
    pub(super) elicitation_id: Option<String>,
    pub(super) notes: Vec<Note>,
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
    /// A form field whose name, title or description looks like a credential: the spec forbids
    /// asking for one in form mode. The host should say so before the user types anything, and
    /// should not echo what is typed nor show it again.
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
