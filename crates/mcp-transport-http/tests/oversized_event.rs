//! B15 (HTTP variant): an SSE event over the limit fails its request with
//! `MessageTooLarge`; the transport survives and the next request works.
//! A JSON body over the limit does the same.
//!
//! Catalogue cases: B15.

mod common;

use common::*;
use fault_http::{FaultServer, Part, Reply, tools_result};
use mcp_transport::{Transport, TransportError};
use mcp_transport_http::{HttpMode, HttpTransport};

#[tokio::test]
async fn oversized_events_and_bodies_fail_only_their_request() {
    const LIMIT: usize = 64 * 1024;
    let server = FaultServer::start(|r| {
        let id = r.rpc_id().unwrap_or_default();
        let big = "a".repeat(LIMIT + 1);
        let json = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[{{"type":"text","text":"{big}"}}]}}}}"#
        );
        match r.rpc_method().as_deref() {
            Some("tools/call") => {
                let event = format!("data: {json}\n\n").into_bytes();
                Reply::sse(event.chunks(4096).map(|c| Part::bytes(c.to_vec())).collect())
            }
            Some("resources/read") => Reply::json(json),
            _ => Reply::json(tools_result(&id)),
        }
    })
    .await
    .unwrap();
    let config = config(&server.url("/mcp")).with_max_event_bytes(LIMIT);
    let t = HttpTransport::connect(config, HttpMode::Streamable)
        .await
        .unwrap();
    let err = t.request("tools/call", None, opts()).await.unwrap_err();
    assert!(
        matches!(err, TransportError::MessageTooLarge { limit: LIMIT, .. }),
        "{err:?}"
    );
    let err = t.request("resources/read", None, opts()).await.unwrap_err();
    assert!(
        matches!(err, TransportError::MessageTooLarge { limit: LIMIT, .. }),
        "{err:?}"
    );
    assert!(t.is_connected());
    assert!(t.request("tools/list", None, opts()).await.is_ok());
}

#[tokio::test]
async fn sixteen_mebibyte_events_pass_by_default() {
    // B15's largest case: 16 MiB of text plus its JSON, over the 16 MiB mark.
    let n = 16 * 1024 * 1024;
    let server = FaultServer::start(move |r| {
        let id = r.rpc_id().unwrap_or_default();
        let json = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"result":{{"text":"{}"}}}}"#,
            "a".repeat(n)
        );
        let event = format!("data: {json}\n\n").into_bytes();
        Reply::sse(
            event
                .chunks(256 * 1024)
                .map(|c| Part::bytes(c.to_vec()))
                .collect(),
        )
    })
    .await
    .unwrap();
    let t = streamable(&server.url("/mcp")).await;
    let result = t
        .request("tools/call", None, opts())
        .await
        .unwrap()
        .to_value()
        .unwrap();
    assert_eq!(result["text"].as_str().map(str::len), Some(n));
}
