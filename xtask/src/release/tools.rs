//! The cargo tools the full check runs. The full check first runs
//! `.ci/install-tools --full`, which installs them from crates.io at the
//! versions named here into `target/tools/` (never by hand, never into
//! ~/.cargo); they are run from there, or named as missing.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::util;

/// A cargo subcommand from crates.io.
pub(crate) struct Tool {
    /// The crate (`cargo-hack`).
    pub(crate) krate: &'static str,
    /// The subcommand (`hack`).
    pub(crate) sub: &'static str,
    /// The version `.ci/install-tools` pins.
    pub(crate) version: &'static str,
}

pub(crate) const HACK: Tool = Tool {
    krate: "cargo-hack",
    sub: "hack",
    version: "0.6.46",
};
pub(crate) const DENY: Tool = Tool {
    krate: "cargo-deny",
    sub: "deny",
    version: "0.20.2",
};
pub(crate) const SEMVER_CHECKS: Tool = Tool {
    krate: "cargo-semver-checks",
    sub: "semver-checks",
    version: "0.51.0",
};

/// Where `.ci/install-tools` installs the tools (`cargo install --root`).
fn tools_bin(root: &Path) -> PathBuf {
    super::package::target_dir(root).join("tools/bin")
}

/// Installs the full check's tools with `.ci/install-tools --full` (a quick
/// no-op when they are there). `Err` says why it could not; each check that
/// needs a missing tool then says so and does not pass.
pub(crate) fn install(root: &Path) -> Result<(), String> {
    let mut c = util::cmd("bash", root);
    c.arg(root.join(".ci/install-tools")).arg("--full");
    // The script installs where this check looks, also when the target
    // directory is not the workspace's `target/`.
    if let Some(tools) = tools_bin(root).parent() {
        c.env("RELEASE_TOOLS_ROOT", tools);
    }
    util::run(
        &mut c,
        "install cargo-hack, cargo-deny, cargo-semver-checks into target/tools (.ci/install-tools --full)",
    )
}

/// `cargo` from `root` (as [`util::cargo`]) finding the tools of
/// `target/tools/bin` first.
pub(crate) fn cargo(root: &Path) -> Command {
    let mut c = util::cargo(root);
    let mut paths = vec![tools_bin(root)];
    if let Some(path) = std::env::var_os("PATH") {
        paths.extend(std::env::split_paths(&path));
    }
    if let Ok(joined) = std::env::join_paths(paths) {
        c.env("PATH", joined);
    }
    c
}

impl Tool {
    /// Whether `cargo <sub> --version` runs.
    pub(crate) fn present(&self, root: &Path) -> bool {
        cargo(root)
            .args([self.sub, "--version"])
            .output()
            .is_ok_and(|o| o.status.success())
    }

    /// Why a check did not run when the tool is absent.
    pub(crate) fn absent(&self) -> String {
        format!(
            "{} {} is not in target/tools and `bash .ci/install-tools --full` could not \
             install it from crates.io (its output above says why)",
            self.krate, self.version
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The versions here and in .ci/install-tools are the same.
    #[test]
    fn install_script_pins_the_same_versions() {
        let script = include_str!("../../../.ci/install-tools");
        for t in [HACK, DENY, SEMVER_CHECKS] {
            let spec = format!("{}@{}", t.krate, t.version);
            assert!(script.contains(&spec), "{spec} not in .ci/install-tools");
        }
    }
}
