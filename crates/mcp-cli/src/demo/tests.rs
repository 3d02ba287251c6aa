//! In-process tests of the demo server's message handling: messages in
//! through `DemoServer::handle`, messages out through the channel.

use std::sync::Arc;
use std::time::Duration;

use mcp_types::{JsonRpcMessage, JsonRpcResponse, RequestId};
use serde_json::{Value, json};
use tokio::sync::mpsc;

use super::server::DemoServer;

/// Generous upper bound for one expected message.
const WAIT: Duration = Duration::from_secs(5);

struct Harness {
    server: Arc<DemoServer>,
    rx: mpsc::Receiver<JsonRpcMessage>,
}

impl Harness {
    fn new() -> Self {
        let (tx, rx) = mpsc::channel(64);
        Harness {
            server: DemoServer::new(tx),
            rx,
        }
    }

    async fn send(&self, message: Value) {
        self.server
            .handle_bytes(&serde_json::to_vec(&message).unwrap())
            .await;
    }

    async fn next(&mut self) -> JsonRpcMessage {
        tokio::time::timeout(WAIT, self.rx.recv())
            .await
            .expect("a message from the server in time")
            .expect("server output open")
    }

    async fn response(&mut self, id: i64) -> Result<Value, mcp_types::JsonRpcError> {
        loop {
            if let JsonRpcMessage::Response(JsonRpcResponse {
                id: Some(got),
                outcome,
            }) = self.next().await
            {
                assert_eq!(got, RequestId::Number(id));
                return outcome;
            }
        }
    }

    async fn request(
        &mut self,
        id: i64,
        method: &str,
        params: Value,
    ) -> Result<Value, mcp_types::JsonRpcError> {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        self.response(id).await
    }

    async fn initialize(&mut self, version: &str, capabilities: Value) -> Value {
        let result = self
            .request(
                0,
                "initialize",
                json!({
                    "protocolVersion": version,
                    "capabilities": capabilities,
                    "clientInfo": {"name": "test", "version": "0"}
                }),
            )
            .await
            .expect("initialize succeeds");
        self.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        result
    }
}

#[tokio::test]
async fn initialize_answers_a_supported_revision_and_falls_back_otherwise() {
    let mut h = Harness::new();
    let result = h.initialize("2025-06-18", json!({})).await;
    assert_eq!(result["protocolVersion"], "2025-06-18");
    for cap in ["tools", "resources", "prompts", "logging", "completions"] {
        assert!(
            result["capabilities"].get(cap).is_some(),
            "capability {cap}"
        );
    }
    assert_eq!(result["serverInfo"]["name"], "mcp-demo");

    let mut h = Harness::new();
    assert_eq!(
        h.initialize("2099-01-01", json!({})).await["protocolVersion"],
        "2025-11-25"
    );
    let mut h = Harness::new();
    // 2026-07-28 has no handshake: the newest handshake revision is offered.
    assert_eq!(
        h.initialize("2026-07-28", json!({})).await["protocolVersion"],
        "2025-11-25"
    );
}

#[tokio::test]
async fn ping_and_unknown_method() {
    let mut h = Harness::new();
    assert_eq!(h.request(1, "ping", json!({})).await.unwrap(), json!({}));
    let err = h.request(2, "no/such", json!({})).await.unwrap_err();
    assert_eq!(err.code, mcp_types::ErrorCode::METHOD_NOT_FOUND);
}

