//! B37: a server that closes each keep-alive connection after its response
//! (`Content-Length`, no `Connection: close`). The race (the client picks
//! the idle connection, writes its request, and only then sees the close)
//! is played deterministically: the fault server answers the first request
//! of each connection and closes the connection, without a byte, on any
//! later one. A request that failed so on a reused connection is sent once
//! more on a fresh connection when it is safe to send twice: the handshake's,
//! listings, reads, pings, notifications, the session DELETE. A `tools/call`
//! is never sent twice (the server may have run the tool before closing);
//! once the server showed it closes idle connections, later calls go out on
//! fresh ones. A request that got any part of a response, or failed on a
//! fresh connection, is never sent again.
//!
//! Catalogue cases: B37.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

mod common;

use std::collections::HashMap;

use common::*;
use fault_http::{FaultServer, Part, Recorded, Reply, init_result, tools_result};
use http::Method;
use mcp_transport::Transport;
use mcp_transport_http::{HttpMode, HttpTransport};
use serde_json::json;

fn answer(r: &Recorded) -> Reply {
    let id = r.rpc_id().unwrap_or_default();
    if r.method == Method::DELETE {
        return Reply::status(200);
    }
    match r.rpc_method().as_deref() {
        Some("initialize") => {
            Reply::json(init_result(&id, "2025-06-18")).header("mcp-session-id", "s1")
        }
        Some("tools/list") => Reply::json(tools_result(&id)),
        Some("ping") => Reply::json(format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{}}}}"#)),
        Some("tools/call") => Reply::json(format!(
            r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[]}}}}"#
        )),
        _ => Reply::status(202),
    }
}

/// Answers the first request of each connection; closes the connection
/// without a response on any later one.
fn closes_after_each_response(r: &Recorded) -> Reply {
    if r.on_connection > 0 {
        return Reply::close_connection();
    }
    answer(r)
}

async fn transport(url: &str) -> HttpTransport {
    HttpTransport::connect(
        config(url).with_listen_after_initialized(false),
        HttpMode::Streamable,
    )
    .await
    .unwrap()
}

/// A key for "the same request": method, path and body.
fn key(r: &Recorded) -> (Method, String, Vec<u8>) {
    (r.method.clone(), r.path().to_owned(), r.body.to_vec())
}

#[tokio::test]
async fn b37_every_request_is_sent_again_once_after_a_reused_connection_closed() {
    let server = FaultServer::start(closes_after_each_response)
        .await
        .unwrap();
    let t = transport(&server.url("/mcp")).await;
    // Each step in turn: at least every second one lands on a reused
    // connection (the previous request's), which the server closes.
    initialize(&t).await.unwrap();
    t.notify("notifications/initialized", None).await.unwrap();
    for _ in 0..3 {
        let tools = t.request("tools/list", None, opts()).await.unwrap();
        assert_eq!(tools.to_value().unwrap(), json!({"tools": []}));
        t.notify("notifications/roots/list_changed", None)
            .await
            .unwrap();
        t.request("ping", None, opts()).await.unwrap();
    }
    // A second initialize (as after an expired session) on a reused one.
    initialize(&t).await.unwrap();
    // A re-sent request goes out on a connection that is not kept, so the
    // next one opens a pooled connection and the one after reuses it: this
    // ping puts the session DELETE on a reused connection.
    t.request("ping", None, opts()).await.unwrap();
    t.close().await.unwrap();

    let requests = server.requests();
    let closed: Vec<&Recorded> = requests.iter().filter(|r| r.on_connection > 0).collect();
    assert!(closed.len() >= 5, "the race was played: {}", closed.len());
    let mut kinds: Vec<String> = closed
        .iter()
        .map(|r| r.rpc_method().unwrap_or_else(|| r.method.to_string()))
        .collect();
    kinds.sort();
    kinds.dedup();
    for kind in [
        "DELETE",
        "initialize",
        "notifications/roots/list_changed",
        "ping",
        "tools/list",
    ] {
        assert!(
            kinds.iter().any(|k| k == kind),
            "{kind} not played: {kinds:?}"
        );
    }
    // Each closed request was sent once more, on a fresh connection, and
    // no request more than twice.
    let mut sent: HashMap<_, Vec<&Recorded>> = HashMap::new();
    for r in &requests {
        sent.entry(key(r)).or_default().push(r);
    }
    for r in &closed {
        let after: Vec<_> = requests
            .iter()
            .filter(|o| o.seq > r.seq && key(o) == key(r))
            .collect();
        let again = after.first().expect("sent again");
        assert_eq!(again.on_connection, 0, "on a fresh connection");
        assert_ne!(again.connection, r.connection);
    }
}

