//! Check 7: docs. Every library crate's front page (src/lib.rs) has an
//! example that runs as a doctest, its README (the crates.io page) has one
//! that is compiled as a doctest too, and the workspace README's Rust
//! programs are kept compiled by crates/mcp-cli/tests/readme_snippets.rs.
//! The full check also builds the docs with warnings denied and runs every
//! doctest; CI already does both on each run.

use super::workspace::Workspace;
use crate::util;

/// The fence info strings of a code block rustdoc runs (or, `no_run`,
/// compiles): not `ignore`, `text`, `sh`, ...
fn is_rust_fence(info: &str) -> bool {
    let info = info.trim();
    info.is_empty()
        || info
            .split(',')
            .map(str::trim)
            .all(|w| matches!(w, "rust" | "no_run" | "should_panic" | "edition2024"))
}

/// Whether `text` (Markdown, or `//!` lines) opens a Rust code block.
fn has_rust_block(text: &str, doc_comment: bool) -> bool {
    let mut open = false;
    for line in text.lines() {
        let line = line.trim_start();
        let line = if doc_comment {
            match line.strip_prefix("//!") {
                Some(rest) => rest.trim_start(),
                None => continue,
            }
        } else {
            line
        };
        if let Some(info) = line.strip_prefix("```") {
            if !open && is_rust_fence(info) {
                return true;
            }
            open = !open;
        }
    }
    false
}

/// The static part (cheap; the quick check runs it).
pub(crate) fn check_static(ws: &Workspace) -> Vec<String> {
    let mut problems = Vec::new();
    for p in ws.libraries() {
        let lib = p.front_page();
        if !has_rust_block(&lib, true) {
            problems.push(format!(
                "{}: src/lib.rs has no example on its front page (a ```-block in the `//!` docs \
                 that runs as a doctest)",
                p.name
            ));
        }
        let readme = std::fs::read_to_string(p.dir.join("README.md")).unwrap_or_default();
        if !has_rust_block(&readme, false) {
            problems.push(format!(
                "{}: README.md has no Rust example (a ```rust block, shown on crates.io)",
                p.name
            ));
        }
        if !lib.contains("include_str!(\"../README.md\")") {
            problems.push(format!(
                "{}: the README's example is not compiled: add to src/lib.rs \
                 `#[cfg(doctest)] #[doc = include_str!(\"../README.md\")] struct ReadmeDoctest;`",
                p.name
            ));
        }
    }
    if !ws
        .root
        .join("crates/mcp-cli/tests/readme_snippets.rs")
        .is_file()
    {
        problems.push(
            "crates/mcp-cli/tests/readme_snippets.rs is gone: the README's Rust programs are no \
             longer compiled"
                .to_string(),
        );
    }
    problems
}

/// The full part: rustdoc with warnings denied, all features, and every
/// doctest of the library crates.
pub(crate) fn check_build(ws: &Workspace) -> Vec<String> {
    let mut problems = Vec::new();
    let libs = ws.libraries();
    let mut doc = util::cargo(&ws.root);
    doc.args(["doc", "--no-deps", "--locked", "--all-features"]);
    let mut test = util::cargo(&ws.root);
    test.args(["test", "--doc", "--locked", "--all-features"]);
    for p in &libs {
        doc.args(["-p", &p.name]);
        test.args(["-p", &p.name]);
    }
    doc.env(
        "RUSTDOCFLAGS",
        "-D warnings -D rustdoc::broken-intra-doc-links",
    );
    if let Err(e) = util::run(&mut doc, "cargo doc --all-features (rustdoc -D warnings)") {
        problems.push(format!("{e}: fix the rustdoc warnings above"));
    }
    if let Err(e) = util::run(&mut test, "cargo test --doc --all-features") {
        problems.push(format!("{e}: a doctest above fails"));
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_runnable_blocks() {
        assert!(has_rust_block(
            "//! Intro\n//! ```\n//! let x = 1;\n//! ```\n",
            true
        ));
        assert!(has_rust_block(
            "# t\n```rust,no_run\nfn main() {}\n```\n",
            false
        ));
        assert!(!has_rust_block("# t\n```sh\ncargo run\n```\n", false));
        assert!(!has_rust_block("//! ```text\n//! x\n//! ```\n", true));
        // A fence that closes an `ignore` block does not open a Rust one.
        assert!(!has_rust_block("```ignore\nx\n```\n", false));
    }
}
