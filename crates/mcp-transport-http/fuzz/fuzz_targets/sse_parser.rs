//! Fuzz target for the WHATWG event-stream parser; the check and its input
//! layout are in `tests/fuzz_checks/sse_parser.rs`, which
//! `tests/fuzz_corpus.rs` also runs over the kept corpus. Run with
//! `cargo xtask fuzz sse_parser`.
#![no_main]

#[path = "../../src/sse/reference.rs"]
mod reference;
#[path = "../../tests/fuzz_checks/sse_parser.rs"]
mod sse_parser;

libfuzzer_sys::fuzz_target!(|data: &[u8]| sse_parser::check(data));
