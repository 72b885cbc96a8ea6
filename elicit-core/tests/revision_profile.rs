//! One place decides every difference between protocol revisions: the predicates and values on
//! `Revision` in `elicit-core/src/revision.rs`. Everywhere else asks them
//! (`revision.has_url_mode()`), and never compares revisions itself (`revision >
//! Revision::V2025_06_18`): a bare comparison is a protocol rule nobody can find by name, and a
//! fourth revision would silently fall on one side of it.
//!
//! This test reads the library sources (`src/`, `elicit-core/src/`, `elicit-derive/src/`) and the
//! example programs (`examples/*.rs`, `examples/rmcp/*.rs`, `examples/rmcp/bin/`), without
//! comments, string literals and `#[cfg(test)]` modules, and names every `file:line` that
//! compares a revision: `Revision::V…` (or `Revision::LATEST`) next to `<`, `>`, `<=`, `>=`,
//! `==`, `!=`, as an argument of `cmp`/`min`/`max`/`eq`…, inside `matches!`/`assert_eq!`, in an
//! `if let`/`let … else` pattern, or as an arm of a `match` with a wildcard arm; and a revision
//! variable (`revision`, `self.revision`, `x.revision()`) next to one of those operators, or
//! given to `matches!`, `min`, `max` or `cmp`. A plain exhaustive `match` mapping each revision
//! to another crate's type is a conversion, and passes.

use std::path::{Path, PathBuf};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("elicit-core sits in the workspace")
        .to_path_buf()
}

/// Every `.rs` file under `dir`, recursively.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("read {}: {e}", dir.display())) {
        let path = entry.expect("dir entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The `.rs` files directly in `dir`.
fn rust_files_in(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("read {}: {e}", dir.display())) {
        let path = entry.expect("dir entry").path();
        if path.is_file() && path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The files the rule covers.
fn covered() -> Vec<PathBuf> {
    let root = workspace();
    let mut files = Vec::new();
    for dir in [
        "src",
        "elicit-core/src",
        "elicit-derive/src",
        "examples/rmcp/bin",
    ] {
        rust_files(&root.join(dir), &mut files);
    }
    for dir in ["examples", "examples/rmcp"] {
        rust_files_in(&root.join(dir), &mut files);
    }
    let profile = root.join("elicit-core/src/revision.rs");
    let tests = test_modules(&files);
    files.retain(|f| {
        *f != profile
            && !tests
                .iter()
                .any(|t| f.starts_with(t) || *f == t.with_extension("rs"))
    });
    files.sort();
    files
}

/// The files of modules declared `#[cfg(test)] mod name;` (as a path without `.rs`: the module's
/// file is that path with `.rs`, or a file under it).
fn test_modules(files: &[PathBuf]) -> Vec<PathBuf> {
    let mut modules = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(file).expect("read a source file");
        let mut rest = text.as_str();
        while let Some(at) = rest.find("#[cfg(test)]") {
            rest = &rest[at + "#[cfg(test)]".len()..];
            let declaration = rest.trim_start();
            let Some(name) = declaration.strip_prefix("mod ") else {
                continue;
            };
            let name: String = name
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !declaration["mod ".len() + name.len()..]
                .trim_start()
                .starts_with(';')
            {
                continue;
            }
            let stem = file
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or_default();
            let dir = file.parent().expect("a file has a directory");
            let dir = if matches!(stem, "mod" | "lib" | "main") {
                dir.to_path_buf()
            } else {
                dir.join(stem)
            };
            modules.push(dir.join(name));
        }
    }
    modules
}

/// The code of a file with comments and the contents of string and char literals blanked (each
/// replaced by spaces, newlines kept, so offsets still give line numbers), and the bodies of
/// `#[cfg(test)]` items blanked too.
fn code(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    let blank = |b: u8| if b == b'\n' { b'\n' } else { b' ' };
    while i < bytes.len() {
        let b = bytes[i];
        let next = bytes.get(i + 1).copied();
        if b == b'/' && next == Some(b'/') {
            while i < bytes.len() && bytes[i] != b'\n' {
                out.push(b' ');
                i += 1;
            }
        } else if b == b'/' && next == Some(b'*') {
            let mut depth = 0usize;
            while i < bytes.len() {
                if bytes[i] == b'/' && bytes.get(i + 1) == Some(&b'*') {
                    depth += 1;
                    out.extend([b' ', b' ']);
                    i += 2;
                } else if bytes[i] == b'*' && bytes.get(i + 1) == Some(&b'/') {
                    depth -= 1;
                    out.extend([b' ', b' ']);
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(bytes[i]));
                    i += 1;
                }
            }
        } else if b == b'r' && matches!(next, Some(b'"') | Some(b'#')) && !ident_before(bytes, i) {
            // A raw string: r"…", r#"…"#.
            let mut j = i + 1;
            let mut hashes = 0;
            while bytes.get(j) == Some(&b'#') {
                hashes += 1;
                j += 1;
            }
            if bytes.get(j) != Some(&b'"') {
                out.push(b);
                i += 1;
                continue;
            }
            out.extend(std::iter::repeat_n(b' ', j + 1 - i));
            i = j + 1;
            while i < bytes.len() {
                if bytes[i] == b'"' && (0..hashes).all(|h| bytes.get(i + 1 + h) == Some(&b'#')) {
                    out.extend(std::iter::repeat_n(b' ', 1 + hashes));
                    i += 1 + hashes;
                    break;
                }
                out.push(blank(bytes[i]));
                i += 1;
            }
        } else if b == b'"' {
            out.push(b' ');
            i += 1;
            while i < bytes.len() {
                match bytes[i] {
                    b'\\' => {
                        out.push(b' ');
                        if let Some(&escaped) = bytes.get(i + 1) {
                            out.push(blank(escaped));
                        }
                        i += 2;
                    }
                    b'"' => {
                        out.push(b' ');
                        i += 1;
                        break;
                    }
                    other => {
                        out.push(blank(other));
                        i += 1;
                    }
                }
            }
        } else if b == b'\'' {
            // A char literal ('x', '\n', '\u{..}') or a lifetime ('a): blank only the former.
            let close = if next == Some(b'\\') {
                bytes[i + 2..]
                    .iter()
                    .position(|&c| c == b'\'')
                    .map(|p| i + 2 + p)
            } else {
                let len = text[i + 1..].chars().next().map_or(1, char::len_utf8);
                (bytes.get(i + 1 + len) == Some(&b'\'')).then_some(i + 1 + len)
            };
            match close {
                Some(end) => {
                    out.extend(std::iter::repeat_n(b' ', end + 1 - i));
                    i = end + 1;
                }
                None => {
                    out.push(b);
                    i += 1;
                }
            }
        } else {
            out.push(b);
            i += 1;
        }
    }
    let mut code =
        String::from_utf8(out).expect("blanking keeps UTF-8 (multi-byte only in literals)");
    blank_test_items(&mut code);
    code
}

