//! The one MCP server every benchmarked client talks to, so the figures
//! measure clients, not servers.
//!
//! ```text
//! bench-server stdio [--tools N] [--stop-reading-after N] [--stderr-line TEXT]
//! bench-server http --port P [--sse] [--tools N]     # 127.0.0.1 only; POST /mcp
//! ```
//!
//! - `initialize`: answers the client's `protocolVersion` when it is a
//!   handshake revision (2024-11-05 … 2025-11-25), else 2025-06-18;
//!   capabilities `{ "tools": {} }`. `server/discover` gets `-32601`, so
//!   dual-era clients fall back to `initialize`.
//! - `tools/call` `echo` returns `arguments.text` as one text content item.
//! - `tools/list` returns N tools (default 1000), serialized once at start.
//! - `ping` returns `{}`; other requests get `-32601`; notifications are
//!   ignored (HTTP: 202 Accepted).
//! - HTTP: JSON responses by default, `--sse` answers each request with a
//!   `text/event-stream` of one `message` event. No sessions, GET is 405.
//!
//! For `cargo xtask soak` and `chaos` (tools not listed, so the benchmark's
//! `tools/list` is unchanged; the `echo` path is untouched):
//! - `soak` `{text, progress?, log?, hold?}`: echoes `text` like `echo`,
//!   first sending `progress` `notifications/progress` (to the request's
//!   `progressToken`) and `log` `notifications/message`; with `hold` it
//!   sends one progress notification and never answers: the client is
//!   expected to cancel. Over HTTP the notifications go only in an SSE
//!   reply (`--sse`); a held JSON reply stays open.
//! - `soak_stats`: how many requests were held and how the
//!   `notifications/cancelled` received matched them (`held`,
//!   `cancelled_once`, `cancelled_more`, `cancelled_unknown`,
//!   `never_cancelled`), as JSON in one text content item; with
//!   `{is_held: text}`, `true` or `false`: whether a call with that text is
//!   held.
//! - `flood` `{count}`: `count` `notifications/message`, then the result.
//! - `big` `{bytes}`: a text content item of `bytes` bytes.
//! - `stdio --stderr-line TEXT`: writes `TEXT` and a newline to stderr at
//!   start, so a client's close reason has a stderr tail to carry.
//! - `stdio --stop-reading-after N`: after N messages the server stops
//!   reading its stdin (and never exits on its own).
//! - `--list-chaos-tools`: `tools/list` also lists `flood` and `big`, for a
//!   client that calls only listed tools (the `mcp` command line).
//!
//! The server does as little as it can: it borrows the request id, the
//! method and the echo text from the input and splices them into the
//! response bytes.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::io::{BufRead, Write};
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::{Method, Request, Response, StatusCode};
use serde::Deserialize;
use serde_json::value::RawValue;

#[derive(Deserialize)]
struct Message<'a> {
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    method: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    params: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct CallParams<'a> {
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(borrow, default)]
    arguments: Option<&'a RawValue>,
    #[serde(borrow, default, rename = "_meta")]
    meta: Option<Meta<'a>>,
}

#[derive(Deserialize)]
struct Meta<'a> {
    #[serde(borrow, default, rename = "progressToken")]
    progress_token: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct SoakArgs<'a> {
    #[serde(borrow)]
    text: &'a RawValue,
    #[serde(default)]
    progress: u32,
    #[serde(default)]
    log: u32,
    #[serde(default)]
    hold: bool,
}

#[derive(Deserialize)]
struct CountArgs {
    #[serde(default)]
    count: u64,
    #[serde(default)]
    bytes: u64,
}

#[derive(Deserialize)]
struct CancelParams<'a> {
    #[serde(borrow, rename = "requestId")]
    request_id: &'a RawValue,
}

/// What the server does with one message.
#[derive(Default)]
struct Handled {
    /// Notifications to send first (in an SSE reply over HTTP).
    notes: Vec<Vec<u8>>,
    /// The response, for a request that is answered.
    response: Option<Vec<u8>>,
    /// A request held unanswered until the client cancels it.
    held: bool,
    /// One notification to send this many times after `notes` (written as
    /// it goes over stdio, so any count works; an SSE reply holds at most
    /// 10^6).
    repeat: Option<(Vec<u8>, u64)>,
}

