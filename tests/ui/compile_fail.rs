//! Every form the spec or this crate forbids is a compile error on the offending tokens, and
//! every edge that is allowed compiles (`pass/`).
//!
//! The `.stderr` files are generated with `TRYBUILD=overwrite cargo test -p elicit-ui-tests`
//! and reviewed one by one, never hand-written. They are pinned to the toolchain they were
//! generated with (rustc 1.95): compiler wording and layout change between releases, so a
//! different toolchain may need them regenerated (and reviewed again).
//!
//! One `TestCases` for both kinds: trybuild builds the dependencies once per `TestCases`, so
//! two would build the facade, the derive and serde twice (once checked, once compiled).

#[test]
fn forbidden_forms_fail_and_the_edge_of_each_rule_compiles() {
    let t = trybuild::TestCases::new();
    for area in [
        "types",
        "secrets",
        "shape",
        "attributes",
        "rules",
        "defaults",
        "message",
        "many",
        "consent",
        "page",
    ] {
        t.compile_fail(cases(area));
    }
    t.pass(cases("pass"));
}

/// The glob of an area's cases. trybuild passes a glob that matches nothing, so a moved folder
/// would silently test nothing: refuse an area without cases.
fn cases(area: &str) -> String {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(area);
    let count = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("UI cases in {}: {e}", dir.display()))
        .filter(|entry| {
            entry
                .as_ref()
                .is_ok_and(|e| e.path().extension().is_some_and(|x| x == "rs"))
        })
        .count();
    assert!(count > 0, "no UI cases in {}", dir.display());
    format!("{area}/*.rs")
}
