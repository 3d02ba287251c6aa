//! `cargo xtask house`: the shape rules of the library and CLI sources
//! (every `crates/*/src`), which `cargo xtask test` checks before the tests:
//!
//! - no source file over [`MAX_LINES`] lines;
//! - no `impl` block outside its type's file or folder (or its trait's);
//! - no import circle among a crate's files (counting `use crate::`/
//!   `super::` imports and such paths, unit tests left out), except among
//!   the schema modules of `mcp-types`, whose types name each other as
//!   the spec's schema does.
//!
//! Each finding is printed with its file; the command fails when there is one.

mod impls;
mod imports;

use std::collections::BTreeMap;
use std::path::Path;

use crate::util;

/// The longest a source file may be, in lines.
const MAX_LINES: usize = 750;

/// The crate whose schema modules may name each other in circles, and
/// the modules that are not its schema (their circles count).
const SCHEMA_CRATE: &str = "mcp-types";
const NOT_SCHEMA: [&str; 9] = [
    "jsonrpc",
    "json_write",
    "raw",
    "method",
    "version",
    "lenient",
    "de",
    "base",
    "errors",
];

/// `cargo xtask house`.
pub(crate) fn house(_args: &[String]) -> Result<(), String> {
    let root = util::workspace_root()?;
    let findings = check(&root.join("crates"))?;
    if findings.is_empty() {
        println!("house: every crate's files keep the shape rules");
        return Ok(());
    }
    for f in &findings {
        eprintln!("house: {f}");
    }
    Err(format!(
        "{} finding(s) against the shape rules",
        findings.len()
    ))
}

/// Every finding under `crates` (one folder per crate, each with `src`).
fn check(crates: &Path) -> Result<Vec<String>, String> {
    let mut findings = Vec::new();
    let mut names: Vec<_> = std::fs::read_dir(crates)
        .map_err(|e| format!("reading {}: {e}", crates.display()))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.join("src").is_dir())
        .collect();
    names.sort();
    for dir in names {
        let krate = dir
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("?")
            .to_owned();
        let mut raw = BTreeMap::new();
        read_tree(&dir.join("src"), &dir.join("src"), &mut raw)?;
        for (path, text) in &raw {
            let lines = text.lines().count();
            if lines > MAX_LINES {
                findings.push(format!("{}: {lines} lines (at most {MAX_LINES})", path.1));
            }
        }
        let files: BTreeMap<String, String> = raw
            .iter()
            .filter(|((module, _), _)| !module.split("::").any(|s| s == "tests"))
            .map(|((module, _), text)| (module.clone(), imports::code(text)))
            .collect();
        let shown = |module: &str| {
            raw.keys()
                .find(|(m, _)| m == module)
                .map_or(module.to_owned(), |(_, p)| p.clone())
        };
        for stray in impls::strays(&files) {
            let homes: Vec<String> = stray.defined_in.iter().map(|m| shown(m)).collect();
            findings.push(format!(
                "{}: `{}` outside its type's file or folder ({})",
                shown(&stray.file),
                stray.block,
                homes.join(", ")
            ));
        }
        let graph = imports::graph(&files);
        for circle in imports::circles(&graph) {
            let schema_only = krate == SCHEMA_CRATE
                && circle.iter().all(|m| {
                    let top = m.split("::").next().unwrap_or(m);
                    !NOT_SCHEMA.contains(&top)
                });
            if !schema_only {
                let files: Vec<String> = circle.iter().map(|m| shown(m)).collect();
                findings.push(format!("{krate}: import circle {}", files.join(" -> ")));
            }
        }
    }
    Ok(findings)
}

/// The text of every `.rs` file under `dir`, keyed by (module path, path
/// shown in findings): `oauth` for `oauth/mod.rs`, `oauth::flow` for
/// `oauth/flow.rs`, the crate root (`lib.rs`, `main.rs`) the empty one.
fn read_tree(
    src: &Path,
    dir: &Path,
    out: &mut BTreeMap<(String, String), String>,
) -> Result<(), String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("reading {}: {e}", dir.display()))?;
    for entry in entries {
        let path = entry
            .map_err(|e| format!("reading {}: {e}", dir.display()))?
            .path();
        if path.is_dir() {
            read_tree(src, &path, out)?;
            continue;
        }
        if path.extension().and_then(|e| e.to_str()) != Some("rs") {
            continue;
        }
        let Ok(relative) = path.strip_prefix(src) else {
            continue;
        };
        let relative = relative.with_extension("");
        let mut segments: Vec<String> = relative
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        if matches!(
            segments.last().map(String::as_str),
            Some("mod" | "lib" | "main")
        ) {
            segments.pop();
        }
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("reading {}: {e}", path.display()))?;
        let shown = path.to_string_lossy().into_owned();
        out.insert((segments.join("::"), shown), text);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_rule_is_found_and_only_the_schema_may_circle() {
        let dir = std::env::temp_dir().join(format!("xtask-house-{}", std::process::id()));
        let write = |path: &str, text: &str| {
            let path = dir.join(path);
            std::fs::create_dir_all(path.parent().expect("a file has a folder")).expect("mkdir");
            std::fs::write(path, text).expect("write");
        };
        write("a/src/lib.rs", &"fn f() {}\n".repeat(MAX_LINES + 1));
        write("a/src/thing.rs", "pub struct Thing;\nimpl Thing {}\n");
        write("a/src/other.rs", "impl crate::thing::Thing {}\n");
        write("mcp-types/src/lib.rs", "mod tools;\n");
        write("mcp-types/src/tools.rs", "use crate::prompts::P;\n");
        write("mcp-types/src/prompts.rs", "use crate::tools::T;\n");
        write("mcp-types/src/method.rs", "use crate::lenient::E;\n");
        write("mcp-types/src/lenient.rs", "use crate::method::R;\n");
        let found = check(&dir);
        std::fs::remove_dir_all(&dir).expect("remove the fixture");
        let found = found.expect("the fixture is read");
        assert_eq!(found.len(), 3, "{found:#?}");
        assert!(found[0].ends_with(&format!(
            "lib.rs: {} lines (at most {MAX_LINES})",
            MAX_LINES + 1
        )));
        assert!(found[1].contains("other.rs: `impl Thing` outside its type's file or folder"));
        assert!(
            found[2].starts_with("mcp-types: import circle ") && found[2].contains("lenient.rs")
        );
    }
}
