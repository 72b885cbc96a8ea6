//! The facade's modules form layers, like the core's (`elicit-core/tests/layers.rs`): in each
//! folder of `src/`, every module imports only from its own layer or the ones below it, so a
//! reader can start at the bottom of the folder's `mod` lines and meet nothing they have not read
//! yet, and no two modules import each other (no cycle, however long). The folder's own file
//! (`lib.rs`, `mod.rs`) is on top: it holds the module's documentation, its `mod` lines, bottom
//! first, and its re-exports. A module below it never imports from it: what it needs is in a
//! sibling, and it names the sibling (`super::convert::revision`, not `super::revision`).
//!
//! What counts as an import: a `crate::`, `super::` or `self::` path in code (and, in a folder's
//! own file, a path through one of its modules: `form::ask`), outside comments, doc comments and
//! `#[cfg(test)]` modules (an intra-doc link to a type above is not a dependency). A name the
//! folder's own file re-exports from the core (`crate::Revision`, `crate::client::Answerer`) is
//! the core's, below the whole facade.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Each folder of `src/` (`""` is `src/` itself) and its modules' layers, bottom first. Modules
/// in the same layer may import each other only without a cycle.
const LAYERS: &[(&str, &[&[&str]])] = &[
    // The client half (the core's, and the terminal) under the rmcp integration, whose client
    // answers with an `Answerer`; what the library logs, under both.
    ("", &[&["client", "events"], &["rmcp", "page"]]),
    ("client", &[&["terminal"]]),
    // The pages: HTML, errors and a posted form read into wiped buffers; the refusals and what is
    // read of a request; who opened a page,
    // and the secret kind; the secret kind declared as a type; the kinds that talk to a provider;
    // then the router (its own file).
    (
        "page",
        &[
            &["html", "error", "posted"],
            &["respond"],
            &["identity", "secret"],
            &["secret_form"],
            &["authorization", "oidc", "token"],
        ],
    ),
    // Server text made safe to show, and the terminal's own drawing; the pages the user
    // accepted; then a form, a page, and the wait for an accepted page.
    (
        "client/terminal",
        &[&["screen"], &["accepted"], &["form", "page", "wait"]],
    ),
    // Conversions to and from rmcp's types, and when a URL step is asked in a form; why a tool
    // stops; how a server asks, and the progress that keeps a call open while it waits; the
    // asker; the service that records each call, and the same over streamable HTTP; then the
    // hosts the kit plays, the test kit's client (which plays them), and the kit.
    (
        "rmcp",
        &[
            &["convert", "principal", "link_form"],
            &["stop"],
            &["config", "keep_alive"],
            &["asker"],
            &["wire"],
            &["handler", "session"],
            &["http"],
            &["profile"],
            &["client"],
            &["kit"],
        ],
    ),
];

/// What a folder's own file is called in the graph: above every layer.
const OWN_FILE: &str = "(mod.rs)";

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

/// The module path of a file: `lib.rs` → `[]`, `rmcp/mod.rs` → `[rmcp]`, `rmcp/asker.rs` →
/// `[rmcp, asker]`.
fn module_path(file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src()).expect("under src");
    let mut path: Vec<String> = rel
        .components()
        .map(|c| {
            c.as_os_str()
                .to_string_lossy()
                .trim_end_matches(".rs")
                .to_owned()
        })
        .collect();
    if matches!(path.last().map(String::as_str), Some("lib" | "mod")) {
        path.pop();
    }
    path
}

/// Whether `file` is the own file (`lib.rs`, `mod.rs`) of its module.
fn is_own_file(file: &Path) -> bool {
    file.file_name()
        .is_some_and(|name| name == "lib.rs" || name == "mod.rs")
}

