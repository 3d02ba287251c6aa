//! Which files of a crate name which others: `use crate::…` / `super::…` /
//! `self::…` and such paths in the code, folders included, unit tests and
//! `//` comments left out; and the circles that follow from it.

use std::collections::{BTreeMap, BTreeSet};

/// For each file (by module path: `oauth` for `oauth/mod.rs`, `oauth::flow`
/// for `oauth/flow.rs`, the crate root the empty one), the other files it
/// names. `files` is each file's code as [`code`] leaves it.
pub(super) fn graph(files: &BTreeMap<String, String>) -> BTreeMap<String, BTreeSet<String>> {
    let names: BTreeSet<String> = files.keys().cloned().collect();
    files
        .iter()
        .filter(|(name, _)| !name.is_empty())
        .map(|(name, text)| (name.clone(), named_files(name, text, &names)))
        .collect()
}

/// The files (module paths among `names`) that the file of module `module`
/// names, itself and the crate root left out.
fn named_files(module: &str, text: &str, names: &BTreeSet<String>) -> BTreeSet<String> {
    named_paths(text)
        .iter()
        .filter_map(|path| file_of(&resolve(module, path), names))
        .filter(|m| m != module)
        .collect()
}

/// `path` (as written in module `module`, from `crate`, `super` or
/// `self`) from the crate root.
fn resolve(module: &str, path: &[String]) -> Vec<String> {
    let mut base: Vec<String> = if module.is_empty() {
        Vec::new()
    } else {
        module.split("::").map(str::to_owned).collect()
    };
    let mut rest = path;
    if rest.first().is_some_and(|s| s == "crate") {
        base.clear();
        rest = &rest[1..];
    }
    while let Some(first) = rest.first() {
        match first.as_str() {
            "super" => {
                base.pop();
            }
            "self" => {}
            _ => break,
        }
        rest = &rest[1..];
    }
    base.extend(rest.iter().cloned());
    base
}

/// The longest start of `path` that is one of the files, if any.
fn file_of(path: &[String], names: &BTreeSet<String>) -> Option<String> {
    (1..=path.len())
        .rev()
        .map(|n| path[..n].join("::"))
        .find(|m| names.contains(m))
}

/// `text` without its unit tests and its `//` comments: what the checks
/// read of a file.
pub(super) fn code(text: &str) -> String {
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

/// The identifier at the start of `s` (after blanks).
pub(super) fn ident_at(s: &str) -> String {
    s.trim_start()
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect()
}

/// Every path in `text` that starts at `crate::`, `super::` or `self::`,
/// each path of a `use crate::{a::X, b::{Y, Z}}` group on its own, as its
/// segments (the leading `crate`, `super` and `self` included).
fn named_paths(text: &str) -> BTreeSet<Vec<String>> {
    let mut out = BTreeSet::new();
    for start in ["crate::", "super::", "self::"] {
        for (i, _) in text.match_indices(start) {
            // Inside an identifier, or a later segment of a path already
            // taken (`super::super::`).
            let before = text[..i].chars().next_back();
            if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            tree(&text[i..], Vec::new(), &mut out);
        }
    }
    out
}

/// The paths of the use tree (or plain path) at the start of `text`, each
/// after `prefix`.
fn tree(text: &str, mut prefix: Vec<String>, out: &mut BTreeSet<Vec<String>>) {
    let mut rest = text;
    loop {
        rest = rest.trim_start();
        if let Some(group) = rest.strip_prefix('{') {
            for item in group_items(group) {
                tree(item, prefix.clone(), out);
            }
            return;
        }
        let segment = ident_at(rest);
        if segment.is_empty() {
            break;
        }
        rest = rest[segment.len()..].trim_start();
        prefix.push(segment);
        match rest.strip_prefix("::") {
            Some(next) => rest = next,
            None => break,
        }
    }
    if !prefix.is_empty() {
        out.insert(prefix);
    }
}

/// The top-level items of the group `text` opens (it starts after the
/// `{`), up to its closing `}`.
fn group_items(text: &str) -> Vec<&str> {
    let mut items = Vec::new();
    let mut depth = 0;
    let mut start = 0;
    for (j, c) in text.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => {
                items.push(&text[start..j]);
                break;
            }
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&text[start..j]);
                start = j + 1;
            }
            _ => {}
        }
    }
    items
}

/// Every circle among `graph`'s files, each once, as the path from its
/// smallest name back to it.
pub(super) fn circles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    fn walk(
        graph: &BTreeMap<String, BTreeSet<String>>,
        start: &str,
        path: &mut Vec<String>,
        out: &mut Vec<Vec<String>>,
    ) {
        let Some(last) = path.last().cloned() else {
            return;
        };
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_circle_is_found_through_groups_folders_and_plain_paths() {
        let text = |uses: &str| {
            code(&format!(
                "{uses}\n#[cfg(test)]\nmod tests {{ use crate::c; }}"
            ))
        };
        let files: BTreeMap<String, String> = [
            ("", "mod a;"),
            ("a", "use crate::b::X; // crate::c"),
            ("b", "use crate::{\n    x::{Y, Z},\n    c,\n};"),
            ("c", "fn f() { crate::a::g() }"),
            ("x", ""),
            ("p", "pub use self::q::Y;"),
            ("p::q", "use super::{r::Z, W};"),
            ("p::r", "fn f() { super::super::a::g() }"),
        ]
        .into_iter()
        .map(|(n, t)| (n.to_owned(), text(t)))
        .collect();
        let graph = graph(&files);
        let set = |items: &[&str]| {
            items
                .iter()
                .map(|s| (*s).to_owned())
                .collect::<BTreeSet<_>>()
        };
        assert_eq!(graph["a"], set(&["b"]), "comments are not imports");
        assert_eq!(graph["b"], set(&["x", "c"]));
        assert_eq!(graph["c"], set(&["a"]));
        assert_eq!(graph["p"], set(&["p::q"]));
        assert_eq!(graph["p::q"], set(&["p::r", "p"]));
        assert_eq!(graph["p::r"], set(&["a"]));
        let found: Vec<String> = circles(&graph).iter().map(|c| c.join(" -> ")).collect();
        assert_eq!(found, ["a -> b -> c -> a", "p -> p::q -> p"]);
    }
}
