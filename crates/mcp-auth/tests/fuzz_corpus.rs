//! Every fuzz target of this crate, fed its kept corpus
//! (`fuzz/corpus/TARGET/`, minimised by `cargo xtask fuzz`) on stable:
//! the same checks the cargo-fuzz targets run, on every input the fuzzer
//! found worth keeping.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

mod fuzz_checks;

use std::path::Path;

use mcp_tests::fuzz_corpus::replay;

fn here() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn www_authenticate_corpus() {
    replay(
        here(),
        "www_authenticate",
        fuzz_checks::www_authenticate::check,
    );
}

#[test]
fn auth_metadata_corpus() {
    replay(here(), "auth_metadata", fuzz_checks::auth_metadata::check);
}
