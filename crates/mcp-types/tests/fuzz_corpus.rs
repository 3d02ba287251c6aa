//! Every fuzz target of this crate, fed its kept corpus
//! (`fuzz/corpus/TARGET/`, minimised by `cargo xtask fuzz`) on stable:
//! the same checks the cargo-fuzz targets run, on every input the fuzzer
//! found worth keeping.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

#[allow(dead_code, reason = "the table test uses the rest")]
mod de_oracle;
mod fuzz_checks;

use std::path::Path;

use mcp_tests::fuzz_corpus::replay;

fn here() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn typed_decoder_corpus() {
    replay(here(), "typed_decoder", de_oracle::check);
}

#[test]
fn jsonrpc_decode_corpus() {
    replay(here(), "jsonrpc_decode", fuzz_checks::jsonrpc_decode::check);
}

#[test]
fn answered_ids_corpus() {
    replay(here(), "answered_ids", fuzz_checks::answered_ids::check);
}
