//! The floor: what any client must at least spend. Requests are serialized
//! once, up front; responses are framed (newline search, or the HTTP body)
//! but never parsed.
//!
//! - stdio: one pipe, of our transport's capacity
//!   (`mcp_transport_stdio::DEFAULT_PIPE_CAPACITY`, 256 KiB); a request
//!   that is alone in flight is written straight from the caller, as our
//!   transport does, and concurrent ones are batched into one `write` by a
//!   writer task (the cheaper way for each). Each request gets an id of its
//!   own, written in front of its pre-serialized rest (a server may track
//!   the requests in flight by id, as rmcp's does). Responses are matched
//!   to waiters first-in first-out, no ids read: bench-server answers in
//!   order, and where a server does not (rmcp's) the requests in flight at
//!   once are the same request, so any answer fits any waiter.
//! - HTTP: hyper's HTTP/1.1 connection API, one request at a time on each
//!   connection; N calls in flight use N connections (as the pooled
//!   clients do).

use std::collections::VecDeque;
use std::process::Stdio;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::oneshot;

use crate::suite::{BenchClient, Connector, payloads};

fn request_bytes(method: &str, params: serde_json::Value) -> Vec<u8> {
    serde_json::to_vec(&serde_json::json!({
        "jsonrpc": "2.0", "id": 1, "method": method, "params": params
    }))
    .expect("JSON")
}

/// Pre-serialized messages.
#[derive(Clone)]
struct Wire {
    small: Bytes,
    large: Bytes,
    list: Bytes,
    init: Bytes,
    initialized: Bytes,
    small_len: usize,
}

impl Wire {
    fn new() -> Self {
        let (small, large) = payloads();
        let call = |t: &str| {
            Bytes::from(request_bytes(
                "tools/call",
                serde_json::json!({"name": "echo", "arguments": {"text": t}}),
            ))
        };
        Wire {
            small: call(&small),
            large: call(&large),
            list: Bytes::from(request_bytes("tools/list", serde_json::json!({}))),
            init: Bytes::from(request_bytes(
                "initialize",
                serde_json::json!({"protocolVersion": "2025-06-18", "capabilities": {},
                    "clientInfo": {"name": "floor", "version": "0"}}),
            )),
            initialized: Bytes::from_static(
                br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            ),
            small_len: small.len(),
        }
    }

    fn call_for(&self, text: &str) -> &Bytes {
        if text.len() == self.small_len {
            &self.small
        } else {
            &self.large
        }
    }
}

// ---------------------------------------------------------------- stdio

/// The leading bytes of every pre-serialized request (serde_json writes
/// the members in order of name, so the id comes first); over stdio the
/// floor writes `{"id":N,` and the rest instead.
const ID_ONE: &[u8] = br#"{"id":1,"#;

/// A message for the server's stdin: `body` alone (`id` `None`), or a
/// request numbered `id` whose body is what follows [`ID_ONE`].
struct Out {
    id: Option<u64>,
    body: Bytes,
}

/// `{"id":N,` in `buf`; returns its length.
fn id_head(id: u64, buf: &mut [u8; 32]) -> usize {
    use std::io::Write as _;
    let mut cursor = std::io::Cursor::new(&mut buf[..]);
    let _ = write!(cursor, "{{\"id\":{id},");
    cursor.position() as usize
}

/// The writer task's channel, the waiters in request order, and the
/// direct-write state.
struct QueueState {
    tx: tokio::sync::mpsc::UnboundedSender<Out>,
    waiters: VecDeque<oneshot::Sender<usize>>,
    /// A second handle on stdin (non-blocking): as our transport does, a
    /// request is written straight from the caller when nothing is queued
    /// for the writer task.
    stdin: std::os::fd::OwnedFd,
    /// Messages handed to the writer task and not yet written.
    queued: usize,
    /// The id of the next request.
    next_id: u64,
}

type Queue = Mutex<QueueState>;

pub struct StdioFloor {
    wire: Wire,
    /// The server's path, to fetch one tools/list response on the side.
    server: String,
    /// The writer task's channel and the waiters, in request order.
    queue: Arc<Queue>,
    _child: Child,
}

pub struct StdioFloorConnector {
    pub server: String,
}

impl StdioFloorConnector {
    /// Spawns a server listing `tools` tools, initializes and lists them.
    pub async fn connect_listing(&self, tools: usize) -> anyhow::Result<StdioFloor> {
        let floor = self.spawn(tools).await?;
        floor.roundtrip(&floor.wire.list).await?;
        Ok(floor)
    }

