//! The 2024-11-05 HTTP+SSE transport belongs to the handshake revisions: `--sse`
//! and auto-detection settle on the same (handshake) revision for one
//! endpoint, and pinning a stateless revision over it is refused up front.
//! Against the Python SDK's server that speaks both kinds of revision in its HTTP+SSE mode (skipped,
//! saying why, when it is not installed).
mod support;

use mcp_tests::peers::{self, PyOptions, PyTransport};

fn revision(run: &support::Run) -> Option<&str> {
    run.stdout.split_whitespace().find(|w| w.starts_with("20"))
}

#[test]
fn sse_and_auto_detection_agree_on_a_handshake_revision() {
    let Some(peer) = peers::skip_if_missing(peers::spawn_python_server(
        PyTransport::Sse,
        PyOptions::default(),
    )) else {
        return;
    };
    let url = peer.url().to_owned();
    let sse = support::mcp(&["--sse", "--url", &url, "servers"]);
    assert_eq!(sse.code, Some(0), "{sse:?}");
    let auto = support::mcp(&["--url", &url, "servers"]);
    assert_eq!(auto.code, Some(0), "{auto:?}");
    assert_eq!(revision(&sse), revision(&auto), "{sse:?}\n{auto:?}");
    assert!(
        revision(&sse).is_some_and(|v| v < "2026"),
        "a handshake revision: {sse:?}"
    );
    let call = support::mcp(&["--sse", "--url", &url, "call", "echo", "text=hi"]);
    assert_eq!(call.code, Some(0), "{call:?}");
    assert!(call.stdout.contains("hi"), "{call:?}");

    let pinned = support::mcp(&[
        "--sse",
        "--url",
        &url,
        "--protocol-version",
        "2026-07-28",
        "servers",
    ]);
    assert_eq!(pinned.code, Some(2), "{pinned:?}");
    assert!(pinned.stderr.contains("handshake revisions"), "{pinned:?}");
}
