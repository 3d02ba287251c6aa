//! The check of each fuzz target of this crate, one file per target,
//! shared by the cargo-fuzz targets (`fuzz/fuzz_targets/*.rs` include
//! these files by path) and by `tests/fuzz_corpus.rs`, which feeds them
//! the kept corpus (`fuzz/corpus/TARGET/`) on stable in every CI run.

pub(crate) mod header_value;
pub(crate) mod legacy_endpoint;
pub(crate) mod sse_parser;
