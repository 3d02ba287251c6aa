//! # fault-http
//!
//! Test support: a scriptable HTTP/1.1 server (hyper) bound to `127.0.0.1:0`
//! that plays the wire-level fault cases of `../shared/cases/catalogue.md`
//! against an MCP client's HTTP transport.
//!
//! A test gives [`FaultServer::start`] a handler: a closure from the
//! [`Recorded`] request (method, URI, headers, full body) to the [`Reply`] to
//! play. A reply is a status, headers and a body that is either complete or
//! a script of [`Part`]s: byte chunks, each written and flushed as its own
//! HTTP chunk (the socket has `TCP_NODELAY`), pauses between them, and an
//! abort that cuts the TCP connection. [`Reply::sse_channel`] gives a body
//! the test can push to later (a held-open GET stream).
//!
//! Every request is recorded ([`FaultServer::requests`]) so a test can assert
//! what the client sent (headers, bodies, how many GETs). The server and all
//! its connections stop when the [`FaultServer`] is dropped.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! use fault_http::{FaultServer, Reply};
//! let server = FaultServer::start(|_req| Reply::status(202)).await.expect("bind");
//! assert!(server.url("/mcp").starts_with("http://127.0.0.1:"));
//! assert!(server.requests().is_empty());
//! # }
//! ```

use std::fmt;
use std::io;
use std::net::{Ipv4Addr, SocketAddr};
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http::{HeaderMap, Method, Request, Response, StatusCode, Uri};
use http_body_util::BodyExt;
use hyper::body::{Body, Frame, Incoming, SizeHint};
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use serde_json::Value;
use tokio::net::TcpListener;
use tokio::sync::mpsc;
use tokio::task::{JoinHandle, JoinSet};

/// One request the server received, with its complete body.
#[derive(Debug, Clone)]
pub struct Recorded {
    /// Arrival order, from 0.
    pub seq: usize,
    /// The HTTP method.
    pub method: Method,
    /// The request target (path and query).
    pub uri: Uri,
    /// The request headers.
    pub headers: HeaderMap,
    /// The complete request body.
    pub body: Bytes,
    /// The TCP connection it came on, numbered from 0 in accept order.
    pub connection: usize,
    /// How many requests that connection carried before this one (0 for
    /// the first: a fresh connection; more: a reused one).
    pub on_connection: usize,
}

impl Recorded {
    /// The path of the request target, e.g. `/mcp`.
    pub fn path(&self) -> &str {
        self.uri.path()
    }

    /// The value of header `name` (any case), when present and valid text.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// The body parsed as JSON, when it is JSON.
    pub fn json(&self) -> Option<Value> {
        serde_json::from_slice(&self.body).ok()
    }

    /// The JSON-RPC `method` of the body, when it has one.
    pub fn rpc_method(&self) -> Option<String> {
        self.json()?.get("method")?.as_str().map(str::to_owned)
    }

    /// The JSON-RPC `id` of the body, when it has one (same JSON type).
    pub fn rpc_id(&self) -> Option<Value> {
        self.json()?.get("id").cloned()
    }

    /// `true` for a POST whose body is a JSON-RPC request for `method`.
    pub fn is_call(&self, method: &str) -> bool {
        self.method == Method::POST && self.rpc_method().as_deref() == Some(method)
    }
}

/// One step of a scripted body.
#[derive(Debug, Clone)]
pub enum Part {
    /// Bytes written (and flushed) as one HTTP chunk.
    Bytes(Bytes),
    /// A pause before the next part.
    Pause(Duration),
    /// Cut the connection (the response ends abnormally, no final chunk).
    Abort,
}

impl Part {
    /// A chunk with these bytes.
    pub fn bytes(b: impl Into<Vec<u8>>) -> Part {
        Part::Bytes(Bytes::from(b.into()))
    }

    /// A pause of `ms` milliseconds.
    pub fn pause_ms(ms: u64) -> Part {
        Part::Pause(Duration::from_millis(ms))
    }
}

enum ReplyBody {
    Full(Bytes),
    Parts(Vec<Part>),
    Channel(mpsc::UnboundedReceiver<Part>),
    /// No response at all: the connection is closed.
    Close,
}

impl fmt::Debug for ReplyBody {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReplyBody::Full(b) => write!(f, "Full({} bytes)", b.len()),
            ReplyBody::Parts(p) => write!(f, "Parts({})", p.len()),
            ReplyBody::Channel(_) => f.write_str("Channel"),
            ReplyBody::Close => f.write_str("Close"),
        }
    }
}

