//! The checks, one per [`Rule`]. Each makes its own connection, plays the
//! peer through [`Wire`], and returns the first thing it saw break its rule.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::task::JoinHandle;

use super::wire::{Wire, is_cancel_of, is_request, is_response_to};
use super::{Harness, PROMPT, Peer, QUIET, Rule, Violation};
use crate::error::TransportError;
use crate::event::TransportEvent;
use crate::options::RequestOptions;
use crate::tap::{TapEvent, WireTap};
use crate::transport::Transport;

/// The method of the kit's own requests; the peer answers with the params.
const ECHO: &str = "kit/echo";

/// A connection for one check.
async fn open<H: Harness>(
    harness: &H,
    rule: Rule,
) -> Result<(Arc<H::Transport>, Wire<H::Peer>), Violation> {
    let (transport, peer) = harness
        .connect()
        .await
        .map_err(|e| Violation::new(rule, format!("the harness could not connect: {e}")))?;
    Ok((Arc::new(transport), Wire::new(peer, rule)))
}

type Answer = Result<Value, TransportError>;

/// Sends request `method` with `params` from a task of its own.
fn spawn_request<T: Transport>(
    transport: &Arc<T>,
    method: &str,
    params: Value,
    timeout: Duration,
) -> JoinHandle<Answer> {
    let transport = transport.clone();
    let method = method.to_owned();
    tokio::spawn(async move {
        let options = RequestOptions::default().with_timeout(timeout);
        let raw = transport.request(&method, Some(&params), options).await?;
        raw.to_value()
            .map_err(|e| TransportError::protocol(format!("the result is not JSON: {e}")))
    })
}

/// The request's outcome within `within`, or what kept it.
async fn outcome(handle: &mut JoinHandle<Answer>, within: Duration) -> Result<Answer, String> {
    match tokio::time::timeout(within, handle).await {
        Ok(Ok(answer)) => Ok(answer),
        Ok(Err(e)) => Err(format!("the request's task failed: {e}")),
        Err(_) => Err(format!(
            "the request was still pending {} ms later",
            within.as_millis()
        )),
    }
}

