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
