//! B07: media types are parsed (case-insensitive, parameters ignored) on the
//! POST reply and on the GET stream; an unsupported type on a request's
//! reply fails that request with an error naming the type.
//!
//! Catalogue cases: B07.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

mod common;

use std::time::Duration;

use common::*;
use fault_http::{FaultServer, Part, Reply, init_result, tools_result};
use http::Method;
use mcp_transport::{Transport, TransportEvent};
use serde_json::json;

#[tokio::test]
async fn charset_parameters_and_case() {
    let server = FaultServer::start(|r| {
        let id = r.rpc_id().unwrap_or_default();
        if r.method == Method::GET {
            return Reply::sse(vec![
                Part::bytes("event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n\n"),
                Part::pause_ms(5_000),
            ])
            .header("content-type", "Text/Event-Stream;charset=UTF-8");
        }
        match r.rpc_method().as_deref() {
            Some("initialize") => Reply::status(200)
                .header("content-type", "text/event-stream; charset=utf-8")
                .parts(vec![Part::bytes(format!("data: {}\n\n", init_result(&id, "2025-06-18")))]),
            Some("tools/list") => Reply::status(200)
                .header("content-type", "application/json; charset=\"utf-8\"")
                .body(tools_result(&id)),
            _ => Reply::status(202),
        }
    })
    .await
    .unwrap();
    let (t, mut events) = initialized(&server.url("/mcp")).await;
    let tools = t
        .request("tools/list", None, opts())
        .await
        .unwrap()
        .to_value()
        .unwrap();
    assert_eq!(tools, json!({"tools": []}));
    let event = tokio::time::timeout(PROMPT, events.recv())
        .await
        .expect("event in time");
    match event {
        Some(TransportEvent::Notification(n)) => {
            assert_eq!(n.method, "notifications/tools/list_changed")
        }
        other => panic!("unexpected {other:?}"),
    }
    t.close().await.unwrap();
}

#[tokio::test]
async fn unsupported_type_names_the_type_without_retrying() {
    let server = FaultServer::start(|_| {
        Reply::status(200)
            .header("content-type", "text/html; charset=utf-8")
            .body("<html>hi</html>")
    })
    .await
    .unwrap();
    let t = streamable(&server.url("/mcp")).await;
    let err = t
        .request(
            "tools/list",
            None,
            opts().with_timeout(Duration::from_secs(20)),
        )
        .await
        .unwrap_err();
    assert!(err.to_string().contains("text/html"), "{err}");
    assert_eq!(server.requests().len(), 1, "no retry loop");
    assert!(t.is_connected());
}

/// A reply in a content coding the client does not decode (it decodes
/// gzip, deflate, br and zstd: `b34_compressed_replies`) fails its request
/// with an error naming the coding, on JSON and on SSE replies, instead of
/// a parse error that blamed the JSON; one unknown coding in a stack is
/// enough.
#[tokio::test]
async fn undecodable_coding_names_the_encoding() {
    for (media, encoding, named) in [
        ("application/json", "compress", "compress"),
        ("text/event-stream", "x-custom", "x-custom"),
        ("application/json", "identity, compress", "compress"),
        ("application/json", "gzip, x-custom", "gzip, x-custom"),
    ] {
        let err = tools_list_error(move || {
            Reply::status(200)
                .header("content-type", media)
                .header("content-encoding", encoding)
                .body(&b"\x1f\x8b\x08\x00\x00\x00\x00\x00"[..])
        })
        .await;
        assert!(
            err.contains(&format!("Content-Encoding {named}"))
                && err.contains(media)
                && err.contains("not a coding this client decodes"),
            "{err}"
        );
    }
}

/// The error a `tools/list` gets when every request is answered `reply()`;
/// the connection must survive it.
async fn tools_list_error(reply: impl Fn() -> Reply + Send + Sync + 'static) -> String {
    let server = FaultServer::start(move |_| reply()).await.unwrap();
    let t = streamable(&server.url("/mcp")).await;
    let err = t
        .request("tools/list", None, opts())
        .await
        .unwrap_err()
        .to_string();
    assert!(t.is_connected());
    err
}

/// An error body in a coding the client does not decode is not shown as
/// text (its bytes are noise, or terminal escapes): the error says how many
/// bytes and the coding.
#[tokio::test]
async fn undecodable_error_body_is_named_not_shown() {
    let err = tools_list_error(|| {
        Reply::status(500)
            .header("content-type", "application/json")
            .header("content-encoding", "compress")
            .body(&b"\x1f\x9d\x08\x00\x1b[2J"[..])
    })
    .await;
    assert_eq!(
        err,
        "HTTP 500: (8 bytes of a body with Content-Encoding compress, not a coding this client decodes (it sent Accept-Encoding: gzip, deflate, br, zstd))"
    );
}

/// Servers as they are: a JSON reply sent as `text/plain`, with no
/// `Content-Type`, or opening with a UTF-8 byte order mark (RFC 8259 § 8.1
/// lets a reader ignore it) is read as the JSON it is; a body that is not
/// JSON under such a type still fails, naming the type.
#[tokio::test]
async fn a_json_reply_with_a_sloppy_type_or_a_bom_is_read() {
    for (content_type, bom) in [
        (Some("text/plain; charset=utf-8"), false),
        (None, false),
        (Some("application/json"), true),
        (Some("text/plain"), true),
    ] {
        let server = FaultServer::start(move |r| {
            let id = r.rpc_id().unwrap_or_default();
            let mut body = if bom {
                "\u{feff}".to_owned()
            } else {
                String::new()
            };
            body.push_str(&tools_result(&id));
            let reply = Reply::status(200).body(body);
            match content_type {
                Some(t) => reply.header("content-type", t),
                None => reply,
            }
        })
        .await
        .unwrap();
        let t = streamable(&server.url("/mcp")).await;
        let tools = t
            .request("tools/list", None, opts())
            .await
            .unwrap_or_else(|e| panic!("{content_type:?}, BOM {bom}: {e}"))
            .to_value()
            .unwrap();
        assert_eq!(tools, json!({"tools": []}), "{content_type:?}, BOM {bom}");
        t.close().await.unwrap();
    }
    let server = FaultServer::start(|_| {
        Reply::status(200)
            .header("content-type", "text/plain")
            .body("not json")
    })
    .await
    .unwrap();
    let t = streamable(&server.url("/mcp")).await;
    let err = t.request("tools/list", None, opts()).await.unwrap_err();
    assert!(err.to_string().contains("text/plain"), "{err}");
    t.close().await.unwrap();
}

/// Every JSON reply of a server that opens them with a byte order mark is
/// read; the mark is warned about once per connection, naming it.
#[tokio::test]
async fn a_byte_order_mark_is_warned_once_per_connection() {
    let warnings = capture_warnings();
    let server = FaultServer::start(|r| {
        let id = r.rpc_id().unwrap_or_default();
        Reply::json(format!("\u{feff}{}", tools_result(&id)))
    })
    .await
    .unwrap();
    let t = streamable(&server.url("/mcp")).await;
    for _ in 0..3 {
        let tools = t
            .request("tools/list", None, opts())
            .await
            .unwrap()
            .to_value()
            .unwrap();
        assert_eq!(tools, json!({"tools": []}));
    }
    t.close().await.unwrap();
    let text = warnings.text();
    assert_eq!(
        text.matches("byte order mark").count(),
        1,
        "one warning: {text}"
    );
}
