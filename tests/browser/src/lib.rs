//! The infrastructure under `mcp-elicit`'s browser tests: real parts, started on loopback and
//! stopped by their guards.
//!
//! - [`Chromedriver`] runs Debian's `chromedriver`; each [`Browser`] it opens is a headless
//!   Chromium with its own fresh profile, so two browsers share no cookies ("a second browser
//!   signed in as another user").
//! - [`OidcProvider`] runs npm's `oidc-provider` (`oidc/provider.mjs`) with a real sign-in form
//!   that checks passwords; [`ALICE`] and [`BOB`] are its accounts.
//! - [`Site`] serves an axum `Router` on 127.0.0.1 in this process.
//! - [`Tee`] keeps every byte one side of an in-process MCP connection wrote; [`UrlHost`] is the
//!   MCP host on the other side, handing each URL request to the test as an [`Asked`].
//! - [`LoopbackHttp`] is an HTTP client that only talks to loopback: readiness checks, hand-made
//!   requests (a replayed POST, a foreign `Origin`), and the client `openidconnect` is given.
//!
//! Everything is behind the `browser` feature: without it this library is empty, so the
//! workspace's `cargo test --workspace` builds nothing heavy here. See `README.md` for how to run
//! the tests.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

#[cfg(feature = "browser")]
mod error;
#[cfg(feature = "browser")]
mod processes;

#[cfg(feature = "browser")]
mod browser;
#[cfg(feature = "browser")]
mod host;
#[cfg(feature = "browser")]
mod http;
#[cfg(feature = "browser")]
mod oidc;
#[cfg(feature = "browser")]
mod site;
#[cfg(feature = "browser")]
mod wire;

#[cfg(feature = "browser")]
pub use crate::{
    browser::{Browser, BrowserOptions, Chromedriver},
    error::{Error, Result},
    host::{AbortOnDrop, Asked, UrlHost},
    http::LoopbackHttp,
    oidc::{ALICE, Account, BOB, OidcClient, OidcProvider, OidcProviderBuilder, type_credentials},
    site::Site,
    wire::Tee,
};