    async fn spawn(&self, tools: usize) -> anyhow::Result<StdioFloor> {
        let mut child = Command::new(&self.server)
            .args(["stdio", "--tools", &tools.to_string()])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()?;
        let stdin = child.stdin.take().expect("piped");
        let mut stdout = child.stdout.take().expect("piped");
        // The same pipes as our transport: its default capacity.
        let capacity = mcp_transport_stdio::DEFAULT_PIPE_CAPACITY;
        rustix::pipe::fcntl_setpipe_size(&stdin, capacity)?;
        rustix::pipe::fcntl_setpipe_size(&stdout, capacity)?;
        let direct = rustix::io::dup(&stdin)?;
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        let queue: Arc<Queue> = Arc::new(Mutex::new(QueueState {
            tx,
            waiters: VecDeque::new(),
            stdin: direct,
            queued: 0,
            next_id: 1,
        }));
        tokio::spawn(write_loop(stdin, rx, queue.clone()));
        let reader_queue = queue.clone();
        // Ends at EOF: dropping the client kills the server.
        tokio::spawn(async move {
            let mut buf = vec![0u8; 256 * 1024];
            let mut line_len = 0usize;
            loop {
                let n = match stdout.read(&mut buf).await {
                    Ok(0) | Err(_) => return,
                    Ok(n) => n,
                };
                let mut rest = &buf[..n];
                while let Some(i) = memchr::memchr(b'\n', rest) {
                    line_len += i;
                    let waiter = reader_queue.lock().expect("lock").waiters.pop_front();
                    if let Some(w) = waiter {
                        let _ = w.send(line_len);
                    }
                    line_len = 0;
                    rest = &rest[i + 1..];
                }
                line_len += rest.len();
            }
        });
        let floor = StdioFloor {
            wire: Wire::new(),
            server: self.server.clone(),
            queue,
            _child: child,
        };
        floor.roundtrip(&floor.wire.init).await?;
        floor.send(
            &mut floor.queue.lock().expect("lock"),
            Out {
                id: None,
                body: floor.wire.initialized.clone(),
            },
            true,
        )?;
        Ok(floor)
    }
}

impl Connector for StdioFloorConnector {
    type Client = StdioFloor;
    async fn connect(&self) -> anyhow::Result<StdioFloor> {
        self.spawn(1000).await
    }
}

async fn write_loop(
    mut stdin: ChildStdin,
    mut rx: tokio::sync::mpsc::UnboundedReceiver<Out>,
    queue: Arc<Queue>,
) {
    let mut batch = Vec::with_capacity(64 * 1024);
    let mut head = [0u8; 32];
    while let Some(first) = rx.recv().await {
        batch.clear();
        let mut append = |out: &Out| {
            if let Some(id) = out.id {
                let n = id_head(id, &mut head);
                batch.extend_from_slice(&head[..n]);
            }
            batch.extend_from_slice(&out.body);
            batch.push(b'\n');
        };
        append(&first);
        let mut taken = 1;
        while let Ok(more) = rx.try_recv() {
            append(&more);
            taken += 1;
        }
        if stdin.write_all(&batch).await.is_err() {
            return;
        }
        queue.lock().expect("lock").queued -= taken;
    }
}

impl StdioFloor {
    /// Writes `bytes` and its `\n` straight to stdin when it is the only
    /// request in flight and nothing is queued (what a short write leaves
    /// goes first in the queue); otherwise queues it for the writer task,
    /// which writes whatever has gathered in one `write` (with many calls in
    /// flight that batching beats a `write` per request).
    fn send(&self, q: &mut QueueState, out: Out, alone: bool) -> anyhow::Result<()> {
        let mut out = out;
        if alone && q.queued == 0 {
            let mut head = [0u8; 32];
            let n_head = out.id.map_or(0, |id| id_head(id, &mut head));
            let slices = [
                std::io::IoSlice::new(&head[..n_head]),
                std::io::IoSlice::new(&out.body),
                std::io::IoSlice::new(b"\n"),
            ];
            match rustix::io::writev(&q.stdin, &slices) {
                Ok(n) if n > n_head + out.body.len() => return Ok(()),
                // A short write (rare): the rest goes whole to the writer.
                Ok(n) => {
                    let mut whole = head[..n_head].to_vec();
                    whole.extend_from_slice(&out.body);
                    out = Out {
                        id: None,
                        body: Bytes::from(whole).slice(n..),
                    };
                }
                Err(_) => {}
            }
        }
        q.queued += 1;
        q.tx.send(out).map_err(|_| anyhow::anyhow!("server gone"))
    }

    /// Sends a pre-serialized request (its id replaced by one of its own)
    /// and waits for the next response, returning its length.
    async fn roundtrip(&self, request: &Bytes) -> anyhow::Result<usize> {
        anyhow::ensure!(
            request.starts_with(ID_ONE),
            "a request without a leading id"
        );
        let body = request.slice(ID_ONE.len()..);
        let (tx, rx) = oneshot::channel();
        {
            let mut q = self.queue.lock().expect("lock");
            let alone = q.waiters.is_empty();
            q.waiters.push_back(tx);
            let id = q.next_id;
            q.next_id += 1;
            self.send(&mut q, Out { id: Some(id), body }, alone)?;
        }
        Ok(rx.await?)
    }
}