impl Handled {
    /// `notes`, then the repeated notification, as a list.
    fn all_notes(&self) -> impl Iterator<Item = &Vec<u8>> {
        let repeated = self.repeat.iter().flat_map(|(note, n)| {
            std::iter::repeat_n(
                note,
                usize::try_from(*n).unwrap_or(usize::MAX).min(1_000_000),
            )
        });
        self.notes.iter().chain(repeated)
    }
}

/// The requests held by `soak` (by id, and by the raw JSON of their text)
/// and the cancellations received.
#[derive(Default)]
struct SoakState {
    held: HashSet<String>,
    held_texts: HashSet<String>,
    cancels: HashMap<String, u32>,
}

#[derive(Deserialize)]
struct StatsArgs<'a> {
    #[serde(borrow, default)]
    is_held: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct EchoArgs<'a> {
    #[serde(borrow)]
    text: &'a RawValue,
}

#[derive(Deserialize)]
struct InitParams<'a> {
    #[serde(borrow, rename = "protocolVersion")]
    protocol_version: Cow<'a, str>,
}

const HANDSHAKE_VERSIONS: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

/// Everything computed once at start.
struct Server {
    /// The `result` of tools/list.
    tools_list: Vec<u8>,
    soak: Mutex<SoakState>,
}

