//! mcp-transport-http (work in progress).
