//! A response echoing our integer id as a string does not match the request
//! (ids keep their JSON type): it is dropped, the request times out, the
//! transport carries on.
mod support;

use mcp_transport::Transport;
use mcp_transport_stdio::StdioTransport;
use serde_json::json;
use support::*;

#[tokio::test]
async fn a_string_id_does_not_answer_an_integer_request() {
    let t = StdioTransport::spawn(fake(&[])).await.unwrap();
    let steps = json!([{"write": "{\"jsonrpc\":\"2.0\",\"id\":\"<ID>\",\"result\":{}}\n"}]);
    let err = script(&t, steps, within(400)).await.unwrap_err();
    assert!(err.is_timeout(), "{err:?}");
    assert!(t.is_connected());
    ping(&t).await;
    t.close().await.unwrap();
}
