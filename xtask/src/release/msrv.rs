//! Check 6: the declared `rust-version` is honoured. clippy's
//! `incompatible_msrv` lint reads it from each Cargo.toml and flags any
//! standard-library item stabilized later; CI's clippy run has it on (it is
//! a default lint), so the quick check makes sure nothing turns it off. The
//! full check runs it once more with all features, and builds with that
//! toolchain when rustup has it or can install it.

use std::process::Command;

use super::workspace::Workspace;
use crate::util;

/// The quick part: nothing overrides or silences the lint.
pub(crate) fn check_static(ws: &Workspace) -> Vec<String> {
    let mut problems = Vec::new();
    let clippy = std::fs::read_to_string(ws.root.join("clippy.toml")).unwrap_or_default();
    if clippy.lines().any(|l| l.trim_start().starts_with("msrv")) {
        problems.push(
            "clippy.toml sets `msrv`, which overrides the `rust-version` of Cargo.toml: remove it"
                .to_string(),
        );
    }
    for p in ws.published() {
        for file in rust_files(&p.dir.join("src")) {
            let text = std::fs::read_to_string(&file).unwrap_or_default();
            if text.contains("incompatible_msrv") {
                problems.push(format!(
                    "{}: silences clippy::incompatible_msrv: use what the declared \
                     rust-version has, or raise rust-version in [workspace.package]",
                    file.strip_prefix(&ws.root).unwrap_or(&file).display()
                ));
            }
        }
    }
    problems
}

fn rust_files(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in entries.flatten() {
        let path = e.path();
        if path.is_dir() {
            out.extend(rust_files(&path));
        } else if path.extension().is_some_and(|x| x == "rs") {
            out.push(path);
        }
    }
    out
}

/// The full part: the lint with all features, then a build with the
/// declared toolchain if there is one. Returns the problems and, when the
/// toolchain could not be had, a note saying so.
pub(crate) fn check_build(ws: &Workspace) -> (Vec<String>, Option<String>) {
    let mut problems = Vec::new();
    let rust_version = ws
        .published()
        .first()
        .and_then(|p| p.json["rust_version"].as_str().map(str::to_string))
        .unwrap_or_default();
    let mut clippy = util::cargo(&ws.root);
    clippy.args(["clippy", "--locked", "--all-features"]);
    for p in ws.published() {
        clippy.args(["-p", &p.name]);
    }
    clippy.args(["--", "-D", "clippy::incompatible_msrv"]);
    if let Err(e) = util::run(
        &mut clippy,
        &format!("clippy::incompatible_msrv at rust-version {rust_version}"),
    ) {
        problems.push(format!(
            "{e}: the code uses what Rust {rust_version} does not have: use an older way, or \
             raise rust-version in [workspace.package] (and say so in CHANGELOG.md)"
        ));
    }
    let installed = Command::new("rustup")
        .args(["run", &rust_version, "rustc", "--version"])
        .output()
        .is_ok_and(|o| o.status.success());
    let installed = installed || {
        eprintln!("==> rustup toolchain install {rust_version} --profile minimal");
        Command::new("timeout")
            .args([
                "120",
                "rustup",
                "toolchain",
                "install",
                &rust_version,
                "--profile",
                "minimal",
            ])
            .status()
            .is_ok_and(|s| s.success())
    };
    if !installed {
        return (
            problems,
            Some(format!(
                "MSRV build: toolchain {rust_version} is not installed and rustup could not \
                 fetch it here; a build with it needs `rustup toolchain install {rust_version}` \
                 then this check again (clippy's incompatible_msrv lint did run)"
            )),
        );
    }
    let target = super::package::target_dir(&ws.root).join("msrv");
    // `+toolchain` needs rustup's `cargo` proxy, not the toolchain's own
    // binary that runs xtask (`$CARGO`).
    let mut build = util::cmd("cargo", &ws.root);
    build
        .args([
            &format!("+{rust_version}"),
            "check",
            "--locked",
            "--all-features",
        ])
        .env("CARGO_TARGET_DIR", &target)
        .env_remove("RUSTC")
        .env_remove("CARGO");
    for p in ws.published() {
        build.args(["-p", &p.name]);
    }
    if let Err(e) = util::run(&mut build, &format!("cargo +{rust_version} check")) {
        problems.push(format!(
            "{e}: the crates do not build with Rust {rust_version}: fix it, or raise \
             rust-version in [workspace.package]"
        ));
    }
    (problems, None)
}
