//! The checks, one per [`Rule`]. Each makes its own connection, plays the
//! peer through [`Wire`], and returns the first thing it saw break its rule.
//!
//! By rule family: a request's answer (`requests.rs`), what the peer sends
//! unasked (`incoming.rs`), the end of a connection (`shutdown.rs`), a frame
//! that is bad, too large or tapped (`frames.rs`); the helpers they share
//! are here.

mod frames;
mod incoming;
mod requests;
mod shutdown;

pub use frames::{
    check_malformed_frame_isolated, check_oversized_frame_isolated, check_wire_tap_once,
};
pub use incoming::{check_notification_reaches_events, check_server_request_answered_once};
pub use requests::{
    check_answered_by_id, check_concurrent_requests, check_dropped_request_cancels,
    check_timeout_sends_cancelled,
};
pub use shutdown::{check_close_rejects_pending, check_peer_gone_fails_pending};

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