/// The reply the server plays for one request.
#[derive(Debug)]
pub struct Reply {
    status: StatusCode,
    headers: Vec<(String, String)>,
    body: ReplyBody,
}

impl Reply {
    /// A reply with `status` and an empty body (`Content-Length: 0`, or no
    /// body at all for 204/304).
    pub fn status(status: u16) -> Reply {
        Reply {
            status: StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
            headers: Vec::new(),
            body: ReplyBody::Full(Bytes::new()),
        }
    }

    /// 200 with `Content-Type: application/json` and `body` (sent as is).
    pub fn json(body: impl Into<String>) -> Reply {
        Reply::status(200)
            .header("content-type", "application/json")
            .body(body.into())
    }

    /// 200 with `Content-Type: text/event-stream` whose body is `parts`,
    /// each [`Part::Bytes`] flushed as its own chunk.
    pub fn sse(parts: Vec<Part>) -> Reply {
        Reply::status(200)
            .header("content-type", "text/event-stream")
            .header("cache-control", "no-cache")
            .parts(parts)
    }

    /// 200 `text/event-stream` whose body is whatever the returned sender
    /// pushes; the stream ends when the sender is dropped.
    pub fn sse_channel() -> (Reply, mpsc::UnboundedSender<Part>) {
        let (tx, rx) = mpsc::unbounded_channel();
        let reply = Reply::status(200)
            .header("content-type", "text/event-stream")
            .header("cache-control", "no-cache");
        (
            Reply {
                body: ReplyBody::Channel(rx),
                ..reply
            },
            tx,
        )
    }

    /// No response: the server closes the connection without writing a
    /// byte of one (as a server does that closed an idle keep-alive
    /// connection just as the request arrived).
    pub fn close_connection() -> Reply {
        Reply {
            body: ReplyBody::Close,
            ..Reply::status(500)
        }
    }

    /// Sets the status.
    pub fn with_status(mut self, status: u16) -> Reply {
        self.status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        self
    }

    /// Adds a header (names are sent as hyper normalizes them: lower case).
    pub fn header(mut self, name: &str, value: &str) -> Reply {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }

    /// Replaces the body with these complete bytes.
    pub fn body(mut self, body: impl Into<Bytes>) -> Reply {
        self.body = ReplyBody::Full(body.into());
        self
    }

    /// Replaces the body with a script of parts (chunked encoding).
    pub fn parts(mut self, parts: Vec<Part>) -> Reply {
        self.body = ReplyBody::Parts(parts);
        self
    }
}

/// `INIT(<ID>)` of the catalogue: an initialize result for `version`.
pub fn init_result(id: &Value, version: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"result":{{"protocolVersion":"{version}","capabilities":{{"tools":{{}}}},"serverInfo":{{"name":"fake","version":"0.0.1"}}}}}}"#
    )
}

/// `TOOLS(<ID>)` of the catalogue: an empty tools/list result.
pub fn tools_result(id: &Value) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"tools":[]}}}}"#)
}

/// An SSE event `data: <json>\n\n` (one data line).
pub fn sse_data(json: &str) -> Part {
    Part::bytes(format!("data: {json}\n\n"))
}

type Handler = Arc<dyn Fn(&Recorded) -> Reply + Send + Sync>;

/// The running server; stops (with every open connection) when dropped.
pub struct FaultServer {
    addr: SocketAddr,
    log: Arc<Mutex<Vec<Recorded>>>,
    connections: Arc<AtomicUsize>,
    open: Arc<AtomicUsize>,
    task: JoinHandle<()>,
}

impl fmt::Debug for FaultServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FaultServer")
            .field("addr", &self.addr)
            .field("requests", &self.requests().len())
            .finish()
    }
}

impl FaultServer {
    /// Binds `127.0.0.1:0` and serves every request with `handler`.
    ///
    /// Errors: the bind error.
    pub async fn start(
        handler: impl Fn(&Recorded) -> Reply + Send + Sync + 'static,
    ) -> io::Result<FaultServer> {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).await?;
        let addr = listener.local_addr()?;
        let log = Arc::new(Mutex::new(Vec::new()));
        let connections = Arc::new(AtomicUsize::new(0));
        let open = Arc::new(AtomicUsize::new(0));
        let handler: Handler = Arc::new(handler);
        let task = tokio::spawn(accept_loop(
            listener,
            handler,
            log.clone(),
            [connections.clone(), open.clone()],
        ));
        Ok(FaultServer {
            addr,
            log,
            connections,
            open,
            task,
        })
    }

    /// The bound address (always on 127.0.0.1).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:<port><path>`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.addr, path)
    }

    /// Every request received so far, in arrival order.
    pub fn requests(&self) -> Vec<Recorded> {
        self.log.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// How many requests with `method` arrived.
    pub fn count(&self, method: &Method) -> usize {
        self.requests()
            .iter()
            .filter(|r| r.method == method)
            .count()
    }

    /// How many TCP connections were accepted.
    pub fn connections(&self) -> usize {
        self.connections.load(Ordering::Relaxed)
    }

    /// How many accepted TCP connections are still open (the client has
    /// not closed them).
    pub fn open_connections(&self) -> usize {
        self.open.load(Ordering::Relaxed)
    }
}

