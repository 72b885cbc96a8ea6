// The README is this crate's documentation. Its code runs as doctests in `tests/integration`
// (with `mrtr` and `rmcp` on, which the README uses and the default features leave off).
#![cfg_attr(not(doctest), doc = include_str!("../README.md"))]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]
#![deny(missing_docs)]
// The rmcp integration reads what a client sends, like the runtime: nothing outside the tests
// may panic on it (SECURITY.md).
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::indexing_slicing,
        clippy::panic,
        clippy::unreachable,
        clippy::todo,
        clippy::unimplemented
    )
)]

// The names a first server needs, at the root; everything else in a module named for what it
// holds. The same items are reachable in their module (`schema::FormRequest`).
pub use elicit_core::{
    Consent, Elicit, Elicitation, ElicitationSupport, FormRequest, Mode, Revision, UrlOutcome,
    UrlRequest,
};

pub use elicit_core::{limits, observe, protocol, reply, schema, url_mode};
#[cfg(feature = "mrtr")]
pub use elicit_core::{mrtr, state};

#[doc(hidden)]
pub use elicit_core::__private;

/// Derive an elicitation. See the [crate documentation](crate) for the attributes.
#[cfg(feature = "derive")]
pub use elicit_derive::Elicit;

// The facade's layers, bottom first (`tests/layers.rs`): the client half (the core's, and the
// terminal), then the rmcp integration, whose client answers through an `Answerer`.
pub mod client;
#[cfg(feature = "rmcp")]
pub mod rmcp;
