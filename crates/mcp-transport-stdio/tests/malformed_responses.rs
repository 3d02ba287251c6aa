//! B22: a response with both `result` and `error`, or neither, fails its
//! request as malformed and the transport stays up.
//!
//! Catalogue cases: B22.
mod support;

use mcp_transport::{Transport, TransportError};
use mcp_transport_stdio::StdioTransport;
use serde_json::json;
use support::*;

#[tokio::test]
async fn both_or_neither_result_and_error_is_malformed() {
    let t = StdioTransport::spawn(fake(&[])).await.unwrap();
    let both = json!([{"write": "{\"jsonrpc\":\"2.0\",\"id\":<ID>,\"result\":{\"content\":[]},\"error\":{\"code\":-32603,\"message\":\"boom\"}}\n"}]);
    let err = script(&t, both, within(5_000)).await.unwrap_err();
    assert!(matches!(err, TransportError::Malformed { .. }), "{err:?}");
    let neither = json!([{"write": "{\"jsonrpc\":\"2.0\",\"id\":<ID>}\n"}]);
    let err = script(&t, neither, within(5_000)).await.unwrap_err();
    assert!(matches!(err, TransportError::Malformed { .. }), "{err:?}");
    assert!(t.is_connected());
    ping(&t).await;
    t.close().await.unwrap();
}