impl Drop for FaultServer {
    fn drop(&mut self) {
        // Aborting the accept loop drops its JoinSet, which aborts every
        // connection task.
        self.task.abort();
    }
}

async fn accept_loop(
    listener: TcpListener,
    handler: Handler,
    log: Arc<Mutex<Vec<Recorded>>>,
    [connections, open]: [Arc<AtomicUsize>; 2],
) {
    let mut conns = JoinSet::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let Ok((stream, _)) = accepted else { continue };
                let _ = stream.set_nodelay(true);
                let connection = connections.fetch_add(1, Ordering::Relaxed);
                let served = Arc::new(AtomicUsize::new(0));
                open.fetch_add(1, Ordering::Relaxed);
                let handler = handler.clone();
                let log = log.clone();
                let open = open.clone();
                conns.spawn(async move {
                    let service = service_fn(move |req| {
                        let on_connection = served.fetch_add(1, Ordering::Relaxed);
                        serve(req, handler.clone(), log.clone(), [connection, on_connection])
                    });
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                    open.fetch_sub(1, Ordering::Relaxed);
                });
            }
            Some(_) = conns.join_next(), if !conns.is_empty() => {}
        }
    }
}

/// The error that makes hyper close a connection without a response.
#[derive(Debug)]
struct CloseConnection;

impl fmt::Display for CloseConnection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("scripted close without a response")
    }
}

impl std::error::Error for CloseConnection {}

async fn serve(
    req: Request<Incoming>,
    handler: Handler,
    log: Arc<Mutex<Vec<Recorded>>>,
    [connection, on_connection]: [usize; 2],
) -> Result<Response<FaultBody>, CloseConnection> {
    let (parts, body) = req.into_parts();
    let body = body
        .collect()
        .await
        .map(|c| c.to_bytes())
        .unwrap_or_default();
    let recorded = {
        let mut log = log.lock().unwrap_or_else(|p| p.into_inner());
        let r = Recorded {
            seq: log.len(),
            method: parts.method,
            uri: parts.uri,
            headers: parts.headers,
            body,
            connection,
            on_connection,
        };
        log.push(r.clone());
        r
    };
    let reply = handler(&recorded);
    let mut builder = Response::builder().status(reply.status);
    for (k, v) in &reply.headers {
        builder = builder.header(k, v);
    }
    let body = match reply.body {
        ReplyBody::Close => return Err(CloseConnection),
        ReplyBody::Full(b) => FaultBody::Full(Some(b)),
        ReplyBody::Parts(parts) => {
            let (tx, rx) = mpsc::channel(1);
            tokio::spawn(play(parts.into_iter(), tx));
            FaultBody::Stream(rx)
        }
        ReplyBody::Channel(mut src) => {
            let (tx, rx) = mpsc::channel(1);
            tokio::spawn(async move {
                while let Some(part) = src.recv().await {
                    if !play_one(part, &tx).await {
                        return;
                    }
                }
            });
            FaultBody::Stream(rx)
        }
    };
    Ok(builder
        .body(body)
        .unwrap_or_else(|_| Response::new(FaultBody::Full(None))))
}

async fn play(parts: impl Iterator<Item = Part>, tx: mpsc::Sender<io::Result<Bytes>>) {
    for part in parts {
        if !play_one(part, &tx).await {
            return;
        }
    }
}

/// Plays one part; `false` when the body is over (aborted or the client left).
async fn play_one(part: Part, tx: &mpsc::Sender<io::Result<Bytes>>) -> bool {
    match part {
        Part::Bytes(b) => tx.send(Ok(b)).await.is_ok(),
        Part::Pause(d) => {
            tokio::time::sleep(d).await;
            !tx.is_closed()
        }
        Part::Abort => {
            let _ = tx
                .send(Err(io::Error::new(
                    io::ErrorKind::ConnectionAborted,
                    "scripted abort",
                )))
                .await;
            false
        }
    }
}

