//! Scratch directories for the tests that break a check on purpose (a
//! crate missing a file from `include`, a forbidden dependency, an API
//! change the changelog does not name): each test builds the broken case in
//! a directory of its own, removed when the test ends.

use std::path::{Path, PathBuf};
use std::process::Command;

/// A directory under the system's temporary directory, removed on drop.
pub(crate) struct Scratch(PathBuf);

impl Scratch {
    pub(crate) fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("xtask-release-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create the scratch directory");
        Scratch(dir)
    }

    pub(crate) fn path(&self) -> &Path {
        &self.0
    }

    /// Writes `text` to `rel`, creating its directories.
    pub(crate) fn write(&self, rel: &str, text: &str) {
        let path = self.0.join(rel);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).expect("create a scratch subdirectory");
        }
        std::fs::write(&path, text).expect("write a scratch file");
    }

    /// Runs git in the directory (an identity of its own, no signing).
    pub(crate) fn git(&self, args: &[&str]) {
        let status = Command::new("git")
            .current_dir(&self.0)
            .args(["-c", "user.name=xtask", "-c", "user.email=xtask@localhost"])
            .args([
                "-c",
                "commit.gpgsign=false",
                "-c",
                "init.defaultBranch=main",
            ])
            .args(args)
            .status()
            .expect("run git");
        assert!(status.success(), "git {args:?} failed");
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
