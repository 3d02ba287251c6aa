//! Check 5: the public API of each library crate, written to
//! `docs/api/<crate>.txt` and compared with what the code has now; and, in
//! the full check, `cargo semver-checks` against the last release.
//!
//! The API comes from rustdoc's JSON output. That output is unstable, so
//! rustdoc accepts it only on nightly, or with `RUSTC_BOOTSTRAP=1`. We use the
//! toolchain everything else is built with (a fresh machine has that one
//! only) and pass `RUSTC_BOOTSTRAP=1` to rustdoc alone, through this very
//! binary as `RUSTDOC`: set for the whole `cargo doc`, the variable would
//! change the build scripts that look at it (proc-macro2's) and so rebuild
//! every dependency, where now the ones `cargo doc` compiled are reused.

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use super::api_text;
use super::workspace::{Package, Workspace};
use crate::util;

/// Set to the real rustdoc when this binary runs as cargo's `RUSTDOC`.
pub(crate) const AS_RUSTDOC: &str = "XTASK_AS_RUSTDOC";

/// Runs the real rustdoc (named by [`AS_RUSTDOC`]) with this process's
/// arguments and `RUSTC_BOOTSTRAP=1`.
pub(crate) fn run_as_rustdoc(real: OsString) -> ExitCode {
    let status = Command::new(&real)
        .args(std::env::args_os().skip(1))
        .env("RUSTC_BOOTSTRAP", "1")
        .env_remove(AS_RUSTDOC)
        .status();
    match status {
        Ok(s) if s.success() => ExitCode::SUCCESS,
        Ok(s) => ExitCode::from(u8::try_from(s.code().unwrap_or(1)).unwrap_or(1)),
        Err(e) => {
            eprintln!(
                "xtask (as rustdoc): cannot run {}: {e}",
                real.to_string_lossy()
            );
            ExitCode::FAILURE
        }
    }
}

/// The file of a crate's API.
pub(crate) fn api_file(root: &Path, package: &str) -> PathBuf {
    root.join("docs/api").join(format!("{package}.txt"))
}

fn header(p: &Package) -> String {
    format!(
        "# The public API of {} (all features), from rustdoc's JSON output.\n\
         # Written by `cargo xtask release-check --write-api`; do not edit.\n",
        p.name
    )
}

/// Builds rustdoc JSON of the workspace's crates (all features) into the
/// target directory's `doc/`.
fn rustdoc_json(ws: &Workspace) -> Result<(), String> {
    let sysroot = Command::new(std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into()))
        .current_dir(&ws.root)
        .args(["--print", "sysroot"])
        .output()
        .map_err(|e| format!("cannot run rustc --print sysroot: {e}"))?;
    let sysroot = String::from_utf8_lossy(&sysroot.stdout).trim().to_string();
    let real = Path::new(&sysroot).join("bin/rustdoc");
    if !real.is_file() {
        return Err(format!("no rustdoc at {}", real.display()));
    }
    let me = std::env::current_exe().map_err(|e| format!("cannot find xtask's binary: {e}"))?;
    // The whole workspace, as CI's `cargo doc` selects it: the same feature
    // unification, so its compiled dependencies are reused (the JSON of the
    // crates without an API file costs a few seconds).
    let mut c = util::cargo(&ws.root);
    c.args([
        "doc",
        "--workspace",
        "--no-deps",
        "--locked",
        "--all-features",
    ]);
    c.env("RUSTDOC", &me)
        .env(AS_RUSTDOC, &real)
        .env("RUSTDOCFLAGS", "-Z unstable-options --output-format json");
    util::run(&mut c, "rustdoc JSON of the library crates (the API files)")
}

/// What the API check found.
pub(crate) struct ApiCheck {
    pub(crate) problems: Vec<String>,
    /// Crates whose file was (re)written by `--write-api`.
    pub(crate) written: Vec<String>,
}

