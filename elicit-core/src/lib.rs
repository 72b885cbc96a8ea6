//! Runtime of the [`elicit`](https://docs.rs/elicit) crate.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod state;
