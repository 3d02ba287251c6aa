//! Check 9: CHANGELOG.md (Keep a Changelog) has an `## [Unreleased]`
//! section, and every crate whose API file differs from the one at the
//! comparison point (the last release tag, or before the first one the
//! workspace's baseline commit) is named in it.

use std::path::Path;
use std::process::Command;

use super::api::api_file;
use super::workspace::Workspace;

/// The ref the checks compare with: the newest `v*` tag reachable from HEAD,
/// else `[workspace.metadata.release] baseline`.
pub(crate) fn base(ws: &Workspace) -> Result<String, String> {
    let tag = Command::new("git")
        .current_dir(&ws.root)
        .args(["describe", "--tags", "--abbrev=0", "--match", "v[0-9]*"])
        .output();
    if let Ok(out) = tag
        && out.status.success()
    {
        let t = String::from_utf8_lossy(&out.stdout).trim().to_string();
        if !t.is_empty() {
            return Ok(t);
        }
    }
    ws.baseline().map(str::to_string).ok_or_else(|| {
        "no release tag and no `baseline` in [workspace.metadata.release] of Cargo.toml".into()
    })
}

/// Whether `rev` names a commit this clone has.
pub(crate) fn has_commit(root: &Path, rev: &str) -> bool {
    Command::new("git")
        .current_dir(root)
        .args(["cat-file", "-e", &format!("{rev}^{{commit}}")])
        .status()
        .is_ok_and(|s| s.success())
}

/// The `## [Unreleased]` section of a changelog, without its heading.
pub(crate) fn unreleased(changelog: &str) -> Option<&str> {
    let start = changelog.find("\n## [Unreleased]")? + 1;
    let body = &changelog[start..];
    let body = &body[body.find('\n').map_or(body.len(), |i| i + 1)..];
    let end = body.find("\n## ").map_or(body.len(), |i| i + 1);
    Some(&body[..end])
}

/// Whether `section` names `krate` as a word (`mcp-client`, not the
/// `mcp-client` in `mcp-client-extra`).
fn names(section: &str, krate: &str) -> bool {
    section.match_indices(krate).any(|(i, _)| {
        let before = section[..i].chars().next_back();
        let after = section[i + krate.len()..].chars().next();
        let word =
            |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        !word(before) && !word(after)
    })
}

/// Per library crate, whether its API file differs from the one at `base`
/// (a crate that had none there counts as changed); and the problems.
pub(crate) fn check(ws: &Workspace, base: &str) -> (Vec<String>, Vec<(String, bool)>) {
    let mut problems = Vec::new();
    let path = ws.root.join("CHANGELOG.md");
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let section = unreleased(&text);
    if section.is_none() {
        problems.push(
            "CHANGELOG.md has no `## [Unreleased]` section (Keep a Changelog: \
             https://keepachangelog.com): add one"
                .to_string(),
        );
    }
    let mut changed = Vec::new();
    for p in ws.libraries() {
        let file = api_file(&ws.root, &p.name);
        let rel = file
            .strip_prefix(&ws.root)
            .unwrap_or(&file)
            .to_string_lossy()
            .to_string();
        let now = std::fs::read_to_string(&file).unwrap_or_default();
        let then = Command::new("git")
            .current_dir(&ws.root)
            .args(["show", &format!("{base}:{rel}")])
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).to_string());
        let differs = then.as_deref() != Some(now.as_str());
        changed.push((p.name.clone(), differs));
        if differs
            && let Some(section) = section
            && !names(section, &p.name)
        {
            problems.push(format!(
                "{}: its API ({rel}) changed since {base}, but the Unreleased section of \
                 CHANGELOG.md does not name {}: say there what changed for its users",
                p.name, p.name
            ));
        }
    }
    (problems, changed)
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOG: &str = "# Changelog\n\n## [Unreleased]\n\n### Added\n- mcp-client: a feature.\n\
                       - mcp-transport-http: x.\n\n## [0.1.0] - 2026-01-01\n- mcp-types: first.\n";

    #[test]
    fn finds_the_unreleased_section() {
        let s = unreleased(LOG).unwrap();
        assert!(s.contains("mcp-client: a feature"));
        assert!(!s.contains("mcp-types"));
        assert!(unreleased("# Changelog\n## [0.1.0]\n").is_none());
    }

    #[test]
    fn a_crate_is_named_as_a_whole_word() {
        let s = unreleased(LOG).unwrap();
        assert!(names(s, "mcp-client"));
        assert!(names(s, "mcp-transport-http"));
        assert!(!names(s, "mcp-transport"));
        assert!(!names(s, "mcp-types"));
    }
}
