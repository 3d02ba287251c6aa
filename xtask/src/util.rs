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

/// `cargo` (the one running xtask) run from `dir`.
pub(crate) fn cargo(dir: &Path) -> Command {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    cmd(&cargo, dir)
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
