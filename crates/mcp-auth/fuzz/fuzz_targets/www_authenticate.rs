//! Fuzz target for the `WWW-Authenticate` parser; the check and its input
//! layout are in `tests/fuzz_checks/www_authenticate.rs`, which
//! `tests/fuzz_corpus.rs` also runs over the kept corpus. Run with
//! `cargo xtask fuzz www_authenticate`.
#![no_main]

#[path = "../../tests/fuzz_checks/input.rs"]
mod input;
#[path = "../../tests/fuzz_checks/www_authenticate.rs"]
mod www_authenticate;

libfuzzer_sys::fuzz_target!(|data: &[u8]| www_authenticate::check(data));
