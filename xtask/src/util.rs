//! Helpers for running commands from xtask.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The workspace root (the parent of `xtask/`). `cargo run` names the
/// manifest directory at run time; that wins over the one compiled in, so
/// a binary left in a target dir shared with another clone (cargo finds it
/// fresh: its sources there are unchanged) works on this clone, not that one.
pub(crate) fn workspace_root() -> Result<PathBuf, String> {
    let manifest = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")));
    manifest
        .parent()
        .map(Path::to_path_buf)
        .ok_or_else(|| "xtask has no parent directory".to_string())
}

/// A command run from `dir`.
pub(crate) fn cmd(program: &str, dir: &Path) -> Command {
    let mut c = Command::new(program);
    c.current_dir(dir);
    c
}

/// `cargo` (the one running xtask) run from `dir`, without the variables
/// `cargo run` set for xtask itself (`CARGO_PKG_NAME=xtask`,
/// `CARGO_MANIFEST_DIR`, …): build scripts that watch them (ring's does)
/// would otherwise see them change and rebuild everything above them, so
/// a build from xtask and one from the shell would undo each other.
pub(crate) fn cargo(dir: &Path) -> Command {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut c = cmd(&cargo, dir);
    without_xtask_env(&mut c);
    c
}

/// Removes from `c`'s environment the variables `cargo run` set for xtask
/// (see [`cargo`]), for a program that runs cargo itself (a wrapper script).
pub(crate) fn without_xtask_env(c: &mut Command) {
    for (name, _) in std::env::vars_os() {
        let Some(name) = name.to_str() else { continue };
        if name.starts_with("CARGO_PKG_")
            || name.starts_with("CARGO_MANIFEST_")
            || matches!(
                name,
                "CARGO_CRATE_NAME" | "CARGO_BIN_NAME" | "CARGO_PRIMARY_PACKAGE"
            )
        {
            c.env_remove(name);
        }
    }
}

/// Runs `command`, echoing it; an error names `what` failed.
pub(crate) fn run(command: &mut Command, what: &str) -> Result<(), String> {
    eprintln!("==> {what}");
    let status = command
        .status()
        .map_err(|e| format!("{what}: cannot run {:?}: {e}", command.get_program()))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{what} failed ({status})"))
    }
}
