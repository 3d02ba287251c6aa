//! Fuzz target for the command line's `key=value` / JSON argument parser;
//! the check and its input layout are in `tests/fuzz_checks/key_value.rs`,
//! which `tests/fuzz_corpus.rs` also runs over the kept corpus. Run with
//! `cargo xtask fuzz key_value`.
#![no_main]

#[path = "../../tests/fuzz_checks/key_value.rs"]
mod key_value;

libfuzzer_sys::fuzz_target!(|data: &[u8]| key_value::check(data));
