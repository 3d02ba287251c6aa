//! Fuzz target for the OAuth discovery documents and the URLs derived from
//! a server or issuer; the check and its input layout are in
//! `tests/fuzz_checks/auth_metadata.rs`, which `tests/fuzz_corpus.rs` also
//! runs over the kept corpus. Run with `cargo xtask fuzz auth_metadata`.
#![no_main]

#[path = "../../tests/fuzz_checks/auth_metadata.rs"]
mod auth_metadata;

libfuzzer_sys::fuzz_target!(|data: &[u8]| auth_metadata::check(data));