/// Waits until the transport's pending count is 0, up to [`PROMPT`].
async fn settles<T: Transport>(transport: &T) -> Result<(), usize> {
    let deadline = tokio::time::Instant::now() + PROMPT;
    loop {
        let pending = transport.pending_requests();
        if pending == 0 {
            return Ok(());
        }
        if tokio::time::Instant::now() >= deadline {
            return Err(pending);
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Closes the transport at the end of a check; a close that hangs is only
/// logged here (`close-rejects-pending` is the check that judges it).
async fn finish<T: Transport>(transport: &T) {
    match tokio::time::timeout(PROMPT, transport.close()).await {
        Ok(Ok(())) => {}
        Ok(Err(e)) => tracing::debug!(error = %e, "the transport's close failed"),
        Err(_) => tracing::warn!("the transport's close did not return in time"),
    }
}

/// Expects `answer` to be the echo of `params`.
fn expect_echo(
    wire: &Wire<impl Peer>,
    what: &str,
    answer: Answer,
    params: &Value,
) -> Result<(), Violation> {
    match answer {
        Ok(value) if value == json!({"echo": params}) => Ok(()),
        Ok(value) => Err(wire.violation(format!(
            "{what} got the answer meant for another request: {value} (expected {})",
            json!({"echo": params})
        ))),
        Err(e) => Err(wire.violation(format!("{what} failed: {e}"))),
    }
}

/// `answered-by-id`: three requests answered in another order each get
/// their own result.
pub async fn check_answered_by_id<H: Harness>(harness: &H) -> Result<(), Violation> {
    let (transport, mut wire) = open(harness, Rule::ANSWERED_BY_ID).await?;
    let result = answered_by_id(&transport, &mut wire).await;
    finish(&*transport).await;
    result
}

async fn answered_by_id<T: Transport, P: Peer>(
    transport: &Arc<T>,
    wire: &mut Wire<P>,
) -> Result<(), Violation> {
    let mut handles: Vec<(Value, JoinHandle<Answer>)> = (0..3)
        .map(|n| {
            let params = json!({"n": n});
            (
                params.clone(),
                spawn_request(transport, ECHO, params, PROMPT * 2),
            )
        })
        .collect();
    let requests = wire.take_requests(ECHO, 3).await?;
    // Answer the last one first, then the first, then the middle one.
    for i in [2, 0, 1] {
        let request = &requests[i];
        let params = request["params"].clone();
        wire.answer(request, json!({"echo": params})).await?;
    }
    for (params, handle) in &mut handles {
        let answer = outcome(handle, PROMPT)
            .await
            .map_err(|e| wire.violation(e))?;
        expect_echo(wire, &format!("request {params}"), answer, params)?;
    }
    Ok(())
}

/// `notification-reaches-events`: a notification the peer sends while a
/// request is in flight (so a transport that carries server messages only
/// on a request's reply stream has one) reaches the events.
pub async fn check_notification_reaches_events<H: Harness>(harness: &H) -> Result<(), Violation> {
    let (transport, mut wire) = open(harness, Rule::NOTIFICATION_REACHES_EVENTS).await?;
    let result = async {
        let mut events = transport
            .take_events()
            .ok_or_else(|| wire.violation("take_events() returned None on its first call"))?;
        let params = json!({"n": 1});
        let mut carrier = spawn_request(&transport, ECHO, params.clone(), PROMPT * 2);
        let request = wire.take_request(ECHO).await?;
        let note = json!({"level": "info", "data": "from the kit"});
        wire.send(&json!({"jsonrpc": "2.0", "method": "notifications/message", "params": note}))
            .await?;
        let deadline = tokio::time::Instant::now() + PROMPT;
        loop {
            match tokio::time::timeout_at(deadline, events.recv()).await {
                Ok(Some(TransportEvent::Notification(n)))
                    if n.method == "notifications/message" =>
                {
                    if n.params.as_ref() != Some(&note) {
                        return Err(wire.violation(format!(
                            "the notification arrived with other params: {:?}",
                            n.params
                        )));
                    }
                    break;
                }
                Ok(Some(_)) => continue,
                Ok(None) => {
                    return Err(
                        wire.violation("the events channel ended before the notification arrived")
                    );
                }
                Err(_) => {
                    return Err(wire.violation(format!(
                        "no notifications/message event within {} ms",
                        PROMPT.as_millis()
                    )));
                }
            }
        }
        wire.answer(&request, json!({"echo": params})).await?;
        let answer = outcome(&mut carrier, PROMPT)
            .await
            .map_err(|e| wire.violation(e))?;
        expect_echo(&wire, "the request in flight", answer, &params)
    }
    .await;
    finish(&*transport).await;
    result
}

/// `server-request-answered-once`: a request the handler answers, one it
/// drops, and (on a second connection, events never taken) a `ping` and an
/// unknown method are each answered exactly once, with the id as sent.
pub async fn check_server_request_answered_once<H: Harness>(harness: &H) -> Result<(), Violation> {
    let (transport, mut wire) = open(harness, Rule::SERVER_REQUEST_ANSWERED_ONCE).await?;
    let handled = async {
        let mut events = transport
            .take_events()
            .ok_or_else(|| wire.violation("take_events() returned None on its first call"))?;
        let params = json!({"n": 1});
        let mut carrier = spawn_request(&transport, ECHO, params.clone(), PROMPT * 4);
        let request = wire.take_request(ECHO).await?;
        // One the handler answers (a string id), one it drops (a number id).
        let cases = [
            (json!("kit-srv-1"), "roots/list", true),
            (json!(7), "kit/unknown", false),
        ];
        for (id, method, answer) in &cases {
            wire.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": {}}))
                .await?;
            let incoming = loop {
                match tokio::time::timeout(PROMPT, events.recv()).await {
                    Ok(Some(TransportEvent::Request(r))) => break r,
                    Ok(Some(_)) => continue,
                    Ok(None) | Err(_) => {
                        return Err(wire.violation(format!(
                            "the server request {method} never reached the events"
                        )));
                    }
                }
            };
            if incoming.method != *method {
                return Err(wire.violation(format!(
                    "expected the server request {method}, the events gave {}",
                    incoming.method
                )));
            }
            if *answer {
                incoming
                    .respond(Ok(json!({"roots": []})))
                    .await
                    .map_err(|e| wire.violation(format!("answering {method} failed: {e}")))?;
            } else {
                drop(incoming);
            }
            let reply = wire
                .take(&format!("the answer to {method} (id {id})"), |m| {
                    is_response_to(m, id)
                })
                .await?;
            if *answer && reply["result"] != json!({"roots": []}) {
                return Err(wire.violation(format!("the handler's answer was not sent as given: {reply}")));
            }
            if !*answer && reply["error"]["code"] != -32601 {
                return Err(wire.violation(format!(
                    "a dropped server request must be answered -32601 (method not found), got {reply}"
                )));
            }
            let again = wire.count(QUIET, |m| is_response_to(m, id)).await?;
            if again > 0 {
                return Err(wire.violation(format!(
                    "the server request {method} (id {id}) was answered {} times",
                    again + 1
                )));
            }
        }
        wire.answer(&request, json!({"echo": params})).await?;
        let answer = outcome(&mut carrier, PROMPT).await.map_err(|e| wire.violation(e))?;
        expect_echo(&wire, "the request in flight", answer, &params)
    }
    .await;
    finish(&*transport).await;
    handled?;

    // Nobody took the events: the transport answers by itself.
    let (transport, mut wire) = open(harness, Rule::SERVER_REQUEST_ANSWERED_ONCE).await?;
    let unhandled = async {
        let params = json!({"n": 2});
        let mut carrier = spawn_request(&transport, ECHO, params.clone(), PROMPT * 4);
        let request = wire.take_request(ECHO).await?;
        for (id, method) in [(json!(8), "ping"), (json!("kit-srv-9"), "kit/unknown")] {
            wire.send(&json!({"jsonrpc": "2.0", "id": id, "method": method}))
                .await?;
            let reply = wire
                .take(&format!("the default answer to {method} (id {id})"), |m| {
                    is_response_to(m, &id)
                })
                .await?;
            let right = match method {
                "ping" => reply["result"] == json!({}),
                _ => reply["error"]["code"] == -32601,
            };
            if !right {
                return Err(wire.violation(format!(
                    "with no events receiver, {method} must be answered {}, got {reply}",
                    if method == "ping" { "{}" } else { "-32601" }
                )));
            }
            let again = wire.count(QUIET, |m| is_response_to(m, &id)).await?;
            if again > 0 {
                return Err(wire.violation(format!(
                    "the server request {method} (id {id}) was answered {} times",
                    again + 1
                )));
            }
        }
        wire.answer(&request, json!({"echo": params})).await?;
        let answer = outcome(&mut carrier, PROMPT)
            .await
            .map_err(|e| wire.violation(e))?;
        expect_echo(&wire, "the request in flight", answer, &params)
    }
    .await;
    finish(&*transport).await;
    unhandled
}

/// `timeout-sends-cancelled`: a request left unanswered past its timeout
/// fails with `Timeout`, the peer gets one `notifications/cancelled` for
/// it, its late response is dropped and the connection still works.
pub async fn check_timeout_sends_cancelled<H: Harness>(harness: &H) -> Result<(), Violation> {
    let (transport, mut wire) = open(harness, Rule::TIMEOUT_SENDS_CANCELLED).await?;
    let result = async {
        let timeout = Duration::from_millis(300);
        let mut handle = spawn_request(&transport, ECHO, json!({"n": 1}), timeout);
        let request = wire.take_request(ECHO).await?;
        let id = request["id"].clone();
        match outcome(&mut handle, timeout + PROMPT)
            .await
            .map_err(|e| wire.violation(e))?
        {
            Err(e) if e.is_timeout() => {}
            Err(e) => return Err(wire.violation(format!("expected a Timeout error, got: {e}"))),
            Ok(v) => return Err(wire.violation(format!("an unanswered request succeeded: {v}"))),
        }
        wire.take(&format!("notifications/cancelled for request {id}"), |m| {
            is_cancel_of(m, &id)
        })
        .await?;
        let again = wire.count(QUIET, |m| is_cancel_of(m, &id)).await?;
        if again > 0 {
            return Err(wire.violation(format!(
                "notifications/cancelled for request {id} was sent {} times",
                again + 1
            )));
        }
        // The late response is dropped; the connection goes on, and the
        // id is not issued again (spec basic/index § Requests).
        wire.answer(&request, json!({"echo": {"n": 1}})).await?;
        let next = spawn_request(&transport, ECHO, json!({"n": 2}), PROMPT * 2);
        let next_request = wire.take_request(ECHO).await?;
        if next_request["id"] == id {
            return Err(wire.violation(format!(
                "the id {id} of the request that timed out was issued again"
            )));
        }
        wire.answer(&next_request, json!({"echo": next_request["params"]}))
            .await?;
        let mut next = next;
        let answer = outcome(&mut next, PROMPT)
            .await
            .map_err(|e| wire.violation(e))?;
        expect_echo(
            &wire,
            "the request after the timeout",
            answer,
            &json!({"n": 2}),
        )?;
        second_request_works(&transport, &mut wire).await
    }
    .await;
    finish(&*transport).await;
    result
}

/// A further request is answered: the connection survived what the check did.
async fn second_request_works<T: Transport, P: Peer>(
    transport: &Arc<T>,
    wire: &mut Wire<P>,
) -> Result<(), Violation> {
    let params = json!({"n": "after"});
    let mut handle = spawn_request(transport, ECHO, params.clone(), PROMPT * 2);
    let request = wire.take_request(ECHO).await?;
    wire.answer(&request, json!({"echo": request["params"]}))
        .await?;
    let answer = outcome(&mut handle, PROMPT)
        .await
        .map_err(|e| wire.violation(e))?;
    expect_echo(wire, "the next request", answer, &params)?;
    settles(&**transport).await.map_err(|n| {
        wire.violation(format!(
            "{n} request(s) still pending after every one ended"
        ))
    })
}

/// `dropped-request-cancels`: dropping a request's future sends one
/// `notifications/cancelled`; dropping `initialize` sends none.
pub async fn check_dropped_request_cancels<H: Harness>(harness: &H) -> Result<(), Violation> {
    let (transport, mut wire) = open(harness, Rule::DROPPED_REQUEST_CANCELS).await?;
    let result = async {
        let handle = spawn_request(&transport, ECHO, json!({"n": 1}), PROMPT * 4);
        let request = wire.take_request(ECHO).await?;
        let id = request["id"].clone();
        handle.abort();
        let _ = handle.await;
        wire.take(&format!("notifications/cancelled for the dropped request {id}"), |m| {
            is_cancel_of(m, &id)
        })
        .await?;
        let again = wire.count(QUIET, |m| is_cancel_of(m, &id)).await?;
        if again > 0 {
            return Err(wire.violation(format!(
                "notifications/cancelled for request {id} was sent {} times",
                again + 1
            )));
        }
        settles(&*transport).await.map_err(|n| {
            wire.violation(format!("{n} request(s) still pending after the future was dropped"))
        })?;
        let init = json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "transport-kit", "version": "0"}
        });
        let handle = spawn_request(&transport, "initialize", init, PROMPT * 4);
        let request = wire.take_request("initialize").await?;
        let id = request["id"].clone();
        handle.abort();
        let _ = handle.await;
        let cancels = wire.count(QUIET, |m| is_cancel_of(m, &id)).await?;
        if cancels > 0 {
            return Err(wire.violation(format!(
                "a dropped initialize (id {id}) was followed by notifications/cancelled (spec: the initialize request MUST NOT be cancelled)"
            )));
        }
        Ok(())
    }
    .await;
    finish(&*transport).await;
    result
}

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

