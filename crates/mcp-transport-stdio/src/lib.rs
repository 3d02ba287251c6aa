//! # mcp-transport-stdio
//!
//! The MCP stdio transport (spec: `basic/transports` § stdio, every
//! revision): the client starts the server as a child process and exchanges
//! newline-delimited JSON-RPC messages over its stdin/stdout.
//! [`StdioTransport`] implements [`mcp_transport::Transport`] on top of the
//! shared [`mcp_transport::Dispatcher`] (correlation, timeouts,
//! `notifications/cancelled`, progress); this crate supplies the process
//! lifecycle, the framing and the writer.
//!
//! A complete exchange with a real child process: a server written in one
//! line of shell that reads one request and answers it (the first request
//! id is 0), then waits for its stdin to close.
//!
//! ```
//! use mcp_transport::{RequestOptions, Transport};
//! use mcp_transport_stdio::{StdioConfig, StdioTransport};
//! use serde_json::json;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let server = r#"read -r request; echo '{"jsonrpc":"2.0","id":0,"result":{"tools":[]}}'; cat >/dev/null"#;
//! let config = StdioConfig::new("sh")
//!     .with_args(["-c", server])
//!     .with_label("one-line-server");
//! let transport = StdioTransport::spawn(config).await?;
//! let result = transport
//!     .request("tools/list", None, RequestOptions::default())
//!     .await?;
//! assert_eq!(result.to_value()?, json!({ "tools": [] }));
//! transport.close().await?; // closes stdin: the server's `cat` ends, and so does it
//! assert!(!transport.is_connected());
//! # Ok(())
//! # }
//! ```
//!
//! # Defaults and units
//! | setting | default | |
//! |---|---|---|
//! | [`StdioConfig::max_line_bytes`] | 64 MiB (67 108 864 bytes) | longest message line from the server |
//! | [`StdioConfig::pipe_capacity`] | 256 KiB (Linux) | stdin/stdout pipe capacity asked for |
//! | [`StdioConfig::shutdown_grace`] | 2 000 ms | stdin closed → SIGTERM |
//! | [`SIGTERM_GRACE`] | 1 000 ms | SIGTERM → SIGKILL |
//! | [`StdioConfig::stderr_tail_bytes`] | 8 KiB | stderr kept for the close reason |
//! | [`STDERR_LINE_MAX`] | 4 KiB | longest stderr line logged / passed to the callback |
//! | [`WRITE_QUEUE`] | 256 messages | outgoing queue; full = backpressure |
//! | [`NOTIFY_TIMEOUT`] | 30 000 ms | a notification/response waiting for queue room |
//! | request timeout | 30 000 ms | per request, from [`mcp_transport::RequestOptions`] |
//!
//! # Framing
//! stdout is split on raw `\n` bytes, one trailing `\r` is stripped, blank
//! lines are skipped, and each line is UTF-8-decoded and parsed as a whole
//! ([`framing::LineFramer`]; a character split across reads is intact). A
//! line that is not JSON-RPC (a server logging on stdout) is logged and
//! skipped; nothing is written back. A line over `max_line_bytes` is
//! discarded up to the next `\n` without being stored; when its first 4 KiB
//! show the top-level `"id"` of a pending request, that request fails with
//! [`TransportError::MessageTooLarge`](mcp_transport::TransportError::MessageTooLarge),
//! otherwise the line is only logged. Reading carries on either way.
//!
//! Outgoing messages are serialized once by the dispatcher and written, each
//! with its `\n`, in one piece: straight from the sender's task when nothing
//! is queued (Unix: one non-blocking `writev`; a short write leaves the rest
//! first in the queue), otherwise by a writer task fed by a bounded queue.
//! Concurrent callers never interleave bytes, and a server that stops
//! reading stdin makes senders wait instead of growing memory.
//!
//! # stderr
//! Piped (never inherited onto the terminal) and drained from the moment of
//! spawn. Each line goes to `tracing` at INFO with target `mcp_stdio::stderr`
//! and field `server` (the config's label), and to
//! [`StdioConfig::on_stderr`]; the last `stderr_tail_bytes` are kept for the
//! close reason.
//!
//! # Lifecycle and shutdown sequence
//! On Unix the server leads a new process group, so wrappers such as `npx`
//! or `uvx` and their children end together.
//!
//! [`close()`](mcp_transport::Transport::close):
//! 1. marks the connection closed and fails every pending request with
//!    `Closed("closed by the client")`; the `Closed` event fires once;
//! 2. closes the server's stdin (after writing what was already queued);
//! 3. waits up to `shutdown_grace` (2 000 ms) for the server to exit;
//! 4. sends SIGTERM to the process group and waits up to [`SIGTERM_GRACE`]
//!    (1 000 ms) for the server and the group to end;
//! 5. sends SIGKILL to the group;
//! 6. reaps the server (no zombie), and returns.
//!
//! When the server exits or closes its stdout by itself, every pending
//! request fails with `Closed` carrying the exit status and the stderr tail,
//! the `Closed` event fires once, and the same sequence ends what is left of
//! the process group. A server that closes its stdin and runs on is treated
//! the same once a write to it fails (`Closed("the server closed its stdin
//! …")`): nothing could be sent to it again. There is no automatic restart.
//!
//! [`StdioTransport::kill`] skips steps 2 to 5: SIGKILL to the group at
//! once (also during a `close()` still in its grace), then the reaping.
//!
//! Dropping a [`StdioTransport`] without `close()` sends SIGKILL to the
//! process group synchronously (no runtime needed inside `Drop`), fails
//! pending requests with `Closed`, and leaves the reaping to the supervisor
//! task (or to tokio's orphan reaper when the runtime is gone).
//!
//! # Cancel safety
//! Dropping the future of [`Transport::request`](mcp_transport::Transport::request)
//! before it completes forgets the request, drops its late response, and
//! sends the server `notifications/cancelled` once (never for `initialize`);
//! a timeout or a cancelled token does the same. Dropping the future of
//! `notify` may or may not have queued the message; a queued message is
//! written whole. Dropping the future of `close()` does not stop the
//! shutdown sequence, which runs on its own task.

mod config;
pub mod framing;
mod outbound;
mod process;
mod signals;
mod stderr;
mod transport;

pub use config::{
    DEFAULT_MAX_LINE_BYTES, DEFAULT_PIPE_CAPACITY, DEFAULT_SHUTDOWN_GRACE, NOTIFY_TIMEOUT,
    SIGTERM_GRACE, STDERR_LINE_MAX, StderrCallback, StdioConfig, WRITE_QUEUE,
};
pub use transport::StdioTransport;

/// The crate README (its crates.io page): its example is compiled as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctest;
