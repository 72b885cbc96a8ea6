//! The README's rmcp code is the examples' own, byte for byte: "rmcp in five minutes" is
//! `examples/rmcp/booking.rs`, and the test kit's case list is `examples/rmcp/tests/kit.rs`
//! down to its "README" line (less the blank line before it).
//!
//! The README shows them as `rs` blocks, which rustdoc does not compile (and GitHub highlights
//! as Rust): as doctests they would build rmcp's macros (a second `syn`) and tokio into the
//! README's `cargo test --workspace`. The example and the test are built and run by `.ci/run`
//! (`--features rmcp`, `--all-features`); this test keeps the text the same, so what the README
//! shows is what CI compiles.

use std::fs;
use std::path::Path;

const BOOKING_MARKER: &str = "<!-- This block is examples/rmcp/booking.rs, byte for byte";
const KIT_MARKER: &str =
    "<!-- This block is examples/rmcp/tests/kit.rs down to its \"README\" line";
/// The end of the line of `examples/rmcp/tests/kit.rs` the README's block stops before.
const KIT_END: &str = " the README shows this file down to here\n";

fn read(path: &str) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    fs::read_to_string(root.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The `rs` block that follows `marker` in the README.
fn block_after(readme: &str, marker: &str) -> String {
    let after_marker = readme
        .split_once(marker)
        .unwrap_or_else(|| panic!("the README marks the block it copies: {marker}"))
        .1;
    after_marker
        .split_once("```rs\n")
        .expect("an `rs` block follows the marker")
        .1
        .split_once("```\n")
        .expect("the block is closed")
        .0
        .to_owned()
}

#[test]
fn the_readme_rmcp_server_is_the_booking_example() {
    let example = read("examples/rmcp/booking.rs");
    assert!(
        block_after(&read("README.md"), BOOKING_MARKER) == example,
        "the README's rmcp server differs from examples/rmcp/booking.rs: copy the file into the \
         block after the marker"
    );
}

#[test]
fn the_readme_test_kit_cases_are_the_kit_tests() {
    let kit = read("examples/rmcp/tests/kit.rs");
    let end = kit
        .find(KIT_END)
        .expect("examples/rmcp/tests/kit.rs marks where the README's block ends");
    // Down to the marker's line, less the blank lines before it.
    let shown = format!(
        "{}\n",
        kit[..end].rsplit_once('\n').map_or("", |l| l.0).trim_end()
    );
    assert!(
        block_after(&read("README.md"), KIT_MARKER) == shown,
        "the README's test kit block differs from examples/rmcp/tests/kit.rs: copy the file, \
         down to the line before the one that ends with `{}`, into the block after the marker",
        KIT_END.trim()
    );
}
