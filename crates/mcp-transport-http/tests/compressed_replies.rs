//! B34: a server that compresses its replies (`Content-Encoding` gzip,
//! deflate — zlib or raw —, br, zstd, or several stacked) is understood on
//! every reply path: POST JSON, POST SSE, the GET stream, error bodies,
//! empty 202s, legacy HTTP+SSE; every request says `Accept-Encoding: gzip,
//! deflate, br, zstd`. An SSE body stays incremental (an event arrives
//! before the compressed stream ends); a decompression bomb fails that
//! request with `MessageTooLarge` and the connection lives on; a coding the
//! client does not decode, or a corrupt body, fails that request with a
//! clear error.
//!
//! Catalogue cases: B34.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

mod common;

use std::io::Write;
use std::sync::{Arc, Mutex};

use common::*;
use fault_http::{FaultServer, Part, Reply, init_result, tools_result};
use http::Method;
use mcp_transport::{Transport, TransportError};
use mcp_transport_http::{ActiveMode, HttpMode, HttpTransport};
use serde_json::json;
use tokio::sync::mpsc::UnboundedSender;

const ACCEPT_ENCODING: &str = "gzip, deflate, br, zstd";

/// The codings of the table: the `Content-Encoding` sent, and how the body
/// is made (`deflate-raw` is raw deflate sent as `deflate`, as some servers
/// do).
const CODINGS: [(&str, &str); 6] = [
    ("gzip", "gzip"),
    ("x-gzip", "gzip"),
    ("deflate", "zlib"),
    ("deflate", "deflate-raw"),
    ("br", "br"),
    ("zstd", "zstd"),
];

/// A streaming compressor: every `push` returns the bytes that decode to
/// what was pushed so far (a flush), `finish` the end of the stream.
enum Encoder {
    Gzip(flate2::write::GzEncoder<Vec<u8>>),
    Zlib(flate2::write::ZlibEncoder<Vec<u8>>),
    Raw(flate2::write::DeflateEncoder<Vec<u8>>),
    Br(Box<brotli::CompressorWriter<Vec<u8>>>),
    Zstd(zstd::stream::write::Encoder<'static, Vec<u8>>),
}

impl Encoder {
    fn new(how: &str) -> Encoder {
        let level = flate2::Compression::fast();
        match how {
            "gzip" => Encoder::Gzip(flate2::write::GzEncoder::new(Vec::new(), level)),
            "zlib" => Encoder::Zlib(flate2::write::ZlibEncoder::new(Vec::new(), level)),
            "deflate-raw" => Encoder::Raw(flate2::write::DeflateEncoder::new(Vec::new(), level)),
            "br" => Encoder::Br(Box::new(brotli::CompressorWriter::new(
                Vec::new(),
                4096,
                5,
                22,
            ))),
            "zstd" => Encoder::Zstd(zstd::stream::write::Encoder::new(Vec::new(), 3).unwrap()),
            other => panic!("no encoder {other}"),
        }
    }

    fn push(&mut self, data: &[u8]) -> Vec<u8> {
        let out = match self {
            Encoder::Gzip(e) => {
                e.write_all(data).unwrap();
                e.flush().unwrap();
                e.get_mut()
            }
            Encoder::Zlib(e) => {
                e.write_all(data).unwrap();
                e.flush().unwrap();
                e.get_mut()
            }
            Encoder::Raw(e) => {
                e.write_all(data).unwrap();
                e.flush().unwrap();
                e.get_mut()
            }
            Encoder::Br(e) => {
                e.write_all(data).unwrap();
                e.flush().unwrap();
                e.get_mut()
            }
            Encoder::Zstd(e) => {
                e.write_all(data).unwrap();
                e.flush().unwrap();
                e.get_mut()
            }
        };
        std::mem::take(out)
    }

    fn finish(self) -> Vec<u8> {
        match self {
            Encoder::Gzip(e) => e.finish().unwrap(),
            Encoder::Zlib(e) => e.finish().unwrap(),
            Encoder::Raw(e) => e.finish().unwrap(),
            Encoder::Br(e) => e.into_inner(),
            Encoder::Zstd(e) => e.finish().unwrap(),
        }
    }
}

/// `data` compressed whole.
fn compress(how: &str, data: &[u8]) -> Vec<u8> {
    let mut e = Encoder::new(how);
    let mut out = e.push(data);
    out.extend(e.finish());
    out
}

fn event(json: &str) -> String {
    format!("event: message\ndata: {json}\n\n")
}

const LIST_CHANGED: &str = r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#;
const PROGRESS: &str = r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"working"}}"#;

