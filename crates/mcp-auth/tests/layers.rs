//! The crate's files form layers: following what each file names of the
//! others (`use crate::…` and `crate::…` paths, unit tests left out), no
//! file comes back to itself. A circle means two files can only be
//! understood, and changed, together.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Each file of `src` (by module name) and the other files it names.
fn imports(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = BTreeMap::new();
    for entry in std::fs::read_dir(src).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("rs") {
            continue;
        }
        let name = path.file_stem().unwrap().to_str().unwrap().to_owned();
        let text = std::fs::read_to_string(&path).unwrap();
        files.insert(name, code(&text));
    }
    let names: BTreeSet<String> = files.keys().cloned().collect();
    files
        .iter()
        .filter(|(name, _)| *name != "lib")
        .map(|(name, text)| {
            let named = named_modules(text)
                .into_iter()
                .filter(|m| m != name && m != "lib" && names.contains(m))
                .collect();
            (name.clone(), named)
        })
        .collect()
}

/// `text` without its unit tests and its `//` comments.
fn code(text: &str) -> String {
    let text = match text.find("#[cfg(test)]\nmod tests") {
        Some(i) => &text[..i],
        None => text,
    };
    text.lines()
        .map(|l| match l.find("//") {
            Some(i) => &l[..i],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn ident_at(s: &str) -> String {
    s.trim_start()
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect()
}

/// The first segment of every `crate::` path in `text`, including each
/// path of a `use crate::{a::X, b::{Y, Z}}` group (a trailing comma
/// leaves an empty one, dropped).
fn named_modules(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (i, _) in text.match_indices("crate::") {
        let rest = &text[i + "crate::".len()..];
        let Some(group) = rest.strip_prefix('{') else {
            out.insert(ident_at(rest));
            continue;
        };
        // The group's top-level items, each a path whose first segment is
        // a module.
        let mut depth = 0;
        let mut start = 0;
        for (j, c) in group.char_indices() {
            match c {
                '{' => depth += 1,
                '}' if depth == 0 => {
                    out.insert(ident_at(&group[start..j]));
                    break;
                }
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    out.insert(ident_at(&group[start..j]));
                    start = j + 1;
                }
                _ => {}
            }
        }
    }
    out.remove("");
    out
}

/// Every circle among `graph`'s files, each once, as the path from its
/// smallest name back to it.
fn circles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    fn walk(
        graph: &BTreeMap<String, BTreeSet<String>>,
        start: &str,
        path: &mut Vec<String>,
        out: &mut Vec<Vec<String>>,
    ) {
        let last = path.last().unwrap().clone();
        for next in graph.get(&last).into_iter().flatten() {
            if next == start {
                let mut circle = path.clone();
                circle.push(start.to_owned());
                out.push(circle);
            } else if next.as_str() > start && !path.contains(next) {
                path.push(next.clone());
                walk(graph, start, path, out);
                path.pop();
            }
        }
    }
    let mut out = Vec::new();
    for start in graph.keys() {
        walk(graph, start, &mut vec![start.clone()], &mut out);
    }
    out
}

#[test]
fn the_files_form_layers() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let graph = imports(&src);
    assert!(
        graph.len() > 10 && graph.values().any(|d| !d.is_empty()),
        "the source files were not read: {graph:?}"
    );
    let found: Vec<String> = circles(&graph).iter().map(|c| c.join(" -> ")).collect();
    assert!(
        found.is_empty(),
        "files that import each other in a circle:\n{}",
        found.join("\n")
    );
}

#[test]
fn a_circle_is_found() {
    let text = |uses: &str| {
        code(&format!(
            "{uses}\n#[cfg(test)]\nmod tests {{ use crate::c; }}"
        ))
    };
    let mut graph = BTreeMap::new();
    for (name, uses) in [
        ("a", "use crate::b::X; // crate::c"),
        ("b", "use crate::{\n    x::{Y, Z},\n    c,\n};"),
        ("c", "fn f() { crate::a::g() }"),
        ("x", ""),
    ] {
        graph.insert(name.to_owned(), named_modules(&text(uses)));
    }
    assert_eq!(graph["a"], BTreeSet::from(["b".to_owned()]));
    assert_eq!(graph["b"], BTreeSet::from(["x".to_owned(), "c".to_owned()]));
    assert_eq!(circles(&graph), vec![vec!["a", "b", "c", "a"]]);
}
