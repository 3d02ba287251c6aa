//! The server exits by itself mid-request: every pending request fails with
//! `Closed` carrying the exit status and the stderr tail; the Closed event
//! fires once; later requests fail with `Closed`.
mod support;

use std::time::Duration;

use mcp_transport::{Transport, TransportError, TransportEvent};
use mcp_transport_stdio::StdioTransport;
use serde_json::json;
use support::*;

#[tokio::test]
async fn pending_requests_fail_with_exit_status_and_stderr_tail() {
    let t = StdioTransport::spawn(fake(&[])).await.unwrap();
    let mut events = t.take_events().unwrap();
    let held = t.request("hold", None, within(10_000));
    let crash = async {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let steps = json!([
            {"write": "{\"jsonrpc\":\"2.0\",\"id\":<ID>,\"res"},
            {"stderr": "fatal: boom happened\n"},
            {"exit": 3}
        ]);
        script(&t, steps, within(10_000)).await
    };
    let (held, crashed) = tokio::join!(held, crash);
    for err in [held.unwrap_err(), crashed.unwrap_err()] {
        let TransportError::Closed(reason) = err else {
            panic!("expected Closed, got {err:?}");
        };
        assert_eq!(reason.exit_status.as_deref(), Some("exit status: 3"));
        assert!(
            reason
                .stderr_tail
                .as_deref()
                .unwrap_or("")
                .contains("fatal: boom happened"),
            "{reason:?}"
        );
    }
    assert!(!t.is_connected());
    let err = t.request("ping", None, within(1_000)).await.unwrap_err();
    assert!(err.is_closed(), "{err:?}");

    let mut closed = 0;
    while let Ok(Some(event)) =
        tokio::time::timeout(Duration::from_millis(500), events.recv()).await
    {
        if let TransportEvent::Closed(reason) = event {
            assert_eq!(reason.message, "server exited");
            closed += 1;
        }
    }
    assert_eq!(closed, 1, "the Closed event fires once");
    t.close().await.unwrap();
}

#[tokio::test]
async fn stdout_closed_without_exiting_ends_the_connection() {
    // `exec 1>&-` closes stdout; the shell then sleeps on.
    let config = mcp_transport_stdio::StdioConfig::new("sh")
        .with_args(["-c", "exec 1>&-; sleep 30"])
        .with_shutdown_grace(Duration::from_millis(300));
    let t = StdioTransport::spawn(config).await.unwrap();
    let pid = t.pid().unwrap();
    let err = t.request("ping", None, within(10_000)).await.unwrap_err();
    let TransportError::Closed(reason) = err else {
        panic!("expected Closed, got {err:?}");
    };
    assert_eq!(reason.message, "server closed its stdout");
    t.wait_finished().await;
    assert_eq!(proc_state(pid), None, "the shell was ended and reaped");
}

/// The generous bound for "at once".
const PROMPT: Duration = Duration::from_secs(5);

/// A server that closes its stdin and runs on (found by a hostile server):
/// writing to it fails with EPIPE, and that ends the connection at once
/// (the request failed only at its timeout, and the transport still said
/// it was connected); the server is shut down.
#[tokio::test]
async fn stdin_closed_without_exiting_ends_the_connection() {
    // `exec 0<&-` closes stdin; the shell says so on stdout, then sleeps on.
    let script = r#"exec 0<&-; printf '%s\n' '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"stdin closed"}}'; sleep 30"#;
    let config = mcp_transport_stdio::StdioConfig::new("sh")
        .with_args(["-c", script])
        .with_shutdown_grace(Duration::from_millis(300));
    let t = StdioTransport::spawn(config).await.unwrap();
    let pid = t.pid().unwrap();
    let mut events = t.take_events().unwrap();
    // Once stdin is closed, the next write meets EPIPE.
    loop {
        match tokio::time::timeout(PROMPT, events.recv()).await {
            Ok(Some(TransportEvent::Notification(_))) => break,
            Ok(Some(_)) => continue,
            other => panic!("no notification from the server: {other:?}"),
        }
    }
    let err = tokio::time::timeout(PROMPT, t.request("ping", None, within(120_000)))
        .await
        .expect("the failed write ends the request, not its timeout")
        .unwrap_err();
    let TransportError::Closed(reason) = err else {
        panic!("expected Closed, got {err:?}");
    };
    assert!(
        reason.message.starts_with("the server closed its stdin"),
        "{reason:?}"
    );
    assert!(!t.is_connected());
    let err = t.request("ping", None, within(1_000)).await.unwrap_err();
    assert!(err.is_closed(), "{err:?}");
    t.wait_finished().await;
    assert_eq!(proc_state(pid), None, "the shell was ended and reaped");
}

/// The server reads a request, then closes its stdin and runs on without
/// answering: nothing more is written, so no write can fail. The connection
/// still ends at once (the pipe's last reader is gone), not at the request's
/// timeout. The same holds when a write lands in the pipe's buffer while a
/// child being started elsewhere in the process briefly holds the read end.
#[tokio::test]
async fn stdin_closed_after_reading_the_request_ends_the_connection() {
    let script = r#"read -r line; exec 0<&-; sleep 30"#;
    let config = mcp_transport_stdio::StdioConfig::new("sh")
        .with_args(["-c", script])
        .with_shutdown_grace(Duration::from_millis(300));
    let t = StdioTransport::spawn(config).await.unwrap();
    let pid = t.pid().unwrap();
    let err = tokio::time::timeout(PROMPT, t.request("ping", None, within(120_000)))
        .await
        .expect("the closed stdin ends the request, not its timeout")
        .unwrap_err();
    let TransportError::Closed(reason) = err else {
        panic!("expected Closed, got {err:?}");
    };
    assert!(
        reason.message.starts_with("the server closed its stdin"),
        "{reason:?}"
    );
    assert!(!t.is_connected());
    t.wait_finished().await;
    assert_eq!(proc_state(pid), None, "the shell was ended and reaped");
}