/// The code of a file: without comments and without `#[cfg(test)]` (or `#[cfg(all(test, ..))]`)
/// modules.
fn code(text: &str) -> String {
    let mut out = String::new();
    let mut skipping_test_module = None::<usize>;
    let mut depth = 0usize;
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let trimmed = line.trim_start();
        if skipping_test_module.is_none()
            && (trimmed.starts_with("#[cfg(test)]") || trimmed.starts_with("#[cfg(all(test,"))
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

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The paths that start at `rest` (just after a prefix such as `crate::`), each as its segments:
/// `a::b::C` is one, `{a::B, c::{D, E}}` three.
fn paths_at(rest: &str) -> Vec<Vec<String>> {
    let rest = rest.trim_start();
    if let Some(group) = rest.strip_prefix('{') {
        // The group up to its matching brace, split at its own commas.
        let mut depth = 0usize;
        let mut parts = Vec::new();
        let mut start = 0;
        let mut end = group.len();
        for (i, c) in group.char_indices() {
            match c {
                '{' => depth += 1,
                '}' if depth == 0 => {
                    end = i;
                    break;
                }
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    parts.push(&group[start..i]);
                    start = i + 1;
                }
                _ => {}
            }
        }
        parts.push(&group[start..end]);
        return parts
            .into_iter()
            .filter(|part| !part.trim().is_empty())
            .flat_map(paths_at)
            .collect();
    }
    let segment: String = rest
        .chars()
        .take_while(|c| is_ident(*c) || *c == '*')
        .collect();
    if segment.is_empty() {
        return Vec::new();
    }
    let after = &rest[segment.len()..];
    match after.strip_prefix("::") {
        Some(more) => {
            let inner = paths_at(more);
            if inner.is_empty() {
                return vec![vec![segment]];
            }
            inner
                .into_iter()
                .map(|mut path| {
                    path.insert(0, segment.clone());
                    path
                })
                .collect()
        }
        None => vec![vec![segment]],
    }
}

/// Every path `code` (of the file whose module path is `module`) names, made absolute from the
/// crate's root: `crate::`, `super::` (repeated) and `self::` paths, and, where `children` are
/// the file's own modules, paths through them (`form::ask`).
fn imports(code: &str, module: &[String], children: &BTreeSet<String>) -> Vec<Vec<String>> {
    let mut found = Vec::new();
    for (at, _) in code.match_indices("::") {
        // The identifier just before this `::`, if it starts a path.
        let before = &code[..at];
        let start = before
            .char_indices()
            .rev()
            .take_while(|(_, c)| is_ident(*c))
            .last()
            .map_or(at, |(i, _)| i);
        let first = &code[start..at];
        if first.is_empty() || code[..start].ends_with("::") {
            continue;
        }
        if code[..start].chars().next_back().is_some_and(is_ident) {
            continue;
        }
        let rest = &code[at + 2..];
        let base: Vec<String> = match first {
            "crate" => Vec::new(),
            "self" => module.to_vec(),
            "super" => {
                // `super::super::x` is read from its first `super`; the next one is skipped
                // below as preceded by `::`.
                let mut base = module.to_vec();
                base.pop();
                let mut rest = rest;
                while let Some(more) = rest.strip_prefix("super::") {
                    base.pop();
                    rest = more;
                }
                for path in paths_at(rest) {
                    found.push(base.iter().cloned().chain(path).collect());
                }
                continue;
            }
            child if children.contains(child) => {
                let mut base = module.to_vec();
                base.push(child.to_owned());
                base
            }
            _ => continue,
        };
        for path in paths_at(rest) {
            found.push(base.iter().cloned().chain(path).collect());
        }
    }
    found
}

/// The names a file defines itself (`fn name`, `struct Name`, ...).
fn defined(code: &str) -> BTreeSet<String> {
    const KEYWORDS: &[&str] = &[
        "fn",
        "struct",
        "enum",
        "type",
        "const",
        "static",
        "trait",
        "union",
        "macro_rules!",
    ];
    let tokens: Vec<&str> = code
        .split(|c: char| !(is_ident(c) || c == '!'))
        .filter(|t| !t.is_empty())
        .collect();
    tokens
        .windows(2)
        .filter(|pair| KEYWORDS.contains(&pair[0]))
        .map(|pair| pair[1].to_owned())
        .collect()
}

/// The modules a file declares (`mod x;`, `pub mod x;`, `pub(crate) mod x;`), in order.
fn mod_lines(code: &str) -> Vec<String> {
    code.lines()
        .filter_map(|line| {
            let line = line.trim();
            let rest = line
                .strip_prefix("pub ")
                .or_else(|| line.strip_prefix("pub(crate) "))
                .unwrap_or(line);
            let name = rest.strip_prefix("mod ")?.strip_suffix(';')?;
            Some(name.trim().to_owned())
        })
        .collect()
}

