//! mcp-manager (work in progress).
