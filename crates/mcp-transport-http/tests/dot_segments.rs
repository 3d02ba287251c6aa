//! B35: the legacy `endpoint` event, and a redirect's `Location`, may be a
//! relative reference with dot segments (`../rpc/messages?sessionId=x`,
//! `./messages?…`): it is resolved as RFC 3986 § 5.2 says (dot segments
//! removed), as `new URL(url, base)` does, by the one resolver both use.
//!
//! Catalogue cases: B35.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

mod common;

use std::sync::{Arc, Mutex};

use common::*;
use fault_http::{FaultServer, Part, Reply, init_result};
use http::Method;
use mcp_transport::Transport;
use mcp_transport_http::{HttpMode, HttpTransport};
use tokio::sync::mpsc::UnboundedSender;

/// A legacy server on `/mcp/sse` announcing `endpoint` (`ABSOLUTE` in it
/// replaced by `http://<its host and port>`); POSTs to `expected` (path and
/// query) are answered on the stream, any other gets 404.
fn legacy(
    endpoint: &'static str,
    expected: &'static str,
) -> impl Fn(&fault_http::Recorded) -> Reply {
    let stream: Arc<Mutex<Option<UnboundedSender<Part>>>> = Arc::default();
    move |r| {
        if r.method == Method::GET {
            let host = r.header("host").unwrap_or_default();
            let endpoint = endpoint.replace("ABSOLUTE", &format!("http://{host}"));
            let (reply, tx) = Reply::sse_channel();
            let _ = tx.send(Part::bytes(format!(
                "event: endpoint\ndata: {endpoint}\n\n"
            )));
            *stream.lock().unwrap() = Some(tx);
            return reply;
        }
        if r.uri.path_and_query().map(|p| p.as_str()) != Some(expected) {
            return Reply::status(404).body(format!("no such endpoint {}", r.uri));
        }
        let id = r.rpc_id().unwrap_or_default();
        if r.rpc_method().as_deref() == Some("initialize")
            && let Some(tx) = stream.lock().unwrap().as_ref()
        {
            let answer = init_result(&id, "2024-11-05");
            let _ = tx.send(Part::bytes(format!("event: message\ndata: {answer}\n\n")));
        }
        Reply::status(202)
    }
}

#[tokio::test]
async fn b35_legacy_endpoint_with_dot_segments() {
    for (endpoint, expected) in [
        ("../rpc/messages?sessionId=x", "/rpc/messages?sessionId=x"),
        ("./messages?sessionId=x", "/mcp/messages?sessionId=x"),
        ("messages?sessionId=x", "/mcp/messages?sessionId=x"),
        ("/messages?sessionId=a%2Fb", "/messages?sessionId=a%2Fb"),
        ("/a/./b/../messages?sessionId=x", "/a/messages?sessionId=x"),
        ("../../../top?sessionId=x", "/top?sessionId=x"),
        (
            "ABSOLUTE/a/../b/messages?sessionId=x",
            "/b/messages?sessionId=x",
        ),
        // Dot segments in the query are the query's business.
        ("./m?next=../x", "/mcp/m?next=../x"),
    ] {
        let server = FaultServer::start(legacy(endpoint, expected))
            .await
            .unwrap();
        let t = HttpTransport::connect(config(&server.url("/mcp/sse")), HttpMode::Legacy)
            .await
            .unwrap_or_else(|e| panic!("{endpoint}: {e}"));
        let init = t
            .request("initialize", Some(&init_params("2024-11-05")), opts())
            .await
            .unwrap_or_else(|e| panic!("{endpoint}: {e}"))
            .to_value()
            .unwrap();
        assert_eq!(init["protocolVersion"], "2024-11-05", "{endpoint}");
        let posts: Vec<String> = server
            .requests()
            .iter()
            .filter(|r| r.method == Method::POST)
            .map(|r| r.uri.to_string())
            .collect();
        assert_eq!(posts, [expected], "{endpoint}");
        t.close().await.unwrap();
    }
}

#[tokio::test]
async fn b35_redirect_location_with_dot_segments() {
    for (from, location, expected) in [
        ("/api/mcp", "../v2/./mcp", "/v2/mcp"),
        ("/api/mcp", "./mcp/", "/api/mcp/"),
        ("/api/mcp", "/x/../mcp2", "/mcp2"),
        ("/api/v1/mcp", "../../mcp?x=1", "/mcp?x=1"),
    ] {
        let server = FaultServer::start(move |r| {
            if r.path() == from {
                return Reply::status(307).header("location", location);
            }
            if r.uri.path_and_query().map(|p| p.as_str()) != Some(expected) {
                return Reply::status(404);
            }
            Reply::json(init_result(&r.rpc_id().unwrap_or_default(), "2025-06-18"))
        })
        .await
        .unwrap();
        let t = streamable(&server.url(from)).await;
        let init = initialize(&t)
            .await
            .unwrap_or_else(|e| panic!("{location}: {e}"));
        assert_eq!(init["protocolVersion"], "2025-06-18");
        let paths: Vec<String> = server
            .requests()
            .iter()
            .map(|r| r.uri.to_string())
            .collect();
        assert_eq!(paths, [from, expected], "{location}");
    }
}
