//! Fuzz target for the request-metadata header value encoding; the check
//! is `tests/fuzz_checks/header_value.rs`, which `tests/fuzz_corpus.rs`
//! also runs over the kept corpus. Run with `cargo xtask fuzz header_value`.
#![no_main]

#[path = "../../tests/fuzz_checks/header_value.rs"]
mod header_value;

libfuzzer_sys::fuzz_target!(|data: &[u8]| header_value::check(data));
