//! B05: a UTF-8 character split across reads arrives intact; a line with an
//! invalid byte fails only that line.
//!
//! Catalogue cases: B05.
mod support;

use mcp_transport::Transport;
use mcp_transport_stdio::StdioTransport;
use serde_json::json;
use support::*;

#[tokio::test]
async fn multibyte_characters_split_across_writes_are_intact() {
    let t = StdioTransport::spawn(fake(&[])).await.unwrap();
    let head = "{\"jsonrpc\":\"2.0\",\"id\":<ID>,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"caf";
    let steps = json!([
        {"write": head}, {"bytes": [0xC3]}, {"sleep_ms": 50},
        {"bytes": [0xA9, 0x20, 0xE2, 0x80]}, {"sleep_ms": 50},
        {"bytes": [0x94, 0x20, 0xF0, 0x9F, 0x98]}, {"sleep_ms": 50},
        {"bytes": [0x80]}, {"write": "\"}]}}\n"}
    ]);
    let result = script(&t, steps, within(10_000)).await.unwrap();
    assert_eq!(result["content"][0]["text"], "café — 😀");
    t.close().await.unwrap();
}

/// The response line with an invalid byte answers its request, whose result
/// then fails to parse (a typed error for that request alone, at once rather
/// than after the timeout); the transport and the next request are fine.
#[tokio::test]
async fn an_invalid_byte_fails_only_its_line() {
    let t = StdioTransport::spawn(fake(&[])).await.unwrap();
    let steps = json!({"steps": [
        {"write": "{\"jsonrpc\":\"2.0\",\"id\":<ID>,\"result\":{\"t\":\""}, {"bytes": [0xFF]}, {"write": "\"}}\n"}
    ]});
    let bad = t
        .request("script", Some(&steps), within(10_000))
        .await
        .expect("the line answered its request");
    let err = bad.to_value().expect_err("invalid UTF-8 is not JSON");
    assert!(err.to_string().contains("unicode"), "{err}");
    assert!(t.is_connected());
    let steps = json!([
        {"write": "{\"jsonrpc\":\"2.0\",\"id\":<ID>,\"result\":{\"t\":\"ok\"}}\n"}
    ]);
    let result = script(&t, steps, within(10_000)).await.unwrap();
    assert_eq!(result["t"], "ok");
    t.close().await.unwrap();
}
