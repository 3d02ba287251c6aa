//! The standalone GET stream is in place before the first request that
//! follows the handshake: delivering `notifications/initialized` completes
//! only once the GET it opens was answered (bounded by
//! `HttpTimeouts::listen`). Without this, a server that sends what a request
//! causes only on the GET stream (e.g. `elicitation/create`) loses it, and a
//! late GET can be taken for the resumption of a request's stream.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

mod common;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::*;
use fault_http::{FaultServer, Part, Reply, init_result, tools_result};
use http::Method;
use mcp_transport::Transport;
use mcp_transport_http::{HttpMode, HttpTimeouts, HttpTransport};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use tokio::sync::mpsc::UnboundedSender;

#[tokio::test]
async fn get_stream_is_open_when_initialized_was_delivered() {
    // The held-open GET bodies' senders, kept alive for the test.
    let streams: Arc<Mutex<Vec<UnboundedSender<Part>>>> = Arc::default();
    let held = streams.clone();
    let server = FaultServer::start(move |r| {
        let id = r.rpc_id().unwrap_or_default();
        if r.method == Method::GET {
            let (reply, tx) = Reply::sse_channel();
            held.lock().unwrap().push(tx);
            return reply;
        }
        match r.rpc_method().as_deref() {
            Some("initialize") => {
                Reply::json(init_result(&id, "2025-11-25")).header("Mcp-Session-Id", "s-1")
            }
            Some("tools/list") => Reply::json(tools_result(&id)),
            _ => Reply::status(202),
        }
    })
    .await
    .unwrap();
    let t = streamable(&server.url("/mcp")).await;
    initialize(&t).await.unwrap();
    t.set_protocol_version(mcp_types::ProtocolVersion::V2025_11_25);
    t.notify("notifications/initialized", None).await.unwrap();
    // Nothing else ran in between: the GET must already have been received.
    assert_eq!(
        server.count(&Method::GET),
        1,
        "the GET stream was answered before notifications/initialized completed"
    );
    t.request("tools/list", None, opts())
        .await
        .unwrap()
        .to_value()
        .unwrap();
    let requests = server.requests();
    let get = requests
        .iter()
        .find(|r| r.method == Method::GET)
        .expect("a GET");
    let list = requests
        .iter()
        .find(|r| r.is_call("tools/list"))
        .expect("tools/list");
    assert!(
        get.seq < list.seq,
        "GET (#{}) before the first request after initialized (#{})",
        get.seq,
        list.seq
    );
    assert_eq!(get.header("mcp-session-id"), Some("s-1"));
    assert_eq!(get.header("last-event-id"), None);
    t.close().await.unwrap();
    drop(streams);
}

/// A server that answers every POST with 202 and never answers a GET (holds
/// the connection open without a status line). Returns its URL and task.
async fn silent_get_server() -> (String, tokio::task::JoinHandle<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let task = tokio::spawn(async move {
        let mut held = Vec::new();
        loop {
            let Ok((mut conn, _)) = listener.accept().await else {
                return;
            };
            let mut head = Vec::new();
            let mut buf = [0u8; 4096];
            // Read the request head (the POST bodies here are small and
            // arrive with it; their content does not matter).
            while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                match conn.read(&mut buf).await {
                    Ok(0) | Err(_) => break,
                    Ok(n) => head.extend_from_slice(&buf[..n]),
                }
            }
            if head.starts_with(b"GET") {
                held.push(conn);
            } else {
                let _ = conn
                    .write_all(
                        b"HTTP/1.1 202 Accepted\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
                    )
                    .await;
            }
        }
    });
    (url, task)
}

#[tokio::test]
async fn an_unanswered_get_delays_initialized_only_up_to_the_listen_bound() {
    let (url, server) = silent_get_server().await;
    let timeouts = HttpTimeouts::default().with_listen(Duration::from_millis(300));
    let t = HttpTransport::connect(config(&url).with_timeouts(timeouts), HttpMode::Streamable)
        .await
        .unwrap();
    let started = Instant::now();
    t.notify("notifications/initialized", None)
        .await
        .expect("delivered although the GET got no answer");
    assert!(
        started.elapsed() < PROMPT,
        "bounded wait, took {:?}",
        started.elapsed()
    );
    assert!(t.is_connected());
    t.close().await.unwrap();
    server.abort();
}
