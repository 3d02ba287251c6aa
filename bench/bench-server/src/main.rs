//! The one MCP server every benchmarked client talks to, so the figures
//! measure clients, not servers.
//!
//! ```text
//! bench-server stdio [--tools N]
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
//! The server does as little as it can: it borrows the request id, the
//! method and the echo text from the input and splices them into the
//! response bytes.

use std::borrow::Cow;
use std::io::{BufRead, Write};
use std::net::SocketAddr;
use std::sync::Arc;

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
}

impl Server {
    fn new(tools: usize) -> Self {
        let mut list = Vec::with_capacity(tools);
        list.push(serde_json::json!({
            "name": "echo",
            "description": "Returns its input text.",
            "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
        }));
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
        let tools_list = serde_json::to_vec(&serde_json::json!({ "tools": list }))
            .expect("static JSON serializes");
        Server { tools_list }
    }

    /// Handles one message; `Some(response bytes)` for a request.
    fn handle(&self, input: &[u8]) -> Option<Vec<u8>> {
        let msg: Message<'_> = match serde_json::from_slice(input) {
            Ok(m) => m,
            Err(e) => {
                eprintln!("bench-server: bad message: {e}");
                return Some(error(None, -32700, "Parse error"));
            }
        };
        let id = msg.id?;
        let method = msg.method.as_deref().unwrap_or("");
        Some(match method {
            "tools/call" => self.call(id, msg.params),
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

    fn call(&self, id: &RawValue, params: Option<&RawValue>) -> Vec<u8> {
        let Some(params) =
            params.and_then(|p| serde_json::from_str::<CallParams<'_>>(p.get()).ok())
        else {
            return error(Some(id), -32602, "Invalid params");
        };
        if params.name != "echo" {
            return error(Some(id), -32602, "Unknown tool");
        }
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

fn serve_stdio(server: &Server) -> std::io::Result<()> {
    let stdin = std::io::stdin();
    let mut input = std::io::BufReader::with_capacity(256 * 1024, stdin.lock());
    let stdout = std::io::stdout();
    let mut output = std::io::BufWriter::with_capacity(256 * 1024, stdout.lock());
    let mut line = Vec::with_capacity(64 * 1024);
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            output.flush()?;
            return Ok(());
        }
        let trimmed = line.trim_ascii();
        if !trimmed.is_empty()
            && let Some(resp) = server.handle(trimmed)
        {
            output.write_all(&resp)?;
            output.write_all(b"\n")?;
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

async fn http_one(server: &Server, req: Request<Incoming>, sse: bool) -> Response<Full<Bytes>> {
    let status = |s: StatusCode| {
        let mut r = Response::new(Full::new(Bytes::new()));
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
    let Some(resp) = server.handle(&body) else {
        return status(StatusCode::ACCEPTED);
    };
    let (content_type, body) = if sse {
        let mut framed = Vec::with_capacity(resp.len() + 24);
        framed.extend_from_slice(b"event: message\ndata: ");
        framed.extend_from_slice(&resp);
        framed.extend_from_slice(b"\n\n");
        ("text/event-stream", framed)
    } else {
        ("application/json", resp)
    };
    let mut r = Response::new(Full::new(Bytes::from(body)));
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
    let server = Server::new(tools);
    let outcome = match args.first().map(String::as_str) {
        Some("stdio") => serve_stdio(&server),
        Some("http") => {
            let Some(port) = value("--port").and_then(|v| v.parse().ok()) else {
                eprintln!("bench-server http needs --port P");
                std::process::exit(2);
            };
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("tokio runtime");
            rt.block_on(serve_http(Arc::new(server), port, flag("--sse")))
        }
        _ => {
            eprintln!("usage: bench-server stdio|http --port P [--sse] [--tools N]");
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
        let s = Server::new(3);
        let out = s
            .handle(br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a\"b"}}}"#)
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(v["id"], 7);
        assert_eq!(v["result"]["content"][0]["text"], "a\"b");
    }

    #[test]
    fn lists_n_tools_and_ignores_notifications() {
        let s = Server::new(1000);
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
        let s = Server::new(1);
        let out = s
            .handle(br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2026-07-28"}}"#)
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(v["result"]["protocolVersion"], "2025-06-18");
    }
}
