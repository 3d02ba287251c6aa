//! The rules of a connection's end: `close()` and the peer hanging up.

use super::*;

/// `close-rejects-pending`: `close()` fails three pending requests with
/// `Closed` at once; one `Closed` event; a second `close()` is harmless and
/// a request after it fails with `Closed`.
pub async fn check_close_rejects_pending<H: Harness>(harness: &H) -> Result<(), Violation> {
    let (transport, mut wire) = open(harness, Rule::CLOSE_REJECTS_PENDING).await?;
    let mut events = transport
        .take_events()
        .ok_or_else(|| wire.violation("take_events() returned None on its first call"))?;
    let mut handles: Vec<JoinHandle<Answer>> = (0..3)
        .map(|n| spawn_request(&transport, ECHO, json!({"n": n}), Duration::from_secs(60)))
        .collect();
    wire.take_requests(ECHO, 3).await?;
    match tokio::time::timeout(PROMPT, transport.close()).await {
        Ok(Ok(())) => {}
        Ok(Err(e)) => return Err(wire.violation(format!("close() failed: {e}"))),
        Err(_) => {
            return Err(wire.violation(format!(
                "close() did not return within {} ms",
                PROMPT.as_millis()
            )));
        }
    }
    for (n, handle) in handles.iter_mut().enumerate() {
        match outcome(handle, PROMPT).await {
            Ok(Err(e)) if e.is_closed() => {}
            Ok(Err(e)) => {
                return Err(wire.violation(format!(
                    "pending request {n} failed with {e}, not Closed, after close()"
                )));
            }
            Ok(Ok(v)) => {
                return Err(
                    wire.violation(format!("pending request {n} succeeded after close(): {v}"))
                );
            }
            Err(e) => return Err(wire.violation(format!("pending request {n} after close(): {e}"))),
        }
    }
    if transport.is_connected() {
        return Err(wire.violation("is_connected() is still true after close()"));
    }
    match tokio::time::timeout(PROMPT, transport.close()).await {
        Ok(Ok(())) => {}
        Ok(Err(e)) => return Err(wire.violation(format!("a second close() failed: {e}"))),
        Err(_) => return Err(wire.violation("a second close() did not return")),
    }
    let mut after = spawn_request(&transport, ECHO, json!({"n": "late"}), PROMPT);
    match outcome(&mut after, PROMPT).await {
        Ok(Err(e)) if e.is_closed() => {}
        other => {
            return Err(wire.violation(format!(
                "a request after close() must fail with Closed, got {other:?}"
            )));
        }
    }
    let mut closed_events = 0;
    loop {
        match tokio::time::timeout(QUIET, events.recv()).await {
            Ok(Some(TransportEvent::Closed(_))) => closed_events += 1,
            Ok(Some(_)) => {}
            Ok(None) | Err(_) => break,
        }
    }
    if closed_events != 1 {
        return Err(wire.violation(format!(
            "the Closed event fired {closed_events} times (once expected)"
        )));
    }
    Ok(())
}

/// `peer-gone-fails-pending`: when the peer hangs up, two requests with a
/// 60 s timeout fail within [`PROMPT`] with a typed error.
pub async fn check_peer_gone_fails_pending<H: Harness>(harness: &H) -> Result<(), Violation> {
    let (transport, mut wire) = open(harness, Rule::PEER_GONE_FAILS_PENDING).await?;
    let result = async {
        let mut handles: Vec<JoinHandle<Answer>> = (0..2)
            .map(|n| spawn_request(&transport, ECHO, json!({"n": n}), Duration::from_secs(60)))
            .collect();
        wire.take_requests(ECHO, 2).await?;
        wire.peer.hang_up().await;
        // Checked after every request ended, so that a transport allowed to
        // keep `is_connected()` (no one connection: HTTP) still has the
        // promptness of every failure checked.
        let mut closed_but_connected = None;
        for (n, handle) in handles.iter_mut().enumerate() {
            match outcome(handle, PROMPT).await {
                Ok(Err(e)) if e.is_timeout() || e.is_cancelled() => {
                    return Err(wire.violation(format!(
                        "pending request {n} failed with {e} after the peer went away; a typed connection error was expected"
                    )));
                }
                Ok(Err(e)) => {
                    if e.is_closed() && transport.is_connected() {
                        closed_but_connected.get_or_insert(format!(
                            "request {n} failed with Closed ({e}) but is_connected() is still true"
                        ));
                    }
                }
                Ok(Ok(v)) => return Err(wire.violation(format!("pending request {n} succeeded with nobody to answer it: {v}"))),
                Err(e) => return Err(wire.violation(format!("pending request {n} after the peer went away: {e}"))),
            }
        }
        if let Some(detail) = closed_but_connected {
            return Err(wire.violation(detail));
        }
        Ok(())
    }
    .await;
    finish(&*transport).await;
    result
}
