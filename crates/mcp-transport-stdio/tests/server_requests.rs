//! B24: server→client requests nobody handles get the default answer with
//! the same id (same JSON type), even when the id collides with one of ours;
//! our own request with that id still resolves from its real response.
//!
//! Catalogue cases: B24.
mod support;

use mcp_transport::Transport;
use mcp_transport_stdio::StdioTransport;
use serde_json::{Value, json};
use support::*;

#[tokio::test]
async fn unhandled_server_requests_are_answered_by_default() {
    let record = temp_path("stdin");
    let t = StdioTransport::spawn(fake(&["--record", record.to_str().unwrap()]))
        .await
        .unwrap();
    // Our ids 0 and 1 stay pending on the server.
    let held0_params = json!({"n": 0});
    let held0 = t.request("hold", Some(&held0_params), within(10_000));
    let held1_params = json!({"n": 1});
    let held1 = t.request("hold", Some(&held1_params), within(10_000));
    let rest = async {
        // Give the holds time to be queued first (they are sent in order).
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        let steps = json!([
            {"write": "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n"},
            {"write": "{\"jsonrpc\":\"2.0\",\"id\":\"r-2\",\"method\":\"roots/list\"}\n"},
            {"write": "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"sampling/createMessage\",\"params\":{\"messages\":[],\"maxTokens\":1}}\n"},
            {"write": "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"vendor/whatever\",\"params\":{}}\n"},
            {"sleep_ms": 200},
            {"write": "{\"jsonrpc\":\"2.0\",\"id\":<ID>,\"result\":{}}\n"}
        ]);
        script(&t, steps, within(10_000)).await.unwrap();
        t.request("release", None, within(10_000))
            .await
            .unwrap()
            .to_value()
            .unwrap()
    };
    let (r0, r1, released) = tokio::join!(held0, held1, rest);
    assert_eq!(r0.unwrap(), json!({"held": {"n": 0}}));
    assert_eq!(
        r1.unwrap(),
        json!({"held": {"n": 1}}),
        "our id 1 resolved from its real response"
    );
    assert_eq!(released["released"], 2);
    t.close().await.unwrap();

    let answers: Vec<Value> = recorded(&record)
        .into_iter()
        .filter(|m| m.get("method").is_none())
        .collect();
    assert_eq!(answers.len(), 4, "{answers:?}");
    assert_eq!(answers[0], json!({"jsonrpc": "2.0", "id": 1, "result": {}}));
    for (answer, id) in answers[1..].iter().zip([json!("r-2"), json!(3), json!(4)]) {
        assert_eq!(answer["id"], id, "same id, same JSON type");
        assert_eq!(answer["error"]["code"], -32601);
    }
    let _ = std::fs::remove_file(record);
}
