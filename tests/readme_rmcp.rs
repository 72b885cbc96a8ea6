//! The README's "rmcp in five minutes" is `examples/rmcp/booking.rs`, byte for byte.
//!
//! The README shows the server as an `rs` block, which rustdoc does not compile (and GitHub
//! highlights as Rust): as a doctest it would build rmcp's macros (a second `syn`) and tokio
//! into the README's `cargo test --workspace`. The
//! example is built by `.ci/run` (`--features rmcp`); this test keeps the two the same text, so
//! what the README shows is what CI compiles.

use std::fs;
use std::path::Path;

const MARKER: &str = "<!-- This block is examples/rmcp/booking.rs, byte for byte";

#[test]
fn the_readme_rmcp_server_is_the_booking_example() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = fs::read_to_string(root.join("README.md")).expect("README.md");
    let example = fs::read_to_string(root.join("examples/rmcp/booking.rs"))
        .expect("examples/rmcp/booking.rs");

    let after_marker = readme
        .split_once(MARKER)
        .expect("the README marks the block it copies from the example")
        .1;
    let block = after_marker
        .split_once("```rs\n")
        .expect("an `rs` block follows the marker")
        .1
        .split_once("```\n")
        .expect("the block is closed")
        .0;
    assert!(
        block == example,
        "the README's rmcp server differs from examples/rmcp/booking.rs: copy the file into the \
         block after the marker"
    );
}