/// A Streamable HTTP server whose every reply is compressed with `how`
/// (sent as `Content-Encoding: coding`).
fn compressing(coding: &'static str, how: &'static str) -> impl Fn(&fault_http::Recorded) -> Reply {
    move |r| {
        let id = r.rpc_id().unwrap_or_default();
        let coded = |status: u16, media: &str, body: Vec<u8>| {
            Reply::status(status)
                .header("content-type", media)
                .header("content-encoding", coding)
                .body(body)
        };
        if r.method == Method::GET {
            let mut e = Encoder::new(how);
            return Reply::sse(vec![
                Part::bytes(e.push(event(LIST_CHANGED).as_bytes())),
                Part::pause_ms(10_000),
            ])
            .header("content-encoding", coding);
        }
        if r.method == Method::DELETE {
            return Reply::status(200).header("content-encoding", coding);
        }
        match r.rpc_method().as_deref() {
            Some("initialize") => coded(
                200,
                "application/json",
                compress(how, init_result(&id, "2025-06-18").as_bytes()),
            ),
            Some("tools/list") => {
                // A progress message and the response, each flushed on its
                // own; the stream's end in a chunk of its own.
                let mut e = Encoder::new(how);
                let first = e.push(event(PROGRESS).as_bytes());
                let second = e.push(event(&tools_result(&id)).as_bytes());
                let end = e.finish();
                Reply::sse(vec![
                    Part::bytes(first),
                    Part::bytes(second),
                    Part::bytes(end),
                ])
                .header("content-encoding", coding)
            }
            Some("tools/call") => coded(
                500,
                "application/json",
                compress(
                    how,
                    format!(
                        r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":-32603,"message":"compressed failure"}}}}"#
                    )
                    .as_bytes(),
                ),
            ),
            Some("prompts/list") => coded(
                400,
                "text/plain",
                compress(how, b"compressed refusal text"),
            ),
            // Notifications: 202, empty, still "coded".
            _ => Reply::status(202).header("content-encoding", coding),
        }
    }
}

#[tokio::test]
async fn b34_every_reply_path_in_every_coding() {
    for (coding, how) in CODINGS {
        let server = FaultServer::start(compressing(coding, how)).await.unwrap();
        let (t, mut events) = initialized(&server.url("/mcp")).await;
        let n = next_notification(&mut events, "the GET stream's notification").await;
        assert_eq!(n.method, "notifications/tools/list_changed", "{how}");

        let tools = t
            .request("tools/list", None, opts())
            .await
            .unwrap_or_else(|e| panic!("{how}: {e}"))
            .to_value()
            .unwrap();
        assert_eq!(tools, json!({"tools": []}), "{how}");
        let n = next_notification(&mut events, "the SSE reply's message").await;
        assert_eq!(n.method, "notifications/message", "{how}");

        match t
            .request("tools/call", Some(&json!({"name": "x"})), opts())
            .await
        {
            Err(TransportError::JsonRpc(e)) => {
                assert_eq!(e.message, "compressed failure", "{how}")
            }
            other => panic!("{how}: {other:?}"),
        }
        match t.request("prompts/list", None, opts()).await {
            Err(TransportError::Http { status, body, .. }) => {
                assert_eq!(
                    (status, body.as_str()),
                    (400, "compressed refusal text"),
                    "{how}"
                )
            }
            other => panic!("{how}: {other:?}"),
        }
        t.close().await.unwrap();
        let requests = server.requests();
        assert!(requests.len() >= 6, "{how}: {}", requests.len());
        for r in &requests {
            assert_eq!(
                r.header("accept-encoding"),
                Some(ACCEPT_ENCODING),
                "{how}: {} {}",
                r.method,
                r.rpc_method().unwrap_or_default()
            );
        }
    }
}

/// Several codings stacked (`Content-Encoding: gzip, br` = gzip applied
/// first, then br): undone last first.
#[tokio::test]
async fn b34_stacked_codings_are_undone_in_reverse() {
    for (coding, hows) in [
        ("gzip, br", ["gzip", "br"]),
        ("zstd, deflate", ["zstd", "zlib"]),
        ("identity, br, gzip", ["br", "gzip"]),
    ] {
        let server = FaultServer::start(move |r| {
            let id = r.rpc_id().unwrap_or_default();
            let body = compress(
                hows[1],
                &compress(hows[0], init_result(&id, "2025-06-18").as_bytes()),
            );
            Reply::json("")
                .header("content-encoding", coding)
                .body(body)
        })
        .await
        .unwrap();
        let t = streamable(&server.url("/mcp")).await;
        let init = initialize(&t)
            .await
            .unwrap_or_else(|e| panic!("{coding}: {e}"));
        assert_eq!(init["protocolVersion"], "2025-06-18", "{coding}");
    }
}

