//! The `#[derive(Elicit)]` macro of the [`elicit`](https://docs.rs/elicit) crate.
#![forbid(unsafe_code)]
