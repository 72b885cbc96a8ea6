//! Reading a request's members, each error naming where the member is.

use serde_json::{Map, Value};

use super::error::IncomingError;
use super::incoming::Note;

pub(super) fn nonconformant(rule: String) -> Note {
    Note::Nonconformant(rule)
}

pub(super) fn object<'v>(
    value: &'v Value,
    at: &str,
) -> Result<&'v Map<String, Value>, IncomingError> {
    value.as_object().ok_or_else(|| IncomingError::Member {
        at: at.to_owned(),
        expected: "an object",
    })
}

pub(super) fn string<'v>(value: Option<&'v Value>, at: &str) -> Result<&'v str, IncomingError> {
    value
        .and_then(Value::as_str)
        .ok_or_else(|| IncomingError::Member {
            at: at.to_owned(),
            expected: "a string",
        })
}

/// A string member of at most `limit` bytes, refused before it is copied or read further.
pub(super) fn bounded<'v>(
    value: Option<&'v Value>,
    at: &str,
    limit: usize,
) -> Result<&'v str, IncomingError> {
    bounded_at(value, limit, || at.to_owned())
}

/// [`bounded`], for a member of a long list: its path is written only for an error.
pub(super) fn bounded_at(
    value: Option<&Value>,
    limit: usize,
    at: impl FnOnce() -> String,
) -> Result<&str, IncomingError> {
    match value.and_then(Value::as_str) {
        Some(text) if text.len() <= limit => Ok(text),
        Some(_) => Err(IncomingError::TooLarge {
            at: at(),
            what: "bytes",
            limit,
        }),
        None => Err(IncomingError::Member {
            at: at(),
            expected: "a string",
        }),
    }
}

/// [`object`], for a member of a long list: its path is written only for an error.
pub(super) fn object_at(
    value: &Value,
    at: impl FnOnce() -> String,
) -> Result<&Map<String, Value>, IncomingError> {
    value.as_object().ok_or_else(|| IncomingError::Member {
        at: at(),
        expected: "an object",
    })
}

/// A member holds more `what` than `limit`.
pub(super) fn too_large(at: &str, what: &'static str, limit: usize) -> IncomingError {
    IncomingError::TooLarge {
        at: at.to_owned(),
        what,
        limit,
    }
}
