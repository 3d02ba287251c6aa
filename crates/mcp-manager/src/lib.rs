//! # mcp-manager
//!
//! The layer an agent uses: one [`Manager`] owning all its MCP servers,
//! configured by the `mcpServers` JSON that Claude Desktop, Cursor and
//! VS Code-style hosts share. It starts them in parallel, lists their tools
//! under one namespace (`server__tool`), routes calls, reconnects a server
//! it lost, and shuts them all down.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use std::time::Duration;
//! use mcp_manager::{CallOptions, Manager, ManagerEvent, ManagerOptions, McpConfig};
//! # // The example server: a small stdio MCP server of this crate's tests
//! # // (Python, standard library only).
//! # let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/fixture_server.py");
//! # if std::process::Command::new("python3").arg("--version").output().is_err() {
//! #     assert!(std::env::var_os("MCP_PEERS_REQUIRED").is_none(), "python3 is required");
//! #     eprintln!("skipped: python3 not found (it runs the example server)");
//! #     return Ok(());
//! # }
//!
//! // What a host reads from its `mcp.json` (`McpConfig::load_existing` reads files).
//! let text = serde_json::json!({
//!     "mcpServers": {"notes": {"command": "python3", "args": [script]}}
//! })
//! .to_string();
//! let config = McpConfig::from_json(&text)?;
//! for e in &config.errors {
//!     eprintln!("skipped: {e}"); // e.g. `mcpServers.foo.url: bad URL: …`
//! }
//! let options = ManagerOptions::new("agent", "1.0.0");
//! let manager = Manager::start(config, options).await;
//! let mut events = manager.events();
//! assert!(manager.wait_started(Duration::from_secs(60)).await);
//! for (server, status) in manager.status() {
//!     println!("{server}: {status}"); // notes: connected (<revision>; N tools, …)
//! }
//! let names: Vec<String> = manager.tools().into_iter().map(|t| t.qualified_name).collect();
//! assert!(names.contains(&"notes__echo".to_owned()));
//!
//! let args = serde_json::json!({"text": "hi"});
//! let result = manager.call_tool("notes__echo", args, CallOptions::default()).await?;
//! let text = serde_json::to_value(&result.content[0])?;
//! assert_eq!(text["text"], "fixture:hi");
//!
//! while let Ok(event) = events.try_recv() {
//!     if let ManagerEvent::ToolsChanged { server } = event {
//!         println!("{server} listed its tools");
//!     }
//! }
//! manager.shutdown().await;
//! # Ok(()) }
//! ```
//!
//! # What is where
//! - [`McpConfig`]: the `mcpServers` file — parsing, `${VAR}` / `${VAR:-default}`
//!   expansion, per-entry errors with JSON paths, merging files.
//! - [`Manager`]: parallel start with per-server startup timeouts,
//!   [`ServerStatus`] per server, [`ManagerEvent`]s, calls, shutdown;
//!   skills (`io.modelcontextprotocol/skills`) of a named server, listed on
//!   demand and loaded only once verified ([`Manager::list_skills`],
//!   [`Manager::load_skill`]).
//! - [`naming`] / [`Namespace`]: qualified names `server__tool`, sanitized to
//!   `^[a-zA-Z0-9_-]{1,64}$`, deterministic disambiguation, reversible.
//! - [`cache`]: the on-disk tool-list cache (no secrets on disk), and
//!   [`revision_memory`], the memory of which kind of revision each server speaks: both off unless
//!   asked for ([`ManagerOptions::with_cache_dir`],
//!   [`ManagerOptions::with_revision_dir`]); a manager writes nothing to disk by
//!   default.
//! - [`Backoff`]: the jittered exponential reconnection policy (the one
//!   [`mcp_transport::Backoff`], re-exported).
//! - Feature `schema-validation` (on by default): tool arguments and
//!   results are checked against the tools' schemas (`mcp-client`'s
//!   feature of that name, the `jsonschema` crate).
//! - Feature `oauth` (off by default): `ManagerOptions::with_oauth` /
//!   `with_server_oauth` give remote servers an OAuth 2.1 flow from
//!   `mcp-auth` (re-exported as `mcp_manager::mcp_auth`). Without it the
//!   crate does not depend on `mcp-auth`.
//!
//! # Health and recovery
//! A server whose **first** start fails (command not found, startup
//! timeout, refused handshake) is `Failed` and not retried. A server that
//! was connected and then closes is noticed through
//! [`mcp_client::Client::closed`] (the transport's `Closed` event, seen by
//! the client's receive loop), a liveness check of `is_connected`
//! every second, or a request failing with a closed error; a request that
//! fails at the transport level otherwise (I/O, HTTP status, lost session —
//! e.g. a remote server gone) triggers a health check (`tools/list` or
//! `ping`, 10 000 ms), and no answer counts as a disconnect. The server is
//! then reconnected with [`Backoff`] and re-listed; meanwhile its last tools
//! stay listed, marked `cached`. Requests in flight fail with the
//! transport's error (a tool call is never retried: it may not be
//! idempotent); new calls wait or fail fast per [`UnavailablePolicy`].
//! After `max_attempts` failed reconnections the server is `Failed` and its
//! tools, prompts and resources leave the namespace. A connection that
//! lasted at least the backoff cap resets the attempt count.
//!
//! A server whose authorization hook says a login is needed that no one can
//! be asked for (`mcp_auth::NoInteraction`) is [`ServerStatus::NeedsLogin`]
//! at once, on a first start or a reconnection, and not retried (no browser
//! is ever opened behind the user's back); calls to it fail with
//! [`ManagerError::NeedsLogin`], whose text is the hint of what to do. The
//! first call that finds a login in the flow's store (made meanwhile, in
//! another process, e.g. by `mcp login`) starts the server again, once, and
//! waits for that start; nothing polls.
//!
//! # Cancel safety
//! Dropping a [`Manager::call_tool`] future while it waits for a server
//! sends nothing; once sent, dropping it sends `notifications/cancelled`
//! (see `mcp-client`). Dropping the last [`Manager`] handle aborts every
//! supervisor and drops the transports (stdio: SIGKILL to the process
//! group); [`Manager::shutdown`] is the graceful way.

