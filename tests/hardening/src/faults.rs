//! `mcp-harden serve-faults`: a Streamable HTTP server (hand-written
//! HTTP/1.1 on a raw socket, so it can break the wire in ways a well-behaved
//! HTTP library will not) whose tools each play one fault:
//!
//! - `ok` `{text}`: a JSON reply echoing `text`.
//! - `drop_sse`: an SSE reply with one event (id `N-1`, a log message),
//!   then half of a second event and the connection closed. A GET with
//!   `Last-Event-ID: N-1` gets the response as event `N-2`.
//! - `drop_json`: `Content-Length: 1000`, 100 bytes of body, then closed.
//! - `rst`: the request is read, then the connection is reset (RST).
//! - `hang`: the request is read and never answered.
//! - `drop_after`: a JSON reply echoing `text`, then the connection closed
//!   (the next request on it finds it gone).
//!
//! `initialize` is answered (2025-06-18, with an `Mcp-Session-Id`);
//! notifications get 202; a GET without `Last-Event-ID` gets 405. Prints
//! `listening on URL` on stderr.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// Responses waiting for a resumption, by the event id before them.
type Resumable = Arc<Mutex<HashMap<String, Vec<u8>>>>;

/// Serves until killed.
pub(crate) async fn serve() -> Result<(), String> {
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(|e| format!("bind: {e}"))?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    eprintln!("mcp-harden serve-faults: listening on http://{addr}/mcp");
    let resumable: Resumable = Arc::default();
    loop {
        let (stream, _) = listener.accept().await.map_err(|e| e.to_string())?;
        let _ = stream.set_nodelay(true);
        tokio::spawn(connection(stream, resumable.clone()));
    }
}

struct Request {
    method: String,
    headers: HashMap<String, String>,
    body: Vec<u8>,
}

/// Reads one request; `None` when the connection ends.
async fn read_request(stream: &mut TcpStream, buf: &mut Vec<u8>) -> Option<Request> {
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
        let mut chunk = [0u8; 8192];
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let method = lines.next()?.split(' ').next()?.to_string();
    let headers: HashMap<String, String> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let len: usize = headers
        .get("content-length")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    buf.drain(..head_end + 4);
    while buf.len() < len {
        let mut chunk = [0u8; 65536];
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    let body = buf.drain(..len).collect();
    Some(Request {
        method,
        headers,
        body,
    })
}

fn head(status: &str, content_type: Option<&str>, length: Option<usize>) -> Vec<u8> {
    let mut h = format!("HTTP/1.1 {status}\r\nmcp-session-id: fault-session\r\n");
    if let Some(t) = content_type {
        h.push_str(&format!("content-type: {t}\r\n"));
    }
    match length {
        Some(n) => h.push_str(&format!("content-length: {n}\r\n")),
        None => h.push_str("cache-control: no-cache\r\n"),
    }
    h.push_str("\r\n");
    h.into_bytes()
}

fn json_reply(body: &[u8]) -> Vec<u8> {
    let mut out = head("200 OK", Some("application/json"), Some(body.len()));
    out.extend_from_slice(body);
    out
}

fn result(id: &Value, result: Value) -> Vec<u8> {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
        .to_string()
        .into_bytes()
}

async fn connection(mut stream: TcpStream, resumable: Resumable) {
    let mut buf = Vec::new();
    while let Some(req) = read_request(&mut stream, &mut buf).await {
        if req.method == "GET" {
            let last = req.headers.get("last-event-id").cloned();
            let response = last.and_then(|id| {
                resumable
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .remove(&id)
                    .map(|r| (id, r))
            });
            let Some((id, response)) = response else {
                let _ = stream
                    .write_all(&head("405 Method Not Allowed", None, Some(0)))
                    .await;
                continue;
            };
            let next = id.replace("-1", "-2");
            let mut out = head("200 OK", Some("text/event-stream"), None);
            out.extend_from_slice(format!("id: {next}\ndata: ").as_bytes());
            out.extend_from_slice(&response);
            out.extend_from_slice(b"\n\n");
            // The stream ends with the connection: no length, no chunks.
            let _ = stream.write_all(&out).await;
            return;
        }
        if req.method == "DELETE" {
            let _ = stream.write_all(&head("200 OK", None, Some(0))).await;
            continue;
        }
        let Ok(msg) = serde_json::from_slice::<Value>(&req.body) else {
            let _ = stream
                .write_all(&head("400 Bad Request", None, Some(0)))
                .await;
            continue;
        };
        let Some(id) = msg.get("id").cloned() else {
            let _ = stream.write_all(&head("202 Accepted", None, Some(0))).await;
            continue;
        };
        let method = msg["method"].as_str().unwrap_or("");
        let tool = msg["params"]["name"].as_str().unwrap_or("");
        let text = msg["params"]["arguments"]["text"].clone();
        let echo = result(
            &id,
            json!({"content": [{"type": "text", "text": text}], "isError": false}),
        );
        match (method, tool) {
            ("initialize", _) => {
                let body = result(
                    &id,
                    json!({"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                           "serverInfo": {"name": "mcp-harden-faults", "version": "0.1.0"}}),
                );
                let _ = stream.write_all(&json_reply(&body)).await;
            }
            ("ping", _) => {
                let _ = stream.write_all(&json_reply(&result(&id, json!({})))).await;
            }
            ("tools/call", "ok") => {
                let _ = stream.write_all(&json_reply(&echo)).await;
            }
            ("tools/call", "drop_after") => {
                let _ = stream.write_all(&json_reply(&echo)).await;
                return;
            }
            ("tools/call", "drop_sse") => {
                let event = format!("e{}", id.to_string().trim_matches('"'));
                resumable
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .insert(format!("{event}-1"), echo);
                let note = json!({"jsonrpc": "2.0", "method": "notifications/message",
                                  "params": {"level": "info", "data": "before the drop"}});
                let mut out = head("200 OK", Some("text/event-stream"), None);
                out.extend_from_slice(format!("id: {event}-1\ndata: {note}\n\n").as_bytes());
                out.extend_from_slice(b"id: never\ndata: {\"jsonrpc\":\"2.0\",\"id\"");
                let _ = stream.write_all(&out).await;
                return;
            }
            ("tools/call", "drop_json") => {
                let mut out = head("200 OK", Some("application/json"), Some(1000));
                out.extend_from_slice(&echo[..echo.len().min(100)]);
                let _ = stream.write_all(&out).await;
                return;
            }
            ("tools/call", "rst") => {
                // A zero linger makes the close a reset, at once.
                #[allow(deprecated, reason = "a zero linger never blocks on drop")]
                let _ = stream.set_linger(Some(Duration::ZERO));
                return;
            }
            ("tools/call", "hang") => {
                // Hold the connection until the client closes it.
                let mut sink = [0u8; 1024];
                while matches!(stream.read(&mut sink).await, Ok(n) if n > 0) {}
                return;
            }
            _ => {
                let body = json!({"jsonrpc": "2.0", "id": id,
                                  "error": {"code": -32601, "message": "Method not found"}})
                .to_string();
                let _ = stream.write_all(&json_reply(body.as_bytes())).await;
            }
        }
    }
}
