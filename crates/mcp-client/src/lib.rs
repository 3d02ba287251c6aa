//! mcp-client (work in progress).
