//! The `Transport` trait: the seam between the protocol side (`mcp-client`)
//! and a concrete transport (stdio, Streamable HTTP, legacy HTTP+SSE).

use std::borrow::Cow;
use std::sync::Arc;

use async_trait::async_trait;
use mcp_types::RawParams;
use mcp_types::{ProtocolVersion, RawResult};
use serde_json::Value;

use crate::dispatcher::Dispatcher;
use crate::error::TransportError;
use crate::event::TransportEvents;
use crate::options::RequestOptions;
use crate::tap::WireTap;

/// A connection to one MCP server that moves JSON-RPC messages.
///
/// Message structure and correlation are shared (see
/// [`crate::Dispatcher`]); a transport supplies framing, stream parsing,
/// process or HTTP lifecycle, and teardown.
///
/// # Cancel safety
/// Dropping the future of [`request`](Transport::request) before it
/// completes forgets the request, drops its late response, and sends the
/// server `notifications/cancelled` once (never for `initialize`). Dropping
/// [`notify`](Transport::notify) may or may not have delivered the message.
///
/// # Wrapping a transport
/// No method has a default body: a wrapper (a wire tap, a per-server layer)
/// must say what each one does, so it cannot lose a capability of the
/// transport it wraps by forgetting to forward a query the compiler never
/// asked about. A wrapper forwards every method it does not change.
#[async_trait]
pub trait Transport: Send + Sync + std::fmt::Debug + 'static {
    /// Sends request `method` with `params` and waits for its result, which
    /// comes back unparsed ([`RawResult`]: a slice of the frame it arrived
    /// in) so the caller parses it once, into the type it expects. `params`
    /// is borrowed: it is serialized as it is written, with
    /// `options.params_meta` and (with `options.progress`) the
    /// `progressToken` merged into its `_meta`, never copied.
    ///
    /// Errors: `JsonRpc` for an error response; `Timeout` (after
    /// `options.timeout`; inherited, it is 30 000 ms), `Cancelled`, `Closed`,
    /// `Malformed`, `MessageTooLarge`, `SessionExpired` (HTTP), `Http`.
    async fn request(
        &self,
        method: &str,
        params: Option<&Value>,
        options: RequestOptions,
    ) -> Result<RawResult, TransportError>;

    /// [`request`](Transport::request) with params the caller serialized
    /// ([`RawParams`], e.g. a `tools/call`'s arguments written straight
    /// from the caller's own type): the request is written around them
    /// (the dispatcher's [`Dispatcher::request_raw`](crate::Dispatcher::request_raw)),
    /// so they are not copied again and nothing of them is held while the
    /// response is awaited. `_meta` members are merged as for `request`.
    ///
    /// Errors: as [`request`](Transport::request).
    async fn request_raw(
        &self,
        method: &str,
        params: RawParams,
        options: RequestOptions,
    ) -> Result<RawResult, TransportError>;

    /// The [`Dispatcher`] that [`request`](Transport::request) and
    /// [`request_raw`](Transport::request_raw) forward to, when forwarding
    /// is all they do: the protocol side then calls the dispatcher itself,
    /// so a request's future is part of the caller's (no boxed future of
    /// this trait's methods: one allocation fewer per request). `None`
    /// when they do more (a wrapper that watches or changes requests
    /// returns `None`; one that forwards them unchanged may return the
    /// wrapped transport's).
    fn dispatcher(&self) -> Option<&Arc<Dispatcher>>;

    /// Sends notification `method` with `params`.
    async fn notify(&self, method: &str, params: Option<Value>) -> Result<(), TransportError>;

    /// Closes the connection: pending requests fail with `Closed`, the
    /// transport's shutdown sequence runs (stdio: close stdin, wait, SIGTERM,
    /// SIGKILL; HTTP: DELETE the session), and the `Closed` event fires once.
    /// Closing twice is harmless.
    async fn close(&self) -> Result<(), TransportError>;

    /// `true` until the connection closed (by either side).
    fn is_connected(&self) -> bool;

    /// What the connection runs over, for a person reading a report
    /// (`mcp doctor`): `stdio`, `socket`, `Streamable HTTP`, or
    /// `HTTP+SSE (2024-11-05)` once a transport that tries both settled on
    /// the legacy one. `None` from a stand-in that has nothing to say; a
    /// wrapper forwards it.
    fn wire_kind(&self) -> Option<&'static str>;

    /// Takes the receiver of this transport's events (notifications, server
    /// requests, close, errors); `Some` only on the first call. Until it is
    /// taken, server requests get the default answer (`{}` for `ping`,
    /// `-32601` otherwise).
    fn take_events(&self) -> Option<TransportEvents>;

    /// Tells the transport the negotiated revision, so that it applies that
    /// revision's wire rules (e.g. the `MCP-Protocol-Version` header, batches).
    fn set_protocol_version(&self, version: ProtocolVersion);

    /// `true` when this transport sends the HTTP request-metadata headers of
    /// [`RequestOptions::metadata_headers`] (Streamable HTTP under
    /// 2026-07-28), so the protocol side knows computing them matters (spec
    /// 2026-07-28 `basic/transports` § Custom Headers: other transports MAY
    /// ignore `x-mcp-header`). `false` for stdio and the legacy HTTP+SSE
    /// transport.
    fn sends_metadata_headers(&self) -> bool;

    /// The HTTP session id (`Mcp-Session-Id`), when the server assigned one;
    /// `None` for stdio.
    fn session_id(&self) -> Option<String>;

    /// Installs a [`WireTap`] that sees every message of the connection
    /// from now on, exactly as sent and received, plus what this side
    /// decided on its own (a timeout, a cancellation); secrets the
    /// connection sent read `***`. Returns `false` when the transport
    /// cannot, or a tap is already installed. A transport built on the
    /// [`Dispatcher`](crate::Dispatcher) forwards to
    /// [`Dispatcher::set_wire_tap`](crate::Dispatcher::set_wire_tap).
    fn set_wire_tap(&self, tap: Arc<dyn WireTap>) -> bool;

    /// `text` as it may be shown to a person: every secret value this
    /// connection sent (an `Authorization` header, an API key header)
    /// replaced by `***`. The protocol side passes what it shows of the
    /// peer's answers through it (a result that does not decode quotes the
    /// value it choked on). A transport that sends no secrets returns
    /// `text` borrowed; one built on the dispatcher forwards to
    /// [`Dispatcher::redact`](crate::Dispatcher::redact).
    fn redact<'a>(&self, text: &'a str) -> Cow<'a, str>;

    /// How many requests await their response now: the entries of the
    /// pending table ([`crate::Dispatcher::pending_len`]). A cheap read (an
    /// atomic count, no lock taken: the count as the last change to the
    /// table left it) for monitoring: a soak samples it to see that every
    /// request leaves the table, answered, timed out, cancelled or failed.
    fn pending_requests(&self) -> usize;
}
