//! The standalone GET stream for server-initiated messages (spec
//! `basic/transports` § Listening for Messages from the Server).
//!
//! Opened once initialization is done (after `notifications/initialized` is
//! delivered, or by [`HttpTransport::start_listening`](crate::HttpTransport::start_listening)).
//! 405, 400 and 404 mean the server offers none: the listener stops for the
//! rest of the session (logged at debug only). Other failures are retried
//! with the reconnect backoff up to its retry cap. A stream that drops is
//! reopened with `Last-Event-ID`.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use bytes::Bytes;
use http::Method;
use mcp_transport::Dispatcher;

use crate::event_stream::{EventStream, Next, carries_message};
use crate::media::{Media, classify};
use crate::shared::{Kind, ModeState, Shared};

impl Shared {
    /// Starts the GET listener once (later calls do nothing; never in legacy mode).
    pub(crate) fn start_listening(self: &Arc<Self>, dispatcher: &Arc<Dispatcher>) {
        if matches!(self.mode(), ModeState::Legacy(_)) || !dispatcher.is_open() {
            return;
        }
        if self.listener_started.swap(true, Ordering::AcqRel) {
            return;
        }
        let task = tokio::spawn(run_listener(self.clone(), dispatcher.clone()));
        *self.listener.lock().unwrap_or_else(|p| p.into_inner()) = Some(task.abort_handle());
    }
}

async fn run_listener(shared: Arc<Shared>, dispatcher: Arc<Dispatcher>) {
    let backoff = shared.config.reconnect;
    let mut attempt = 0u32;
    let mut last_event_id: Option<String> = None;
    let mut retry = None;
    let label = shared.label().to_owned();
    loop {
        if !dispatcher.is_open() {
            return;
        }
        let kind = Kind::Get {
            last_event_id: last_event_id.clone(),
        };
        match shared
            .exchange(Method::GET, shared.url.clone(), Bytes::new(), kind)
            .await
        {
            Err(e) => tracing::debug!(connection = %label, error = %e, "GET stream failed"),
            Ok(reply) => {
                let status = reply.response.status().as_u16();
                if matches!(status, 400 | 404 | 405) {
                    tracing::debug!(connection = %label, status, "the server offers no GET stream");
                    return;
                }
                if !reply.response.status().is_success() {
                    tracing::debug!(connection = %label, status, "GET stream refused");
                } else if classify(reply.response.headers()) != Media::EventStream {
                    tracing::debug!(connection = %label, status, "GET reply is not an event stream; not listening");
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
                                attempt = 0;
                                if carries_message(&event) {
                                    dispatcher.handle_incoming(event.data.as_bytes()).await;
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
        if attempt >= backoff.max_retries() {
            tracing::debug!(connection = %label, attempt, "GET stream: giving up");
            return;
        }
        tokio::time::sleep(backoff.delay_random(attempt, retry)).await;
        attempt += 1;
    }
}
