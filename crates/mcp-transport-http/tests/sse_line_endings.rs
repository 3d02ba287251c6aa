//! B01: SSE line endings — CRLF, lone CR, CR/LF split across reads, a BOM
//! split across reads — each delivers exactly one initialize result.
//!
//! Catalogue cases: B01.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

mod common;

use std::time::Instant;

use common::*;
use fault_http::{FaultServer, Part, Reply, init_result};

async fn play(parts: impl Fn(&str) -> Vec<Part> + Send + Sync + 'static) {
    let warnings = capture_warnings();
    let server = FaultServer::start(move |r| {
        let id = r.rpc_id().unwrap_or_default().to_string();
        Reply::sse(parts(&id))
    })
    .await
    .unwrap();
    let t = streamable(&server.url("/mcp")).await;
    let start = Instant::now();
    let result = initialize(&t).await.expect("initialize result");
    assert!(start.elapsed() < PROMPT);
    assert_eq!(result["protocolVersion"], "2025-06-18");
    assert_eq!(warnings.text(), "", "no parse warning");
}

#[tokio::test]
async fn crlf() {
    play(|id| {
        vec![Part::bytes(format!(
            "event: message\r\ndata: {}\r\n\r\n",
            init_result(&id.parse().unwrap(), "2025-06-18")
        ))]
    })
    .await;
}

#[tokio::test]
async fn lone_cr() {
    play(|id| {
        vec![Part::bytes(format!(
            "data: {}\r\r",
            init_result(&id.parse().unwrap(), "2025-06-18")
        ))]
    })
    .await;
}

#[tokio::test]
async fn crlf_split_across_reads_with_two_data_lines() {
    play(|id| {
        vec![
            Part::bytes(format!("data: {{\"jsonrpc\":\"2.0\",\"id\":{id},\r")),
            Part::pause_ms(60),
            Part::bytes(
                "\ndata: \"result\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"serverInfo\":{\"name\":\"fake\",\"version\":\"0\"}}}\r\n\r\n",
            ),
        ]
    })
    .await;
}

#[tokio::test]
async fn bom_split_across_reads() {
    play(|id| {
        let mut second = b"\xBFdata: ".to_vec();
        second.extend_from_slice(init_result(&id.parse().unwrap(), "2025-06-18").as_bytes());
        second.extend_from_slice(b"\n\n");
        vec![
            Part::bytes(b"\xEF\xBB".to_vec()),
            Part::pause_ms(60),
            Part::bytes(second),
        ]
    })
    .await;
}
