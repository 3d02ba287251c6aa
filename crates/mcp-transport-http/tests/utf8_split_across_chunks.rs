//! B05 (SSE variant): a UTF-8 character split across reads inside one
//! `data:` line arrives intact.
//!
//! Catalogue cases: B05.

mod common;

use common::*;
use fault_http::{FaultServer, Part, Reply};
use mcp_transport::Transport;

#[tokio::test]
async fn split_characters_are_intact() {
    let server = FaultServer::start(|r| {
        let id = r.rpc_id().unwrap_or_default();
        Reply::sse(vec![
            Part::bytes({
                let mut b = format!(
                    "data: {{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{\"content\":[{{\"type\":\"text\",\"text\":\"caf"
                )
                .into_bytes();
                b.push(0xC3);
                b
            }),
            Part::pause_ms(60),
            Part::bytes(b"\xA9 \xE2\x80".to_vec()),
            Part::pause_ms(60),
            Part::bytes(b"\x94 \xF0\x9F\x98".to_vec()),
            Part::pause_ms(60),
            Part::bytes(b"\x80\"}]}}\n\n".to_vec()),
        ])
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
    assert_eq!(result["content"][0]["text"], "café — 😀");
}
