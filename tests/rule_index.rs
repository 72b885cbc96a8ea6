//! CONTRIBUTING.md's rule → test index names only tests that exist: every `` `path.rs::name` ``
//! it names is a `fn name(` (or a doctest `struct name`) in that file, and every trybuild case
//! `` `tests/ui/<area>/<case>.rs` `` exists, with its expected `.stderr` unless it is a `pass/` case.

use std::fs;
use std::path::Path;

/// The backticked `…rs` and `…rs::name` references of the text, in order.
fn references(text: &str) -> Vec<&str> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .filter(|code| {
            let path = code.split_once("::").map_or(*code, |(path, _)| path);
            path.ends_with(".rs")
                && path
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "_-./".contains(c))
        })
        .collect()
}

/// Whether `source` defines the test (or doctest holder) `name`.
fn defines(source: &str, name: &str) -> bool {
    [format!("fn {name}("), format!("struct {name};")]
        .iter()
        .any(|item| source.contains(item.as_str()))
}

#[test]
fn every_test_the_rule_index_names_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = fs::read_to_string(root.join("CONTRIBUTING.md")).expect("CONTRIBUTING.md");
    let index = text
        .split_once("## Rule → test index")
        .expect("CONTRIBUTING.md has its rule → test index")
        .1;
    let references = references(index);
    assert!(
        references.len() > 100,
        "the index names {} tests: has it been cut?",
        references.len()
    );
    let mut missing = Vec::new();
    for reference in references {
        let (path, name) = reference
            .split_once("::")
            .map_or((reference, None), |(path, name)| (path, Some(name)));
        let Ok(source) = fs::read_to_string(root.join(path)) else {
            missing.push(format!("{reference}: no file {path}"));
            continue;
        };
        match name {
            Some(name) if !defines(&source, name) => {
                missing.push(format!("{reference}: {path} has no test `{name}`"));
            }
            Some(_) => {}
            // A case is `tests/ui/<area>/<case>.rs`; `tests/ui/compile_fail.rs` runs them.
            None if path.starts_with("tests/ui/")
                && path.matches('/').count() == 3
                && !path.starts_with("tests/ui/pass/") =>
            {
                let stderr = root.join(path).with_extension("stderr");
                if !stderr.exists() {
                    missing.push(format!(
                        "{reference}: a compile-fail case without its .stderr"
                    ));
                }
            }
            None => {}
        }
    }
    assert!(
        missing.is_empty(),
        "CONTRIBUTING.md's rule → test index names tests that do not exist:\n{}",
        missing.join("\n")
    );
}

/// The reader itself: it takes file and test references, and leaves other code alone.
#[test]
fn the_index_reader_takes_only_test_references() {
    let text = "| a | `tests/a.rs::b`, `tests/ui/x/y.rs` | `Rule::Type` `cargo test` `x.rs::` |";
    assert_eq!(
        references(text),
        ["tests/a.rs::b", "tests/ui/x/y.rs", "x.rs::"]
    );
    assert!(defines("#[test]\nfn b() {}", "b"));
    assert!(!defines("fn bc() {}", "b"));
}
