//! Replaying a fuzz target's kept corpus on stable: every file of
//! `fuzz/corpus/TARGET/` fed to the same check function the cargo-fuzz
//! target calls, so CI exercises each decoder on every input the fuzzer
//! found interesting without nightly or libFuzzer (`cargo xtask fuzz` is
//! where new inputs are found and the corpus minimised).

use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::path::Path;

/// Feeds every file of `crate_dir/fuzz/corpus/target/` to `check`, in name
/// order, and returns how many there were.
///
/// Panics (failing the test) when the directory is missing or empty (a
/// replay of nothing would pass without checking anything), or when
/// `check` panics on a file; the panic names the file.
pub fn replay(crate_dir: &Path, target: &str, check: impl Fn(&[u8])) -> usize {
    let dir = crate_dir.join("fuzz/corpus").join(target);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("the kept corpus {} cannot be read: {e}", dir.display()))
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.is_file())
        .collect();
    files.sort();
    assert!(
        !files.is_empty(),
        "the kept corpus {} is empty: run `cargo xtask fuzz {target}`",
        dir.display()
    );
    for path in &files {
        let data =
            std::fs::read(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        if let Err(panic) = catch_unwind(AssertUnwindSafe(|| check(&data))) {
            eprintln!(
                "fuzz target {target}: the check failed on {} ({} bytes)",
                path.display(),
                data.len()
            );
            resume_unwind(panic);
        }
    }
    files.len()
}
