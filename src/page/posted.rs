//! A posted form, read so that every copy of what the user typed that the library makes lives in
//! a buffer wiped when it is dropped ([`Zeroizing`]), on every path: the body as it arrives, each
//! field's value as it is decoded, and whatever is refused (a value that breaks a rule, a field
//! sent twice, a field the page does not have, a body too long, a form that is no form).
//!
//! `serde_urlencoded` (and `form_urlencoded` under it) would leave copies behind: a value with a
//! `+` or a `%` is decoded through intermediate `String`s freed unwiped. So the form is split
//! here, and each value decoded by `percent-encoding` straight into a wiped buffer of its own.
//!
//! What the library cannot reach is named in SECURITY.md: the buffers hyper reads the body into
//! (each frame's `Bytes`), TLS's, and the kernel's.

use std::future::poll_fn;
use std::pin::Pin;

use axum::body::{Body, HttpBody};
use percent_encoding::percent_decode;
use secrecy::zeroize::Zeroizing;

/// Why a body is not read as a form.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum NotRead {
    /// Longer than the pages take (`MAX_BODY_BYTES`).
    TooLong,
    /// The body could not be read (the connection broke).
    Broken,
    /// Not `application/x-www-form-urlencoded` text: a name or value is not UTF-8 once decoded.
    NotAForm,
}

/// A posted form's fields, in order: each name, and its value in a buffer wiped on drop.
pub(super) type Fields = Vec<(String, Zeroizing<String>)>;

/// The request's body, at most `max` bytes, in one buffer wiped on drop: it grows into a new
/// wiped buffer of its own, never by a reallocation that would free the old one unwiped.
pub(super) async fn read_body(mut body: Body, max: usize) -> Result<Zeroizing<Vec<u8>>, NotRead> {
    let hint = usize::try_from(body.size_hint().lower()).unwrap_or(max);
    let mut buffer = Zeroizing::new(Vec::with_capacity(hint.min(max)));
    while let Some(frame) = poll_fn(|context| Pin::new(&mut body).poll_frame(context)).await {
        let frame = frame.map_err(|_| NotRead::Broken)?;
        if let Ok(data) = frame.into_data() {
            append(&mut buffer, &data, max)?;
        }
    }
    Ok(buffer)
}

/// `data` added to `buffer`, within `max` bytes in all.
fn append(buffer: &mut Zeroizing<Vec<u8>>, data: &[u8], max: usize) -> Result<(), NotRead> {
    let needed = buffer
        .len()
        .checked_add(data.len())
        .filter(|needed| *needed <= max)
        .ok_or(NotRead::TooLong)?;
    if needed > buffer.capacity() {
        let mut larger = Zeroizing::new(Vec::with_capacity(
            needed.max(buffer.capacity().saturating_mul(2)).min(max),
        ));
        larger.extend_from_slice(buffer);
        // The smaller buffer is wiped as it is dropped.
        *buffer = larger;
    }
    buffer.extend_from_slice(data);
    Ok(())
}

/// The fields of an `application/x-www-form-urlencoded` body, as the URL standard reads them:
/// split on `&`, then on the first `=`; `+` is a space and `%XX` a byte.
pub(super) fn fields(body: &[u8]) -> Result<Fields, NotRead> {
    let mut fields = Vec::new();
    for pair in body
        .split(|byte| *byte == b'&')
        .filter(|pair| !pair.is_empty())
    {
        let (name, value) = match pair.iter().position(|byte| *byte == b'=') {
            Some(at) => (pair.get(..at), pair.get(at + 1..)),
            None => (Some(pair), Some(&[][..])),
        };
        let (Some(name), Some(value)) = (name, value) else {
            return Err(NotRead::NotAForm);
        };
        let name = decode(name)?;
        fields.push((name.as_str().to_owned(), decode(value)?));
    }
    Ok(fields)
}

/// One name or value, decoded into a wiped buffer at most as long as `raw` (decoding only
/// shortens), so it never grows by reallocation.
fn decode(raw: &[u8]) -> Result<Zeroizing<String>, NotRead> {
    let mut bytes = Zeroizing::new(Vec::with_capacity(raw.len()));
    for (n, piece) in raw.split(|byte| *byte == b'+').enumerate() {
        if n > 0 {
            bytes.push(b' ');
        }
        bytes.extend(percent_decode(piece));
    }
    // Taken out of its wiped buffer, not copied; a failure hands the bytes back to be wiped.
    match String::from_utf8(std::mem::take(&mut *bytes)) {
        Ok(text) => Ok(Zeroizing::new(text)),
        Err(error) => {
            drop(Zeroizing::new(error.into_bytes()));
            Err(NotRead::NotAForm)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(body: &str) -> Vec<(String, String)> {
        fields(body.as_bytes())
            .unwrap()
            .into_iter()
            .map(|(name, value)| (name, value.as_str().to_owned()))
            .collect()
    }

    #[test]
    fn a_form_reads_as_the_url_standard_reads_it() {
        let body = "_csrf=t0k&key=a+b%2Bc%25d%2F%C3%A9&empty=&bare&&=v&k%3D=x%26y";
        assert_eq!(
            read(body),
            [
                ("_csrf", "t0k"),
                ("key", "a b+c%d/é"),
                ("empty", ""),
                ("bare", ""),
                ("", "v"),
                ("k=", "x&y"),
            ]
            .map(|(name, value)| (name.to_owned(), value.to_owned()))
        );
        // As serde_urlencoded (the parser axum's `Form` uses) reads it.
        let theirs: Vec<(String, String)> = serde_urlencoded::from_str(body).unwrap();
        assert_eq!(read(body), theirs);
        // Text that is not UTF-8 once decoded is no form.
        assert_eq!(fields(b"key=%FF").unwrap_err(), NotRead::NotAForm);
    }

    #[test]
    fn a_body_grows_within_its_bound_and_no_further() {
        let mut buffer = Zeroizing::new(Vec::new());
        append(&mut buffer, b"0123", 8).unwrap();
        append(&mut buffer, b"4567", 8).unwrap();
        assert_eq!(buffer.as_slice(), b"01234567");
        assert_eq!(append(&mut buffer, b"8", 8), Err(NotRead::TooLong));
        assert_eq!(buffer.as_slice(), b"01234567");
    }
}
