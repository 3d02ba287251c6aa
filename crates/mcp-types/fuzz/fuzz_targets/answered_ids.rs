//! Fuzz target for `answered_ids` and `invalid_request` (the structural
//! scans of a frame that failed to decode) against serde_json's reading;
//! the check is `tests/fuzz_checks/answered_ids.rs`, which
//! `tests/fuzz_corpus.rs` also runs over the kept corpus. Run with
//! `cargo xtask fuzz answered_ids`.
#![no_main]

#[path = "../../tests/fuzz_checks/answered_ids.rs"]
mod answered_ids;
#[allow(dead_code)]
#[path = "../../tests/fuzz_checks/members.rs"]
mod members;

libfuzzer_sys::fuzz_target!(|data: &[u8]| answered_ids::check(data));
