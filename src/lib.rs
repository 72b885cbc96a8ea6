#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]

pub use elicit_core::*;

/// Derive an elicitation. See the [crate documentation](crate) for the attributes.
#[cfg(feature = "derive")]
pub use elicit_derive::Elicit;

#[cfg(feature = "rmcp")]
pub mod rmcp;