/// An SSE reply compressed as a stream: each event is decoded as soon as
/// its compressed bytes arrive, even cut into pieces at any byte, before
/// the stream ends (a notification is seen while the response is still to
/// come).
#[tokio::test]
async fn b34_sse_split_across_compressed_chunks_stays_incremental() {
    for how in ["gzip", "zlib", "br", "zstd"] {
        let coding = match how {
            "zlib" => "deflate",
            other => other,
        };
        type Held = Option<(UnboundedSender<Part>, Encoder, serde_json::Value)>;
        let pending: Arc<Mutex<Held>> = Arc::default();
        let held = pending.clone();
        let server = FaultServer::start(move |r| {
            let id = r.rpc_id().unwrap_or_default();
            match r.rpc_method().as_deref() {
                Some("initialize") => Reply::json(init_result(&id, "2025-06-18")),
                Some("tools/list") => {
                    let (reply, tx) = Reply::sse_channel();
                    let mut e = Encoder::new(how);
                    // The compressed bytes of the first event, one byte a chunk.
                    for b in e.push(event(PROGRESS).as_bytes()) {
                        let _ = tx.send(Part::bytes(vec![b]));
                    }
                    *held.lock().unwrap() = Some((tx, e, id));
                    reply.header("content-encoding", coding)
                }
                _ => Reply::status(202),
            }
        })
        .await
        .unwrap();
        let t = streamable(&server.url("/mcp")).await;
        let mut events = t.take_events().unwrap();
        initialize(&t).await.unwrap();
        let request = t.request("tools/list", None, opts());
        tokio::pin!(request);
        let n = tokio::select! {
            n = next_notification(&mut events, "the first event") => n,
            r = &mut request => panic!("{how}: the request ended first: {r:?}"),
        };
        assert_eq!(n.method, "notifications/message", "{how}");
        // Only now the response, split in two pieces, and the stream's end.
        let (tx, e, id) = pending.lock().unwrap().take().expect("tools/list arrived");
        let mut e = e;
        let rest = e.push(event(&tools_result(&id)).as_bytes());
        let (a, b) = rest.split_at(rest.len() / 2);
        tx.send(Part::bytes(a.to_vec())).unwrap();
        tx.send(Part::bytes(b.to_vec())).unwrap();
        tx.send(Part::bytes(e.finish())).unwrap();
        let tools = request.await.unwrap().to_value().unwrap();
        assert_eq!(tools, json!({"tools": []}), "{how}");
        drop(tx);
        t.close().await.unwrap();
    }
}

/// A small compressed body that decodes past `max_event_bytes` fails that
/// request with `MessageTooLarge` (JSON reply, SSE event, and an error
/// body, which is cut at 4 KiB); the next request on the connection works.
#[tokio::test]
async fn b34_decompression_bomb_fails_that_request_only() {
    const LIMIT: usize = 256 * 1024;
    for (how, media) in [
        ("gzip", "application/json"),
        ("br", "application/json"),
        ("zstd", "text/event-stream"),
        ("zlib", "text/event-stream"),
        ("gzip", "error"),
    ] {
        let coding = if how == "zlib" { "deflate" } else { how };
        // 8 MiB of spaces (JSON whitespace) or of one SSE line: a few KiB
        // compressed.
        let mut bomb = if media == "text/event-stream" {
            b"data: ".to_vec()
        } else {
            Vec::new()
        };
        bomb.resize(8 * 1024 * 1024, b' ');
        let bomb = compress(how, &bomb);
        assert!(bomb.len() < 64 * 1024, "{how}: {}", bomb.len());
        let server = FaultServer::start(move |r| {
            let id = r.rpc_id().unwrap_or_default();
            match r.rpc_method().as_deref() {
                Some("initialize") => Reply::json(init_result(&id, "2025-06-18")),
                Some("tools/list") if media == "error" => Reply::status(500)
                    .header("content-type", "text/plain")
                    .header("content-encoding", coding)
                    .body(bomb.clone()),
                Some("tools/list") => Reply::status(200)
                    .header("content-type", media)
                    .header("content-encoding", coding)
                    .body(bomb.clone()),
                Some("ping") => {
                    Reply::json(format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{}}}}"#))
                }
                _ => Reply::status(202),
            }
        })
        .await
        .unwrap();
        let t = HttpTransport::connect(
            config(&server.url("/mcp")).with_max_event_bytes(LIMIT),
            HttpMode::Streamable,
        )
        .await
        .unwrap();
        initialize(&t).await.unwrap();
        match t.request("tools/list", None, opts()).await {
            Err(TransportError::MessageTooLarge { limit, .. }) if media != "error" => {
                assert_eq!(limit, LIMIT, "{how}")
            }
            Err(TransportError::Http { status, body, .. }) if media == "error" => {
                assert_eq!(status, 500);
                assert_eq!(body.len(), 4096, "the error body is cut at 4 KiB");
            }
            other => panic!("{how} {media}: {other:?}"),
        }
        assert!(t.is_connected());
        let pong = t.request("ping", None, opts()).await;
        assert!(pong.is_ok(), "{how} {media}: {pong:?}");
        t.close().await.unwrap();
    }
}

