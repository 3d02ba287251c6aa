//! The request loop: one request from registration to its outcome, with
//! its timeout (reset by progress up to a total cap), its cancellation token,
//! its progress sink, and the `notifications/cancelled` owed to the peer when
//! the request is abandoned (timeout, cancel, or the future dropped; never
//! for `initialize`).
//!
//! The timeout stands still while the client answers a server request on
//! the same connection (from its arrival until the answer is sent): a
//! server asking a person to fill in a form, or a model to sample, is
//! waiting on us, so that time is not the server's delay. Nothing on the
//! wire of the handshake revisions says which of our requests a server
//! request belongs to (over stdio there is no reply stream to go by), so
//! every request in flight on the connection is paused; the total cap
//! (`max_total_timeout`) is moved by the same amount.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use mcp_types::jsonrpc::RequestBody;
use mcp_types::{RawResult, RequestId};
use serde_json::Value;
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::{Dispatcher, Outgoing, OutgoingKind, notification_message};
use crate::error::{TimeoutPhase, TransportError};
use crate::options::{DEFAULT_REQUEST_TIMEOUT, Progress, RequestOptions};

impl Dispatcher {
    /// The body of [`Dispatcher::request`].
    pub(super) async fn run_request(
        self: &Arc<Self>,
        method: &str,
        params: Option<&Value>,
        options: RequestOptions,
    ) -> Result<RawResult, TransportError> {
        if !self.is_open() {
            return Err(self.closed_error());
        }
        let want_progress = options.progress.is_some();
        let mut waiter = self.pending.register(method, want_progress);
        let id = waiter.id.clone();
        let progress_token = want_progress.then(|| [("progressToken", id.to_value())]);
        let body = Bytes::from(
            RequestBody {
                id: &id,
                method,
                params,
                meta_defaults: options.params_meta.as_deref(),
                meta_overrides: progress_token.as_ref().map_or(&[], |t| t.as_slice()),
            }
            .to_vec(),
        );
        if want_progress && params.is_some_and(|p| !p.is_object()) {
            // MCP params are always objects; the caller's are kept as they are.
            tracing::warn!(%method, "request params are not an object; no progressToken added");
        }
        let notify_peer = options.cancel_notification && method != "initialize";
        let mut guard = CancelOnDrop {
            dispatcher: self.clone(),
            id: id.clone(),
            notify_peer,
            armed: true,
        };
        let start = Instant::now();
        let mut total_deadline = options.max_total_timeout.map(|t| start + t);
        // A transport has no configured timeout of its own: an inherited
        // one is the default.
        let timeout = options.timeout.resolve(DEFAULT_REQUEST_TIMEOUT);
        let mut deadline = deadline_after(start, timeout, total_deadline);
        let outgoing = Outgoing {
            kind: OutgoingKind::Request,
            method: Some(method.to_owned()),
            id: Some(id.clone()),
            body,
            metadata_headers: options.metadata_headers.clone(),
            deadline,
        };
        let send = self.send_out(outgoing);
        tokio::pin!(send);
        let mut sent = false;
        let mut answering = self.answering.subscribe();
        let mut watching = true;
        // Since when the timers stand still (a server request is being
        // answered), and for how long they stood still before.
        let mut paused_since = (*answering.borrow_and_update() > 0).then(Instant::now);
        let mut paused_for = Duration::ZERO;
        loop {
            tokio::select! {
                biased;
                outcome = &mut waiter.done => {
                    guard.armed = false;
                    // Progress that arrived before the response is delivered
                    // first, so the sink sees every update in order.
                    if let (Some(sink), Some(rx)) = (&options.progress, waiter.progress.as_mut()) {
                        while let Ok(update) = rx.try_recv() {
                            sink(update);
                        }
                    }
                    return match outcome {
                        Ok(outcome) => outcome,
                        // The entry was dropped without an outcome: only close does that.
                        Err(_) => Err(self.closed_error()),
                    };
                }
                result = &mut send, if !sent => {
                    sent = true;
                    if let Err(e) = result {
                        guard.armed = false;
                        self.pending.remove(&id);
                        // A response may have raced the error in.
                        if let Ok(outcome) = waiter.done.try_recv() {
                            return outcome;
                        }
                        return Err(e);
                    }
                }
                Some(update) = recv_progress(&mut waiter.progress) => {
                    if let Some(sink) = &options.progress {
                        sink(update);
                    }
                    if options.reset_timeout_on_progress {
                        // While paused the clock stands at the pause's start.
                        let now = paused_since.unwrap_or_else(Instant::now);
                        deadline = deadline_after(now, timeout, total_deadline);
                    }
                }
                changed = answering.changed(), if watching => {
                    if changed.is_err() {
                        // The dispatcher owns the sender and outlives this
                        // call; should it go, the timers simply run.
                        watching = false;
                    }
                    let busy = watching && *answering.borrow_and_update() > 0;
                    match (busy, paused_since) {
                        (true, None) => paused_since = Some(Instant::now()),
                        (false, Some(since)) => {
                            let stood = since.elapsed();
                            paused_for += stood;
                            deadline = deadline.map(|d| later(d, stood));
                            total_deadline = total_deadline.map(|d| later(d, stood));
                            paused_since = None;
                        }
                        _ => {}
                    }
                }
                _ = sleep_until_opt(deadline), if paused_since.is_none() => {
                    guard.armed = false;
                    let phase = if total_deadline.is_some() && deadline == total_deadline {
                        TimeoutPhase::Total
                    } else {
                        TimeoutPhase::Request
                    };
                    // The time counted against the request, pauses left out.
                    let ms = start.elapsed().saturating_sub(paused_for).as_millis() as u64;
                    self.tap_local(|| format!("request {id} ({method}) timed out after {ms} ms"));
                    self.abandon(&id, notify_peer, "timeout");
                    return Err(TransportError::Timeout {
                        ms,
                        phase,
                        method: Some(method.to_owned()),
                    });
                }
                _ = cancelled_opt(options.cancel.as_ref()) => {
                    guard.armed = false;
                    self.tap_local(|| format!("request {id} ({method}) cancelled by the caller"));
                    self.abandon(&id, notify_peer, "cancelled by the client");
                    return Err(TransportError::Cancelled);
                }
            }
        }
    }

