//! Closing a connection closes the server's stdin, so the server reads EOF
//! and exits by itself (spec `basic/lifecycle` § Shutdown, stdio) — also when
//! other servers were started after it. Every handle the transport keeps on
//! a child's stdin must be close-on-exec: a handle inherited by a later child
//! keeps the pipe open, the first server never reads EOF, and its shutdown
//! ends in SIGTERM instead.

use std::time::Duration;

use mcp_transport::Transport;
use mcp_transport_stdio::{StdioConfig, StdioTransport};

#[tokio::test]
async fn a_server_reads_eof_on_close_while_later_servers_run() {
    let dir = std::env::temp_dir().join(format!("mcp-eof-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let marker = dir.join("saw-eof");
    let _ = std::fs::remove_file(&marker);
    // Reads stdin to its end, then leaves a mark: only an EOF gets it there.
    let first = StdioTransport::spawn(
        StdioConfig::new("sh")
            .with_args(["-c", "cat >/dev/null; touch \"$MARKER\""])
            .with_env("MARKER", marker.display().to_string())
            .with_shutdown_grace(Duration::from_secs(3)),
    )
    .await
    .unwrap();
    // Later servers, started while the first one runs.
    let mut later = Vec::new();
    for _ in 0..3 {
        later.push(
            StdioTransport::spawn(
                StdioConfig::new("sleep")
                    .with_arg("30")
                    .with_shutdown_grace(Duration::from_millis(100)),
            )
            .await
            .unwrap(),
        );
    }
    first.close().await.unwrap();
    let saw_eof = marker.exists();
    for t in &later {
        t.close().await.unwrap();
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        saw_eof,
        "the first server never read EOF on its stdin: a later child holds the pipe open"
    );
}