#[tokio::test]
async fn lists_the_tools_and_calls_echo_and_add() {
    let mut h = Harness::new();
    h.initialize("2025-11-25", json!({})).await;
    let tools = h.request(1, "tools/list", json!({})).await.unwrap();
    let names: Vec<&str> = tools["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["echo", "add", "countdown", "fail", "ask_name"]);
    let add = &tools["tools"][1];
    assert_eq!(add["outputSchema"]["properties"]["sum"]["type"], "number");

    let echo = h
        .request(
            2,
            "tools/call",
            json!({"name": "echo", "arguments": {"message": "hi"}}),
        )
        .await
        .unwrap();
    assert_eq!(echo["content"], json!([{"type": "text", "text": "hi"}]));
    assert!(echo.get("isError").is_none());

    let sum = h
        .request(
            3,
            "tools/call",
            json!({"name": "add", "arguments": {"a": 2, "b": 3}}),
        )
        .await
        .unwrap();
    assert_eq!(sum["content"][0]["text"], "5");
    assert_eq!(sum["structuredContent"], json!({"sum": 5}));

    let sum = h
        .request(
            4,
            "tools/call",
            json!({"name": "add", "arguments": {"a": 0.5, "b": 1}}),
        )
        .await
        .unwrap();
    assert_eq!(sum["structuredContent"], json!({"sum": 1.5}));
}

#[tokio::test]
async fn bad_arguments_and_unknown_tools_are_protocol_errors() {
    let mut h = Harness::new();
    let err = h
        .request(
            1,
            "tools/call",
            json!({"name": "add", "arguments": {"a": "x", "b": 1}}),
        )
        .await
        .unwrap_err();
    assert_eq!(err.code, mcp_types::ErrorCode::INVALID_PARAMS);
    let err = h
        .request(2, "tools/call", json!({"name": "nope"}))
        .await
        .unwrap_err();
    assert_eq!(err.code, mcp_types::ErrorCode::INVALID_PARAMS);
    assert!(err.message.contains("nope"));
}

#[tokio::test]
async fn fail_returns_is_error() {
    let mut h = Harness::new();
    let result = h
        .request(1, "tools/call", json!({"name": "fail"}))
        .await
        .unwrap();
    assert_eq!(result["isError"], true);
    assert!(
        result["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("fails")
    );
}

#[tokio::test]
async fn countdown_sends_progress_with_the_request_token() {
    let mut h = Harness::new();
    h.send(
        json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
            "name": "countdown", "arguments": {"steps": 3, "interval_ms": 1},
            "_meta": {"progressToken": "tok"}
        }}),
    )
    .await;
    let mut progress = Vec::new();
    let mut logs = 0;
    let result = loop {
        match h.next().await {
            JsonRpcMessage::Notification(n) if n.method == "notifications/progress" => {
                let p = n.params.unwrap();
                assert_eq!(p["progressToken"], "tok");
                assert_eq!(p["total"], 3);
                progress.push(p["progress"].as_u64().unwrap());
            }
            JsonRpcMessage::Notification(n) if n.method == "notifications/message" => {
                assert_eq!(n.params.unwrap()["level"], "info");
                logs += 1;
            }
            JsonRpcMessage::Response(r) => break r,
            other => panic!("unexpected {other:?}"),
        }
    };
    assert_eq!(progress, [1, 2, 3]);
    assert_eq!(logs, 1);
    assert_eq!(result.id, Some(RequestId::Number(7)));
    assert!(
        result.outcome.unwrap()["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("3 steps")
    );
}

#[tokio::test]
async fn set_level_filters_log_messages() {
    let mut h = Harness::new();
    h.request(1, "logging/setLevel", json!({"level": "error"}))
        .await
        .unwrap();
    h.send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                  "params": {"name": "countdown", "arguments": {"steps": 1, "interval_ms": 0}}}))
        .await;
    // The countdown logs at info, below the level set: the next message must
    // be the response itself, not a notifications/message.
    match h.next().await {
        JsonRpcMessage::Response(r) => assert!(r.outcome.is_ok()),
        other => panic!("expected the response, got {other:?}"),
    }
    let err = h
        .request(3, "logging/setLevel", json!({"level": "verbose"}))
        .await
        .unwrap_err();
    assert_eq!(err.code, mcp_types::ErrorCode::INVALID_PARAMS);
}

#[tokio::test]
async fn cancelled_countdown_stops_without_a_response() {
    let mut h = Harness::new();
    h.send(
        json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {
            "name": "countdown", "arguments": {"steps": 1000, "interval_ms": 10},
            "_meta": {"progressToken": 9}
        }}),
    )
    .await;
    // Wait for the first progress notification: the tool is running.
    loop {
        if let JsonRpcMessage::Notification(n) = h.next().await
            && n.method == "notifications/progress"
        {
            break;
        }
    }
    h.send(
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                  "params": {"requestId": 9, "reason": "user"}}),
    )
    .await;
    let deadline = tokio::time::Instant::now() + WAIT;
    while h.server.in_flight() > 0 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "countdown still running"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    // Drain what was queued before the cancel: progress only, never a response.
    while let Ok(m) = h.rx.try_recv() {
        assert!(
            !matches!(m, JsonRpcMessage::Response(_)),
            "response after cancel: {m:?}"
        );
    }
    // And the server still answers.
    assert!(h.request(10, "ping", json!({})).await.is_ok());
}

