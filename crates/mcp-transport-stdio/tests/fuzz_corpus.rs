//! The fuzz target of this crate, fed its kept corpus
//! (`fuzz/corpus/line_framer/`, minimised by `cargo xtask fuzz`) on
//! stable: the check the cargo-fuzz target runs, on every input the
//! fuzzer found worth keeping.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

#[path = "fuzz_checks/line_framer.rs"]
mod line_framer;

use std::path::Path;

#[test]
fn line_framer_corpus() {
    mcp_tests::fuzz_corpus::replay(
        Path::new(env!("CARGO_MANIFEST_DIR")),
        "line_framer",
        line_framer::check,
    );
}
