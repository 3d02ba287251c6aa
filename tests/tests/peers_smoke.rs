//! The real peers under `tests/peers/` start, listen on 127.0.0.1 only, and answer an MCP
//! `initialize` request over each of their transports. Each test skips (printing why) when
//! its peer is not installed, unless `MCP_PEERS_REQUIRED=1` (set by `.ci/run`).
//!
//! Uses a raw HTTP/1.1 exchange over `std::net::TcpStream` so that these checks do not
//! depend on the project's own HTTP transport.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use mcp_tests::peers::{
    self, Everything, EverythingHttp, PeerGuard, PyOptions, PyTransport, skip_if_missing,
};
use serde_json::Value;

/// Generous upper bound for any single exchange with a peer.
const IO_TIMEOUT: Duration = Duration::from_secs(20);

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"peers-smoke","version":"0.0.0"}}}"#;

// ---- a minimal HTTP/1.1 reader (headers, then identity or chunked body, incrementally) ----

struct HttpResponse {
    stream: TcpStream,
    status: u16,
    headers: Vec<(String, String)>,
    chunked: bool,
    /// Bytes read past the headers and not yet decoded.
    raw: Vec<u8>,
    /// Decoded body so far.
    body: Vec<u8>,
    finished: bool,
}

impl HttpResponse {
    fn send(
        addr: SocketAddr,
        method: &str,
        target: &str,
        headers: &[(&str, &str)],
        body: &str,
    ) -> Self {
        let mut stream = TcpStream::connect_timeout(&addr, IO_TIMEOUT).expect("connect to peer");
        stream
            .set_read_timeout(Some(IO_TIMEOUT))
            .expect("set read timeout");
        let mut request = format!(
            "{method} {target} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: {}\r\n",
            body.len()
        );
        for (name, value) in headers {
            request.push_str(&format!("{name}: {value}\r\n"));
        }
        request.push_str("\r\n");
        request.push_str(body);
        stream.write_all(request.as_bytes()).expect("write request");

        let mut head = Vec::new();
        let mut byte = [0u8; 1];
        while !head.ends_with(b"\r\n\r\n") {
            let n = stream.read(&mut byte).expect("read response head");
            assert!(
                n == 1,
                "peer closed before the end of the response head: {head:?}"
            );
            head.push(byte[0]);
        }
        let head = String::from_utf8(head).expect("response head is UTF-8");
        let mut lines = head.split("\r\n");
        let status_line = lines.next().unwrap_or_default();
        let status = status_line
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("bad status line {status_line:?}"));
        let headers: Vec<(String, String)> = lines
            .filter_map(|line| line.split_once(':'))
            .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
            .collect();
        let chunked = headers
            .iter()
            .any(|(n, v)| n == "transfer-encoding" && v.eq_ignore_ascii_case("chunked"));
        HttpResponse {
            stream,
            status,
            headers,
            chunked,
            raw: Vec::new(),
            body: Vec::new(),
            finished: false,
        }
    }

    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// Move complete chunks (or everything, when not chunked) from `raw` to `body`.
    fn decode(&mut self) {
        if !self.chunked {
            self.body.append(&mut self.raw);
            return;
        }
        loop {
            let Some(line_end) = self.raw.windows(2).position(|w| w == b"\r\n") else {
                return;
            };
            let size_text = String::from_utf8_lossy(&self.raw[..line_end]);
            let size_text = size_text.split(';').next().unwrap_or_default().trim();
            let size = usize::from_str_radix(size_text, 16)
                .unwrap_or_else(|_| panic!("bad chunk size {size_text:?}"));
            if size == 0 {
                self.finished = true;
                return;
            }
            let start = line_end + 2;
            if self.raw.len() < start + size + 2 {
                return;
            }
            self.body.extend_from_slice(&self.raw[start..start + size]);
            self.raw.drain(..start + size + 2);
        }
    }

    /// Read until `done(body)` holds, the body ends, or the timeout passes; returns the body.
    fn read_until(&mut self, done: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + IO_TIMEOUT;
        let mut buf = [0u8; 4096];
        loop {
            self.decode();
            let text = String::from_utf8_lossy(&self.body).into_owned();
            if done(&text) || self.finished || Instant::now() >= deadline {
                return text;
            }
            match self.stream.read(&mut buf) {
                Ok(0) => {
                    self.decode();
                    self.finished = true;
                }
                Ok(n) => self.raw.extend_from_slice(&buf[..n]),
                Err(e)
                    if e.kind() == std::io::ErrorKind::WouldBlock
                        || e.kind() == std::io::ErrorKind::TimedOut =>
                {
                    self.finished = true;
                }
                Err(e) => panic!("read response body: {e}"),
            }
        }
    }
}

