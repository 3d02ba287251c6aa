//! Part of check 1 (full check only, it asks crates.io): each crate's name
//! is free on crates.io or already ours. A name another project published
//! cannot be published by us, and a packaged crate of ours that depends on
//! it would resolve their crate, not ours: `cargo package`'s verification
//! then fails with errors that do not say why.

use super::workspace::Workspace;
use crate::util;

/// What crates.io holds under a name: its newest version and repository.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Published {
    pub(crate) version: String,
    pub(crate) repository: Option<String>,
}

/// The problems: names taken by another repository, or names that could
/// not be looked up (never a pass).
pub(crate) fn check(ws: &Workspace) -> Vec<String> {
    let ours = ws
        .published()
        .first()
        .and_then(|p| p.json["repository"].as_str().map(str::to_string))
        .unwrap_or_default();
    let mut problems = Vec::new();
    eprintln!("==> the crates' names on crates.io (cargo info)");
    for p in ws.published() {
        match look_up(&p.name) {
            Ok(None) => eprintln!("xtask: {}: free on crates.io", p.name),
            Ok(Some(found)) => match taken(&p.name, &found, &ours) {
                Some(problem) => problems.push(problem),
                None => eprintln!(
                    "xtask: {}: ours on crates.io (version {})",
                    p.name, found.version
                ),
            },
            Err(e) => problems.push(format!(
                "{}: could not ask crates.io whether the name is free ({e}); `cargo info {}` \
                 where crates.io is reachable",
                p.name, p.name
            )),
        }
    }
    problems
}

/// `cargo info NAME` run outside the workspace (inside it, cargo describes
/// the workspace's own package): `None` when crates.io has no such crate.
fn look_up(name: &str) -> Result<Option<Published>, String> {
    let out = util::cargo(&std::env::temp_dir())
        .args(["info", "--registry", "crates-io", name])
        .output()
        .map_err(|e| format!("cannot run cargo info: {e}"))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if out.status.success() {
        return parse_info(&stdout)
            .map(Some)
            .ok_or_else(|| "cargo info printed no version".to_string());
    }
    if stderr.contains("could not find") {
        return Ok(None);
    }
    Err(stderr
        .lines()
        .last()
        .unwrap_or("cargo info failed")
        .to_string())
}

/// The `version:` and `repository:` lines of `cargo info`.
fn parse_info(text: &str) -> Option<Published> {
    let field = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(name))
            .map(|v| v.trim().to_string())
    };
    Some(Published {
        version: field("version:")?,
        repository: field("repository:"),
    })
}

/// The problem when `found` under `name` is another project's.
fn taken(name: &str, found: &Published, ours: &str) -> Option<String> {
    let norm = |u: &str| {
        u.trim()
            .trim_end_matches('/')
            .trim_end_matches(".git")
            .to_ascii_lowercase()
    };
    if found.repository.as_deref().map(norm) == Some(norm(ours)) {
        return None;
    }
    Some(format!(
        "{name}: the name is taken on crates.io (version {}, repository {}): `cargo publish` \
         cannot publish it, and our packaged crates that depend on {name} resolve that crate \
         instead of ours. Fix: rename the crate to a name crates.io does not have (`cargo info \
         <name>` says \"could not find\"), in its Cargo.toml, [workspace.dependencies], \
         PUBLISH_ORDER (xtask/src/release/workspace.rs) and the docs",
        found.version,
        found.repository.as_deref().unwrap_or("none given")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    const INFO: &str = "mcp-types #mcp\nModel Context Protocol types\nversion: 0.1.1\n\
                        license: MIT OR Apache-2.0\nrust-version: 1.85\n\
                        repository: https://github.com/someone-else/mcp-types\n";

    #[test]
    fn a_name_another_repository_published_is_named_with_the_fix() {
        let found = parse_info(INFO).unwrap();
        assert_eq!(found.version, "0.1.1");
        let p = taken(
            "mcp-types",
            &found,
            "https://github.com/mcp-client-rs/mcp-client-rs",
        )
        .unwrap();
        assert!(
            p.starts_with("mcp-types: the name is taken on crates.io"),
            "{p}"
        );
        assert!(
            p.contains("https://github.com/someone-else/mcp-types"),
            "{p}"
        );
        assert!(p.contains("Fix: rename the crate"), "{p}");
    }

    #[test]
    fn a_name_we_published_is_ours() {
        let found = Published {
            version: "0.1.0".into(),
            repository: Some("https://github.com/mcp-client-rs/mcp-client-rs.git/".into()),
        };
        assert!(
            taken(
                "mcp-types",
                &found,
                "https://github.com/mcp-client-rs/mcp-client-rs"
            )
            .is_none()
        );
    }
}
