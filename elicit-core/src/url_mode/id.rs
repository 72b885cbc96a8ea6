//! The `elicitationId` of a 2025-11-25 URL elicitation.

use std::fmt;

use serde::{Serialize, Serializer};

use super::UrlRequestError;

/// The `elicitationId` of a 2025-11-25 URL elicitation: 128 random bits from the operating
/// system, as 32 lowercase hex digits, so that no one can guess another user's id.
///
/// ```
/// # extern crate elicit_core as mcp_elicit;
/// use mcp_elicit::url_mode::ElicitationId;
/// let id = ElicitationId::random()?;
/// assert_eq!(id.as_str().len(), 32);
/// assert_ne!(id, ElicitationId::random()?);
/// # Ok::<(), mcp_elicit::url_mode::UrlRequestError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ElicitationId(String);

impl ElicitationId {
    /// The longest id [`ElicitationId::parse`] accepts.
    pub const MAX_LEN: usize = crate::limits::MAX_ELICITATION_ID_BYTES;

    /// A fresh unguessable id.
    pub fn random() -> Result<Self, UrlRequestError> {
        let mut bytes = [0u8; 16];
        getrandom::fill(&mut bytes).map_err(|_| UrlRequestError::NoRandomness)?;
        let mut hex = String::with_capacity(32);
        for b in bytes {
            hex.push(hex_digit(b >> 4));
            hex.push(hex_digit(b & 0xf));
        }
        Ok(Self(hex))
    }

    /// An id made earlier (stored by the server, or echoed by a client): 1 to
    /// [`MAX_LEN`](Self::MAX_LEN) printable ASCII characters without spaces.
    pub fn parse(id: &str) -> Result<Self, InvalidElicitationId> {
        if id.is_empty() || id.len() > Self::MAX_LEN || !id.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(InvalidElicitationId);
        }
        Ok(Self(id.to_owned()))
    }

    /// A flow's id, written as 32 hex digits: printable ASCII, so valid.
    #[cfg(feature = "mrtr")]
    pub(crate) fn from_flow(hex: &str) -> Self {
        Self(hex.to_owned())
    }

    /// The id as sent.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

fn hex_digit(nibble: u8) -> char {
    char::from(
        b"0123456789abcdef"
            .get(usize::from(nibble & 0xf))
            .copied()
            .unwrap_or(b'0'),
    )
}

impl fmt::Display for ElicitationId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Serialize for ElicitationId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

/// A string that cannot be an `elicitationId`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InvalidElicitationId;

impl fmt::Display for InvalidElicitationId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "an elicitationId is 1 to {} printable ASCII characters without spaces",
            ElicitationId::MAX_LEN
        )
    }
}

impl std::error::Error for InvalidElicitationId {}
