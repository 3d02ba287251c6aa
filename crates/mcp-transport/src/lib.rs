//! mcp-transport (work in progress).
