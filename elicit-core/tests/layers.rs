//! The core's modules form layers: each imports only from the layers below it, so a reader can
//! start at the bottom of the list and meet nothing they have not read yet, and no two modules
//! import each other (no cycle, however long).
//!
//! What counts as an import: a `crate::<module>` path in code, outside comments, doc comments
//! and `#[cfg(test)]` modules (an intra-doc link to a type above is not a dependency).
//! `lib.rs` and `__private.rs` (re-exports and shims for generated code) sit on top.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Bottom first. Modules in the same layer may import each other only without a cycle.
const LAYERS: &[&[&str]] = &[
    // Leaves: formats, revisions, JSON-RPC errors, URL syntax, the interrupt budget's sink, the
    // lexicon of credential names.
    &[
        "format",
        "revision",
        "jsonrpc",
        "url",
        "observe",
        "limits",
        "credential",
    ],
    // What a broken rule is; the sealed request state of a multi round-trip request, which needs
    // nothing above the leaves (JSON-RPC codes, limits).
    &["violation", "state"],
    // Schemas: kinds, builders, their rules, their wire form, and a property's value.
    &["requested"],
    // Rust types as form fields.
    &["field"],
    // What each MCP host draws and needs, and a form adapted to it.
    &["hosts"],
    // Replies: actions, outcomes, the reader.
    &["outcome", "read"],
    // Forms: the request, the derived trait, consent.
    &["request", "elicit", "consent"],
    // URL mode and what the client declared.
    &["url_mode", "capabilities"],
    // Multi round-trip requests, and the client half.
    &["mrtr", "client"],
];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file under `dir`.
fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read src") {
        let path = entry.expect("dir entry").path();
        if path.is_dir() {
            files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level module a file belongs to (`requested/rules.rs` → `requested`).
fn module_of(path: &Path) -> String {
    let rel = path.strip_prefix(src()).expect("under src");
    let first = rel.components().next().expect("a component");
    first
        .as_os_str()
        .to_string_lossy()
        .trim_end_matches(".rs")
        .to_owned()
}

/// The code of a file: without comments and without `#[cfg(test)]` modules.
fn code(text: &str) -> String {
    let mut out = String::new();
    let mut skipping_test_module = None::<usize>;
    let mut depth = 0usize;
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let trimmed = line.trim_start();
        if skipping_test_module.is_none()
            && trimmed.starts_with("#[cfg(test)]")
            && lines
                .peek()
                .is_some_and(|next| next.trim_start().starts_with("mod ") && next.ends_with('{'))
        {
            skipping_test_module = Some(depth);
            continue;
        }
        let code_part = without_comment(trimmed);
        let opens = code_part.matches('{').count();
        let closes = code_part.matches('}').count();
        depth = (depth + opens).saturating_sub(closes);
        if let Some(at) = skipping_test_module {
            if depth <= at && closes > 0 {
                skipping_test_module = None;
            }
            continue;
        }
        out.push_str(code_part);
        out.push('\n');
    }
    out
}

/// A line up to its `//` comment, if any: a `//` inside a string literal is not one.
fn without_comment(line: &str) -> &str {
    let mut in_string = false;
    let mut escaped = false;
    let bytes = line.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            _ if escaped => escaped = false,
            b'\\' if in_string => escaped = true,
            b'"' => in_string = !in_string,
            b'/' if !in_string && bytes.get(i + 1) == Some(&b'/') => return &line[..i],
            _ => {}
        }
    }
    line
}

/// The module each name re-exported at the crate's root comes from (`pub use crate::reply::{
/// Action, ..}` in `lib.rs`), so that `crate::Action` counts as an import of `reply`.
fn root_exports() -> BTreeMap<String, String> {
    let lib = std::fs::read_to_string(src().join("lib.rs")).expect("read lib.rs");
    let code = code(&lib);
    let mut exports = BTreeMap::new();
    for statement in code.split(';') {
        let Some(path) = statement.trim().strip_prefix("pub use crate::") else {
            continue;
        };
        let module: String = path
            .chars()
            .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '_')
            .collect();
        let names = path[module.len()..].trim_start_matches("::");
        for name in names
            .trim_start_matches('{')
            .trim_end_matches('}')
            .split(',')
            .filter_map(|n| n.trim().rsplit("::").next())
            .filter(|n| n.starts_with(|c: char| c.is_ascii_uppercase()))
        {
            exports.insert(name.to_owned(), module.clone());
        }
    }
    exports
}

/// The top-level modules a piece of code names as `crate::<module>`, or through a name the crate
/// re-exports at its root (`crate::Action`).
fn imports_with(code: &str, exports: &BTreeMap<String, String>) -> BTreeSet<String> {
    let mut found = imports(code);
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        rest = &rest[at + "crate::".len()..];
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if let Some(module) = exports.get(&name) {
            found.insert(module.clone());
        }
    }
    found
}

/// The top-level modules a piece of code names as `crate::<module>`.
fn imports(code: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        rest = &rest[at + "crate::".len()..];
        // `use crate::{a::X, b::Y}` names several.
        let names: Vec<&str> = if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            group[..end].split(',').map(|part| part.trim()).collect()
        } else {
            vec![rest]
        };
        for name in names {
            let module: String = name
                .chars()
                .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '_')
                .collect();
            if !module.is_empty() && name[module.len()..].starts_with("::") {
                found.insert(module);
            }
        }
    }
    found
}

fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let mut paths = Vec::new();
    files(&src(), &mut paths);
    let exports = root_exports();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for path in paths {
        let module = module_of(&path);
        if module == "lib" || module == "__private" {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("read file");
        let deps = imports_with(&code(&text), &exports);
        let entry = graph.entry(module.clone()).or_default();
        entry.extend(deps.into_iter().filter(|d| *d != module));
    }
    graph
}

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|layer| layer.contains(&module))
}

#[test]
fn every_module_is_in_a_layer() {
    let graph = graph();
    let missing: Vec<_> = graph.keys().filter(|m| layer_of(m).is_none()).collect();
    assert!(missing.is_empty(), "modules in no layer: {missing:?}");
    // An import of a module in no layer is one of `lib.rs`'s public surfaces (`crate::schema`,
    // `crate::reply`, `crate::protocol`): inside the crate, import from where the item lives.
    let through_a_surface: Vec<_> = graph
        .iter()
        .flat_map(|(module, deps)| deps.iter().map(move |dep| (module, dep)))
        .filter(|(_, dep)| layer_of(dep).is_none())
        .map(|(module, dep)| format!("{module} -> {dep}"))
        .collect();
    assert!(
        through_a_surface.is_empty(),
        "imports of a module in no layer: {through_a_surface:?}"
    );
    let stale: Vec<_> = LAYERS
        .iter()
        .flat_map(|layer| layer.iter())
        .filter(|m| !graph.contains_key(**m))
        .collect();
    assert!(
        stale.is_empty(),
        "layers name modules that do not exist: {stale:?}"
    );
}

#[test]
fn no_module_imports_from_a_layer_above_it() {
    let mut upward = Vec::new();
    for (module, deps) in graph() {
        let Some(own) = layer_of(&module) else {
            continue;
        };
        for dep in deps {
            if layer_of(&dep).is_some_and(|layer| layer > own) {
                upward.push(format!("{module} -> {dep}"));
            }
        }
    }
    assert!(upward.is_empty(), "imports from a layer above: {upward:#?}");
}

#[test]
fn the_modules_import_each_other_in_no_cycle() {
    let graph = graph();
    // Depth-first search for a back edge.
    fn visit<'g>(
        module: &'g str,
        graph: &'g BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<&'g str>,
        done: &mut BTreeSet<&'g str>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|m| *m == module) {
            let mut cycle: Vec<String> = path[at..].iter().map(|m| m.to_string()).collect();
            cycle.push(module.to_owned());
            return Some(cycle);
        }
        if done.contains(module) {
            return None;
        }
        path.push(module);
        for dep in graph.get(module).into_iter().flatten() {
            if let Some(cycle) = visit(dep, graph, path, done) {
                return Some(cycle);
            }
        }
        path.pop();
        done.insert(module);
        None
    }
    let mut done = BTreeSet::new();
    for module in graph.keys() {
        let cycle = visit(module, &graph, &mut Vec::new(), &mut done);
        assert!(
            cycle.is_none(),
            "an import cycle: {}",
            cycle.unwrap_or_default().join(" -> ")
        );
    }
}

/// The checker itself: it sees `use` groups and paths, and not comments or test modules.
#[test]
fn the_import_reader_reads_paths_groups_and_skips_comments_and_tests() {
    let text = "use crate::schema::X;\nuse crate::{read::Y, reply::Z};\n// crate::url::W\n/// [`A`](crate::state::A)\nfn f() { crate::field::g(); let u = \"https://x\"; crate::revision::r(); }\n#[cfg(test)]\nmod tests {\n    use crate::mrtr::T;\n}\nfn after() { crate::format::h(); let _ = crate::Action::Accept; }\n";
    let exports = BTreeMap::from([("Action".to_owned(), "reply_root".to_owned())]);
    let found = imports_with(&code(text), &exports);
    let expected: BTreeSet<String> = [
        "schema",
        "read",
        "reply",
        "field",
        "revision",
        "format",
        "reply_root",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    assert_eq!(found, expected);
    // And the root's re-exports are read from lib.rs.
    let root = root_exports();
    assert_eq!(root.get("Action").map(String::as_str), Some("outcome"));
    assert_eq!(
        root.get("RequestedSchema").map(String::as_str),
        Some("requested")
    );
}

/// `lib.rs` lists the modules bottom-up, a layer at a time, so the file shows the map.
#[test]
fn lib_rs_lists_the_modules_in_the_order_of_their_layers() {
    let lib = std::fs::read_to_string(src().join("lib.rs")).expect("read lib.rs");
    let mut last = 0;
    let mut out_of_order = Vec::new();
    for line in code(&lib).lines() {
        let line = line.trim();
        let Some(name) = line
            .strip_prefix("pub mod ")
            .or_else(|| line.strip_prefix("mod "))
            .and_then(|rest| rest.strip_suffix(';'))
        else {
            continue;
        };
        let Some(layer) = layer_of(name) else {
            continue; // `__private`, on top
        };
        if layer < last {
            out_of_order.push(name.to_owned());
        }
        last = last.max(layer);
    }
    assert!(
        out_of_order.is_empty(),
        "modules listed in lib.rs after a layer above theirs: {out_of_order:?}"
    );
}
