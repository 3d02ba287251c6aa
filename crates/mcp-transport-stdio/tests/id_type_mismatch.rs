//! Ids keep their JSON type, with one tolerance: we issue integer ids, so a
//! response echoing ours as a string of its canonical decimal digits
//! answers the request (the server is warned about once per connection).
//! Every other spelling ("3.0", " 3", "03", "+3", "3 ") and an id we did not
//! issue answers nothing: dropped, the request times out, the transport
//! carries on.
mod support;

use mcp_transport::Transport;
use mcp_transport_stdio::StdioTransport;
use serde_json::json;
use support::*;

#[tokio::test]
async fn a_string_echo_of_an_integer_id_answers_the_request() {
    let t = StdioTransport::spawn(fake(&[])).await.unwrap();
    for _ in 0..2 {
        let steps =
            json!([{"write": "{\"jsonrpc\":\"2.0\",\"id\":\"<ID>\",\"result\":{\"ok\":1}}\n"}]);
        let result = script(&t, steps, within(5_000)).await.unwrap();
        assert_eq!(result, json!({"ok": 1}));
    }
    ping(&t).await;
    t.close().await.unwrap();
}

#[tokio::test]
async fn other_spellings_and_ids_we_did_not_issue_are_dropped() {
    let t = StdioTransport::spawn(fake(&[])).await.unwrap();
    for id in [
        r#""<ID>.0""#,
        r#"" <ID>""#,
        r#""<ID> ""#,
        r#""0<ID>""#,
        r#""+<ID>""#,
        r#""<ID>e0""#,
        r#""-<ID>""#,
        // Not ours: no request with these ids is pending.
        r#""<ID>1""#,
        "<ID>1",
    ] {
        let line = format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{}}}}\n");
        let steps = json!([{ "write": line }]);
        let err = script(&t, steps, within(400)).await.unwrap_err();
        assert!(err.is_timeout(), "id {id}: {err:?}");
        assert!(t.is_connected(), "id {id}");
    }
    ping(&t).await;
    t.close().await.unwrap();
}
