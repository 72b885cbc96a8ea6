//! The servers of the tests whose tools ask, written once: [`asking_server!`] (any tools), and
//! [`key_server!`] (one tool that asks for the API-key page); with `http`, the principal an
//! authentication layer leaves in the HTTP request ([`subject`]).
//!
//! Its own file, included by `#[path]` with `#[macro_use]`, so that a test that does not take
//! `mod.rs`'s harness takes it alone. Each test binary uses a part of it.

#![allow(dead_code, unused_macros)]

/// `struct $name { asking: AskConfig }`, cloneable, and its `AskingServer`: all a test's server
/// needs besides its tools (`#[tool_router] impl $name { .. }`).
macro_rules! asking_server {
    ($(#[$meta:meta])* $name:ident) => {
        $(#[$meta])*
        #[derive(Clone)]
        struct $name {
            asking: mcp_elicit::rmcp::AskConfig,
        }

        impl mcp_elicit::rmcp::AskingServer for $name {
            fn asking(&self) -> &mcp_elicit::rmcp::AskConfig {
                &self.asking
            }
        }
    };
}

/// An [`asking_server!`] `$name` whose one tool, `connect_api_key`, asks with `$ask` (an
/// expression of the tool's `Asker`, named `$asker`, that gives a URL flow's outcome) and
/// returns what it came to: `connected: <receipt>`, or `not connected: <outcome>`.
macro_rules! key_server {
    ($name:ident, |$asker:ident| $ask:expr) => {
        asking_server!($name);

        #[rmcp::tool_router]
        impl $name {
            #[rmcp::tool(description = "Connect the user's Example Co. API key.")]
            async fn connect_api_key(
                &self,
                mut $asker: mcp_elicit::rmcp::Asker,
            ) -> mcp_elicit::rmcp::ToolResponse {
                mcp_elicit::rmcp::respond(async {
                    Ok(match $ask.await? {
                        mcp_elicit::url_mode::FlowOutcome::Completed(receipt) => {
                            format!("connected: {receipt}")
                        }
                        other => format!("not connected: {other:?}"),
                    })
                })
                .await
            }
        }

        #[rmcp::tool_handler]
        impl rmcp::ServerHandler for $name {}
    };
}

/// What an authentication layer leaves in the HTTP request's extensions: who sent it.
#[cfg(feature = "http")]
#[derive(Clone)]
pub struct Subject(pub String);

/// The principal: the [`Subject`] the authentication layer left in the HTTP request's
/// extensions.
#[cfg(feature = "http")]
pub fn subject() -> mcp_elicit::rmcp::HttpPrincipal {
    mcp_elicit::rmcp::HttpPrincipal::new(|request| {
        request
            .extensions
            .get::<Subject>()
            .map(|subject| subject.0.clone())
    })
}