/// Renders each library's API; writes the files when `write`, else compares.
pub(crate) fn check(ws: &Workspace, write: bool) -> Result<ApiCheck, String> {
    let libs = ws.libraries();
    rustdoc_json(ws)?;
    let doc_dir = super::package::target_dir(&ws.root).join("doc");
    let mut problems = Vec::new();
    let mut written = Vec::new();
    for p in libs {
        let json_path = doc_dir.join(format!("{}.json", p.crate_name()));
        let text = std::fs::read_to_string(&json_path)
            .map_err(|e| format!("{}: {e}", json_path.display()))?;
        let json: serde_json::Value = serde_json::from_str(&text)
            .map_err(|e| format!("{}: not JSON: {e}", json_path.display()))?;
        let api = format!("{}{}", header(p), api_text::render(&json)?);
        let file = api_file(&ws.root, &p.name);
        let on_disk = std::fs::read_to_string(&file).ok();
        if on_disk.as_deref() == Some(api.as_str()) {
            continue;
        }
        if write {
            if let Some(dir) = file.parent() {
                std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
            }
            std::fs::write(&file, &api).map_err(|e| format!("{}: {e}", file.display()))?;
            written.push(p.name.clone());
            continue;
        }
        let shown = file.strip_prefix(&ws.root).unwrap_or(&file).display();
        problems.push(match on_disk {
            None => format!(
                "{}: {shown} does not exist: run `cargo xtask release-check --write-api` and \
                 commit it",
                p.name
            ),
            Some(old) => differs(&p.name, &shown.to_string(), &old, &api),
        });
    }
    Ok(ApiCheck { problems, written })
}

/// The problem of an API that differs from its file `shown`: the lines that
/// differ and the fix.
pub(crate) fn differs(name: &str, shown: &str, old: &str, new: &str) -> String {
    format!(
        "{name}: the public API differs from {shown}:\n{}\n  fix: if the change is meant, run \
         `cargo xtask release-check --write-api`, commit the file and add a line naming {name} \
         under Unreleased in CHANGELOG.md; if not, restore the item",
        diff(old, new)
    )
}

/// The lines only in `old` (`-`) and only in `new` (`+`), at most 20 of each.
pub(crate) fn diff(old: &str, new: &str) -> String {
    let a: BTreeSet<&str> = old.lines().collect();
    let b: BTreeSet<&str> = new.lines().collect();
    let mut out = Vec::new();
    for (sign, only) in [("-", a.difference(&b)), ("+", b.difference(&a))] {
        let only: Vec<&&str> = only.collect();
        for l in only.iter().take(20) {
            out.push(format!("    {sign} {l}"));
        }
        if only.len() > 20 {
            out.push(format!("    {sign} … and {} more", only.len() - 20));
        }
    }
    out.join("\n")
}

/// `cargo semver-checks` of the library crates against `base` (a tag or a
/// commit): per crate, its verdict line; problems when it fails.
pub(crate) fn semver(
    ws: &Workspace,
    base: &str,
) -> Result<(Vec<String>, BTreeMap<String, String>), String> {
    let mut c = super::tools::cargo(&ws.root);
    c.args([
        "semver-checks",
        "check-release",
        "--color",
        "never",
        "--baseline-rev",
        base,
    ]);
    for p in ws.libraries() {
        c.args(["-p", &p.name]);
    }
    eprintln!("==> cargo semver-checks against {base}");
    let out = c
        .output()
        .map_err(|e| format!("cannot run cargo semver-checks: {e}"))?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(&out.stdout)
    );
    eprintln!("{text}");
    let verdicts = parse_semver(&text);
    let mut problems = Vec::new();
    if !out.status.success() {
        problems.push(format!(
            "cargo semver-checks against {base} failed (its report above names each breaking \
             change and the version it needs): bump `version` in [workspace.package] as it says \
             (for 0.x, the minor number) and say so in CHANGELOG.md, or restore what broke"
        ));
    }
    Ok((problems, verdicts))
}

/// Per crate, the `Summary` line cargo-semver-checks printed after its
/// `Checking <crate> vA -> vB` line.
fn parse_semver(text: &str) -> BTreeMap<String, String> {
    let mut verdicts = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in text.lines().map(str::trim) {
        if let Some(rest) = line.strip_prefix("Checking ") {
            current = rest.split_whitespace().next().map(str::to_string);
        } else if let Some(rest) = line.strip_prefix("Summary ")
            && let Some(krate) = current.take()
        {
            verdicts.insert(krate, rest.to_string());
        }
    }
    verdicts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_diff_shows_removed_and_added_lines() {
        let d = diff("a\nb\nc\n", "a\nc\nd\n");
        assert_eq!(d, "    - b\n    + d");
    }

    #[test]
    fn reads_semver_checks_summaries() {
        let text = "     Checking mcp-types v0.1.0 -> v0.1.0 (no change)\n\
                         Checked [   0.010s] 120 checks: 120 pass, 0 skip\n\
                         Summary no semver update required\n\
                        Checking mcp-client v0.1.0 -> v0.1.0 (no change)\n\
                         Summary semver requires new minor version: 1 major and 0 minor checks failed\n";
        let v = parse_semver(text);
        assert_eq!(v["mcp-types"], "no semver update required");
        assert!(v["mcp-client"].starts_with("semver requires new minor version"));
    }
}
