//! The standalone GET stream for server-initiated messages (spec
//! `basic/transports` § Listening for Messages from the Server).
//!
//! Opened once initialization is done (after `notifications/initialized` is
//! delivered, or by [`HttpTransport::start_listening`](crate::HttpTransport::start_listening)).
//! The delivery of `notifications/initialized` waits (bounded by
//! [`HttpTimeouts::listen`](crate::HttpTimeouts::listen)) until the first GET
//! was answered, so the server sees the stream before any later request and
//! can send on it what those requests cause (e.g. `elicitation/create`).
//! 405, 400 and 404 mean the server offers none: the listener stops for the
//! rest of the session (logged at debug only). (A 404 to a GET that carried
//! an expired `Mcp-Session-Id` ends it the same way; the POSTs notice the
//! expiry.) A new session id from `initialize` ends any listener of the old
//! session, and the new session's `notifications/initialized` opens a new
//! stream. Other failures are retried
//! with the reconnect backoff up to its retry cap. A stream that drops is
//! reopened with `Last-Event-ID`.

use std::sync::Arc;

use bytes::Bytes;
use mcp_transport::Dispatcher;
use tokio::sync::oneshot;

use crate::event_stream::{EventStream, Next, carries_message};
use crate::exchange::{HttpRequest, RequestKind};
use crate::media::{Media, classify};
use crate::mode::ModeState;
use crate::shared::Shared;

/// Starts the GET listener of `shared`'s session once (later calls do
/// nothing; never in legacy mode).
///
/// Returns, when this call started it, a receiver that completes (value
/// or closed sender alike) once the first GET was answered: response
/// headers, a refusal, or a failure before any reply.
pub(crate) fn start(
    shared: &Arc<Shared>,
    dispatcher: &Arc<Dispatcher>,
) -> Option<oneshot::Receiver<()>> {
    let session = &shared.session;
    if matches!(session.mode(), ModeState::Legacy(_)) || !dispatcher.is_open() {
        return None;
    }
    if !session.claim_listener() {
        return None;
    }
    let (ready, answered) = oneshot::channel();
    let task = tokio::spawn(run_listener(shared.clone(), dispatcher.clone(), ready));
    session.set_listener(task.abort_handle());
    Some(answered)
}

async fn run_listener(
    shared: Arc<Shared>,
    dispatcher: Arc<Dispatcher>,
    ready: oneshot::Sender<()>,
) {
    // Completed after the first exchange, whatever its outcome; dropped
    // (which also wakes the waiter) if the task ends or is aborted first.
    let mut ready = Some(ready);
    let backoff = shared.config.reconnect;
    let mut attempt = 0u32;
    let mut last_event_id: Option<String> = None;
    let mut retry = None;
    let label = shared.label().to_owned();
    // The stream belongs to the session it was opened in: once that session
    // is gone (expired, or replaced by re-initialization), a reconnection
    // would go out with no id or another session's, so the listener stops
    // and the next session opens its own.
    let opened_in = shared.session.session_id();
    loop {
        if !dispatcher.is_open() {
            return;
        }
        if opened_in.is_some() && shared.session.session_id() != opened_in {
            tracing::debug!(connection = %label, "GET stream: its session ended; not reconnecting");
            return;
        }
        let kind = RequestKind::Get {
            last_event_id: last_event_id.clone(),
        };
        let request = HttpRequest::new(shared.url.clone(), Bytes::new(), kind);
        let answer = shared.exchange.send(&request, &shared.session, None).await;
        if let Some(ready) = ready.take() {
            let _ = ready.send(());
        }
        match answer {
            Err(e) => tracing::debug!(connection = %label, error = %e, "GET stream failed"),
            Ok(reply) => {
                let status = reply.response.status().as_u16();
                if matches!(status, 400 | 404 | 405) {
                    tracing::debug!(connection = %label, status, "the server offers no GET stream");
                    return;
                }
                if !reply.response.status().is_success() {
                    tracing::debug!(connection = %label, status, "GET stream refused");
                } else if let media @ (Media::Json | Media::Other(_) | Media::Missing) =
                    classify(reply.response.headers())
                {
                    tracing::debug!(connection = %label, status, ?media, "GET reply is not an event stream; not listening");
                    return;
                } else {
                    let mut stream = EventStream::new(
                        reply.response.into_body(),
                        shared.config.max_event_bytes,
                        None,
                    );
                    loop {
                        match stream.next().await {
                            Next::Event(event) => {
                                if carries_message(&event) {
                                    // Only a message is progress: a server that sends a priming
                                    // event and drops the stream, again and again, runs out of
                                    // reconnection attempts instead of looping forever.
                                    attempt = 0;
                                    dispatcher.handle_frame(event.data.into_bytes()).await;
                                } else {
                                    tracing::debug!(connection = %label, event = %event.event_type, "SSE event without a message skipped");
                                }
                            }
                            Next::TooLarge(limit) => {
                                tracing::warn!(connection = %label, limit, "SSE event on the GET stream over the size limit; skipped")
                            }
                            Next::Idle(_) => {}
                            Next::End(why) => {
                                tracing::debug!(connection = %label, %why, "GET stream ended");
                                break;
                            }
                        }
                    }
                    if let Some(id) = stream.last_event_id() {
                        last_event_id = Some(id);
                    }
                    if let Some(r) = stream.retry() {
                        retry = Some(r);
                    }
                }
            }
        }
        if !backoff.allows(attempt + 1) {
            tracing::debug!(connection = %label, attempt, "GET stream: giving up");
            return;
        }
        tokio::time::sleep(backoff.delay(attempt + 1, retry)).await;
        attempt += 1;
    }
}
