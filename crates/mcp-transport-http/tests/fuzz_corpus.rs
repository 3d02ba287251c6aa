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
#[path = "../src/sse/reference.rs"]
mod reference;

use std::path::Path;

use mcp_tests::fuzz_corpus::replay;

fn here() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn sse_parser_corpus() {
    replay(here(), "sse_parser", fuzz_checks::sse_parser::check);
}

#[test]
fn header_value_corpus() {
    replay(here(), "header_value", fuzz_checks::header_value::check);
}

#[test]
fn legacy_endpoint_corpus() {
    replay(
        here(),
        "legacy_endpoint",
        fuzz_checks::legacy_endpoint::check,
    );
}
