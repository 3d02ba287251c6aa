//! The fuzz target of this crate, fed its kept corpus
//! (`fuzz/corpus/key_value/`, minimised by `cargo xtask fuzz`) on stable:
//! the check the cargo-fuzz target runs, on every input the fuzzer found
//! worth keeping.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

#[path = "fuzz_checks/key_value.rs"]
mod key_value;

use std::path::Path;

#[test]
fn key_value_corpus() {
    mcp_tests::fuzz_corpus::replay(
        Path::new(env!("CARGO_MANIFEST_DIR")),
        "key_value",
        key_value::check,
    );
}