/// The response body type of the fault server.
enum FaultBody {
    Full(Option<Bytes>),
    Stream(mpsc::Receiver<io::Result<Bytes>>),
}

impl Body for FaultBody {
    type Data = Bytes;
    type Error = io::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, io::Error>>> {
        match self.get_mut() {
            FaultBody::Full(b) => Poll::Ready(
                b.take()
                    .filter(|b| !b.is_empty())
                    .map(|b| Ok(Frame::data(b))),
            ),
            FaultBody::Stream(rx) => rx.poll_recv(cx).map(|o| o.map(|r| r.map(Frame::data))),
        }
    }

    fn is_end_stream(&self) -> bool {
        matches!(self, FaultBody::Full(None))
    }

    fn size_hint(&self) -> SizeHint {
        match self {
            FaultBody::Full(Some(b)) => SizeHint::with_exact(b.len() as u64),
            FaultBody::Full(None) => SizeHint::with_exact(0),
            FaultBody::Stream(_) => SizeHint::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    async fn raw(addr: SocketAddr, request: &str) -> String {
        let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
        s.write_all(request.as_bytes()).await.unwrap();
        let mut out = Vec::new();
        s.read_to_end(&mut out).await.unwrap();
        String::from_utf8_lossy(&out).into_owned()
    }

    #[tokio::test]
    async fn records_requests_and_plays_full_replies() {
        let server = FaultServer::start(|r| {
            if r.is_call("ping") {
                Reply::json(r#"{"ok":1}"#)
            } else {
                Reply::status(405).header("allow", "POST")
            }
        })
        .await
        .unwrap();
        let body = r#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#;
        let out = raw(
            server.addr(),
            &format!(
                "POST /mcp HTTP/1.1\r\nhost: x\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{body}",
                body.len()
            ),
        )
        .await;
        assert!(out.starts_with("HTTP/1.1 200"), "{out}");
        assert!(out.ends_with(r#"{"ok":1}"#), "{out}");
        let out = raw(
            server.addr(),
            "GET /mcp HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n",
        )
        .await;
        assert!(out.starts_with("HTTP/1.1 405"), "{out}");
        let reqs = server.requests();
        assert_eq!(reqs.len(), 2);
        assert_eq!(reqs[0].rpc_id(), Some(serde_json::json!(7)));
        assert_eq!(server.count(&Method::GET), 1);
        assert_eq!(server.connections(), 2);
    }

    #[tokio::test]
    async fn scripted_parts_arrive_as_chunks() {
        let server = FaultServer::start(|_| {
            Reply::sse(vec![
                Part::bytes("data: a\r"),
                Part::pause_ms(20),
                Part::bytes("\n\r\n"),
            ])
        })
        .await
        .unwrap();
        let out = raw(
            server.addr(),
            "GET /mcp HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n",
        )
        .await;
        assert!(out.contains("transfer-encoding: chunked"), "{out}");
        // Two separate chunks: "8\r\ndata: a\r\r\n" and "3\r\n\n\r\n\r\n".
        assert!(
            out.contains("8\r\ndata: a\r\r\n3\r\n\n\r\n\r\n0\r\n\r\n"),
            "{out:?}"
        );
    }

    #[tokio::test]
    async fn close_connection_writes_no_byte_and_requests_know_their_connection() {
        let server = FaultServer::start(|r| {
            if r.on_connection == 0 {
                Reply::status(202)
            } else {
                Reply::close_connection()
            }
        })
        .await
        .unwrap();
        let out = raw(
            server.addr(),
            "GET /a HTTP/1.1\r\nhost: x\r\n\r\nGET /b HTTP/1.1\r\nhost: x\r\n\r\n",
        )
        .await;
        assert!(out.starts_with("HTTP/1.1 202"), "{out}");
        assert_eq!(out.matches("HTTP/1.1").count(), 1, "{out}");
        let reqs = server.requests();
        let seen: Vec<_> = reqs
            .iter()
            .map(|r| (r.connection, r.on_connection))
            .collect();
        assert_eq!(seen, [(0, 0), (0, 1)]);
    }

    #[tokio::test]
    async fn abort_cuts_the_connection_without_a_final_chunk() {
        let server =
            FaultServer::start(|_| Reply::sse(vec![Part::bytes("data: x\n\n"), Part::Abort]))
                .await
                .unwrap();
        let out = raw(server.addr(), "GET / HTTP/1.1\r\nhost: x\r\n\r\n").await;
        assert!(out.contains("data: x"), "{out}");
        assert!(!out.ends_with("0\r\n\r\n"), "{out:?}");
    }
}
