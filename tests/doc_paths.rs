//! Every doc example a user of the facade reads names the facade's path, `mcp_elicit::`.
//!
//! The facade re-exports `elicit-core` whole, so the core's rustdoc is what a user sees under
//! `mcp_elicit`: an example there that says `use elicit_core::…` names a crate the user does not
//! depend on. The core's examples compile through a hidden first line,
//! `# extern crate elicit_core as mcp_elicit;`, which rustdoc runs but does not show; hidden
//! lines (`# …`) are therefore allowed to name `elicit_core`, shown lines are not.

use std::fs;
use std::path::{Path, PathBuf};

/// Rust sources whose doc comments the facade's documentation shows, the README (the facade's
/// crate documentation) and the guides under `src/guide/` (its modules' documentation).
fn facade_visible_sources() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![root.join("README.md")];
    for dir in ["src", "elicit-core/src"] {
        collect_rust_files(&root.join(dir), &mut files);
    }
    files
}

fn collect_rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            collect_rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs" || e == "md") {
            out.push(path);
        }
    }
}

/// The shown lines of every code block in `text` (doc comments for `.rs`, fences for Markdown),
/// as (line number, line) pairs.
fn shown_example_lines(text: &str, markdown: bool) -> Vec<(usize, String)> {
    let mut shown = Vec::new();
    let mut in_block = false;
    for (index, line) in text.lines().enumerate() {
        let content = if markdown {
            Some(line)
        } else {
            let trimmed = line.trim_start();
            trimmed
                .strip_prefix("///")
                .or_else(|| trimmed.strip_prefix("//!"))
                .map(|rest| rest.strip_prefix(' ').unwrap_or(rest))
        };
        let Some(content) = content else {
            in_block = false;
            continue;
        };
        if content.trim_start().starts_with("```") {
            in_block = !in_block;
            continue;
        }
        let hidden = content.trim_start() == "#" || content.trim_start().starts_with("# ");
        if in_block && !hidden {
            shown.push((index + 1, content.to_owned()));
        }
    }
    shown
}

#[test]
fn facade_visible_doc_examples_name_the_facade_path() {
    let mut offenders = Vec::new();
    for file in facade_visible_sources() {
        let text = fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let markdown = file.extension().is_some_and(|e| e == "md");
        for (line, content) in shown_example_lines(&text, markdown) {
            if content.contains("elicit_core") {
                offenders.push(format!("{}:{line}: {}", file.display(), content.trim()));
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "doc examples a facade user sees must say `mcp_elicit::`, not `elicit_core::` \
         (compile them through a hidden `# extern crate elicit_core as mcp_elicit;`):\n{}",
        offenders.join("\n")
    );
}

/// The check itself: a shown line naming the core is caught, a hidden one is not, and prose
/// outside a code block is not an example.
#[test]
fn the_check_tells_shown_lines_from_hidden_ones_and_prose() {
    let source = "/// Prose may name `elicit_core`.\n\
                  /// ```\n\
                  /// # extern crate elicit_core as mcp_elicit;\n\
                  /// use elicit_core::Revision;\n\
                  /// ```\n\
                  fn f() {}\n";
    let shown = shown_example_lines(source, false);
    assert_eq!(shown, vec![(4, "use elicit_core::Revision;".to_owned())]);

    let readme = "Text `elicit_core`\n```rust\n# use elicit_core::X;\nuse mcp_elicit::Y;\n```\n";
    assert_eq!(
        shown_example_lines(readme, true),
        vec![(4, "use mcp_elicit::Y;".to_owned())]
    );
}