/// JSON-RPC messages in a body: the `data:` lines of an SSE stream, or the body itself.
fn messages(body: &str, is_sse: bool) -> Vec<Value> {
    if is_sse {
        body.lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .map(str::trim)
            .filter(|data| !data.is_empty())
            .filter_map(|data| serde_json::from_str(data).ok())
            .collect()
    } else {
        serde_json::from_str(body).into_iter().collect()
    }
}

fn is_initialize_result(message: &Value) -> bool {
    message["id"] == 1
        && message["result"]["protocolVersion"].is_string()
        && message["result"]["serverInfo"]["name"].is_string()
}

fn assert_initialize_answer(messages: &[Value], context: &str) {
    assert!(
        messages.iter().any(is_initialize_result),
        "{context}: no initialize result (id 1, protocolVersion, serverInfo.name) among {messages:?}"
    );
}

/// The peer's socket is bound to 127.0.0.1, not to every interface: on Linux every 127/8
/// address reaches `lo`, so a wildcard listener would also accept on 127.0.0.2.
fn assert_loopback_only(peer: &PeerGuard) {
    if cfg!(target_os = "linux") {
        let other = SocketAddr::from((Ipv4Addr::new(127, 0, 0, 2), peer.port()));
        assert!(
            TcpStream::connect_timeout(&other, Duration::from_secs(2)).is_err(),
            "peer at {} also accepts on {other}: it is not bound to 127.0.0.1 only",
            peer.url()
        );
    }
}

/// POST `initialize` to a streamable HTTP endpoint; returns the response.
fn post_initialize(peer: &PeerGuard) -> (HttpResponse, Vec<Value>) {
    let mut response = HttpResponse::send(
        peer.addr(),
        "POST",
        "/mcp",
        &[
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
        ],
        INITIALIZE,
    );
    assert_eq!(
        response.status,
        200,
        "{}: initialize status; log:\n{}",
        peer.url(),
        peer.log_tail()
    );
    let is_sse = response
        .header("content-type")
        .is_some_and(|ct| ct.starts_with("text/event-stream"));
    let body = response.read_until(|body| messages(body, is_sse).iter().any(is_initialize_result));
    let found = messages(&body, is_sse);
    (response, found)
}

/// The 2024-11-05 HTTP+SSE flow: GET the SSE stream, read the `endpoint` event, POST
/// `initialize` there (202), then read the result on the GET stream.
fn sse_initialize(peer: &PeerGuard) -> Vec<Value> {
    let mut stream = HttpResponse::send(
        peer.addr(),
        "GET",
        "/sse",
        &[("Accept", "text/event-stream")],
        "",
    );
    assert_eq!(stream.status, 200, "{}: GET status", peer.url());
    let endpoint_of = |body: &str| -> Option<String> {
        let mut lines = body.lines();
        while let Some(line) = lines.next() {
            if line.trim() == "event: endpoint" {
                return lines
                    .next()?
                    .strip_prefix("data:")
                    .map(|d| d.trim().to_string());
            }
        }
        None
    };
    let body = stream.read_until(|body| endpoint_of(body).is_some_and(|e| !e.is_empty()));
    let endpoint = endpoint_of(&body)
        .unwrap_or_else(|| panic!("{}: no endpoint event in {body:?}", peer.url()));
    assert!(
        endpoint.starts_with('/'),
        "endpoint {endpoint:?} is not a same-origin path"
    );

    let mut post = HttpResponse::send(
        peer.addr(),
        "POST",
        &endpoint,
        &[("Content-Type", "application/json")],
        INITIALIZE,
    );
    assert_eq!(post.status, 202, "{}: POST {endpoint} status", peer.url());
    post.read_until(|_| false);

    let body = stream.read_until(|body| messages(body, true).iter().any(is_initialize_result));
    messages(&body, true)
}

