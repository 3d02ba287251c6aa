//! B16: CRLF line ends (and a blank CRLF line) are accepted.
//!
//! Catalogue cases: B16.
mod support;

use mcp_transport::Transport;
use mcp_transport_stdio::StdioTransport;
use serde_json::json;
use support::*;

#[tokio::test]
async fn crlf_responses_are_both_delivered() {
    let t = StdioTransport::spawn(fake(&["--crlf"])).await.unwrap();
    let init = initialize(&t).await;
    assert_eq!(init["protocolVersion"], "2025-06-18");
    // A blank CRLF line between the two responses.
    let blank = script(
        &t,
        json!([{"write": "\r\n"}, {"write": "{\"jsonrpc\":\"2.0\",\"id\":<ID>,\"result\":{}}\r\n"}]),
        within(5_000),
    )
    .await
    .unwrap();
    assert_eq!(blank, json!({}));
    let tools = t
        .request("tools/list", None, within(5_000))
        .await
        .unwrap()
        .to_value()
        .unwrap();
    assert_eq!(tools, json!({"tools": []}));
    t.close().await.unwrap();
}
