//! Helpers for running commands from xtask.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The workspace root (the parent of `xtask/`).
pub fn workspace_root() -> Result<PathBuf, String> {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest
        .parent()
        .map(Path::to_path_buf)
        .ok_or_else(|| "xtask has no parent directory".to_string())
}

/// A command run from `dir`.
pub fn cmd(program: &str, dir: &Path) -> Command {
    let mut c = Command::new(program);
    c.current_dir(dir);
    c
}

/// `cargo` (the one running xtask) run from `dir`.
pub fn cargo(dir: &Path) -> Command {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    cmd(&cargo, dir)
}

/// Runs `command`, echoing it; an error names `what` failed.
pub fn run(command: &mut Command, what: &str) -> Result<(), String> {
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
