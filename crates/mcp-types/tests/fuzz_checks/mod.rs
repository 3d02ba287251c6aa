//! The check of each fuzz target of this crate, one file per target,
//! shared by the cargo-fuzz targets (`fuzz/fuzz_targets/*.rs` include
//! these files by path) and by `tests/fuzz_corpus.rs`, which feeds them
//! the kept corpus (`fuzz/corpus/TARGET/`) on stable in every CI run. (`typed_decoder`'s check is `tests/de_oracle/mod.rs`.)

pub(crate) mod answered_ids;
pub(crate) mod jsonrpc_decode;
pub(crate) mod members;
