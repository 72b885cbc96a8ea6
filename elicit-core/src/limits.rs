//! The bounds on what a client sends, checked before any work is done on it.

/// The largest reply, in bytes of JSON text, that [`parse_reply_str`](crate::Elicit::from_reply_str)
/// reads. A form of a few flat fields is a few hundred bytes; anything near this is hostile.
pub const MAX_REPLY_BYTES: usize = 256 * 1024;

/// The longest string, in bytes, that validation reads from a reply's `content`.
///
/// The text entry points never see a longer one (it cannot fit in [`MAX_REPLY_BYTES`]); the
/// `&Value` entry points ([`Elicit::from_reply`](crate::Elicit::from_reply),
/// [`FormRequest::parse_reply`](crate::FormRequest::parse_reply), …) refuse one
/// ([`Rule::TooLarge`](crate::schema::Rule::TooLarge)) before counting its characters, checking its
/// format or copying it (a `Value`'s strings are borrowed until every rule holds), so a reply
/// that arrived as an already-parsed value is held to the same bound as one that arrived as text.
///
/// The other dimensions of a hostile `content` need no limit of their own: a member the schema
/// does not name is compared with the property names and skipped unread, a nested value is
/// skipped without recursing, and a multi-select's array is read no further than one item past
/// its options; so the work is linear in the reply's size and the memory kept is set by the
/// schema.
pub const MAX_STRING_BYTES: usize = MAX_REPLY_BYTES;

/// The longest URL a [`UrlRequest`](crate::UrlRequest) may carry, or an
/// [`ElicitationUrl`](crate::url_mode::ElicitationUrl) accept, in bytes.
pub const MAX_URL_BYTES: usize = 8 * 1024;

/// The longest `elicitationId` that [`ElicitationId::parse`](crate::url_mode::ElicitationId::parse)
/// accepts, in bytes.
pub const MAX_ELICITATION_ID_BYTES: usize = 256;

/// The longest `requestState` that [`StateKeys::open`](crate::state::StateKeys::open) will look at, in characters (64 KiB).
///
/// Checked before any decoding or allocation, so an oversized state costs the server nothing;
/// [`StateKeys::seal`](crate::state::StateKeys::seal) refuses to produce a longer one. Keep bulky data server-side and seal a
/// reference to it.
pub const MAX_STATE_LEN: usize = 64 * 1024;

/// What a client reads ([`client::read_request`](crate::client::read_request)): the longest
/// message it shows; a longer one is refused, not cut.
pub const MAX_MESSAGE_BYTES: usize = 16 * 1024;
/// What a client reads: the most properties a form may have (a form a person fills in is short).
pub const MAX_PROPERTIES: usize = 64;
/// The most options a select may offer: what a client reads, and what a server may build
/// ([`RequestedSchema::new`](crate::schema::RequestedSchema::new),
/// [`FormRequest::with_options`](crate::FormRequest::with_options)), so that a server learns of a
/// select its clients would refuse when it builds it, and the work of checking a reply to it is
/// bounded.
pub const MAX_OPTIONS: usize = 1000;
/// What a client reads: the most options a form may offer in all its selects together. With
/// [`MAX_OPTIONS`] alone, 64 selects of 1,000 options each would be 64,000 options to copy, check
/// and show; a person reads a few long lists at most.
pub const MAX_FORM_OPTIONS: usize = 4096;
/// What a client reads: the most input requests one input-required result may carry.
pub const MAX_INPUT_REQUESTS: usize = 64;
/// What a client reads: the longest property name, and the longest option value, a form may have.
pub const MAX_NAME_BYTES: usize = 256;
/// What a client reads: the longest title, of a property or of an option (its label), in bytes.
pub const MAX_TITLE_BYTES: usize = 512;
/// What a client reads: the longest description of a property, in bytes.
pub const MAX_DESCRIPTION_BYTES: usize = 4 * 1024;
/// What a client reads: the longest text default (what a host pre-fills in a text box), in
/// bytes. A select's default is an option value, so at most [`MAX_NAME_BYTES`]; a multi-select's
/// holds at most one value per option ([`MAX_OPTIONS`]).
pub const MAX_DEFAULT_BYTES: usize = MAX_MESSAGE_BYTES;
