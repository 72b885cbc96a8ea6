//! Safe, typed MCP elicitation.
#![forbid(unsafe_code)]
pub use elicit_core::*;
