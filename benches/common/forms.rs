//! The same 8-field form, declared the way each competitor's user would declare it.
//!
//! Strings with a format and lengths, an integer, a number, a boolean, a titled single-select,
//! a multi-select, and two optional fields.
#![allow(dead_code)]

use mcp_elicit::Elicit;
use serde::{Deserialize, Serialize};

// ---- elicit -------------------------------------------------------------------------------

/// Sign up for the beta: we need a way to reach you and what you want to try.
#[derive(Elicit, Debug, PartialEq)]
pub struct Signup {
    /// Where we send the invitation.
    #[elicit(title = "Email", format = "email", min_length = 6, max_length = 254)]
    pub email: String,
    #[elicit(title = "Full name", min_length = 2, max_length = 64)]
    pub name: String,
    #[elicit(title = "Age", minimum = 18, maximum = 130)]
    pub age: u8,
    /// Monthly budget in euros, if you have one.
    #[elicit(minimum = 0, maximum = 100000)]
    pub budget: Option<f64>,
    #[elicit(title = "Send me the newsletter")]
    pub newsletter: bool,
    #[elicit(title = "Plan")]
    pub plan: Plan,
    /// What you want to try first.
    #[elicit(min_items = 1, max_items = 3)]
    pub topics: Vec<Topic>,
    #[elicit(format = "uri", max_length = 2048)]
    pub website: Option<String>,
}

#[derive(Elicit, Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[elicit(rename_all = "lowercase")]
pub enum Plan {
    #[elicit(title = "Free (1 project)")]
    Free,
    #[elicit(title = "Pro (10 projects)")]
    Pro,
    #[elicit(title = "Team (unlimited)")]
    Team,
}

#[derive(Elicit, Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[elicit(rename_all = "lowercase")]
pub enum Topic {
    Rust,
    Mcp,
    Wasm,
    Embedded,
}

// ---- rmcp's own path: serde + schemars ------------------------------------------------------

/// Sign up for the beta: we need a way to reach you and what you want to try.
#[derive(Deserialize, Serialize, schemars::JsonSchema, Debug, PartialEq)]
pub struct SignupSerde {
    /// Where we send the invitation.
    #[schemars(title = "Email", email, length(min = 6, max = 254))]
    pub email: String,
    #[schemars(title = "Full name", length(min = 2, max = 64))]
    pub name: String,
    #[schemars(title = "Age", range(min = 18, max = 130))]
    pub age: u8,
    /// Monthly budget in euros, if you have one.
    #[schemars(range(min = 0, max = 100000))]
    pub budget: Option<f64>,
    #[schemars(title = "Send me the newsletter")]
    pub newsletter: bool,
    // rmcp reads a titled select only with `type` beside `oneOf`, which schemars does not write.
    #[schemars(title = "Plan", extend("type" = "string"))]
    pub plan: PlanSerde,
    /// What you want to try first.
    #[schemars(length(min = 1, max = 3))]
    pub topics: Vec<TopicSerde>,
    #[schemars(url, length(max = 2048))]
    pub website: Option<String>,
}

#[derive(Deserialize, Serialize, schemars::JsonSchema, Debug, Clone, Copy, PartialEq)]
#[serde(rename_all = "lowercase")]
#[schemars(inline)] // rmcp's `from_type` does not follow `$ref`
pub enum PlanSerde {
    #[schemars(title = "Free (1 project)")]
    Free,
    #[schemars(title = "Pro (10 projects)")]
    Pro,
    #[schemars(title = "Team (unlimited)")]
    Team,
}

#[derive(Deserialize, Serialize, schemars::JsonSchema, Debug, Clone, Copy, PartialEq)]
#[serde(rename_all = "lowercase")]
#[schemars(inline)]
pub enum TopicSerde {
    Rust,
    Mcp,
    Wasm,
    Embedded,
}

/// An `ElicitResult` as plain serde reads it: no constraint is checked.
#[derive(Deserialize, Debug)]
pub struct ReplySerde {
    pub action: ActionSerde,
    pub content: Option<SignupSerde>,
}

#[derive(Deserialize, Debug, PartialEq)]
#[serde(rename_all = "lowercase")]
pub enum ActionSerde {
    Accept,
    Decline,
    Cancel,
}

// ---- the replies --------------------------------------------------------------------------

/// An accepted reply that satisfies every rule.
pub const ACCEPT: &str = r#"{"action":"accept","content":{"email":"ada@example.com","name":"Ada Lovelace","age":36,"budget":2500.5,"newsletter":true,"plan":"pro","topics":["rust","mcp"],"website":"https://example.com/ada"}}"#;

/// An accepted reply that breaks three rules: the email's format, the age's minimum, the plan's
/// options.
pub const REJECT: &str = r#"{"action":"accept","content":{"email":"ada-at-example.com","name":"Ada Lovelace","age":12,"budget":2500.5,"newsletter":true,"plan":"gold","topics":["rust","mcp"],"website":"https://example.com/ada"}}"#;

/// An accepted reply whose free text holds escapes (a quoted nickname, a line break), as a
/// client writes a name typed over two lines: valid, every rule kept.
pub const ESCAPED: &str = r#"{"action":"accept","content":{"email":"ada@example.com","name":"Ada \"Countess\"\nLovelace","age":36,"budget":2500.5,"newsletter":true,"plan":"pro","topics":["rust","mcp"],"website":"https://example.com/ada"}}"#;