/// A folder of `src/`: its module path, its own file's code, and its other files (with the
/// child module each belongs to).
struct Folder {
    path: Vec<String>,
    own: String,
    children: BTreeSet<String>,
    /// (child, module path of the file, code)
    below: Vec<(String, Vec<String>, String)>,
}

fn folders() -> BTreeMap<String, Folder> {
    let mut paths = Vec::new();
    files(&src(), &mut paths);
    let mut folders: BTreeMap<String, Folder> = BTreeMap::new();
    let read = |file: &Path| code(&std::fs::read_to_string(file).expect("read file"));
    for file in paths.iter().filter(|f| is_own_file(f)) {
        let path = module_path(file);
        let own = read(file);
        let children = mod_lines(&own).into_iter().collect();
        let folder = Folder {
            path: path.clone(),
            own,
            children,
            below: Vec::new(),
        };
        folders.insert(path.join("/"), folder);
    }
    for file in &paths {
        let module = module_path(file);
        let text = read(file);
        // The file belongs below every folder whose path is a proper prefix of its module's.
        for folder in folders.values_mut() {
            let depth = folder.path.len();
            if module.len() > depth && module[..depth] == folder.path[..] {
                let child = module[depth].clone();
                folder.below.push((child, module.clone(), text.clone()));
            }
        }
    }
    folders
}

/// Each folder's graph: which of its modules (and its own file, [`OWN_FILE`]) import which.
fn graph(folder: &Folder) -> BTreeMap<String, BTreeSet<String>> {
    let depth = folder.path.len();
    let defined_above = defined(&folder.own);
    // Where each name the own file re-exports from one of its modules comes from.
    let mut re_exported: BTreeMap<String, String> = BTreeMap::new();
    for path in imports(&folder.own, &folder.path, &folder.children) {
        if path.len() > depth + 1
            && path[..depth] == folder.path[..]
            && let Some(name) = path.last()
        {
            re_exported.insert(name.clone(), path[depth].clone());
        }
    }
    // What a path names in this folder: one of its modules, its own file, or nothing here.
    let target = |path: &[String]| -> Option<String> {
        if path.len() <= depth || path[..depth] != folder.path[..] {
            return None;
        }
        let first = &path[depth];
        if folder.children.contains(first) {
            return Some(first.clone());
        }
        if defined_above.contains(first) || first == "*" {
            return Some(OWN_FILE.to_owned());
        }
        // A re-export: of one of the folder's modules, or else of the core.
        re_exported.get(first).cloned()
    };
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for child in &folder.children {
        graph.entry(child.clone()).or_default();
    }
    let own_children: BTreeSet<String> = folder.children.clone();
    let own_edges = graph.entry(OWN_FILE.to_owned()).or_default();
    for path in imports(&folder.own, &folder.path, &own_children) {
        if let Some(to) = target(&path) {
            own_edges.insert(to);
        }
    }
    own_edges.remove(OWN_FILE);
    for (child, module, text) in &folder.below {
        // A file's own modules, for its paths through them.
        let children: BTreeSet<String> = mod_lines(text).into_iter().collect();
        let edges = graph.entry(child.clone()).or_default();
        for path in imports(text, module, &children) {
            if let Some(to) = target(&path).filter(|to| to != child) {
                edges.insert(to);
            }
        }
    }
    graph
}

fn layers_of(folder: &str) -> &'static [&'static [&'static str]] {
    LAYERS
        .iter()
        .find(|(name, _)| *name == folder)
        .map_or(&[], |(_, layers)| layers)
}

fn layer_of(layers: &[&[&str]], module: &str) -> Option<usize> {
    if module == OWN_FILE {
        return Some(layers.len());
    }
    layers.iter().position(|layer| layer.contains(&module))
}