fn ident_before(bytes: &[u8], at: usize) -> bool {
    at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_')
}

/// Blank the item after each `#[cfg(test)]` (a `mod tests { .. }`, or a `mod tests;` line).
fn blank_test_items(code: &mut String) {
    let mut from = 0;
    while let Some(at) = code[from..].find("#[cfg(test)]").map(|p| from + p) {
        let after = at + "#[cfg(test)]".len();
        let end = match (code[after..].find('{'), code[after..].find(';')) {
            (Some(open), semi) if semi.is_none_or(|s| open < s) => {
                matching(code, after + open, b'{', b'}').unwrap_or(code.len())
            }
            (_, Some(semi)) => after + semi + 1,
            _ => code.len(),
        };
        let blanked: String = code[at..end]
            .chars()
            .map(|c| if c == '\n' { '\n' } else { ' ' })
            .collect();
        code.replace_range(at..end, &blanked);
        from = end;
    }
}

/// The offset just past the bracket that closes the one at `open`.
fn matching(code: &str, open: usize, opening: u8, closing: u8) -> Option<usize> {
    let mut depth = 0usize;
    for (i, &b) in code.as_bytes().iter().enumerate().skip(open) {
        if b == opening {
            depth += 1;
        } else if b == closing {
            depth -= 1;
            if depth == 0 {
                return Some(i + 1);
            }
        }
    }
    None
}

const OPERATORS: [&str; 6] = ["<=", ">=", "==", "!=", "<", ">"];

/// A comparison operator ending `before` (trailing whitespace ignored); not `=>`, `->`, `<<`.
fn operator_before(before: &str) -> Option<&'static str> {
    let trimmed = before.trim_end();
    let op = OPERATORS.into_iter().find(|op| trimmed.ends_with(op))?;
    let rest = &trimmed[..trimmed.len() - op.len()];
    let previous = rest.chars().last();
    let arrow = op == ">" && matches!(previous, Some('=') | Some('-'));
    let shift = matches!((op, previous), ("<", Some('<')) | (">", Some('>')));
    (!arrow && !shift).then_some(op)
}

