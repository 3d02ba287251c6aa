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
    problems.extend(readme_names(ws));
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

/// Each published package's README (its crates.io page) is titled with the
/// package's name, and no README names one of ours by its directory's name
/// where that differs from the package's (`mcp-cli` for `mcpio-cli`): on
/// crates.io those names are other projects' crates, and `cargo install
/// mcp-cli` installs someone else's program.
fn readme_names(ws: &Workspace) -> Vec<String> {
    let published = ws.published();
    let renamed: Vec<(String, &str)> = published
        .iter()
        .filter_map(|p| {
            let dir = p.dir.file_name()?.to_str()?.to_string();
            (dir != p.name).then_some((dir, p.name.as_str()))
        })
        .collect();
    let mut problems = Vec::new();
    for p in &published {
        let readme = std::fs::read_to_string(p.dir.join("README.md")).unwrap_or_default();
        let title = format!("# {}", p.name);
        if readme.lines().next() != Some(title.as_str()) {
            problems.push(format!(
                "{}: README.md does not open with `{title}` (its crates.io page names the package)",
                p.name
            ));
        }
        for (dir, name) in &renamed {
            if let Some(line) = readme.lines().find(|l| names_word(l, dir)) {
                problems.push(format!(
                    "{}: README.md names `{dir}`, which is not our package (ours is `{name}`; \
                     `{dir}` on crates.io is another project's): {line:?}",
                    p.name
                ));
            }
        }
    }
    problems
}

/// Whether `line` holds `word` as a package name: not inside a path
/// (`crates/mcp-cli`), a longer name (`mcp-client-stack`) or a URL.
fn names_word(line: &str, word: &str) -> bool {
    line.match_indices(word).any(|(at, _)| {
        let before = line[..at].chars().next_back();
        let after = line[at + word.len()..].chars().next();
        let part = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || "-_/.".contains(c));
        !part(before) && !part(after)
    })
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

    /// Breaking the check on purpose: a README that tells users to install
    /// the directory's name (another project's crate on crates.io).
    #[test]
    fn a_readme_naming_a_directory_as_a_package_fails() {
        let dir = super::super::scratch::Scratch::new("readme-names");
        dir.write(
            "crates/mcp-cli/README.md",
            "# mcpio-cli\n\ncargo install mcp-cli\n",
        );
        let json = serde_json::json!({"packages": [{
            "name": "mcpio-cli", "version": "0.1.0", "publish": null,
            "manifest_path": dir.path().join("crates/mcp-cli/Cargo.toml"),
        }]});
        let ws = Workspace::from_json(dir.path(), &json);
        let p = readme_names(&ws);
        assert_eq!(p.len(), 1, "{p:?}");
        assert!(
            p[0].contains("names `mcp-cli`, which is not our package"),
            "{p:?}"
        );

        dir.write(
            "crates/mcp-cli/README.md",
            "# mcpio-cli\n\ncargo install mcpio-cli (from crates/mcp-cli, see mcp-client-stack)\n",
        );
        assert!(readme_names(&ws).is_empty());
    }

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
