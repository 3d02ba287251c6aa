//! Fuzz target for the legacy HTTP+SSE endpoint resolution; the check is
//! `tests/fuzz_checks/legacy_endpoint.rs`, which `tests/fuzz_corpus.rs`
//! also runs over the kept corpus. Run with
//! `cargo xtask fuzz legacy_endpoint`.
#![no_main]

#[path = "../../tests/fuzz_checks/legacy_endpoint.rs"]
mod legacy_endpoint;

libfuzzer_sys::fuzz_target!(|data: &[u8]| legacy_endpoint::check(data));
