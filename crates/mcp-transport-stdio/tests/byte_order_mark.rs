//! A UTF-8 byte order mark opening the server's stdout (.NET and Mono
//! servers write one before their first line) is skipped: the first reply
//! is read, not dropped as "not JSON-RPC".
mod support;

use mcp_transport::Transport;
use mcp_transport_stdio::StdioTransport;
use serde_json::json;
use support::*;

#[tokio::test]
async fn a_byte_order_mark_before_the_first_reply_is_skipped() {
    // The mark, split across two writes, written before stdin is read:
    // the reply to initialize is then the rest of the first line.
    let startup = json!([{"bytes": [0xEF, 0xBB]}, {"sleep_ms": 50}, {"bytes": [0xBF]}]).to_string();
    let t = StdioTransport::spawn(fake(&["--startup", &startup]))
        .await
        .unwrap();
    let init = t
        .request(
            "initialize",
            Some(&json!({
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "stdio-tests", "version": "0"}
            })),
            within(5_000),
        )
        .await
        .expect("the first reply, after the byte order mark, answers initialize")
        .to_value()
        .unwrap();
    assert_eq!(init["protocolVersion"], "2025-06-18");
    assert_eq!(ping(&t).await, json!({}));
    t.close().await.unwrap();
}