// ---- stdio ----

struct StdioPeer {
    child: Child,
    lines: mpsc::Receiver<String>,
}

impl StdioPeer {
    fn start(program: &str, args: &[String]) -> Self {
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("spawn {program}: {e}"));
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        StdioPeer { child, lines }
    }

    fn send(&mut self, message: &str) {
        let stdin = self.child.stdin.as_mut().expect("piped stdin");
        writeln!(stdin, "{message}").expect("write to peer stdin");
        stdin.flush().expect("flush peer stdin");
    }

    /// Wait for the response with `id`, skipping notifications and other messages.
    fn response(&self, id: i64) -> Value {
        let deadline = Instant::now() + IO_TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = self
                .lines
                .recv_timeout(left)
                .unwrap_or_else(|e| panic!("no response {id} from stdio peer: {e}"));
            if let Ok(message) = serde_json::from_str::<Value>(&line)
                && message["id"] == id
            {
                return message;
            }
        }
    }
}

impl Drop for StdioPeer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn stdio_initialize(program: &str, args: &[String]) -> StdioPeer {
    let mut peer = StdioPeer::start(program, args);
    peer.send(INITIALIZE);
    let response = peer.response(1);
    assert!(
        is_initialize_result(&response),
        "stdio initialize answer: {response}"
    );
    peer.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    peer
}

// ---- server-everything ----

#[test]
fn everything_streamable_http_answers_initialize() {
    let Some(peer) = skip_if_missing(peers::spawn_everything_http(EverythingHttp::StreamableHttp))
    else {
        return;
    };
    assert_loopback_only(&peer);
    let (response, found) = post_initialize(&peer);
    assert_initialize_answer(&found, peer.url());
    assert!(
        response.header("mcp-session-id").is_some(),
        "server-everything assigns an Mcp-Session-Id"
    );
}

#[test]
fn everything_sse_answers_initialize() {
    let Some(peer) = skip_if_missing(peers::spawn_everything_http(EverythingHttp::Sse)) else {
        return;
    };
    assert_loopback_only(&peer);
    assert_initialize_answer(&sse_initialize(&peer), peer.url());
}

