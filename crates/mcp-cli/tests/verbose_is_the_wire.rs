//! `--verbose` shows what is really sent and received: a request with its
//! `id` and `_meta.progressToken`, the `notifications/cancelled` the client
//! sends when a request times out, and the timeout itself marked as a local
//! event, never as something the server sent. Against the built-in demo
//! server.
mod support;

#[test]
fn verbose_shows_ids_progress_tokens_and_local_events() {
    let run = support::mcp(&[
        "--verbose",
        "--timeout",
        "1",
        "call",
        "countdown",
        "steps=2",
        "interval_ms=5000",
    ]);
    assert_ne!(run.code, Some(0), "the call times out: {run:?}");
    let lines: Vec<&str> = run.stderr.lines().collect();
    let sent_call = lines
        .iter()
        .find(|l| l.contains("--> request tools/call (id "))
        .unwrap_or_else(|| panic!("the call is shown as sent:\n{}", run.stderr));
    assert!(
        sent_call.contains(r#""id":"#) && sent_call.contains(r#""progressToken":"#),
        "the request line is the wire text, id and progressToken included: {sent_call}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.contains("(local) request") && l.contains("(tools/call) timed out after")),
        "the timeout is a local event:\n{}",
        run.stderr
    );
    assert!(
        lines
            .iter()
            .any(|l| l.contains("--> notification notifications/cancelled")
                && l.contains(r#""requestId":"#)),
        "the cancellation the client sends is shown:\n{}",
        run.stderr
    );
    assert!(
        !lines
            .iter()
            .any(|l| l.contains("<--") && l.contains("timed out")),
        "nothing local is shown as received:\n{}",
        run.stderr
    );
    assert!(
        lines
            .iter()
            .any(|l| l.contains("<-- result of") && l.contains(r#""tools":"#)),
        "the listing's result is shown as received:\n{}",
        run.stderr
    );
}