#[tokio::test]
async fn ask_name_elicits_and_greets() {
    let mut h = Harness::new();
    h.initialize("2025-11-25", json!({"elicitation": {"form": {}}}))
        .await;
    h.send(
        json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "ask_name"}}),
    )
    .await;
    let request = match h.next().await {
        JsonRpcMessage::Request(r) => r,
        other => panic!("expected elicitation/create, got {other:?}"),
    };
    assert_eq!(request.method, "elicitation/create");
    let params = request.params.unwrap();
    assert_eq!(params["mode"], "form");
    assert_eq!(
        params["requestedSchema"]["properties"]["name"]["type"],
        "string"
    );

    // While the tool waits for the client, other requests are still answered.
    assert!(h.request(6, "ping", json!({})).await.is_ok());

    h.send(json!({"jsonrpc": "2.0", "id": request.id.to_value(),
                  "result": {"action": "accept", "content": {"name": "Ada"}}}))
        .await;
    let result = h.response(5).await.unwrap();
    assert_eq!(result["content"][0]["text"], "Hello, Ada!");
}

#[tokio::test]
async fn ask_name_reports_a_decline() {
    let mut h = Harness::new();
    h.initialize("2025-06-18", json!({"elicitation": {}})).await;
    h.send(
        json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "ask_name"}}),
    )
    .await;
    let JsonRpcMessage::Request(request) = h.next().await else {
        panic!("expected elicitation/create")
    };
    // 2025-06-18 has no `mode` member.
    assert!(request.params.as_ref().unwrap().get("mode").is_none());
    h.send(json!({"jsonrpc": "2.0", "id": request.id.to_value(), "result": {"action": "decline"}}))
        .await;
    let result = h.response(5).await.unwrap();
    assert_eq!(result["content"][0]["text"], "No name given (declined)");
}

#[tokio::test]
async fn ask_name_without_elicitation_capability_is_a_tool_error() {
    let mut h = Harness::new();
    h.initialize("2025-11-25", json!({})).await;
    let result = h
        .request(5, "tools/call", json!({"name": "ask_name"}))
        .await
        .unwrap();
    assert_eq!(result["isError"], true);
}

#[tokio::test]
async fn resource_prompt_and_completion() {
    let mut h = Harness::new();
    let list = h.request(1, "resources/list", json!({})).await.unwrap();
    assert_eq!(list["resources"][0]["uri"], "demo://readme");
    let read = h
        .request(2, "resources/read", json!({"uri": "demo://readme"}))
        .await
        .unwrap();
    assert!(
        read["contents"][0]["text"]
            .as_str()
            .unwrap()
            .contains("demo server")
    );
    let err = h
        .request(3, "resources/read", json!({"uri": "demo://nope"}))
        .await
        .unwrap_err();
    assert_eq!(err.code, mcp_types::ErrorCode::RESOURCE_NOT_FOUND);

    let prompts = h.request(4, "prompts/list", json!({})).await.unwrap();
    assert_eq!(prompts["prompts"][0]["name"], "greet");
    let got = h
        .request(
            5,
            "prompts/get",
            json!({"name": "greet", "arguments": {"name": "Ada"}}),
        )
        .await
        .unwrap();
    assert!(
        got["messages"][0]["content"]["text"]
            .as_str()
            .unwrap()
            .contains("Ada")
    );
    let err = h
        .request(6, "prompts/get", json!({"name": "greet"}))
        .await
        .unwrap_err();
    assert_eq!(err.code, mcp_types::ErrorCode::INVALID_PARAMS);

    let done = h
        .request(
            7,
            "completion/complete",
            json!({
                "ref": {"type": "ref/prompt", "name": "greet"},
                "argument": {"name": "name", "value": "a"}
            }),
        )
        .await
        .unwrap();
    assert_eq!(done["completion"]["values"], json!(["Ada", "Alan"]));
}

#[tokio::test]
async fn junk_input_is_answered_and_the_server_goes_on() {
    let mut h = Harness::new();
    h.server.handle_bytes(b"not json").await;
    match h.next().await {
        JsonRpcMessage::Response(JsonRpcResponse {
            id: None,
            outcome: Err(e),
        }) => {
            assert_eq!(e.code, mcp_types::ErrorCode::PARSE_ERROR);
        }
        other => panic!("unexpected {other:?}"),
    }
    // A response to a request the server never sent is logged, not fatal.
    h.send(json!({"jsonrpc": "2.0", "id": 99, "result": {}}))
        .await;
    assert!(h.request(1, "ping", json!({})).await.is_ok());
}