/// `malformed-frame-isolated`: a frame that is not JSON and a malformed
/// response to one request (both `result` and `error`) fail that request
/// alone; the other request in flight and the next one are answered.
pub async fn check_malformed_frame_isolated<H: Harness>(harness: &H) -> Result<(), Violation> {
    let (transport, mut wire) = open(harness, Rule::MALFORMED_FRAME_ISOLATED).await?;
    let result = async {
        let mut bad = spawn_request(&transport, ECHO, json!({"n": "bad"}), PROMPT * 4);
        let bad_request = wire.take_request(ECHO).await?;
        let good_params = json!({"n": "good"});
        let mut good = spawn_request(&transport, ECHO, good_params.clone(), PROMPT * 4);
        let good_request = wire.take_request(ECHO).await?;
        wire.send_raw(b"{not json").await?;
        let id = bad_request["id"].clone();
        wire.send(&json!({"jsonrpc": "2.0", "id": id, "result": {}, "error": {"code": -32603, "message": "both"}}))
            .await?;
        match outcome(&mut bad, PROMPT).await.map_err(|e| wire.violation(e))? {
            Err(TransportError::Malformed { .. }) => {}
            Err(e) => {
                return Err(wire.violation(format!(
                    "a response with both result and error must fail its request with Malformed, got: {e}"
                )));
            }
            Ok(v) => return Err(wire.violation(format!("a response with both result and error was taken as {v}"))),
        }
        wire.answer(&good_request, json!({"echo": good_params})).await?;
        let answer = outcome(&mut good, PROMPT).await.map_err(|e| wire.violation(e))?;
        expect_echo(&wire, "the other request in flight", answer, &good_params)?;
        second_request_works(&transport, &mut wire).await
    }
    .await;
    finish(&*transport).await;
    result
}