impl BenchClient for StdioFloor {
    async fn call(&self, text: Arc<str>) -> anyhow::Result<()> {
        let len = self.roundtrip(self.wire.call_for(&text)).await?;
        anyhow::ensure!(len > text.len(), "short response");
        Ok(())
    }
    async fn list(&self) -> anyhow::Result<usize> {
        let len = self.roundtrip(&self.wire.list).await?;
        anyhow::ensure!(len > 100_000, "short tools/list");
        Ok(1000)
    }
    /// From a server of its own: the floor's reader counts bytes and keeps
    /// none.
    async fn list_bytes(&self) -> anyhow::Result<Option<Bytes>> {
        use tokio::io::AsyncBufReadExt;
        let mut child = Command::new(&self.server)
            .arg("stdio")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()?;
        let mut stdin = child.stdin.take().expect("piped");
        let mut stdout = tokio::io::BufReader::new(child.stdout.take().expect("piped"));
        for message in [&self.wire.init, &self.wire.initialized, &self.wire.list] {
            stdin.write_all(message).await?;
            stdin.write_all(b"\n").await?;
        }
        let mut line = Vec::new();
        // The initialize response, then the list's.
        for _ in 0..2 {
            line.clear();
            stdout.read_until(b'\n', &mut line).await?;
        }
        Ok(Some(Bytes::from(line)))
    }
}

// ----------------------------------------------------------------- HTTP

type Sender = hyper::client::conn::http1::SendRequest<Full<Bytes>>;

pub struct HttpFloor {
    wire: Wire,
    authority: String,
    path: String,
    addr: String,
    idle: Mutex<Vec<Sender>>,
}

pub struct HttpFloorConnector {
    pub url: String,
}

impl Connector for HttpFloorConnector {
    type Client = HttpFloor;
    async fn connect(&self) -> anyhow::Result<HttpFloor> {
        let uri: http::Uri = self.url.parse()?;
        let authority = uri
            .authority()
            .ok_or_else(|| anyhow::anyhow!("no authority"))?
            .to_string();
        let floor = HttpFloor {
            wire: Wire::new(),
            addr: authority.clone(),
            authority,
            path: uri.path().to_string(),
            idle: Mutex::new(Vec::new()),
        };
        floor.post(floor.wire.init.clone()).await?;
        floor.post(floor.wire.initialized.clone()).await?;
        Ok(floor)
    }
}

impl HttpFloor {
    async fn conn(&self) -> anyhow::Result<Sender> {
        if let Some(s) = self.idle.lock().expect("lock").pop() {
            return Ok(s);
        }
        let stream = tokio::net::TcpStream::connect(&self.addr).await?;
        stream.set_nodelay(true)?;
        let (sender, conn) =
            hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream)).await?;
        tokio::spawn(conn);
        Ok(sender)
    }

    async fn post(&self, body: Bytes) -> anyhow::Result<usize> {
        Ok(self.post_body(body).await?.len())
    }

    async fn post_body(&self, body: Bytes) -> anyhow::Result<Bytes> {
        let mut sender = self.conn().await?;
        sender.ready().await?;
        let req = http::Request::post(&self.path)
            .header(http::header::HOST, &self.authority)
            .header(http::header::CONTENT_TYPE, "application/json")
            .header(http::header::ACCEPT, "application/json, text/event-stream")
            .header("mcp-protocol-version", "2025-06-18")
            .body(Full::new(body))?;
        let resp = sender.send_request(req).await?;
        anyhow::ensure!(resp.status().is_success(), "HTTP {}", resp.status());
        let body = resp.into_body().collect().await?.to_bytes();
        self.idle.lock().expect("lock").push(sender);
        Ok(body)
    }
}

impl BenchClient for HttpFloor {
    async fn call(&self, text: Arc<str>) -> anyhow::Result<()> {
        let len = self.post(self.wire.call_for(&text).clone()).await?;
        anyhow::ensure!(len > text.len(), "short response");
        Ok(())
    }
    async fn list(&self) -> anyhow::Result<usize> {
        let len = self.post(self.wire.list.clone()).await?;
        anyhow::ensure!(len > 100_000, "short tools/list");
        Ok(1000)
    }
    /// The JSON of one response (an SSE reply's `data:` line).
    async fn list_bytes(&self) -> anyhow::Result<Option<Bytes>> {
        let body = self.post_body(self.wire.list.clone()).await?;
        if body.first() == Some(&b'{') {
            return Ok(Some(body));
        }
        let start = memchr::memmem::find(&body, b"data:")
            .ok_or_else(|| anyhow::anyhow!("no data line in the SSE reply"))?
            + b"data:".len();
        let end = memchr::memchr(b'\n', &body[start..]).map_or(body.len(), |i| start + i);
        Ok(Some(body.slice(start..end)))
    }
}
