//! The JSON-Schema-Test-Suite's cases for the four formats the spec allows (draft 2020-12,
//! `tests/draft2020-12/optional/format/{email,uri,date,date-time}.json`), each run through both
//! checks: [`Format::accepts`], what a reply's string gets, and the `const fn`
//! [`Format::matches`], what the derive runs on a field's `default`.
//!
//! The suite is not copied into this repository: `.ci/json_schema_suite.sh` fetches it (from the
//! Python `jsonschema` sdist on PyPI) into a directory outside it and prints that directory, which
//! this test reads from `JSON_SCHEMA_TEST_SUITE`:
//!
//! ```text
//! JSON_SCHEMA_TEST_SUITE=$(bash .ci/json_schema_suite.sh) \
//!   cargo test -p elicit-core --test format_suite -- --ignored
//! ```
//!
//! Without it the test fails rather than pass having checked nothing.

use std::collections::BTreeSet;
use std::path::PathBuf;

use elicit_core::schema::Format;
use serde_json::Value;

/// Where the four files are, under the suite's directory.
const FORMATS_DIR: &str = "tests/draft2020-12/optional/format";

/// The suite's file for each format.
const FILES: [(&str, Format); 4] = [
    ("email", Format::Email),
    ("uri", Format::Uri),
    ("date", Format::Date),
    ("date-time", Format::DateTime),
];

/// Suite cases this crate does not follow: (file, data, why). None so far: every string case of
/// the four files is followed. An entry that matches no case fails the test, so none outlives
/// the case it was written for.
const SKIPS: &[(&str, &str, &str)] = &[];

#[test]
#[ignore = "needs the JSON-Schema-Test-Suite; set JSON_SCHEMA_TEST_SUITE (see .ci/run)"]
fn the_formats_agree_with_the_json_schema_test_suite() {
    let root = std::env::var_os("JSON_SCHEMA_TEST_SUITE")
        .filter(|dir| !dir.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            panic!(
                "JSON_SCHEMA_TEST_SUITE is not set: point it at the JSON-Schema-Test-Suite's \
                 directory, e.g. JSON_SCHEMA_TEST_SUITE=$(bash .ci/json_schema_suite.sh)"
            )
        });
    let mut mismatches = Vec::new();
    let mut skips_used = BTreeSet::new();
    let (mut checked, mut not_strings) = (0, 0);
    for (file, format) in FILES {
        let path = root.join(FORMATS_DIR).join(format!("{file}.json"));
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("cannot read the suite's {}: {e}", path.display()));
        let groups: Value = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()));
        let groups = groups
            .as_array()
            .unwrap_or_else(|| panic!("{} is not an array of groups", path.display()));
        assert!(!groups.is_empty(), "{} has no group", path.display());
        for group in groups {
            let about = group["description"].as_str().unwrap_or("?");
            // A group whose schema is more than this format would test something else.
            assert_eq!(
                group["schema"]["format"].as_str(),
                Some(format.as_str()),
                "{file}.json: group {about:?} is not a test of format {format}"
            );
            let cases = group["tests"]
                .as_array()
                .unwrap_or_else(|| panic!("{file}.json: group {about:?} has no tests"));
            for case in cases {
                let description = case["description"].as_str().unwrap_or("?");
                let expected = case["valid"].as_bool().unwrap_or_else(|| {
                    panic!("{file}.json: {description:?} has no boolean `valid`")
                });
                // A format constrains strings only; a form's string field never receives a
                // number, object, array, boolean or null (the type check refuses it first).
                let Some(data) = case["data"].as_str() else {
                    not_strings += 1;
                    continue;
                };
                if let Some(skip) = SKIPS.iter().find(|(f, d, _)| *f == file && *d == data) {
                    skips_used.insert(*skip);
                    continue;
                }
                checked += 1;
                let (accepts, matches) = (format.accepts(data), format.matches(data));
                if accepts != expected || matches != expected {
                    mismatches.push(format!(
                        "{file}.json: {description:?}: data {data:?}: the suite expects valid = \
                         {expected}; accepts = {accepts}, matches = {matches}"
                    ));
                }
            }
        }
    }
    let stale: Vec<_> = SKIPS.iter().filter(|s| !skips_used.contains(*s)).collect();
    eprintln!(
        "JSON-Schema-Test-Suite at {}: {checked} string cases checked, {} skipped as listed in \
         SKIPS, {not_strings} non-string cases skipped (a form's string field never receives one)",
        root.display(),
        skips_used.len(),
    );
    assert!(checked > 0, "no string case under {}", root.display());
    assert!(
        stale.is_empty(),
        "SKIPS entries that match no case: {stale:?}"
    );
    assert!(
        mismatches.is_empty(),
        "{} of {checked} cases disagree with the suite:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
}
