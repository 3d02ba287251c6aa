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

use std::borrow::Cow;
use std::sync::Arc;
use std::time::Duration;

use mcp_types::{RawParams, RequestBody};
use mcp_types::{RawResult, RequestId};
use serde_json::Value;
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::{Dispatcher, Outgoing, OutgoingKind, notification_message};
use crate::body::Body;
use crate::error::{TimeoutPhase, TransportError};
use crate::options::{DEFAULT_REQUEST_TIMEOUT, Progress, RequestOptions};
use crate::pause_clock::RequestClock;
use crate::pending::method_name;

/// A request's params: a value the dispatcher serializes, or params the
/// caller serialized ([`RawParams`]), which the request is written around.
pub(super) enum Params<'a> {
    Value(Option<&'a Value>),
    Raw(RawParams),
}

impl Dispatcher {
    /// The body of [`Dispatcher::request`] and [`Dispatcher::request_raw`].
    pub(super) async fn run_request(
        self: &Arc<Self>,
        method: &str,
        params: Params<'_>,
        options: RequestOptions,
    ) -> Result<RawResult, TransportError> {
        if !self.is_open() {
            return Err(self.closed_error());
        }
        let want_progress = options.progress.is_some();
        // Borrowed for a method the schema names: no allocation.
        let name = method_name(method);
        let mut waiter = self.pending.register(name.clone(), want_progress);
        let id = waiter.id.clone();
        let progress_token = want_progress.then(|| [("progressToken", id.to_value())]);
        let meta_defaults = options.params_meta.as_deref().filter(|m| !m.is_empty());
        let meta_overrides = progress_token.as_ref().map_or(&[][..], |t| t.as_slice());
        let write = |params: Option<&Value>| {
            if want_progress && params.is_some_and(|p| !p.is_object()) {
                // MCP params are always objects; the caller's are kept as they are.
                tracing::warn!(%method, "request params are not an object; no progressToken added");
            }
            Body::from(
                RequestBody {
                    id: &id,
                    method,
                    params,
                    meta_defaults,
                    meta_overrides,
                }
                .to_vec(),
            )
        };
        let body = match params {
            Params::Value(params) => write(params),
            // Nothing to merge: the request is written around the params.
            Params::Raw(raw) if meta_defaults.is_none() && meta_overrides.is_empty() => {
                let (buf, start) = raw.into_request_buffer(&id, method);
                Body::from_buffer(buf, start)
            }
            // `_meta` members go into the params: read them back (rare:
            // progress asked for, or per-request `_meta`).
            Params::Raw(raw) => match serde_json::from_slice::<Value>(raw.json()) {
                Ok(value) => write(Some(&value)),
                Err(e) => {
                    self.pending.remove(&id);
                    return Err(TransportError::misuse(format!(
                        "{method}: the serialized params are not JSON: {e}"
                    )));
                }
            },
        };
        let notify_peer = options.cancel_notification && method != "initialize";
        let mut guard = CancelOnDrop {
            dispatcher: self.clone(),
            id: id.clone(),
            notify_peer,
            armed: true,
        };
        let clock = RequestClock::start(&self.pauses);
        // Deadlines are counts of the request's clock (pauses left out):
        // the total cap from the start, the timeout from the start or the
        // last progress.
        let total = options.max_total_timeout;
        // A transport has no configured timeout of its own: an inherited
        // one is the default.
        let timeout = options.timeout.resolve(DEFAULT_REQUEST_TIMEOUT);
        let mut deadline = deadline_after(Duration::ZERO, timeout, total);
        let mut due = deadline.and_then(|d| clock.first_instant_of(d));
        let outgoing = Outgoing {
            kind: OutgoingKind::Request,
            method: Some(name),
            id: Some(id.clone()),
            body,
            metadata_headers: options.metadata_headers.clone(),
            deadline: due,
        };
        self.tap_sent(&outgoing);
        // Delivered at once where the transport can; else awaited below.
        let (later, now) = match self.outbound.send_request_now(outgoing, self) {
            Ok(result) => (None, Some(result)),
            Err(outgoing) => (Some(outgoing), None),
        };
        if let Some(Err(e)) = now {
            guard.armed = false;
            self.pending.remove(&id);
            return Err(e);
        }
        let send = async {
            match later {
                Some(outgoing) => self.outbound.send(outgoing, self).await,
                None => Ok(()),
            }
        };
        tokio::pin!(send);
        let mut sent = now.is_some();
        // One timer for the request's life, registered when first polled
        // and moved when the deadline moves; never polled without one.
        let timer = tokio::time::sleep_until(due.unwrap_or_else(Instant::now));
        tokio::pin!(timer);
        // The timer fired during a pause: wait for the pause to end.
        let mut held = false;
        loop {
            tokio::select! {
                biased;
                outcome = std::future::poll_fn(|cx| self.pending.poll_outcome(&id, cx)) => {
                    guard.armed = false;
                    // Progress that arrived before the response is delivered
                    // first, so the sink sees every update in order.
                    if let (Some(sink), Some(rx)) = (&options.progress, waiter.progress.as_mut()) {
                        while let Ok(update) = rx.try_recv() {
                            sink(update);
                        }
                    }
                    return match outcome {
                        Some(outcome) => outcome,
                        // The entry went without an outcome: nothing but
                        // this loop removes it, so this is not expected;
                        // the connection's state is the best answer.
                        None => Err(self.closed_error()),
                    };
                }
                result = &mut send, if !sent => {
                    sent = true;
                    if let Err(e) = result {
                        guard.armed = false;
                        // A response may have raced the error in.
                        if let Some(outcome) = self.pending.take(&id) {
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
                        // While paused the count stands at the pause's start.
                        let (now, _) = clock.counted(&self.pauses, Instant::now());
                        deadline = deadline_after(now, timeout, total);
                        due = deadline.and_then(|d| clock.instant_of(&self.pauses, d));
                        if let Some(due) = due {
                            timer.as_mut().reset(due);
                        }
                        held = false;
                    }
                }
                () = &mut timer, if due.is_some() && !held => {
                    let Some(limit) = deadline else { continue };
                    let (counted, paused) = clock.counted(&self.pauses, Instant::now());
                    if paused {
                        held = true;
                        continue;
                    }
                    if counted < limit {
                        // Pauses moved the deadline: sleep the rest.
                        due = clock.instant_of(&self.pauses, limit);
                        if let Some(due) = due {
                            timer.as_mut().reset(due);
                        }
                        continue;
                    }
                    guard.armed = false;
                    let phase = if total.is_some() && deadline == total {
                        TimeoutPhase::Total
                    } else {
                        TimeoutPhase::Request
                    };
                    // The time counted against the request, pauses left out.
                    let ms = counted.as_millis() as u64;
                    self.tap_local(|| format!("request {id} ({method}) timed out after {ms} ms"));
                    self.abandon(&id, notify_peer, "timeout");
                    return Err(TransportError::Timeout {
                        ms,
                        phase,
                        method: Some(method.to_owned()),
                    });
                }
                () = self.pauses.unpaused(), if held => {
                    held = false;
                    // Look again now: the timer is due, or is moved by the pause.
                    timer.as_mut().reset(Instant::now());
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
    let message = notification_message(Cow::Borrowed("notifications/cancelled"), Some(params));
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

/// The deadline, as a count of the request's clock, when `timeout` runs
/// from `now` and the total cap is `total`. A timeout too large to add
/// (e.g. `Duration::MAX`) means "no timeout" rather than a panic.
fn deadline_after(
    now: Duration,
    timeout: Option<Duration>,
    total: Option<Duration>,
) -> Option<Duration> {
    match (timeout.and_then(|t| now.checked_add(t)), total) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
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
