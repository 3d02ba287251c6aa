//! Fresh temporary paths, unique within and across test processes.
//!
//! A name is `mcp-test-<tag>-<pid>-<n>`: the process id tells concurrent
//! test binaries apart, and `n`, a counter of this process, tells apart two
//! calls with the same tag (tests of one binary run on several threads).

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

/// Counter of the names handed out by this process.
static NEXT: AtomicU64 = AtomicU64::new(0);

/// A path under the system temp directory that no other call of any test
/// process returns; nothing is created there. `tag` says which test it is
/// for (it appears in the name).
pub fn temp_path(tag: &str) -> PathBuf {
    std::env::temp_dir().join(format!(
        "mcp-test-{tag}-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ))
}

/// A new, empty directory at a fresh [`temp_path`]: whatever an earlier
/// process with the same id left there is removed first.
///
/// Panics when the directory cannot be created (a test cannot go on).
pub fn temp_dir(tag: &str) -> PathBuf {
    let dir = temp_path(tag);
    let _ = std::fs::remove_dir_all(&dir);
    if let Err(e) = std::fs::create_dir_all(&dir) {
        panic!("cannot create the test directory {}: {e}", dir.display());
    }
    dir
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two calls with the same tag, from several threads at once, never
    /// share a directory, and each starts empty.
    #[test]
    fn same_tag_gives_distinct_empty_dirs() {
        let dirs: Vec<PathBuf> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..8).map(|_| s.spawn(|| temp_dir("same"))).collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let mut unique = dirs.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), dirs.len(), "{dirs:?}");
        for dir in &dirs {
            assert!(dir.is_dir(), "{}", dir.display());
            assert_eq!(std::fs::read_dir(dir).unwrap().count(), 0);
            std::fs::remove_dir_all(dir).unwrap();
        }
        assert_ne!(temp_path("p"), temp_path("p"));
    }
}