/// A comparison operator starting `after` (leading whitespace ignored); not `=>`, `->`, `<<`.
fn operator_after(after: &str) -> Option<&'static str> {
    let trimmed = after.trim_start();
    let op = OPERATORS.into_iter().find(|op| trimmed.starts_with(op))?;
    let following = trimmed[op.len()..].chars().next();
    let shift = matches!((op, following), ("<", Some('<')) | (">", Some('>')));
    (!shift).then_some(op)
}

const COMPARING_METHODS: [&str; 10] = [
    "cmp",
    "partial_cmp",
    "min",
    "max",
    "eq",
    "ne",
    "lt",
    "le",
    "gt",
    "ge",
];
const COMPARING_MACROS: [&str; 5] = [
    "matches!",
    "assert_eq!",
    "assert_ne!",
    "debug_assert_eq!",
    "debug_assert_ne!",
];

fn line_of(code: &str, at: usize) -> usize {
    code[..at].matches('\n').count() + 1
}

/// Every comparison of revisions in `code`: (line, what was found).
fn comparisons(code: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    let mut flag = |at: usize, what: String| found.push((line_of(code, at), what));

    // `Revision::V…` and `Revision::LATEST`.
    let mut from = 0;
    while let Some(at) = code[from..].find("Revision::").map(|p| from + p) {
        from = at + "Revision::".len();
        if ident_before(code.as_bytes(), at) {
            continue; // `UnknownRevision::…`, `RevisionError::…`
        }
        let name: String = code[from..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if !(name.starts_with('V') || name == "LATEST") {
            continue;
        }
        let end = from + name.len();
        let before = &code[..at];
        let after = &code[end..];
        let variant = format!("Revision::{name}");
        if let Some(op) = operator_before(before) {
            flag(at, format!("`{op} {variant}`"));
        } else if let Some(op) = operator_after(after) {
            flag(at, format!("`{variant} {op}`"));
        } else if let Some(method) = COMPARING_METHODS.into_iter().find(|m| {
            let b = before.trim_end().trim_end_matches('&').trim_end();
            b.strip_suffix('(')
                .is_some_and(|b| b.trim_end().ends_with(&format!(".{m}")))
        }) {
            flag(at, format!("`.{method}({variant})`"));
        } else if before.trim_end().ends_with("let") {
            flag(at, format!("`let {variant}` pattern"));
        }
    }

    // A revision variable next to an operator: `revision <`, `> self.revision`, `x.revision() ==`.
    let mut from = 0;
    while let Some(at) = code[from..].find("revision").map(|p| from + p) {
        from = at + "revision".len();
        let bytes = code.as_bytes();
        let start_ok = at == 0 || !(bytes[at - 1].is_ascii_alphanumeric());
        let mut end = from;
        if code[end..].starts_with("()") {
            end += 2;
        }
        let end_ok = code[end..]
            .chars()
            .next()
            .is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '_'));
        // `revision`, `self.revision`, `negotiated_revision`, `x.revision()`.
        if !start_ok || !end_ok {
            continue;
        }
        let mut begin = at;
        while begin > 0
            && (bytes[begin - 1].is_ascii_alphanumeric() || matches!(bytes[begin - 1], b'_' | b'.'))
        {
            begin -= 1;
        }
        let variable = &code[begin..end];
        if let Some(op) = operator_after(&code[end..]) {
            flag(at, format!("`{variable} {op}`"));
        } else if let Some(op) = operator_before(&code[..begin]) {
            flag(at, format!("`{op} {variable}`"));
        } else if let Some(method) = ["min", "max", "cmp", "partial_cmp"]
            .into_iter()
            .find(|m| code[end..].trim_start().starts_with(&format!(".{m}(")))
        {
            flag(at, format!("`{variable}.{method}(..)`"));
        }
    }

    // `matches!(revision, ..)`, `matches!(x, Revision::V…)`, `assert_eq!(.., Revision::V…)`.
    for name in COMPARING_MACROS {
        let mut from = 0;
        while let Some(at) = code[from..].find(name).map(|p| from + p) {
            from = at + name.len();
            if ident_before(code.as_bytes(), at) {
                continue;
            }
            let Some(open) = code[from..].find('(').map(|p| from + p) else {
                continue;
            };
            if !code[from..open].trim().is_empty() {
                continue;
            }
            let close = matching(code, open, b'(', b')').unwrap_or(code.len());
            let args = &code[open + 1..close.saturating_sub(1)];
            let first = args.split(',').next().unwrap_or_default().trim();
            let names_variant = args.match_indices("Revision::").any(|(p, _)| {
                (p == 0 || !args.as_bytes()[p - 1].is_ascii_alphanumeric())
                    && args[p + "Revision::".len()..]
                        .chars()
                        .next()
                        .is_some_and(|c| c == 'V' || c == 'L')
            });
            if names_variant
                || first == "revision"
                || first.ends_with(".revision")
                || first.ends_with("revision()")
            {
                flag(at, format!("`{name}` on a revision"));
            }
        }
    }

    // A `match` with a `Revision::V…` arm and a wildcard arm: a comparison in disguise.
    let mut from = 0;
    while let Some(at) = code[from..].find("match ").map(|p| from + p) {
        from = at + "match ".len();
        if ident_before(code.as_bytes(), at) {
            continue;
        }
        let Some(open) = code[from..].find('{').map(|p| from + p) else {
            continue;
        };
        let close = matching(code, open, b'{', b'}').unwrap_or(code.len());
        let body = &code[open + 1..close.saturating_sub(1)];
        let top: String = top_level(body);
        let revision_arm = top.contains("Revision::V");
        let wildcard = top.split(['{', ',', '\n']).any(|arm| {
            let arm = arm.trim();
            arm.starts_with("_ =>") || arm.starts_with("_ if") || arm.starts_with("_=>")
        });
        if revision_arm && wildcard {
            flag(at, "a `match` on revisions with a wildcard arm".to_owned());
        }
    }
    found.sort();
    // One line, one report: the variable and the variant of `a.revision > Revision::V…` are one
    // comparison.
    found.dedup_by_key(|(line, _)| *line);
    found
}

