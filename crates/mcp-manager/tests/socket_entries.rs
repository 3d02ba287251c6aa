//! `{"socket": "PATH|HOST:PORT"}` entries: how they are read, and a call
//! through the manager to a server listening on 127.0.0.1.
#![allow(
    clippy::unwrap_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

mod support;

use mcp_manager::{Manager, McpConfig};
use mcp_manager::{SocketServer, TransportConfig};
use serde_json::{Value, json};
use support::*;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;

#[test]
fn socket_entries_are_read_with_or_without_a_type() {
    let config = McpConfig::from_json(
        &json!({"mcpServers": {
            "tcp": {"socket": "127.0.0.1:7000"},
            "unix": {"type": "socket", "socket": "/run/mcp/server.sock"},
            "none": {"type": "socket"},
            "empty": {"socket": " "},
            "number": {"socket": 7000},
        }})
        .to_string(),
    )
    .unwrap();
    assert_eq!(
        config.servers["tcp"].transport,
        TransportConfig::Socket(SocketServer::new("127.0.0.1:7000"))
    );
    assert_eq!(config.servers["unix"].transport.kind_name(), "socket");
    let mut paths: Vec<&str> = config.errors.iter().map(|e| e.path.as_str()).collect();
    paths.sort();
    assert_eq!(
        paths,
        [
            "mcpServers.empty.socket",
            "mcpServers.none.socket",
            "mcpServers.number.socket"
        ]
    );
}

/// A handshake-revision server over TCP: `-32601` for anything it does not
/// know (the `server/discover` probe), a tool `add`.
async fn serve(listener: TcpListener) {
    let (stream, _) = listener.accept().await.unwrap();
    let (read, mut write) = stream.into_split();
    let mut lines = BufReader::new(read).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        let message: Value = serde_json::from_str(&line).unwrap();
        let Some(id) = message
            .get("id")
            .filter(|_| message.get("method").is_some())
        else {
            continue;
        };
        let outcome = match message["method"].as_str().unwrap_or("") {
            "initialize" => json!({"result": {
                "protocolVersion": "2025-11-25",
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "socket-test", "version": "0"}
            }}),
            "tools/list" => json!({"result": {"tools": [{
                "name": "add",
                "inputSchema": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}}
            }]}}),
            "tools/call" => {
                let args = &message["params"]["arguments"];
                let sum = args["a"].as_i64().unwrap() + args["b"].as_i64().unwrap();
                json!({"result": {"content": [{"type": "text", "text": sum.to_string()}]}})
            }
            method => json!({"error": {"code": -32601, "message": format!("no {method}")}}),
        };
        let mut reply = json!({"jsonrpc": "2.0", "id": id});
        for (k, v) in outcome.as_object().unwrap() {
            reply[k] = v.clone();
        }
        if write
            .write_all(format!("{reply}\n").as_bytes())
            .await
            .is_err()
        {
            break;
        }
    }
}

#[tokio::test]
async fn a_tool_is_called_on_a_socket_server() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap().to_string();
    let server = tokio::spawn(serve(listener));
    let config =
        McpConfig::from_json(&json!({"mcpServers": {"sock": {"socket": address}}}).to_string())
            .unwrap();
    let manager = Manager::start(config, options()).await;
    assert!(
        manager
            .wait_started(std::time::Duration::from_secs(10))
            .await,
        "{:?}",
        manager.status()
    );
    let result = manager
        .call_tool(
            "sock__add",
            json!({"a": 2, "b": 3}),
            mcp_manager::CallOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(result.text(), "5");
    manager.shutdown().await;
    server.await.unwrap();
}
