//! Tests that count warnings: a server echoing our integer ids as strings
//! (once per connection, naming the server) and junk lines on the wire
//! (rate-limited). In a test binary of their own, every test capturing
//! from its first line: tracing caches whether a log line is wanted per call
//! site, across threads, and a test hitting the same call site without a
//! subscriber at the moment another installs its own can leave it switched
//! off for that one.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]
use std::sync::Arc;

use mcp_transport::{RequestOptions, TransportError};
use serde_json::json;

mod common;
use common::*;

/// A tracing subscriber writing WARN and above into a buffer, for tests that
/// count warnings.
fn warn_capture() -> (
    Arc<std::sync::Mutex<Vec<u8>>>,
    tracing::subscriber::DefaultGuard,
) {
    #[derive(Clone)]
    struct Buf(Arc<std::sync::Mutex<Vec<u8>>>);
    impl std::io::Write for Buf {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let buf = Buf(Arc::new(std::sync::Mutex::new(Vec::new())));
    let writer = buf.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::WARN)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    (buf.0, tracing::subscriber::set_default(subscriber))
}

/// The other kinds of answer under a string echo of an integer id, and the
/// once-per-connection warning naming the server.
#[tokio::test(start_paused = true)]
async fn every_kind_of_answer_matches_a_string_echo_and_warns_once() {
    let (log, _guard) = warn_capture();
    let (d, calls) = four_requests("ping").await;
    for frame in [
        // An error response.
        r#"{"jsonrpc":"2.0","id":"0","error":{"code":-32602,"message":"bad"}}"#,
        // Both result and error: fails only that request.
        r#"{"jsonrpc":"2.0","id":"1","result":{},"error":{"code":1,"message":"x"}}"#,
        // Progress under a string token is another token's (not delivered);
        // then ping answered with neither result nor error (tolerated for ping).
        r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"2","progress":1}}"#,
        r#"{"jsonrpc":"2.0","id":"2"}"#,
        r#"{"jsonrpc":"2.0","id":"3","result":{"n":3}}"#,
    ] {
        d.handle_incoming(frame.as_bytes()).await;
    }
    let mut results = Vec::new();
    for call in calls {
        results.push(call.await.unwrap());
    }
    let e = results[0].0.as_ref().unwrap_err();
    assert_eq!(e.as_jsonrpc().map(|e| e.code.0), Some(-32602), "{e:?}");
    assert!(
        matches!(results[1].0, Err(TransportError::Malformed { .. })),
        "{:?}",
        results[1]
    );
    assert_eq!(results[2].0.as_ref().unwrap(), &json!({}));
    assert!(results[2].1.is_empty(), "progress tokens keep their type");
    assert_eq!(results[3].0.as_ref().unwrap(), &json!({"n": 3}));
    let text = String::from_utf8_lossy(&log.lock().unwrap()).into_owned();
    assert_eq!(
        text.matches("echoes integer request ids as strings")
            .count(),
        1,
        "{text}"
    );
    assert!(text.contains("server=test"), "{text}");
    // A late duplicate of an answered id is still dropped.
    d.handle_incoming(br#"{"jsonrpc":"2.0","id":"3","result":{}}"#)
        .await;
    assert_eq!(d.pending_len(), 0);
    assert!(d.is_open());
}

/// Catalogue B14: a server that logs on stdout gets its lines skipped and
/// logged, rate-limited: 50 junk lines give `SKIPPED_WARNINGS_PER_WINDOW`
/// warnings, and the connection works on.
#[tokio::test]
async fn junk_warnings_are_rate_limited() {
    let (buf, _guard) = warn_capture();
    let (d, mut out) = setup();
    for i in 0..50 {
        d.handle_incoming(format!("[12:00:{i:02}] server log line {i}").as_bytes())
            .await;
    }
    let text = String::from_utf8_lossy(&buf.lock().unwrap()).into_owned();
    assert_eq!(
        text.matches("skipping a message that is not JSON-RPC")
            .count(),
        mcp_transport::SKIPPED_WARNINGS_PER_WINDOW as usize,
        "{text}"
    );
    assert!(text.contains("server log line 0"), "{text}");
    let d2 = d.clone();
    let call = tokio::spawn(async move { d2.request("x", None, RequestOptions::default()).await });
    out.recv().await.unwrap();
    d.handle_incoming(br#"{"jsonrpc":"2.0","id":0,"result":"ok"}"#)
        .await;
    assert_eq!(call.await.unwrap().unwrap(), json!("ok"));
}
