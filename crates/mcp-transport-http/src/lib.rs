//! # mcp-transport-http
//!
//! The HTTP side of an MCP client: [`HttpTransport`] connects to a remote MCP
//! server over Streamable HTTP (spec `basic/transports`, 2025-03-26 on),
//! the legacy HTTP+SSE transport (2024-11-05), or whichever the server
//! speaks ([`HttpMode::Auto`]), and implements
//! [`Transport`](mcp_transport::Transport): `mcp-client` runs the protocol
//! on top of it. It is built on hyper 1.x (pooled hyper-util client,
//! HTTP/1.1 and HTTP/2), rustls (web PKI roots plus the platform's native
//! roots) and `HTTPS_PROXY` / `HTTP_PROXY` / `NO_PROXY`. Its event-stream
//! parser is public as [`sse`].
//!
//! # Example
//!
//! Connect, run the handshake by hand (`mcp-client` does this for you) and
//! list the tools. The example runs against a stand-in server on 127.0.0.1
//! (this repository's test server, in the hidden lines).
//!
//! ```
//! # use fault_http::{FaultServer, Reply, init_result, tools_result};
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), mcp_transport::TransportError> {
//! # let server = FaultServer::start(|req| {
//! #     let id = req.rpc_id().unwrap_or_default();
//! #     match req.rpc_method().as_deref() {
//! #         Some("initialize") => Reply::json(init_result(&id, "2025-06-18")),
//! #         Some("tools/list") => Reply::json(tools_result(&id)),
//! #         _ => Reply::status(202),
//! #     }
//! # })
//! # .await
//! # .expect("a port on 127.0.0.1");
//! # let url = server.url("/mcp");
//! use mcp_transport::{RequestOptions, Transport};
//! use mcp_transport_http::{HttpConfig, HttpMode, HttpTransport};
//! use mcp_types::ProtocolVersion;
//! use serde_json::json;
//!
//! // `url` is the server's MCP endpoint, e.g. "https://example.com/mcp".
//! let config = HttpConfig::new(url).with_header("Authorization", "Bearer token");
//! let transport = HttpTransport::connect(config, HttpMode::Auto).await?;
//!
//! let init = json!({"protocolVersion": "2025-06-18", "capabilities": {},
//!     "clientInfo": {"name": "example", "version": "0.1.0"}});
//! transport.request("initialize", Some(&init), RequestOptions::default()).await?;
//! transport.set_protocol_version(ProtocolVersion::V2025_06_18);
//! transport.notify("notifications/initialized", None).await?;
//!
//! let tools = transport.request("tools/list", None, RequestOptions::default()).await?;
//! assert_eq!(tools, json!({"tools": []}));
//! transport.close().await
//! # }
//! ```
//!
//! # On the wire
//!
//! - **Streamable HTTP** (spec `basic/transports`, 2025-03-26 … 2025-11-25):
//!   every message is POSTed with `Content-Type: application/json` and
//!   `Accept: application/json, text/event-stream`; once a revision is set,
//!   `MCP-Protocol-Version` goes on every POST, GET and DELETE (the
//!   per-revision rules live in [`wire_rules`]). A request's reply is JSON or
//!   an SSE stream (media types parsed: any case, parameters ignored);
//!   notifications and server requests on it are delivered as they arrive
//!   and the request resolves when its response arrives. A stream that ends
//!   early is resumed with GET + `Last-Event-ID` when the server gave event
//!   ids (backoff: [`Backoff`], `retry:` clamped), otherwise the request fails
//!   promptly with `Closed("No response received for request ID …")`. A
//!   complete 2xx reply that holds no response (empty, `{}`) fails it with
//!   `Protocol` (naming the request; "… held no response …").
//!   Any 2xx completes a notification or a response we POSTed.
//! - **2026-07-28** (stateless; [`wire_rules`]): every POST carries
//!   `MCP-Protocol-Version`, `Mcp-Method` and the request-metadata headers
//!   the client computed ([`mcp_transport::RequestOptions::metadata_headers`]:
//!   `Mcp-Name`, `Mcp-Param-*`, encoded by [`header_value::encode`]); no
//!   `Mcp-Session-Id`, no GET stream, no DELETE, no resumption, and an
//!   abandoned request is cancelled by dropping its reply stream (no
//!   `notifications/cancelled` POST).
//! - **Sessions**: `Mcp-Session-Id` from the initialize reply is sent on
//!   every later request; a 404 to a request that carried it, or a 400
//!   saying the session is unknown, drops it and fails with
//!   `SessionExpired` (the client layer re-initializes).
//! - **Cookies**: each connection keeps the cookies its server's origin
//!   sets (a load balancer's sticky session, say) and sends them back on
//!   every later request to that origin, never to another (RFC 6265
//!   storage rules; `Secure` only over https or to a loopback host); the
//!   jar is in memory and emptied on close.
//! - **GET listener**: opened after `notifications/initialized` is delivered
//!   (or by [`HttpTransport::start_listening`]); delivering that notification
//!   completes only once the GET was answered (≤ [`HttpTimeouts::listen`],
//!   5 s), so requests after the handshake find the stream in place;
//!   405/400/404 = none offered, not retried in that session; drops
//!   reconnect with `Last-Event-ID`. A new session (re-initialization after
//!   an expiry) ends the old session's listener and gets a stream of its own.
//! - **Legacy HTTP+SSE** (2024-11-05) with [`HttpMode::Legacy`], and
//!   **auto-detection** with [`HttpMode::Auto`]: the first request is POSTed
//!   as Streamable HTTP; on 400/404/405 the transport switches itself to
//!   legacy on the same URL and re-sends that same request there (so the
//!   initialize params stay in the client layer). 401/403 are never a
//!   fallback.
//! - **Errors**: non-2xx is `Http{status, body (≤ 4 KiB), WWW-Authenticate,
//!   Mcp-Auth-Server}` (or the JSON-RPC error the body carries for that
//!   request); 307/308 redirects are followed keeping method, body and
//!   headers (≤ 5 hops, cross-origin hops drop `Authorization` and cookies);
//!   301/302/303 on a POST is an error, never a GET. Timeouts name their
//!   phase (request, SSE response, notify, connect).
//! - **Authorization** (spec `basic/authorization`): an [`AuthProvider`]
//!   is asked for a [`Credential`] before every request to the server's
//!   origin (each retry and same-origin redirect hop included) and decides
//!   what a 401/403 leads to ([`AuthDecision`]: retry, retry with headers,
//!   or fail with [`TransportError::Auth`](mcp_transport::TransportError::Auth)),
//!   at most [`MAX_AUTH_RETRIES`] times per exchange. [`Fetcher`] sends
//!   the authorization layer's own requests (metadata, registration,
//!   tokens) on the same connector, never following redirects.
//! - **Sloppy servers** (every request, the handshake's included):
//!   replies compressed with `gzip`, `deflate`, `br` or `zstd` are decoded
//!   as they stream (every request sends `Accept-Encoding: gzip, deflate,
//!   br, zstd`; the decoded size is what the limits count); a legacy
//!   `endpoint` or a `Location` with dot segments is resolved as RFC 3986
//!   § 5.2 says; a request that failed on a reused keep-alive connection
//!   before any byte of its reply is sent once more on a new connection;
//!   a 429/503 with `Retry-After` is waited out and retried, bounded by
//!   [`RetryAfterPolicy`] and the send's own deadline.
//! - [`call`]: one JSON-RPC call, on the same code path.
//!
//! Every buffer the server can grow is bounded (decoded bytes, for a
//! compressed reply): an SSE event or a JSON body
//! by [`HttpConfig::max_event_bytes`] (64 MiB default; past it the request
//! fails with `MessageTooLarge` and the connection survives), an error body
//! by 4 KiB.
//!
//! # Cancel safety
//! Dropping a request future (or its timeout, or its cancellation token)
//! drops the reply stream (the HTTP/1.1 connection is closed, not pooled
//! with an unread body) and, before 2026-07-28, POSTs
//! `notifications/cancelled` for it (never for `initialize`). Under
//! 2026-07-28 the dropped stream is the cancellation. See
//! [`Transport`](mcp_transport::Transport).

mod auth;
mod body;
mod config;
mod connector;
mod decode;
mod errors;
mod event_stream;
mod exchange;
mod fetch;
pub mod header_value;
mod legacy;
mod listener;
mod lock;
mod media;
mod mode;
mod no_proxy;
mod oneshot;
mod post;
mod redact;
mod session;
mod shared;
pub mod sse;
mod streamable;
mod tls;
mod transport;
mod url;
pub mod wire_rules;

pub use auth::{
    AuthChallenge, AuthDecision, AuthFailure, AuthProvider, Credential, IncomingResponse,
    MAX_AUTH_RETRIES, OutgoingRequest,
};
pub use config::{
    DEFAULT_MAX_EVENT_BYTES, DEFAULT_MAX_IDLE_CONNECTIONS, DEFAULT_MAX_REDIRECTS, ERROR_BODY_LIMIT,
    ERROR_BODY_WAIT, HttpConfig, HttpMode, HttpTimeouts, ProxySetting, RetryAfterPolicy,
};
pub use fetch::{DEFAULT_FETCH_MAX_BODY, FetchError, FetchOptions, Fetcher};
pub use mcp_transport::{Backoff, BackoffError};
pub use oneshot::{OneShotOptions, call};
pub use tls::TlsSession;
pub use transport::{ActiveMode, HttpTransport};

/// The crate README (its crates.io page): its example is compiled as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctest;