impl Server {
    fn new(tools: usize, chaos_tools: bool) -> Self {
        let mut list = Vec::with_capacity(tools);
        list.push(serde_json::json!({
            "name": "echo",
            "description": "Returns its input text.",
            "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
        }));
        if chaos_tools {
            for (name, what, arg) in [
                (
                    "flood",
                    "Sends `count` log notifications, then an empty result.",
                    "count",
                ),
                ("big", "Returns a text of `bytes` bytes.", "bytes"),
            ] {
                list.push(serde_json::json!({
                    "name": name,
                    "description": what,
                    "inputSchema": {"type": "object", "properties": {arg: {"type": "integer"}}}
                }));
            }
        }
        for i in 1..tools {
            list.push(serde_json::json!({
                "name": format!("tool_{i:04}"),
                "description": format!("Benchmark tool number {i}; it takes a query and a limit."),
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "query": {"type": "string", "description": "What to look for."},
                        "limit": {"type": "integer", "minimum": 1, "maximum": 100}
                    },
                    "required": ["query"]
                }
            }));
        }
        // A `Value` always serializes.
        let tools_list =
            serde_json::to_vec(&serde_json::json!({ "tools": list })).unwrap_or_default();
        Server {
            tools_list,
            soak: Mutex::new(SoakState::default()),
        }
    }

    /// Handles one message; `Some(response bytes)` for a request.
    #[cfg(test)]
    fn handle(&self, input: &[u8]) -> Option<Vec<u8>> {
        self.respond(input).response
    }

    /// Handles one message: the notifications to send, the response.
    fn respond(&self, input: &[u8]) -> Handled {
        let msg: Message<'_> = match serde_json::from_slice(input) {
            Ok(m) => m,
            Err(e) => {
                eprintln!("bench-server: bad message: {e}");
                return answer(error(None, -32700, "Parse error"));
            }
        };
        let method = msg.method.as_deref().unwrap_or("");
        let Some(id) = msg.id else {
            if method == "notifications/cancelled" {
                self.cancelled(msg.params);
            }
            return Handled::default();
        };
        answer(match method {
            "tools/call" => return self.call(id, msg.params),
            "tools/list" => result(id, &self.tools_list),
            "initialize" => {
                let asked = msg
                    .params
                    .and_then(|p| serde_json::from_str::<InitParams<'_>>(p.get()).ok())
                    .map(|p| p.protocol_version.into_owned());
                let version = asked
                    .as_deref()
                    .filter(|v| HANDSHAKE_VERSIONS.contains(v))
                    .unwrap_or("2025-06-18");
                let body = format!(
                    r#"{{"protocolVersion":"{version}","capabilities":{{"tools":{{}}}},"serverInfo":{{"name":"bench-server","version":"0.1.0"}}}}"#
                );
                result(id, body.as_bytes())
            }
            "ping" => result(id, b"{}"),
            _ => error(Some(id), -32601, "Method not found"),
        })
    }

    fn call(&self, id: &RawValue, params: Option<&RawValue>) -> Handled {
        let Some(params) =
            params.and_then(|p| serde_json::from_str::<CallParams<'_>>(p.get()).ok())
        else {
            return answer(error(Some(id), -32602, "Invalid params"));
        };
        match params.name.as_ref() {
            "echo" => answer(echo(id, &params)),
            "soak" => self.soak(id, &params),
            "soak_stats" => answer(self.soak_stats(id, &params)),
            "flood" | "big" => flood_or_big(id, &params),
            _ => answer(error(Some(id), -32602, "Unknown tool")),
        }
    }

    fn soak(&self, id: &RawValue, params: &CallParams<'_>) -> Handled {
        let Some(args) = params
            .arguments
            .and_then(|a| serde_json::from_str::<SoakArgs<'_>>(a.get()).ok())
            .filter(|a| a.text.get().starts_with('"'))
        else {
            return answer(error(Some(id), -32602, "soak needs a string `text`"));
        };
        let token = params.meta.as_ref().and_then(|m| m.progress_token);
        let mut notes = Vec::new();
        if args.hold {
            let mut state = self.lock();
            state.held.insert(id.get().to_owned());
            state.held_texts.insert(args.text.get().to_owned());
            drop(state);
            notes.extend(token.map(|t| progress(t, 1, 1)));
            return Handled {
                notes,
                response: None,
                held: true,
                repeat: None,
            };
        }
        if let Some(token) = token {
            notes.extend((1..=args.progress).map(|i| progress(token, i, args.progress)));
        }
        notes.extend((0..args.log).map(|i| log_message(&format!("soak log {i}"))));
        let mut out = Vec::with_capacity(args.text.get().len() + 96);
        out.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
        out.extend_from_slice(id.get().as_bytes());
        out.extend_from_slice(br#","result":{"content":[{"type":"text","text":"#);
        out.extend_from_slice(args.text.get().as_bytes());
        out.extend_from_slice(br#"}],"isError":false}}"#);
        Handled {
            notes,
            response: Some(out),
            held: false,
            repeat: None,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, SoakState> {
        self.soak
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn cancelled(&self, params: Option<&RawValue>) {
        if let Some(p) = params.and_then(|p| serde_json::from_str::<CancelParams<'_>>(p.get()).ok())
        {
            *self
                .lock()
                .cancels
                .entry(p.request_id.get().to_owned())
                .or_default() += 1;
        }
    }

    fn soak_stats(&self, id: &RawValue, params: &CallParams<'_>) -> Vec<u8> {
        let state = self.lock();
        let asked = params
            .arguments
            .and_then(|a| serde_json::from_str::<StatsArgs<'_>>(a.get()).ok())
            .and_then(|a| a.is_held);
        if let Some(text) = asked {
            let held = state.held_texts.contains(text.get());
            let body =
                format!(r#"{{"content":[{{"type":"text","text":"{held}"}}],"isError":false}}"#);
            return result(id, body.as_bytes());
        }
        let once = state
            .held
            .iter()
            .filter(|i| state.cancels.get(*i) == Some(&1))
            .count();
        let more = state
            .held
            .iter()
            .filter(|i| state.cancels.get(*i).is_some_and(|n| *n > 1))
            .count();
        let never = state
            .held
            .iter()
            .filter(|i| !state.cancels.contains_key(*i))
            .count();
        let unknown = state
            .cancels
            .keys()
            .filter(|i| !state.held.contains(*i))
            .count();
        let stats = serde_json::json!({
            "held": state.held.len(),
            "cancelled_once": once,
            "cancelled_more": more,
            "cancelled_unknown": unknown,
            "never_cancelled": never,
        });
        let text = serde_json::to_string(&stats.to_string()).unwrap_or_default();
        let body = format!(r#"{{"content":[{{"type":"text","text":{text}}}],"isError":false}}"#);
        result(id, body.as_bytes())
    }
}

fn answer(response: Vec<u8>) -> Handled {
    Handled {
        notes: Vec::new(),
        response: Some(response),
        held: false,
        repeat: None,
    }
}

fn progress(token: &RawValue, progress: u32, total: u32) -> Vec<u8> {
    format!(
        r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":{},"progress":{progress},"total":{total}}}}}"#,
        token.get()
    )
    .into_bytes()
}

fn log_message(text: &str) -> Vec<u8> {
    format!(
        r#"{{"jsonrpc":"2.0","method":"notifications/message","params":{{"level":"info","logger":"bench-server","data":"{text}"}}}}"#
    )
    .into_bytes()
}

/// `flood`: `count` log notifications, then an empty result; `big`: a text
/// content item of `bytes` bytes.
fn flood_or_big(id: &RawValue, params: &CallParams<'_>) -> Handled {
    let args = params
        .arguments
        .and_then(|a| serde_json::from_str::<CountArgs>(a.get()).ok())
        .unwrap_or(CountArgs { count: 0, bytes: 0 });
    if params.name == "flood" {
        return Handled {
            notes: Vec::new(),
            response: Some(result(id, br#"{"content":[],"isError":false}"#)),
            held: false,
            repeat: Some((log_message("flood"), args.count)),
        };
    }
    let len = usize::try_from(args.bytes)
        .unwrap_or(usize::MAX)
        .min(1 << 30);
    let mut body = Vec::with_capacity(len + 64);
    body.extend_from_slice(br#"{"content":[{"type":"text","text":""#);
    body.resize(body.len() + len, b'x');
    body.extend_from_slice(br#""}],"isError":false}"#);
    answer(result(id, &body))
}

fn echo(id: &RawValue, params: &CallParams<'_>) -> Vec<u8> {
    let text = params
        .arguments
        .and_then(|a| serde_json::from_str::<EchoArgs<'_>>(a.get()).ok())
        .map(|a| a.text.get())
        .filter(|t| t.starts_with('"'));
    let Some(text) = text else {
        return error(Some(id), -32602, "echo needs a string `text`");
    };
    let mut out = Vec::with_capacity(text.len() + 96);
    out.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
    out.extend_from_slice(id.get().as_bytes());
    out.extend_from_slice(br#","result":{"content":[{"type":"text","text":"#);
    out.extend_from_slice(text.as_bytes());
    out.extend_from_slice(br#"}],"isError":false}}"#);
    out
}

fn result(id: &RawValue, result: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(result.len() + 48);
    out.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
    out.extend_from_slice(id.get().as_bytes());
    out.extend_from_slice(br#","result":"#);
    out.extend_from_slice(result);
    out.push(b'}');
    out
}

fn error(id: Option<&RawValue>, code: i32, message: &str) -> Vec<u8> {
    format!(
        r#"{{"jsonrpc":"2.0","id":{},"error":{{"code":{code},"message":"{message}"}}}}"#,
        id.map_or("null", |i| i.get())
    )
    .into_bytes()
}

fn serve_stdio(server: &Server, stop_reading_after: Option<u64>) -> std::io::Result<()> {
    let stdin = std::io::stdin();
    let mut input = std::io::BufReader::with_capacity(256 * 1024, stdin.lock());
    let stdout = std::io::stdout();
    let mut output = std::io::BufWriter::with_capacity(256 * 1024, stdout.lock());
    let mut line = Vec::with_capacity(64 * 1024);
    let mut read = 0u64;
    loop {
        if stop_reading_after.is_some_and(|n| read >= n) {
            output.flush()?;
            loop {
                std::thread::park();
            }
        }
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            output.flush()?;
            return Ok(());
        }
        read += 1;
        let trimmed = line.trim_ascii();
        if !trimmed.is_empty() {
            let handled = server.respond(trimmed);
            for note in &handled.notes {
                output.write_all(note)?;
                output.write_all(b"\n")?;
            }
            if let Some((note, count)) = &handled.repeat {
                for _ in 0..*count {
                    output.write_all(note)?;
                    output.write_all(b"\n")?;
                }
            }
            if let Some(response) = &handled.response {
                output.write_all(response)?;
                output.write_all(b"\n")?;
            }
        }
        // Flush once the requests already read are answered.
        if input.buffer().is_empty() {
            output.flush()?;
        }
    }
}

async fn serve_http(server: Arc<Server>, port: u16, sse: bool) -> std::io::Result<()> {
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    let listener = tokio::net::TcpListener::bind(addr).await?;
    // The bound address: with `--port 0` the system picked the port.
    let addr = listener.local_addr()?;
    eprintln!("bench-server: listening on http://{addr}/mcp");
    loop {
        let (stream, _) = listener.accept().await?;
        let _ = stream.set_nodelay(true);
        let server = server.clone();
        tokio::spawn(async move {
            let io = hyper_util::rt::TokioIo::new(stream);
            let service = hyper::service::service_fn(move |req| {
                let server = server.clone();
                async move { Ok::<_, std::convert::Infallible>(http_one(&server, req, sse).await) }
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .keep_alive(true)
                .serve_connection(io, service)
                .await;
        });
    }
}

/// A reply body: complete, or an SSE stream that sends its first bytes and
/// then stays open (a held request; dropped when the client goes away).
enum ReplyBody {
    Full(Full<Bytes>),
    Held(Option<Bytes>),
}

impl hyper::body::Body for ReplyBody {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<hyper::body::Frame<Bytes>, Self::Error>>> {
        match self.get_mut() {
            ReplyBody::Full(full) => Pin::new(full).poll_frame(cx),
            ReplyBody::Held(first) => match first.take() {
                Some(bytes) => Poll::Ready(Some(Ok(hyper::body::Frame::data(bytes)))),
                None => Poll::Pending,
            },
        }
    }
}

fn sse_events<'a>(messages: impl Iterator<Item = &'a Vec<u8>>) -> Vec<u8> {
    let mut framed = Vec::new();
    for m in messages {
        framed.extend_from_slice(b"event: message\ndata: ");
        framed.extend_from_slice(m);
        framed.extend_from_slice(b"\n\n");
    }
    framed
}

async fn http_one(server: &Server, req: Request<Incoming>, sse: bool) -> Response<ReplyBody> {
    let status = |s: StatusCode| {
        let mut r = Response::new(ReplyBody::Full(Full::new(Bytes::new())));
        *r.status_mut() = s;
        r
    };
    match *req.method() {
        Method::POST => {}
        Method::DELETE => return status(StatusCode::OK),
        _ => return status(StatusCode::METHOD_NOT_ALLOWED),
    }
    let body = match req.into_body().collect().await {
        Ok(b) => b.to_bytes(),
        Err(_) => return status(StatusCode::BAD_REQUEST),
    };
    let handled = server.respond(&body);
    let (content_type, body) = match (handled.response.clone(), handled.held, sse) {
        (None, false, _) => return status(StatusCode::ACCEPTED),
        (None, true, true) => (
            "text/event-stream",
            ReplyBody::Held(Some(Bytes::from(sse_events(handled.all_notes())))),
        ),
        // A held JSON reply: nothing is sent until the client gives up.
        (None, true, false) => std::future::pending().await,
        (Some(resp), _, true) => {
            let framed = sse_events(handled.all_notes().chain(std::iter::once(&resp)));
            (
                "text/event-stream",
                ReplyBody::Full(Full::new(Bytes::from(framed))),
            )
        }
        (Some(resp), _, false) => (
            "application/json",
            ReplyBody::Full(Full::new(Bytes::from(resp))),
        ),
    };
    let mut r = Response::new(body);
    r.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static(content_type),
    );
    r
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |name: &str| args.iter().any(|a| a == name);
    let value = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let tools = value("--tools")
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000);
    let server = Server::new(tools, flag("--list-chaos-tools"));
    let outcome = match args.first().map(String::as_str) {
        Some("stdio") => {
            if let Some(line) = value("--stderr-line") {
                eprintln!("{line}");
            }
            serve_stdio(
                &server,
                value("--stop-reading-after").and_then(|v| v.parse().ok()),
            )
        }
        Some("http") => {
            let Some(port) = value("--port").and_then(|v| v.parse().ok()) else {
                eprintln!("bench-server http needs --port P");
                std::process::exit(2);
            };
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .and_then(|rt| rt.block_on(serve_http(Arc::new(server), port, flag("--sse"))))
        }
        _ => {
            eprintln!(
                "usage: bench-server stdio [--stop-reading-after N] [--stderr-line TEXT] | http --port P [--sse] [--tools N]"
            );
            std::process::exit(2);
        }
    };
    if let Err(e) = outcome {
        eprintln!("bench-server: {e}");
        std::process::exit(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn echo_returns_its_input() {
        let s = Server::new(3, false);
        let out = s
            .handle(br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a\"b"}}}"#)
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(v["id"], 7);
        assert_eq!(v["result"]["content"][0]["text"], "a\"b");
    }

    #[test]
    fn lists_n_tools_and_ignores_notifications() {
        let s = Server::new(1000, false);
        let out = s
            .handle(br#"{"jsonrpc":"2.0","id":"x","method":"tools/list"}"#)
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(v["id"], "x");
        assert_eq!(v["result"]["tools"].as_array().unwrap().len(), 1000);
        assert!(
            s.handle(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
                .is_none()
        );
    }

    #[test]
    fn initialize_answers_a_handshake_version() {
        let s = Server::new(1, false);
        let out = s
            .handle(br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2026-07-28"}}"#)
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(v["result"]["protocolVersion"], "2025-06-18");
    }
}
