#![doc = include_str!("../README.md")]
//!
//! # Modules
//! Each module is one layer's crate, re-exported whole: the items and their
//! documentation are that crate's.

/// JSON-RPC envelopes and every MCP schema type (the crate `mcpio-types`).
pub use mcp_types as types;

/// The `Transport` trait, request options, transport errors and the shared
/// request engine (the crate `mcpio-transport`).
pub use mcp_transport as transport;

/// The client: negotiation, typed methods, server requests (the crate
/// `mcpio-client`).
pub use mcp_client as client;

/// The stdio transport: a server as a child process (the crate
/// `mcpio-transport-stdio`, feature `stdio`).
#[cfg(feature = "stdio")]
pub use mcp_transport_stdio as stdio;

/// The HTTP transports: Streamable HTTP and HTTP+SSE (the crate
/// `mcpio-transport-http`, feature `http`).
#[cfg(feature = "http")]
pub use mcp_transport_http as http;

/// OAuth 2.1 for remote servers (the crate `mcpio-auth`, feature `oauth`).
#[cfg(feature = "oauth")]
pub use mcp_auth as auth;

/// Many servers from an `mcpServers` configuration (the crate
/// `mcpio-manager`, feature `manager`).
#[cfg(feature = "manager")]
pub use mcp_manager as manager;

/// MCP tools in a model's hands: tool definitions for OpenAI, Anthropic and
/// Gemini, model tool calls routed back, results as model content (the
/// crate `mcpio-llm`, feature `llm`).
#[cfg(feature = "llm")]
pub use mcp_llm as llm;

pub use mcp_client::{
    CallOptions, Client, ClientError, ClientHandler, ClientOptions, ElicitationModes,
    RequestOptions, VersionPreference,
};

#[cfg(feature = "stdio")]
pub use mcp_transport_stdio::{StdioConfig, StdioTransport};

#[cfg(feature = "http")]
pub use mcp_transport_http::{HttpConfig, HttpMode, HttpTransport};

#[cfg(feature = "oauth")]
pub use mcp_auth::OAuth;

#[cfg(feature = "manager")]
pub use mcp_manager::{Manager, ManagerOptions, McpConfig};