/// Never sent again: a request that got part of a response on a reused
/// connection, and one that failed on a fresh connection.
#[tokio::test]
async fn b37_partial_response_or_fresh_connection_is_not_sent_again() {
    for case in ["partial-json", "partial-sse", "head-only", "fresh"] {
        let server = FaultServer::start(move |r| {
            if r.rpc_method().as_deref() != Some("tools/list") {
                return answer(r);
            }
            match case {
                "partial-json" => {
                    Reply::json("").parts(vec![Part::bytes(r#"{"jsonrpc":"2.0","#), Part::Abort])
                }
                "partial-sse" => Reply::sse(vec![Part::bytes("data: {\"jsonrpc\""), Part::Abort]),
                "head-only" => Reply::json("").parts(vec![Part::Abort]),
                _ => Reply::close_connection(),
            }
        })
        .await
        .unwrap();
        let t = transport(&server.url("/mcp")).await;
        initialize(&t).await.unwrap();
        if case == "fresh" {
            // Let the pooled connection go: the next request needs a new one.
            t.close().await.unwrap();
        }
        let t = if case == "fresh" {
            // A new transport: its pool is empty, so tools/list opens a fresh
            // connection.
            let t = transport(&server.url("/mcp")).await;
            let err = t.request("tools/list", None, opts()).await.unwrap_err();
            let text = error_chain(&err);
            assert!(text.contains("HTTP request to"), "{case}: {text}");
            t
        } else {
            let err = t.request("tools/list", None, opts()).await.unwrap_err();
            assert!(!err.to_string().is_empty(), "{case}");
            t
        };
        let lists: Vec<_> = server
            .requests()
            .into_iter()
            .filter(|r| r.rpc_method().as_deref() == Some("tools/list"))
            .collect();
        assert_eq!(lists.len(), 1, "{case}: sent once, not again");
        assert!(t.is_connected(), "{case}");
        t.close().await.unwrap();
    }
}

/// One request read off `s` (head, then a `Content-Length` body): its body,
/// or `None` when the client closed the connection.
async fn read_request(s: &mut tokio::net::TcpStream, buf: &mut Vec<u8>) -> Option<Vec<u8>> {
    use tokio::io::AsyncReadExt;
    loop {
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buf[..end]).to_ascii_lowercase();
            let length: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or(0);
            if buf.len() >= end + 4 + length {
                let body = buf[end + 4..end + 4 + length].to_vec();
                buf.drain(..end + 4 + length);
                return Some(body);
            }
        }
        let mut chunk = [0u8; 4096];
        match s.read(&mut chunk).await {
            Ok(0) | Err(_) => return None,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
}

/// A reply cut inside its head on a reused connection (some bytes of a
/// response arrived, so the server may have acted on the request) is not
/// sent again. A raw TCP server, since hyper writes heads whole.
#[tokio::test]
async fn b37_response_cut_inside_its_head_is_not_sent_again() {
    use std::sync::{Arc, Mutex};
    use tokio::io::AsyncWriteExt;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let seen: Arc<Mutex<Vec<serde_json::Value>>> = Arc::default();
    let log = seen.clone();
    let server = tokio::spawn(async move {
        while let Ok((mut s, _)) = listener.accept().await {
            let log = log.clone();
            tokio::spawn(async move {
                let mut buf = Vec::new();
                let mut served = 0;
                while let Some(body) = read_request(&mut s, &mut buf).await {
                    let request: serde_json::Value =
                        serde_json::from_slice(&body).unwrap_or_default();
                    log.lock().unwrap().push(request.clone());
                    let reply = if served == 0 {
                        let json = init_result(&request["id"], "2025-06-18");
                        format!(
                            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{json}",
                            json.len()
                        )
                    } else {
                        // Part of a head, then the connection is closed.
                        "HTTP/1.1 200 OK\r\nContent-Ty".to_owned()
                    };
                    if s.write_all(reply.as_bytes()).await.is_err() {
                        return;
                    }
                    served += 1;
                    if served > 1 {
                        return;
                    }
                }
            });
        }
    });
    let t = transport(&format!("http://{addr}/mcp")).await;
    initialize(&t).await.unwrap();
    let err = t.request("tools/list", None, opts()).await.unwrap_err();
    let text = error_chain(&err);
    assert!(text.contains("HTTP request to"), "{text}");
    let lists = seen
        .lock()
        .unwrap()
        .iter()
        .filter(|r| r["method"] == "tools/list")
        .count();
    assert_eq!(lists, 1, "sent once, not again");
    assert!(t.is_connected());
    t.close().await.unwrap();
    server.abort();
}

/// The catalogue's server as it is: every reply carries `Content-Length`
/// and no `Connection: close`, and the socket is shut down just after it.
/// Whether the client sees the close before reusing the connection or only
/// after writing the next request is a race (20 ms wide here); either way
/// every request of a session succeeds. (The test above plays the lost
/// race every time.)
#[tokio::test]
async fn b37_server_shutting_down_after_each_response() {
    use tokio::io::AsyncWriteExt;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = tokio::spawn(async move {
        while let Ok((mut s, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut buf = Vec::new();
                let Some(body) = read_request(&mut s, &mut buf).await else {
                    return;
                };
                let request: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
                let json = match request["method"].as_str() {
                    Some("initialize") => init_result(&request["id"], "2025-06-18"),
                    Some("tools/list") => tools_result(&request["id"]),
                    Some(_) if request.get("id").is_some() => format!(
                        r#"{{"jsonrpc":"2.0","id":{},"result":{{}}}}"#,
                        request["id"]
                    ),
                    _ => String::new(),
                };
                let reply = if json.is_empty() {
                    "HTTP/1.1 202 Accepted\r\ncontent-length: 0\r\n\r\n".to_owned()
                } else {
                    format!(
                        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{json}",
                        json.len()
                    )
                };
                let _ = s.write_all(reply.as_bytes()).await;
                // A moment for the client to take the connection for its
                // next request first (the race real servers lose for it),
                // then the socket is dropped, whatever arrived on it.
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
                let _ = s.shutdown().await;
            });
        }
    });
    let t = transport(&format!("http://{addr}/mcp")).await;
    initialize(&t).await.unwrap();
    t.notify("notifications/initialized", None).await.unwrap();
    for _ in 0..10 {
        let tools = t.request("tools/list", None, opts()).await.unwrap();
        assert_eq!(tools.to_value().unwrap(), json!({"tools": []}));
        t.request("ping", None, opts()).await.unwrap();
    }
    t.close().await.unwrap();
    server.abort();
}

/// A `tools/call` that fails on a reused connection before any reply byte
/// is not sent again (the server may have read it and run the tool before
/// closing): it fails, and the server saw it once. From then on the server
/// is known to close idle connections, so the next calls go out on fresh
/// connections and succeed.
#[tokio::test]
async fn b37_a_tool_call_is_never_sent_twice() {
    let server = FaultServer::start(closes_after_each_response)
        .await
        .unwrap();
    let t = transport(&server.url("/mcp")).await;
    // The first request opens a connection that is then kept idle; the call
    // goes out on it and the server closes it without a byte.
    t.request("ping", None, opts()).await.unwrap();
    let call = json!({"name": "run", "arguments": {}});
    let err = t
        .request("tools/call", Some(&call), opts())
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            mcp_transport::TransportError::Io(_) | mcp_transport::TransportError::Closed(_)
        ),
        "{err:?}"
    );
    let calls = |server: &FaultServer| {
        server
            .requests()
            .into_iter()
            .filter(|r| r.rpc_method().as_deref() == Some("tools/call"))
            .count()
    };
    assert_eq!(calls(&server), 1, "the failed call reached the server once");
    for n in 2..5 {
        t.request("tools/call", Some(&call), opts())
            .await
            .unwrap_or_else(|e| panic!("call {n} on a fresh connection: {e:?}"));
    }
    assert_eq!(calls(&server), 4);
    for r in server.requests() {
        if r.rpc_method().as_deref() == Some("tools/call") && r.seq > 2 {
            assert_eq!(
                r.on_connection, 0,
                "later calls go out on fresh connections"
            );
        }
    }
}