/// The text of a `match` body at its own nesting level: nested braces and parentheses blanked.
fn top_level(body: &str) -> String {
    let mut depth = 0usize;
    body.chars()
        .map(|c| match c {
            '{' | '(' | '[' => {
                depth += 1;
                ' '
            }
            '}' | ')' | ']' => {
                depth = depth.saturating_sub(1);
                ' '
            }
            c if depth == 0 => c,
            '\n' => '\n',
            _ => ' ',
        })
        .collect()
}

#[test]
fn no_code_outside_the_revision_profile_compares_revisions() {
    let root = workspace();
    let mut offences = Vec::new();
    let files = covered();
    assert!(
        files.len() > 20,
        "the covered sources were not found: {files:?}"
    );
    for path in files {
        let text = std::fs::read_to_string(&path).expect("read a source file");
        let shown = path
            .strip_prefix(&root)
            .unwrap_or(&path)
            .display()
            .to_string();
        for (line, what) in comparisons(&code(&text)) {
            offences.push(format!("{shown}:{line}: {what}"));
        }
    }
    assert!(
        offences.is_empty(),
        "revisions compared outside elicit-core/src/revision.rs; ask a predicate of `Revision` \
         instead (add one there if the difference has no name yet):\n{}",
        offences.join("\n")
    );
}

/// The checker itself, on each shape it must find and each it must leave alone.
#[test]
fn the_checker_finds_each_comparison_and_leaves_conversions_alone() {
    let flagged = [
        "let d = self.revision > Revision::V2025_06_18;",
        "if revision >= Revision::V2026_07_28 {}",
        "if Revision::V2025_06_18 == r {}",
        "let s = if self.revision == Revision::V2025_06_18 { a } else { b };",
        "if r != Revision::LATEST {}",
        "let x = matches!(r, Revision::V2025_11_25);",
        "let x = matches!(revision, Foo);",
        "let x = self.revision\n    < Revision::V2025_11_25;",
        "if a.revision() < b {}",
        "if old_revision <= new {}",
        "let r = revision.max(other);",
        "let o = r.cmp(&Revision::V2025_06_18);",
        "if let Revision::V2025_06_18 = r {}",
        "let b = match r { Revision::V2025_06_18 => true, _ => false };",
    ];
    for sample in flagged {
        assert!(
            !comparisons(&code(sample)).is_empty(),
            "not flagged: {sample}"
        );
    }
    let clean = [
        "match r {\n    Revision::V2025_06_18 => P::A,\n    Revision::V2025_11_25 => P::B,\n}",
        "let r = request.for_revision(Revision::V2025_11_25)?;",
        "fn f(revision: Revision) -> Revision { revision }",
        "// if revision > Revision::V2025_06_18 {}",
        "/// assert!(Revision::V2025_06_18 < revision);",
        "let s = \"revision < 3 and Revision::V2025_06_18 == x\";",
        "let e = UnknownRevision::new(); let v: Vec<Revision> = vec![];",
        "if revision.has_url_mode() {}",
        "#[cfg(test)]\nmod tests {\n    fn t() { assert!(revision > Revision::V2025_06_18); }\n}",
        "let x = match mode { Mode::Form => 1, _ => 2 };",
        "let t = revision_label.len() > 3;",
    ];
    for sample in clean {
        assert_eq!(comparisons(&code(sample)), [], "flagged: {sample}");
    }
}