/// A corrupt body under a coding we decode, or one in a coding we do not
/// decode, fails that request with a clear error; the connection lives on.
#[tokio::test]
async fn b34_corrupt_or_unknown_coding_fails_that_request_only() {
    for (coding, body, says) in [
        (
            "gzip",
            b"\x1f\x8b\x08\x00garbage-not-deflate".to_vec(),
            "reading the response body",
        ),
        (
            "br",
            b"\xff\xff\xff\xff".to_vec(),
            "reading the response body",
        ),
        (
            "zstd",
            b"not zstd at all".to_vec(),
            "reading the response body",
        ),
        (
            "compress",
            b"\x1f\x9d\x90".to_vec(),
            "Content-Encoding compress",
        ),
        (
            "x-unknown",
            b"{}".to_vec(),
            "not a coding this client decodes",
        ),
    ] {
        let server = FaultServer::start(move |r| {
            let id = r.rpc_id().unwrap_or_default();
            match r.rpc_method().as_deref() {
                Some("initialize") => Reply::json(init_result(&id, "2025-06-18")),
                Some("tools/list") => Reply::json("")
                    .header("content-encoding", coding)
                    .body(body.clone()),
                Some("ping") => {
                    Reply::json(format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{}}}}"#))
                }
                _ => Reply::status(202),
            }
        })
        .await
        .unwrap();
        let t = streamable(&server.url("/mcp")).await;
        initialize(&t).await.unwrap();
        let err = t.request("tools/list", None, opts()).await.unwrap_err();
        let text = error_chain(&err);
        assert!(text.contains(says), "{coding}: {text}");
        assert!(t.is_connected());
        assert!(t.request("ping", None, opts()).await.is_ok(), "{coding}");
        t.close().await.unwrap();
    }
}

/// Legacy HTTP+SSE: the GET stream is compressed (the endpoint event and
/// every response pushed on it later); the POSTs' 202s are compressed too.
#[tokio::test]
async fn b34_legacy_stream_and_posts_compressed() {
    for (coding, how) in [
        ("gzip", "gzip"),
        ("br", "br"),
        ("zstd", "zstd"),
        ("deflate", "zlib"),
    ] {
        type Stream = Option<(UnboundedSender<Part>, Encoder)>;
        let stream: Arc<Mutex<Stream>> = Arc::default();
        let server = FaultServer::start(move |r| {
            if r.method == Method::GET {
                let (reply, tx) = Reply::sse_channel();
                let mut e = Encoder::new(how);
                let _ = tx.send(Part::bytes(
                    e.push(b"event: endpoint\ndata: ./messages?session_id=1\n\n"),
                ));
                *stream.lock().unwrap() = Some((tx, e));
                return reply.header("content-encoding", coding);
            }
            let id = r.rpc_id().unwrap_or_default();
            let answer = match r.rpc_method().as_deref() {
                Some("initialize") => Some(init_result(&id, "2024-11-05")),
                Some("tools/list") => Some(tools_result(&id)),
                _ => None,
            };
            if let (Some(answer), Some((tx, e))) = (answer, stream.lock().unwrap().as_mut()) {
                let _ = tx.send(Part::bytes(e.push(event(&answer).as_bytes())));
            }
            Reply::status(202)
                .header("content-encoding", coding)
                .body(compress(how, b"Accepted"))
        })
        .await
        .unwrap();
        let t = HttpTransport::connect(config(&server.url("/mcp/sse")), HttpMode::Legacy)
            .await
            .unwrap_or_else(|e| panic!("{how}: {e}"));
        assert_eq!(t.mode(), ActiveMode::Legacy);
        let init = t
            .request("initialize", Some(&init_params("2024-11-05")), opts())
            .await
            .unwrap_or_else(|e| panic!("{how}: {e}"))
            .to_value()
            .unwrap();
        assert_eq!(init["protocolVersion"], "2024-11-05");
        t.notify("notifications/initialized", None).await.unwrap();
        let tools = t.request("tools/list", None, opts()).await.unwrap();
        assert_eq!(tools.to_value().unwrap(), json!({"tools": []}));
        t.close().await.unwrap();
        let requests = server.requests();
        assert!(
            requests
                .iter()
                .filter(|r| r.method == Method::POST)
                .all(|r| r.path() == "/mcp/messages"
                    && r.header("accept-encoding") == Some(ACCEPT_ENCODING)),
            "{how}: {requests:?}"
        );
    }
}