    /// Forgets request `id` and, when `notify_peer`, tells the peer (spec:
    /// `basic/utilities/cancellation`; never for `initialize`). The
    /// notification is queued, not awaited: a peer that stopped reading
    /// would otherwise hold the caller's timeout or cancellation error back
    /// until the write went through.
    fn abandon(self: &Arc<Self>, id: &RequestId, notify_peer: bool, reason: &str) {
        self.pending.remove(id);
        if notify_peer {
            send_cancelled(self, id, reason);
        }
    }
}

/// Sends `notifications/cancelled` for `id` without waiting: queued now
/// where the transport can, so a `close()` that follows cannot overtake
/// it; otherwise sent from a task.
fn send_cancelled(dispatcher: &Arc<Dispatcher>, id: &RequestId, reason: &str) {
    if !dispatcher.is_open() {
        return;
    }
    let params = serde_json::json!({ "requestId": id, "reason": reason });
    let message = notification_message("notifications/cancelled", Some(params));
    dispatcher.tap_sent(&message);
    let Err(message) = dispatcher.outbound.try_send_now(message) else {
        return;
    };
    let dispatcher = dispatcher.clone();
    match tokio::runtime::Handle::try_current() {
        Ok(handle) => {
            handle.spawn(async move {
                if let Err(e) = dispatcher.outbound.send(message, &dispatcher).await {
                    tracing::debug!(error = %e, "could not send notifications/cancelled");
                }
            });
        }
        Err(_) => {
            tracing::warn!(%id, "request abandoned outside a tokio runtime; notifications/cancelled not sent")
        }
    }
}

/// Sends `notifications/cancelled` when a request future is dropped early.
struct CancelOnDrop {
    dispatcher: Arc<Dispatcher>,
    id: RequestId,
    notify_peer: bool,
    armed: bool,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        self.dispatcher.pending.remove(&self.id);
        self.dispatcher
            .tap_local(|| format!("request {} dropped by the caller", self.id));
        if self.notify_peer {
            send_cancelled(&self.dispatcher, &self.id, "request dropped by the client");
        }
    }
}

fn deadline_after(
    now: Instant,
    timeout: Option<Duration>,
    total: Option<Instant>,
) -> Option<Instant> {
    // A timeout too large for an Instant (e.g. `Duration::MAX`) means "no
    // timeout" rather than a panic.
    match (timeout.and_then(|t| now.checked_add(t)), total) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// `instant` moved `by` later; a deadline too far out to move is already
/// beyond any wait.
fn later(instant: Instant, by: Duration) -> Instant {
    instant.checked_add(by).unwrap_or(instant)
}

async fn sleep_until_opt(deadline: Option<Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d).await,
        None => std::future::pending().await,
    }
}

/// Completes when `token` is cancelled; never without a token (no token is
/// made for a request that was given none: that would be an allocation per
/// request).
async fn cancelled_opt(token: Option<&tokio_util::sync::CancellationToken>) {
    match token {
        Some(t) => t.cancelled().await,
        None => std::future::pending().await,
    }
}

async fn recv_progress(rx: &mut Option<mpsc::Receiver<Progress>>) -> Option<Progress> {
    match rx {
        Some(rx) => rx.recv().await,
        None => std::future::pending().await,
    }
}
