//! Check 9: CHANGELOG.md (Keep a Changelog) has an `## [Unreleased]`
//! section, and every crate whose API file differs from the one at the
//! comparison point (the last release tag, or before the first one the
//! workspace's baseline commit) is named by a line of that section which
//! the comparison point did not have. A line that was there already says
//! nothing about the new change: without this rule, one early entry naming
//! a crate would let every later change of its API through.

use std::collections::BTreeSet;
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

/// The file `rel` at commit `rev`, if it has one.
fn git_show(root: &Path, rev: &str, rel: &str) -> Option<String> {
    Command::new("git")
        .current_dir(root)
        .args(["show", &format!("{rev}:{rel}")])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).to_string())
}

/// Whether `section` names `krate` as a word (`mcp-client`, not the
/// `mcp-client` in `mcp-client-extra`).
fn names_crate(section: &str, krate: &str) -> bool {
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
    let names: Vec<String> = ws.libraries().iter().map(|p| p.name.clone()).collect();
    check_crates(&ws.root, &names, base)
}

/// [`check`] of the crates `names` of the repository at `root`.
fn check_crates(root: &Path, names: &[String], base: &str) -> (Vec<String>, Vec<(String, bool)>) {
    let mut problems = Vec::new();
    let text = std::fs::read_to_string(root.join("CHANGELOG.md")).unwrap_or_default();
    let section = unreleased(&text);
    if section.is_none() {
        problems.push(
            "CHANGELOG.md has no `## [Unreleased]` section (Keep a Changelog: \
             https://keepachangelog.com): add one"
                .to_string(),
        );
    }
    let then_log = git_show(root, base, "CHANGELOG.md").unwrap_or_default();
    let old_lines: BTreeSet<&str> = unreleased(&then_log)
        .map(|s| s.lines().map(str::trim).collect())
        .unwrap_or_default();
    let new_lines: Vec<&str> = section
        .map(|s| {
            s.lines()
                .map(str::trim)
                .filter(|l| !l.is_empty() && !old_lines.contains(l))
                .collect()
        })
        .unwrap_or_default();
    let mut changed = Vec::new();
    for name in names {
        let file = api_file(root, name);
        let rel = file
            .strip_prefix(root)
            .unwrap_or(&file)
            .to_string_lossy()
            .to_string();
        let now = std::fs::read_to_string(&file).unwrap_or_default();
        let then = git_show(root, base, &rel);
        let differs = then.as_deref() != Some(now.as_str());
        changed.push((name.clone(), differs));
        if differs && section.is_some() && !new_lines.iter().any(|l| names_crate(l, name)) {
            problems.push(format!(
                "{name}: its API ({rel}) changed since {base}, but no line of the Unreleased \
                 section of CHANGELOG.md added since then names {name}: add one there saying \
                 what changed for its users"
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
        assert!(names_crate(s, "mcp-client"));
        assert!(names_crate(s, "mcp-transport-http"));
        assert!(!names_crate(s, "mcp-transport"));
        assert!(!names_crate(s, "mcp-types"));
    }

    /// Breaking the check on purpose: an API file that changed since the
    /// baseline while the Unreleased section does not name its crate fails,
    /// with the fix; naming the crate makes it pass; an unchanged crate
    /// needs no entry.
    #[test]
    fn an_api_change_the_changelog_does_not_name_fails() {
        let repo = super::super::scratch::Scratch::new("changelog");
        repo.git(&["init", "--quiet"]);
        repo.write("docs/api/mcp-a.txt", "pub fn mcp_a::f()\n");
        repo.write("docs/api/mcp-b.txt", "pub fn mcp_b::g()\n");
        let first = "# Changelog\n\n## [Unreleased]\n- mcp-a, mcp-b: first release.\n";
        repo.write("CHANGELOG.md", first);
        repo.git(&["add", "."]);
        repo.git(&["commit", "--quiet", "-m", "baseline"]);
        let crates = ["mcp-a".to_string(), "mcp-b".to_string()];

        let (problems, changed) = check_crates(repo.path(), &crates, "HEAD");
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(changed, [("mcp-a".into(), false), ("mcp-b".into(), false)]);

        // A function removed from mcp-a's API, the changelog untouched: the
        // line naming mcp-a was there already, so it does not count.
        repo.write("docs/api/mcp-a.txt", "");
        let (problems, changed) = check_crates(repo.path(), &crates, "HEAD");
        assert_eq!(changed, [("mcp-a".into(), true), ("mcp-b".into(), false)]);
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(problems[0].starts_with("mcp-a: its API (docs/api/mcp-a.txt) changed"));
        assert!(problems[0].contains("no line of the Unreleased section"));
        assert!(problems[0].contains("add one there"));

        // A new line under an older release does not count either.
        repo.write(
            "CHANGELOG.md",
            &format!("{first}\n## [0.0.1]\n- mcp-a: `f` removed.\n"),
        );
        let (problems, _) = check_crates(repo.path(), &crates, "HEAD");
        assert_eq!(problems.len(), 1, "{problems:?}");

        // A new line under Unreleased naming the crate does.
        repo.write(
            "CHANGELOG.md",
            &format!("{first}### Removed\n- mcp-a: `f`.\n"),
        );
        let (problems, _) = check_crates(repo.path(), &crates, "HEAD");
        assert!(problems.is_empty(), "{problems:?}");

        // No Unreleased section at all.
        repo.write("CHANGELOG.md", "# Changelog\n\n## [0.1.0]\n- mcp-a\n");
        let (problems, _) = check_crates(repo.path(), &crates, "HEAD");
        assert!(
            problems[0].contains("no `## [Unreleased]` section"),
            "{problems:?}"
        );
    }
}
