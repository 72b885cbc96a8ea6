#![cfg_attr(not(doctest), doc = include_str!("../guide/client.md"))]
pub use elicit_core::client::*;

#[cfg(feature = "terminal")]
pub mod terminal;
