// The README is this crate's documentation. Its code runs as doctests in `tests/integration`
// (with `mrtr` and `rmcp` on, which the README uses and the default features leave off).
#![cfg_attr(not(doctest), doc = include_str!("../README.md"))]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]
#![deny(missing_docs)]
// The guides link across features: docs.rs builds with all of them, and CI checks those links
// with `-D warnings` there. A build without one cannot resolve the links into it.
#![cfg_attr(
    not(all(feature = "rmcp-client", feature = "terminal")),
    allow(rustdoc::broken_intra_doc_links)
)]
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

pub use elicit_core::limits;

// The modules of the core, each with its guide as its documentation (run as doctests in
// `tests/integration`, with the features they need).
#[cfg_attr(not(doctest), doc = include_str!("guide/schema.md"))]
pub mod schema {
    pub use elicit_core::schema::*;
}
#[cfg_attr(not(doctest), doc = include_str!("guide/reply.md"))]
pub mod reply {
    pub use elicit_core::reply::*;
}
#[cfg_attr(not(doctest), doc = include_str!("guide/url_mode.md"))]
pub mod url_mode {
    pub use elicit_core::url_mode::*;
}
#[cfg_attr(not(doctest), doc = include_str!("guide/protocol.md"))]
pub mod protocol {
    pub use elicit_core::protocol::*;
}
#[cfg_attr(not(doctest), doc = include_str!("guide/observe.md"))]
pub mod observe {
    pub use elicit_core::observe::*;
}
#[cfg(feature = "mrtr")]
#[cfg_attr(not(doctest), doc = include_str!("guide/state.md"))]
pub mod state {
    pub use elicit_core::state::*;
}
#[cfg(feature = "mrtr")]
#[cfg_attr(not(doctest), doc = include_str!("guide/mrtr.md"))]
pub mod mrtr {
    pub use elicit_core::mrtr::*;
}

#[doc(hidden)]
pub use elicit_core::__private;

#[cfg(feature = "derive")]
#[cfg_attr(not(doctest), doc = include_str!("guide/derive.md"))]
pub use elicit_derive::Elicit;

// The facade's layers, bottom first (`tests/layers.rs`): the client half (the core's, and the
// terminal), then the rmcp integration, whose client answers through an `Answerer`.
pub mod client;
#[cfg(feature = "page")]
#[cfg_attr(not(doctest), doc = include_str!("guide/page.md"))]
pub mod page;
#[cfg(feature = "rmcp")]
pub mod rmcp;