/// `oversized-frame-isolated`: a response one byte over the harness's
/// frame limit fails its request with `MessageTooLarge`; the other request
/// in flight and the next one are answered.
pub async fn check_oversized_frame_isolated<H: Harness>(harness: &H) -> Result<(), Violation> {
    let Some(limit) = harness.frame_limit() else {
        return Ok(());
    };
    let (transport, mut wire) = open(harness, Rule::OVERSIZED_FRAME_ISOLATED).await?;
    let result = async {
        let mut big = spawn_request(&transport, ECHO, json!({"n": "big"}), PROMPT * 4);
        let big_request = wire.take_request(ECHO).await?;
        let small_params = json!({"n": "small"});
        let mut small = spawn_request(&transport, ECHO, small_params.clone(), PROMPT * 4);
        let small_request = wire.take_request(ECHO).await?;
        // The id first, so a transport that reads only the start of an
        // over-long frame still finds whose answer it was.
        let head = format!(r#"{{"jsonrpc":"2.0","id":{},"result":{{"pad":""#, big_request["id"]);
        let tail = r#""}}"#;
        let pad = (limit + 1).saturating_sub(head.len() + tail.len()).max(1);
        let mut frame = head.into_bytes();
        frame.resize(frame.len() + pad, b'x');
        frame.extend_from_slice(tail.as_bytes());
        wire.send_raw(&frame).await?;
        match outcome(&mut big, PROMPT).await.map_err(|e| wire.violation(e))? {
            Err(TransportError::MessageTooLarge { .. }) => {}
            Err(e) => {
                return Err(wire.violation(format!(
                    "a {}-byte response over the {limit}-byte limit must fail its request with MessageTooLarge, got: {e}",
                    frame.len()
                )));
            }
            Ok(_) => {
                return Err(wire.violation(format!(
                    "a {}-byte response over the {limit}-byte limit was delivered",
                    frame.len()
                )));
            }
        }
        wire.answer(&small_request, json!({"echo": small_params})).await?;
        let answer = outcome(&mut small, PROMPT).await.map_err(|e| wire.violation(e))?;
        expect_echo(&wire, "the other request in flight", answer, &small_params)?;
        second_request_works(&transport, &mut wire).await
    }
    .await;
    finish(&*transport).await;
    result
}

/// How many tasks send at once in `concurrent-requests`, and how many
/// requests each sends.
const TASKS: usize = 8;
const PER_TASK: usize = 8;

/// `concurrent-requests`: 8 tasks send 8 requests each at once; the ids
/// are distinct, the peer answers them all in reverse order, every task
/// gets its own answers and nothing stays pending.
pub async fn check_concurrent_requests<H: Harness>(harness: &H) -> Result<(), Violation> {
    let (transport, mut wire) = open(harness, Rule::CONCURRENT_REQUESTS).await?;
    let result = async {
        let tasks: Vec<JoinHandle<Result<(), String>>> = (0..TASKS)
            .map(|task| {
                let transport = transport.clone();
                tokio::spawn(async move {
                    let handles: Vec<(Value, JoinHandle<Answer>)> = (0..PER_TASK)
                        .map(|i| {
                            let params = json!({"task": task, "i": i});
                            (
                                params.clone(),
                                spawn_request(&transport, ECHO, params, PROMPT * 4),
                            )
                        })
                        .collect();
                    for (params, handle) in handles {
                        match handle.await {
                            Ok(Ok(v)) if v == json!({"echo": params}) => {}
                            Ok(Ok(v)) => return Err(format!("request {params} got {v}")),
                            Ok(Err(e)) => return Err(format!("request {params} failed: {e}")),
                            Err(e) => return Err(format!("request {params}'s task failed: {e}")),
                        }
                    }
                    Ok(())
                })
            })
            .collect();
        let requests = wire.take_requests(ECHO, TASKS * PER_TASK).await?;
        let mut ids: Vec<String> = requests.iter().map(|r| r["id"].to_string()).collect();
        ids.sort();
        ids.dedup();
        if ids.len() != requests.len() {
            return Err(wire.violation(format!(
                "{} requests in flight carried only {} distinct ids",
                requests.len(),
                ids.len()
            )));
        }
        for request in requests.iter().rev() {
            wire.answer(request, json!({"echo": request["params"]}))
                .await?;
        }
        for task in tasks {
            match tokio::time::timeout(PROMPT * 2, task).await {
                Ok(Ok(Ok(()))) => {}
                Ok(Ok(Err(e))) => return Err(wire.violation(e)),
                Ok(Err(e)) => return Err(wire.violation(format!("a sending task failed: {e}"))),
                Err(_) => {
                    return Err(wire.violation("a sending task's requests were not all answered"));
                }
            }
        }
        settles(&*transport).await.map_err(|n| {
            wire.violation(format!(
                "{n} request(s) still pending after every one was answered"
            ))
        })
    }
    .await;
    finish(&*transport).await;
    result
}

/// What a [`Recorder`] saw.
#[derive(Debug, Default)]
struct Seen {
    sent: Vec<String>,
    received: Vec<String>,
}

/// A wire tap keeping every text it sees.
#[derive(Debug, Default)]
struct Recorder(Mutex<Seen>);

impl WireTap for Recorder {
    fn observe(&self, _label: &str, event: TapEvent<'_>) {
        let mut seen = self.0.lock().unwrap_or_else(|p| p.into_inner());
        match event {
            TapEvent::Sent(text) => seen.sent.push(text.to_owned()),
            TapEvent::Received(text) => seen.received.push(text.to_owned()),
            _ => {}
        }
    }
}

/// What the tap must have seen once: a name, whether it was sent (else
/// received), and how to know it.
type Expected<'a> = (&'static str, bool, Box<dyn Fn(&Value) -> bool + 'a>);

/// How many of `texts` parse to a message matching `pred`.
fn count_tapped(texts: &[String], pred: impl Fn(&Value) -> bool) -> usize {
    texts
        .iter()
        .filter_map(|t| serde_json::from_str::<Value>(t).ok())
        .filter(|m| pred(m))
        .count()
}

/// `wire-tap-once`: a tap installed on the transport sees a request, its
/// response, a notification each way and a server request's answer
/// exactly once each; with a secret declared, neither the tap nor an error
/// carrying the secret back shows it.
pub async fn check_wire_tap_once<H: Harness>(harness: &H) -> Result<(), Violation> {
    let (transport, mut wire) = open(harness, Rule::WIRE_TAP_ONCE).await?;
    let secret = harness.secret();
    let result = async {
        let recorder = Arc::new(Recorder::default());
        if !transport.set_wire_tap(recorder.clone()) {
            return Err(wire.violation("set_wire_tap() refused the first tap"));
        }
        let params = json!({"n": "tapped"});
        let mut handle = spawn_request(&transport, ECHO, params.clone(), PROMPT * 4);
        let request = wire.take_request(ECHO).await?;
        wire.send(&json!({"jsonrpc": "2.0", "method": "notifications/kit", "params": {"n": 1}}))
            .await?;
        wire.send(&json!({"jsonrpc": "2.0", "id": "kit-tap-ping", "method": "ping"}))
            .await?;
        let ping_id = json!("kit-tap-ping");
        wire.take("the answer to ping", |m| is_response_to(m, &ping_id))
            .await?;
        wire.answer(&request, json!({"echo": params})).await?;
        let answer = outcome(&mut handle, PROMPT).await.map_err(|e| wire.violation(e))?;
        expect_echo(&wire, "the tapped request", answer, &params)?;
        transport
            .notify("notifications/kit-client", Some(json!({"n": 2})))
            .await
            .map_err(|e| wire.violation(format!("notify failed: {e}")))?;
        wire.take("notifications/kit-client", |m| {
            m["method"] == "notifications/kit-client"
        })
        .await?;
        let id = request["id"].clone();
        let seen = || recorder.0.lock().unwrap_or_else(|p| p.into_inner()).sent.clone();
        let expectations: [Expected<'_>; 5] = [
            ("the request", true, Box::new(|m: &Value| is_request(m) && m["id"] == id)),
            ("the notification sent", true, Box::new(|m: &Value| m["method"] == "notifications/kit-client")),
            ("the answer to ping", true, Box::new(|m: &Value| is_response_to(m, &ping_id))),
            ("the response", false, Box::new(|m: &Value| is_response_to(m, &id))),
            ("the notification received", false, Box::new(|m: &Value| m["method"] == "notifications/kit")),
        ];
        for (what, sent, pred) in &expectations {
            let texts = if *sent {
                seen()
            } else {
                recorder.0.lock().unwrap_or_else(|p| p.into_inner()).received.clone()
            };
            let n = count_tapped(&texts, pred);
            if n != 1 {
                return Err(wire.violation(format!(
                    "the tap saw {what} {n} times as {} (once expected)",
                    if *sent { "sent" } else { "received" }
                )));
            }
        }
        let Some(secret) = secret else {
            return Ok(());
        };
        let mut handle = spawn_request(&transport, ECHO, json!({"n": "secret"}), PROMPT * 4);
        let request = wire.take_request(ECHO).await?;
        wire.send(&json!({
            "jsonrpc": "2.0", "id": request["id"],
            "error": {"code": -32000, "message": format!("refused {secret}"), "data": {"echo": secret}}
        }))
        .await?;
        match outcome(&mut handle, PROMPT).await.map_err(|e| wire.violation(e))? {
            Err(e) if format!("{e} {e:?}").contains(&secret) => {
                return Err(wire.violation("an error response quoting the connection's secret shows it in the request's error"));
            }
            Err(_) => {}
            Ok(v) => return Err(wire.violation(format!("an error response was taken as a result: {v}"))),
        }
        let leaked = {
            let seen = recorder.0.lock().unwrap_or_else(|p| p.into_inner());
            seen.sent.iter().chain(&seen.received).any(|t| t.contains(&secret))
        };
        if leaked {
            return Err(wire.violation("the wire tap saw the connection's secret"));
        }
        if transport.redact(&format!("a {secret} b")).contains(&secret) {
            return Err(wire.violation("Transport::redact() leaves the connection's secret in"));
        }
        Ok(())
    }
    .await;
    finish(&*transport).await;
    result
}
