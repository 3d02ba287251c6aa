//! The cargo tools the full check runs, found on PATH or named as missing.
//! `.ci/install-tools --full` installs them at the versions named here.

use std::path::Path;

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

impl Tool {
    /// Whether `cargo <sub> --version` runs.
    pub(crate) fn present(&self, root: &Path) -> bool {
        util::cargo(root)
            .args([self.sub, "--version"])
            .output()
            .is_ok_and(|o| o.status.success())
    }

    /// Why a check did not run when the tool is absent.
    pub(crate) fn absent(&self) -> String {
        format!(
            "{} is not installed: `bash .ci/install-tools --full` installs {} {} from crates.io",
            self.krate, self.krate, self.version
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
