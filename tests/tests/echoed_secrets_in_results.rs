//! A server that echoes the connection's secret inside a result the client
//! cannot use (a `tools/call` result of the wrong shape, a tool entry that
//! is dropped from a listing) never gets it shown: serde quotes the value
//! it choked on, and the client passes that quote through the transport's
//! redaction before it reaches an error or a log line.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

use std::io::Write;
use std::sync::{Arc, Mutex};

use fault_http::{FaultServer, Recorded, Reply, init_result};
use mcp_client::{Client, ClientOptions};
use mcp_transport::RequestOptions;
use mcp_transport_http::{HttpConfig, HttpMode, HttpTransport, ProxySetting};
use serde_json::json;

/// `/`, `+` and `=` make the JSON-escaped form differ from the token.
const TOKEN: &str = "Zq9/s3cr3t+t0ken=";

/// Every log line of the test, at DEBUG and above.
#[derive(Clone, Default)]
struct Lines(Arc<Mutex<Vec<u8>>>);

impl Write for Lines {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn reply(r: &Recorded) -> Reply {
    let id = r.rpc_id().unwrap_or_default();
    let token = r
        .header("authorization")
        .unwrap_or_default()
        .trim_start_matches("Bearer ")
        .to_owned();
    let result = match r.rpc_method().as_deref() {
        Some("initialize") => return Reply::json(init_result(&id, "2025-06-18")),
        Some("tools/list") => json!({"tools": [
            {"name": "fine", "inputSchema": {"type": "object"}},
            {"name": format!("Bearer {token}"), "inputSchema": {"type": "object"}, "annotations": token},
        ]}),
        Some("tools/call") => json!({"content": [{"type": "text", "text": "hi",
            "annotations": {"audience": [format!("Bearer {token}")]}}]}),
        _ => return Reply::status(202),
    };
    Reply::json(json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string())
}

#[tokio::test]
async fn a_secret_echoed_in_a_result_is_shown_nowhere() {
    let lines = Lines::default();
    let writer = lines.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::DEBUG)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);

    let server = FaultServer::start(reply).await.unwrap();
    let config = HttpConfig::new(server.url("/mcp"))
        .with_proxy(ProxySetting::None)
        .with_header("Authorization", format!("Bearer {TOKEN}"));
    let transport = HttpTransport::connect(config, HttpMode::Streamable)
        .await
        .unwrap();
    let client = Client::connect(transport, ClientOptions::new("echo-test", "0.0.0"))
        .await
        .unwrap();

    let listing = client
        .list_tools(None, RequestOptions::default())
        .await
        .unwrap();
    assert_eq!(
        listing.tools.len(),
        1,
        "the bad entry is dropped, the good one kept"
    );
    let e = client
        .call_tool("fine", json!({}), RequestOptions::default())
        .await
        .expect_err("an audience is a role");

    let mut chain = e.to_string();
    let mut source = std::error::Error::source(&e);
    while let Some(cause) = source {
        chain.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    let logged = String::from_utf8_lossy(&lines.0.lock().unwrap()).into_owned();
    let shown = format!("{chain}\n{e:?}\n{logged}");
    assert!(
        server
            .requests()
            .iter()
            .any(|r| r.header("authorization").is_some()),
        "the token was sent"
    );
    for form in [TOKEN, "s3cr3t+t0ken", "s3cr3t\\/t0ken"] {
        assert!(!shown.contains(form), "{form:?} is shown:\n{shown}");
    }
    assert!(
        chain.contains("***"),
        "the error still quotes the value: {chain}"
    );
    assert!(
        logged.contains("***"),
        "the warning still names the entry: {logged}"
    );
}
