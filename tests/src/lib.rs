//! Test support shared by the integration tests of every crate: real peers
//! ([`peers`]), fresh temporary paths ([`temp_dir`], [`temp_path`]), the
//! replay of a fuzz target's kept corpus ([`fuzz_corpus::replay`]), with
//! the feature `tokio`, waiting for a condition (`eventually`), and with
//! the feature `oidc`, the OAuth peer and a browser played over HTTP
//! (`oidc`).
//!
//! Helpers that only one crate's tests need stay in that crate's
//! `tests/support/` (or `tests/common/`).

pub mod fuzz_corpus;
#[cfg(feature = "oidc")]
pub mod oidc;
pub mod peers;
pub mod temp;
#[cfg(feature = "tokio")]
pub mod wait;

pub use temp::{temp_dir, temp_path};
#[cfg(feature = "tokio")]
pub use wait::{eventually, eventually_within};
