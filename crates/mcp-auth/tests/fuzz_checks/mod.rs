//! The check of each fuzz target of this crate, one file per target,
//! shared by the cargo-fuzz targets (`fuzz/fuzz_targets/*.rs` include
//! these files by path) and by `tests/fuzz_corpus.rs`, which feeds them
//! the kept corpus (`fuzz/corpus/TARGET/`) on stable in every CI run.
//! The parsers are included by path too (the URL helpers are private), so
//! the fuzz crate builds without the HTTP stack.

pub(crate) mod auth_metadata;
pub(crate) mod input;
pub(crate) mod www_authenticate;
