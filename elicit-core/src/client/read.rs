//! Reading an `elicitation/create`: its message and mode, then a form or a URL.

use serde_json::{Map, Value};

use super::error::IncomingError;
use super::form::read_form;
use super::incoming::{Incoming, IncomingUrl, Note};
use super::member::{bounded, nonconformant, object, string};
use crate::limits::MAX_MESSAGE_BYTES;
use crate::revision::Revision;
use crate::url::{ElicitationUrl, UrlPolicy};

/// Read the params of an `elicitation/create` the server sent on `revision`.
///
/// # Errors
/// An [`IncomingError`] naming the member and the rule, when the request cannot be shown.
pub fn read_request(params: &Value, revision: Revision) -> Result<Incoming, IncomingError> {
    let params = object(params, "params")?;
    let mut notes = Vec::new();
    let message = bounded(params.get("message"), "message", MAX_MESSAGE_BYTES)?;
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
