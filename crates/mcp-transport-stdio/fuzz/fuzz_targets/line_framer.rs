//! Fuzz target for `LineFramer` and `sniff_id`; the check and its input
//! layout are in `tests/fuzz_checks/line_framer.rs`, which
//! `tests/fuzz_corpus.rs` also runs over the kept corpus. Run with
//! `cargo xtask fuzz line_framer`.
#![no_main]

#[path = "../../tests/fuzz_checks/line_framer.rs"]
mod line_framer;

libfuzzer_sys::fuzz_target!(|data: &[u8]| line_framer::check(data));
