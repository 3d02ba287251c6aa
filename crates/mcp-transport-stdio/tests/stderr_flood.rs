//! B17: a server writing 1 MiB to stderr before answering does not block:
//! stderr is drained from spawn, lines are capped, the tail is bounded.
//!
//! Catalogue cases: B17.
mod support;

use std::sync::{Arc, Mutex};

use mcp_transport::Transport;
use mcp_transport_stdio::{STDERR_LINE_MAX, StdioTransport};
use support::*;

#[tokio::test]
async fn initialize_completes_despite_a_stderr_flood() {
    let lines = Arc::new(Mutex::new(Vec::<String>::new()));
    let seen = lines.clone();
    let config = fake(&["--stderr-flood"])
        .with_stderr_tail_bytes(8 * 1024)
        .with_on_stderr(move |line| seen.lock().unwrap().push(line.to_owned()));
    let t = StdioTransport::spawn(config).await.unwrap();
    initialize(&t).await; // within the 10 s timeout of `initialize`
    let lines = lines.lock().unwrap().clone();
    assert!(
        lines.len() >= 1000,
        "every stderr line reached the callback: {}",
        lines.len()
    );
    assert!(
        lines
            .iter()
            .all(|l| l.len() <= STDERR_LINE_MAX + '…'.len_utf8()),
        "stderr lines are capped"
    );
    let tail = t.stderr_tail().expect("a stderr tail");
    assert!(tail.len() <= 8 * 1024, "tail is bounded: {}", tail.len());
    assert!(tail.contains("progress"), "tail holds the latest output");
    t.close().await.unwrap();
}
