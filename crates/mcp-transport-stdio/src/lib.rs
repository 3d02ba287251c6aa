//! mcp-transport-stdio (work in progress).