#[test]
fn every_module_is_in_a_layer_and_every_folder_is_listed() {
    let folders = folders();
    let mut problems = Vec::new();
    for (name, folder) in &folders {
        if folder.children.is_empty() {
            continue;
        }
        let layers = layers_of(name);
        for child in &folder.children {
            if layer_of(layers, child).is_none() {
                problems.push(format!("src/{name}: `{child}` is in no layer"));
            }
        }
        for listed in layers.iter().flat_map(|layer| layer.iter()) {
            if !folder.children.contains(*listed) {
                problems.push(format!(
                    "src/{name}: the layers name `{listed}`, which is no module"
                ));
            }
        }
    }
    for (name, _) in LAYERS {
        if !folders.contains_key(*name) {
            problems.push(format!(
                "the layers name a folder src/{name}, which does not exist"
            ));
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
}

#[test]
fn no_module_imports_from_a_layer_above_it() {
    let mut upward = Vec::new();
    for (name, folder) in folders() {
        let layers = layers_of(&name);
        for (module, deps) in graph(&folder) {
            let Some(own) = layer_of(layers, &module) else {
                continue;
            };
            for dep in deps {
                if layer_of(layers, &dep).is_some_and(|layer| layer > own) {
                    upward.push(format!("src/{name}: {module} -> {dep}"));
                }
            }
        }
    }
    assert!(upward.is_empty(), "imports from a layer above: {upward:#?}");
}

#[test]
fn the_modules_import_each_other_in_no_cycle() {
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
    let mut cycles = Vec::new();
    for (name, folder) in folders() {
        let graph = graph(&folder);
        let mut done = BTreeSet::new();
        // One cycle per folder: its search stops at the first.
        let cycle = graph
            .keys()
            .find_map(|module| visit(module, &graph, &mut Vec::new(), &mut done));
        if let Some(cycle) = cycle {
            cycles.push(format!("src/{name}: {}", cycle.join(" -> ")));
        }
    }
    assert!(cycles.is_empty(), "import cycles: {cycles:#?}");
}

#[test]
fn the_mod_lines_list_the_layers_bottom_up() {
    let mut out_of_order = Vec::new();
    for (name, folder) in folders() {
        let layers = layers_of(&name);
        let declared = mod_lines(&folder.own);
        let order: Vec<usize> = declared
            .iter()
            .map(|m| layer_of(layers, m).unwrap_or(usize::MAX))
            .collect();
        if order.windows(2).any(|pair| pair[0] > pair[1]) {
            out_of_order.push(format!("src/{name}: {declared:?}"));
        }
    }
    assert!(
        out_of_order.is_empty(),
        "`mod` lines not bottom-up (see LAYERS): {out_of_order:#?}"
    );
}

/// The checker itself: it reads `crate::`, `super::` and child paths, groups and nested groups,
/// and not comments or test modules.
#[test]
fn the_import_reader_reads_paths_groups_and_skips_comments_and_tests() {
    let text = "use super::stop::Stop;\nuse super::{convert::{revision, url_params}, Stop};\n// super::kit::W\n/// [`A`](super::wire::A)\nfn f() { crate::client::g(); let u = \"https://x\"; ::rmcp::model::X; form::ask(); }\n#[cfg(test)]\nmod tests {\n    use super::kit::T;\n}\nfn after() { self::page::h(); super::super::x::Y; }\n";
    let module = vec!["rmcp".to_owned(), "asker".to_owned()];
    let children = BTreeSet::from(["form".to_owned()]);
    let found: BTreeSet<String> = imports(&code(text), &module, &children)
        .into_iter()
        .map(|path| path.join("::"))
        .collect();
    let expected: BTreeSet<String> = [
        "rmcp::stop::Stop",
        "rmcp::convert::revision",
        "rmcp::convert::url_params",
        "rmcp::Stop",
        "client::g",
        "rmcp::asker::form::ask",
        "rmcp::asker::page::h",
        "x::Y",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    assert_eq!(found, expected);
    assert_eq!(
        defined("pub(crate) fn say() {}\nenum Ended { A }\npub use x::Y;"),
        BTreeSet::from(["say".to_owned(), "Ended".to_owned()])
    );
    assert_eq!(
        mod_lines("mod a;\n#[cfg(feature = \"x\")]\npub mod b;\npub use a::X;"),
        ["a", "b"]
    );
}
