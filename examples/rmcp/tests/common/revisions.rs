//! `on_both_revisions!`: one rule, one test per revision that asks. Its own file, so that
//! `tests/python_server.rs` takes the macro without the in-process harness of `mod.rs`.

/// A test per revision, in a module named after the rule: `rule::on_2025_11_25` and
/// `rule::on_2026_07_28`. Attributes before the `async fn` (doc comments, `#[ignore]`) go on
/// both tests.
#[allow(unused_macros)] // by the test binaries whose every test runs on one revision
macro_rules! on_both_revisions {
    ($(#[$attr:meta])* async fn $rule:ident($revision:ident) $body:block) => {
        mod $rule {
            use super::*;

            async fn $rule($revision: ::mcp_elicit::Revision) $body

            $(#[$attr])*
            #[tokio::test]
            async fn on_2025_11_25() {
                $rule(::mcp_elicit::Revision::V2025_11_25).await
            }

            $(#[$attr])*
            #[tokio::test]
            async fn on_2026_07_28() {
                $rule(::mcp_elicit::Revision::V2026_07_28).await
            }
        }
    };
}
