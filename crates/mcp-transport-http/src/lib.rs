//! mcp-transport-http (work in progress).
#![deny(missing_docs)]

pub mod sse;