pub mod cache;
mod config;
mod error;
mod manager;
mod namespace;
pub mod naming;
mod options;
pub mod revision_memory;
mod status;

pub use config::{
    AuthMode, ConfigError, ConfigErrorKind, ExpandError, GrantCredentials, GrantSetting,
    MAX_CONFIG_BYTES, McpConfig, OAuthSettings, RemoteKind, RemoteServer, ServerConfig,
    SocketServer, StdioServer, TransportConfig, expand_variables, process_env,
};
pub use error::{ManagerError, error_chain};
pub use manager::Manager;
#[cfg(feature = "oauth")]
pub use mcp_auth;
pub use mcp_client::{CallOptions, ClientOptions, ElicitationModes, VersionPreference};
pub use mcp_transport::{Backoff, BackoffError};
pub use namespace::{Namespace, PromptEntry, ResourceEntry, ToolEntry};
#[cfg(feature = "oauth")]
pub use options::OAuthFactory;
pub use options::{
    DEFAULT_CALL_WAIT, DEFAULT_EVENT_CAPACITY, DEFAULT_HTTP_STARTUP_TIMEOUT,
    DEFAULT_LIST_CHANGED_DEBOUNCE, DEFAULT_SHUTDOWN_TIMEOUT, DEFAULT_STDIO_SHUTDOWN_GRACE,
    DEFAULT_STDIO_STARTUP_TIMEOUT, HandlerFactory, ManagerOptions, StartListings, TransportLayer,
    UnavailablePolicy,
};
pub use status::{ListingFailure, ManagerEvent, ServerStatus};

/// The crate README (its crates.io page): its example is compiled as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctest;
