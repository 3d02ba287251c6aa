//! B15: very long lines (64 KiB, 1 MiB, 16 MiB of text, written in 4 KiB
//! pieces) are read; a line over the cap is discarded, the request whose id
//! it shows fails with MessageTooLarge, and a following ping still works.
//!
//! Catalogue cases: B15.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]
mod support;

use mcp_transport::{Transport, TransportError};
use mcp_transport_stdio::{DEFAULT_MAX_LINE_BYTES, StdioTransport};
use serde_json::{Value, json};
use support::*;

fn huge_text_response(n: u64) -> Value {
    json!([
        {"write": "{\"jsonrpc\":\"2.0\",\"id\":<ID>,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\""},
        {"repeat": {"text": "a", "count": n, "chunk": 4096}},
        {"write": "\"}]}}\n"}
    ])
}

async fn round_trip(t: &StdioTransport, n: u64) {
    let result = script(t, huge_text_response(n), within(60_000))
        .await
        .unwrap();
    let text = result["content"][0]["text"].as_str().unwrap();
    assert_eq!(text.len() as u64, n);
    assert!(text.bytes().all(|b| b == b'a'));
}

#[tokio::test]
async fn lines_of_64_kib_and_1_mib_with_the_default_cap() {
    let t = StdioTransport::spawn(fake(&[])).await.unwrap();
    round_trip(&t, 65_536).await;
    round_trip(&t, 1_048_576).await;
    t.close().await.unwrap();
}

#[tokio::test]
async fn a_16_mib_text_line() {
    // B15's largest case (16 MiB of text plus its JSON) fits the default cap.
    const { assert!(DEFAULT_MAX_LINE_BYTES > 16_777_216 + 1024) };
    let t = StdioTransport::spawn(fake(&[])).await.unwrap();
    round_trip(&t, 16_777_216).await;
    ping(&t).await;
    t.close().await.unwrap();
}

#[tokio::test]
async fn over_the_cap_fails_the_identified_request_and_reading_goes_on() {
    let t = StdioTransport::spawn(fake(&[]).with_max_line_bytes(1024 * 1024))
        .await
        .unwrap();
    let err = script(&t, huge_text_response(2 * 1024 * 1024), within(30_000))
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            TransportError::MessageTooLarge {
                limit: 1_048_576,
                ..
            }
        ),
        "failed with the limit, not a timeout: {err:?}"
    );
    ping(&t).await;

    // An over-long line with no id (log spam) is only logged.
    let junk = json!([
        {"repeat": {"text": "x", "count": 2 * 1024 * 1024, "chunk": 4096}},
        {"write": "\n{\"jsonrpc\":\"2.0\",\"id\":<ID>,\"result\":{\"after\":true}}\n"}
    ]);
    let result = script(&t, junk, within(30_000)).await.unwrap();
    assert_eq!(result["after"], true);
    assert!(t.is_connected());
    t.close().await.unwrap();
}
