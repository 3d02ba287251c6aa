//! # mcp-transport-socket
//!
//! MCP over a connected socket: a TCP or Unix-domain stream carrying the
//! same newline-delimited JSON-RPC as stdio (spec `basic/transports` §
//! stdio for the framing; a socket is one of the spec's § Custom
//! Transports). Servers run under socket activation, in containers, or
//! behind a local relay are reached this way.
//!
//! This crate is the worked example of a third transport, and it uses only
//! what any transport author has: the [`Dispatcher`](mcp_transport::Dispatcher)
//! and [`Outbound`](mcp_transport::Outbound) of `mcpio-transport` (ids,
//! correlation, timeouts, `notifications/cancelled`, progress, server
//! requests, the wire tap) and the public line framer of
//! `mcpio-transport-stdio` ([`mcp_transport_stdio::framing::LineFramer`],
//! with `Frame` and `sniff_id`): bounded lines, a byte order mark dropped,
//! an over-long line discarded without being stored and its request
//! failed. The framer stays in the stdio crate, whose framing it is; no
//! other helper had to be made public. It is a crate, not an example, so
//! that `mcp-manager` (`{"socket": "PATH|HOST:PORT"}` entries) and the
//! `mcp` command line (`--socket`) can use it. `docs/transports.md` walks
//! through it.
//!
//! ```no_run
//! use mcp_transport::{RequestOptions, Transport};
//! use mcp_transport_socket::{SocketAddress, SocketConfig, SocketTransport};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let address = SocketAddress::parse("127.0.0.1:7000")?; // or "/run/mcp/server.sock"
//! let transport = SocketTransport::connect(SocketConfig::new(address)).await?;
//! let pong = transport.request("ping", None, RequestOptions::default()).await?;
//! println!("{}", pong.to_value()?);
//! transport.close().await?;
//! # Ok(())
//! # }
//! ```
//!
//! # Defaults and units
//! | setting | default | |
//! |---|---|---|
//! | [`SocketConfig::max_line_bytes`] | 64 MiB (67 108 864 bytes) | longest message line from the server |
//! | [`SocketConfig::connect_timeout`] | 10 000 ms | connecting |
//! | [`WRITE_QUEUE`] | 256 messages | outgoing queue; full = backpressure |
//! | [`NOTIFY_TIMEOUT`] | 30 000 ms | a notification/response waiting for queue room |
//! | [`CLOSE_GRACE`] | 2 000 ms | `close()` writing what was queued |
//! | request timeout | 30 000 ms | per request, from [`mcp_transport::RequestOptions`] |
//!
//! # Lifecycle
//! Messages are queued whole for one writer task, which writes each with
//! its `\n` and flushes when the queue is empty; a dropped request future
//! never leaves half a line. A reader task frames what arrives and hands
//! each line to the dispatcher. When the server closes the connection (or
//! a read or write fails), every pending request fails at once with
//! `Closed` and the `Closed` event fires once. `close()` fails pending
//! requests with `Closed("closed by the client")`, writes what was queued,
//! and shuts down the write half so the server reads the end of its input;
//! closing again does nothing. Dropping the transport without `close()`
//! fails pending requests and drops the socket. There is no reconnection
//! (`mcp-manager` restarts a lost server).

mod address;
mod transport;

pub use address::SocketAddress;
pub use transport::{
    CLOSE_GRACE, DEFAULT_CONNECT_TIMEOUT, DEFAULT_MAX_LINE_BYTES, NOTIFY_TIMEOUT, SocketConfig,
    SocketTransport, WRITE_QUEUE,
};

/// The crate README (its crates.io page): its example is compiled as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctest;
