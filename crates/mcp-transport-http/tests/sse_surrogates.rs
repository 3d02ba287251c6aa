//! B33 over Streamable HTTP: lone UTF-16 surrogate escapes in an SSE
//! event's data and in a JSON reply read as U+FFFD (paired ones as their
//! character), in a notification and in a response alike; nothing is lost.
//!
//! Catalogue cases: B33.

mod common;

use common::*;
use fault_http::{FaultServer, Reply, init_result, sse_data};
use mcp_transport::Transport;
use serde_json::json;

const ESCAPED: &str = r"bad high [\ud83d] bad low [\udc00] good pair [\ud83d\ude00]";
const READ: &str = "bad high [\u{fffd}] bad low [\u{fffd}] good pair [\u{1f600}]";

fn text_result(id: &serde_json::Value) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[{{"type":"text","text":"{ESCAPED}"}}]}}}}"#
    )
}

#[tokio::test]
async fn b33_lone_surrogates_in_sse_data_and_json_replies() {
    let server = FaultServer::start(|r| {
        let id = r.rpc_id().unwrap_or_default();
        match r.rpc_method().as_deref() {
            Some("initialize") => Reply::json(init_result(&id, "2025-06-18")),
            Some("tools/call") => Reply::sse(vec![
                sse_data(&format!(
                    r#"{{"jsonrpc":"2.0","method":"notifications/message","params":{{"level":"info","data":"{ESCAPED}"}}}}"#
                )),
                sse_data(&text_result(&id)),
            ]),
            Some("tools/list") => Reply::json(text_result(&id)),
            _ => Reply::status(202),
        }
    })
    .await
    .unwrap();
    let (t, mut events) = initialized(&server.url("/mcp")).await;
    for method in ["tools/call", "tools/list"] {
        let result = t
            .request(method, None, opts())
            .await
            .unwrap_or_else(|e| panic!("{method}: {e}"))
            .to_value()
            .unwrap_or_else(|e| panic!("{method}: {e}"));
        assert_eq!(result, json!({"content": [{"type": "text", "text": READ}]}));
    }
    let n = next_notification(&mut events, "the notification with lone surrogates").await;
    assert_eq!(n.method, "notifications/message");
    assert_eq!(n.params.unwrap()["data"], READ);
    assert!(t.is_connected());
    t.close().await.unwrap();
}