#[test]
fn everything_stdio_answers_initialize() {
    let Some((program, args)) = peers::require_command(
        "server-everything (stdio)",
        peers::everything_stdio_command(),
    ) else {
        return;
    };
    let mut peer = stdio_initialize(&program, &args);
    peer.send(r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#);
    let tools = peer.response(2);
    assert!(
        tools["result"]["tools"]
            .as_array()
            .is_some_and(|t| t.iter().any(|tool| tool["name"] == "echo")),
        "server-everything lists an echo tool: {tools}"
    );
}

#[test]
fn everything_2025_11_25_pages_resources_ten_at_a_time() {
    let Some((program, args)) = peers::require_command(
        "server-everything 2025.11.25 (stdio)",
        peers::everything_stdio_command_of(Everything::V2025_11_25),
    ) else {
        return;
    };
    let mut peer = stdio_initialize(&program, &args);
    peer.send(r#"{"jsonrpc":"2.0","id":2,"method":"resources/list"}"#);
    let page = peer.response(2);
    let resources = page["result"]["resources"].as_array().map_or(0, Vec::len);
    assert_eq!(resources, 10, "first page size: {page}");
    assert!(
        page["result"]["nextCursor"].is_string(),
        "first page has a nextCursor: {page}"
    );
}

// ---- py_server.py (official Python SDK) ----

fn python_streamable(opts: PyOptions) {
    let Some(peer) = skip_if_missing(peers::spawn_python_server(
        PyTransport::StreamableHttp,
        opts,
    )) else {
        return;
    };
    assert_loopback_only(&peer);
    let (response, found) = post_initialize(&peer);
    assert_initialize_answer(&found, peer.url());
    let content_type = response.header("content-type").unwrap_or_default();
    if opts.json_response {
        assert!(
            content_type.starts_with("application/json"),
            "--json-response answers JSON, got {content_type:?}"
        );
    } else {
        assert!(
            content_type.starts_with("text/event-stream"),
            "default answers SSE, got {content_type:?}"
        );
    }
    assert_eq!(
        response.header("mcp-session-id").is_some(),
        !opts.stateless,
        "Mcp-Session-Id present exactly when not --stateless"
    );
}

#[test]
fn python_streamable_http_answers_initialize() {
    python_streamable(PyOptions::default());
}

#[test]
fn python_streamable_http_json_response_answers_initialize() {
    python_streamable(PyOptions {
        json_response: true,
        stateless: false,
    });
}

#[test]
fn python_streamable_http_stateless_answers_initialize() {
    python_streamable(PyOptions {
        json_response: false,
        stateless: true,
    });
    python_streamable(PyOptions {
        json_response: true,
        stateless: true,
    });
}

#[test]
fn python_sse_answers_initialize() {
    let Some(peer) = skip_if_missing(peers::spawn_python_server(
        PyTransport::Sse,
        PyOptions::default(),
    )) else {
        return;
    };
    assert_loopback_only(&peer);
    assert_initialize_answer(&sse_initialize(&peer), peer.url());
}

#[test]
fn python_stdio_answers_initialize_and_calls_tools() {
    let Some((program, args)) =
        peers::require_command("py_server.py (stdio)", peers::python_stdio_command())
    else {
        return;
    };
    let mut peer = stdio_initialize(&program, &args);
    peer.send(r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":3}}}"#);
    let sum = peer.response(2);
    assert_eq!(sum["result"]["content"][0]["text"], "5", "add(2, 3): {sum}");
    peer.send(r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"fail","arguments":{"message":"nope"}}}"#);
    let failed = peer.response(3);
    assert_eq!(
        failed["result"]["isError"], true,
        "fail reports isError: {failed}"
    );
}

// ---- conformance CLI ----

#[test]
fn conformance_cli_runs_with_node_22() {
    let Some((program, args)) =
        peers::require_command("conformance CLI (Node 22)", peers::conformance_command())
    else {
        return;
    };
    let output = Command::new(&program)
        .args(&args)
        .args(["list", "--client"])
        .stdin(Stdio::null())
        .output()
        .expect("run conformance list");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "conformance list failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.contains("- initialize"),
        "client scenarios include initialize: {stdout}"
    );
}

/// The start check knows whose listener answers: the peer's own (its process group holds
/// the socket), or another process's (a port taken between bind-and-release and the
/// peer's own bind; the peer then dies of EADDRINUSE while the other answers).
#[test]
fn listener_owner_tells_the_peer_from_another_process() {
    let Some(peer) = skip_if_missing(peers::spawn_everything_http(EverythingHttp::Sse)) else {
        return;
    };
    if !std::path::Path::new("/proc/net/tcp").exists() {
        eprintln!("skipped: no /proc/net/tcp on this system");
        return;
    }
    assert_eq!(
        peers::listener_owner(peer.port(), peer.pid()),
        peers::Owner::Ours
    );
    let other = std::net::TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).unwrap();
    let port = other.local_addr().unwrap().port();
    assert_eq!(
        peers::listener_owner(port, peer.pid()),
        peers::Owner::Theirs
    );
}
