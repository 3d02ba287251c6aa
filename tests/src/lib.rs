//! Test support shared by the integration tests.
#![deny(missing_docs)]

pub mod peers;
