//! Fuzz target for the typed decoder (`RawResult::parse`, the crate's own
//! serde deserializer in `src/de/`), with `serde_json::from_slice` as the
//! reference model.
//!
//! Run with `cargo xtask fuzz typed_decoder`; `tests/fuzz_corpus.rs`
//! replays the kept corpus (`fuzz/corpus/typed_decoder/`) on stable.
//!
//! Input layout: byte 0 picks the type to parse as (a `Value`, MCP
//! results, content blocks, a struct of typed fields, enums, maps keyed by
//! numbers and booleans, `RawValue`, ignored values, and each typed serde
//! method behind a visitor that takes anything); the rest is the text.
//!
//! Checks (`tests/de_oracle/mod.rs`, shared with the integration test
//! `tests/de_oracle_table.rs` that runs it over a fixed table): no panic;
//! ours and serde_json's both accept the text or both refuse it; what
//! both accept reads the same, number for number; our error on UTF-8 text
//! ends with ` at byte N` within the text. A lone surrogate escape, which
//! we read as U+FFFD where serde_json refuses it, is compared with
//! serde_json's reading of the text with those escapes rewritten.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/de_oracle/mod.rs"]
mod de_oracle;

fuzz_target!(|data: &[u8]| {
    de_oracle::check(data);
});
