//! `mcp_client::Client` over the socket transport, against a server that
//! plays the handshake and one tool call over TCP on 127.0.0.1.
#![allow(
    clippy::unwrap_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

use mcp_client::{Client, ClientOptions, RequestOptions, VersionPreference};
use mcp_transport_socket::{SocketAddress, SocketConfig, SocketTransport};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;

/// Answers `initialize`, takes `notifications/initialized`, answers one
/// `tools/call` of `add` with the sum, and returns once the client closed
/// its side (it read the end of its input).
async fn serve(listener: TcpListener) -> Vec<String> {
    let (stream, _) = listener.accept().await.unwrap();
    let (read, mut write) = stream.into_split();
    let mut lines = BufReader::new(read).lines();
    let mut methods = Vec::new();
    while let Some(line) = lines.next_line().await.unwrap() {
        let message: Value = serde_json::from_str(&line).unwrap();
        let method = message["method"].as_str().unwrap_or("").to_owned();
        methods.push(method.clone());
        let result = match method.as_str() {
            "initialize" => json!({
                "protocolVersion": "2025-11-25",
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "socket-test", "version": "0"}
            }),
            "tools/call" => {
                let args = &message["params"]["arguments"];
                let sum = args["a"].as_i64().unwrap() + args["b"].as_i64().unwrap();
                json!({"content": [{"type": "text", "text": sum.to_string()}]})
            }
            _ => continue,
        };
        let reply = json!({"jsonrpc": "2.0", "id": message["id"], "result": result});
        write
            .write_all(format!("{reply}\n").as_bytes())
            .await
            .unwrap();
    }
    methods
}

#[tokio::test]
async fn a_client_calls_a_tool_over_a_socket() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = SocketAddress::parse(&listener.local_addr().unwrap().to_string()).unwrap();
    let server = tokio::spawn(serve(listener));
    let transport = SocketTransport::connect(SocketConfig::new(address))
        .await
        .unwrap();
    let options = ClientOptions::new("socket-test", "0")
        .with_version_preference(VersionPreference::Handshake);
    let client = Client::connect(transport, options).await.unwrap();
    let result = client
        .call_tool("add", json!({"a": 2, "b": 3}), RequestOptions::default())
        .await
        .unwrap();
    assert_eq!(result.text(), "5");
    client.close().await.unwrap();
    let methods = server.await.unwrap();
    assert_eq!(
        methods,
        ["initialize", "notifications/initialized", "tools/call"]
    );
}

#[tokio::test]
async fn a_refused_connection_names_the_address() {
    // A port that was just free: bind, read it, drop the listener.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let address = SocketAddress::parse(&format!("127.0.0.1:{port}")).unwrap();
    let err = SocketTransport::connect(SocketConfig::new(address))
        .await
        .unwrap_err();
    let shown = format!("{err}: {}", std::error::Error::source(&err).unwrap());
    assert!(shown.contains(&format!("127.0.0.1:{port}")), "{shown}");
}
