//! The bounds on what a client sends, checked before any work is done on it.

/// The largest reply, in bytes of JSON text, that [`parse_reply_str`](crate::Elicit::from_reply_str)
/// reads. A form of a few flat fields is a few hundred bytes; anything near this is hostile.
pub const MAX_REPLY_BYTES: usize = 256 * 1024;

/// The longest string, in bytes, that validation reads from a reply's `content`.
///
/// The text entry points never see a longer one (it cannot fit in [`MAX_REPLY_BYTES`]); the
/// `&Value` entry points ([`Elicit::from_reply`](crate::Elicit::from_reply),
/// [`FormRequest::parse_reply`](crate::FormRequest::parse_reply), …) refuse one
/// ([`Rule::TooLarge`](crate::Rule::TooLarge)) before counting its characters, checking its
/// format or copying it (a `Value`'s strings are borrowed until every rule holds), so a reply
/// that arrived as an already-parsed value is held to the same bound as one that arrived as text.
///
/// The other dimensions of a hostile `content` need no limit of their own: a member the schema
/// does not name is compared with the property names and skipped unread, a nested value is
/// skipped without recursing, and a multi-select's array is read no further than one item past
/// its options; so the work is linear in the reply's size and the memory kept is set by the
/// schema.
pub const MAX_STRING_BYTES: usize = MAX_REPLY_BYTES;
