//! Every form the spec or this crate forbids is a compile error on the offending tokens, and
//! every edge that is allowed compiles (`tests/ui/pass`).
//!
//! The `.stderr` files are generated with `TRYBUILD=overwrite cargo test --test compile_fail`
//! and reviewed one by one, never hand-written. They are pinned to the toolchain they were
//! generated with (rustc 1.95): compiler wording and layout change between releases, so a
//! different toolchain may need them regenerated (and reviewed again).

#[test]
fn forbidden_forms_are_compile_errors() {
    let t = trybuild::TestCases::new();
    for area in [
        "types",
        "secrets",
        "shape",
        "attributes",
        "defaults",
        "message",
        "many",
        "consent",
    ] {
        t.compile_fail(format!("tests/ui/{area}/*.rs"));
    }
}

#[test]
fn the_edge_of_each_rule_compiles() {
    trybuild::TestCases::new().pass("tests/ui/pass/*.rs");
}
