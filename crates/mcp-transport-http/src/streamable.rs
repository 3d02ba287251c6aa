//! Streamable HTTP (spec `basic/transports` § Streamable HTTP, 2025-03-26 …
//! 2025-11-25): the delivery of one message by POST, the reading of its
//! reply (JSON or SSE), resumption with `Last-Event-ID`, and the switch
//! to legacy HTTP+SSE when auto-detection finds a server from before
//! Streamable HTTP.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use bytes::Bytes;
use mcp_transport::{
    Body, CloseReason, Dispatcher, Outgoing, OutgoingKind, TimeoutPhase, TransportError,
};
use mcp_types::RequestId;

use crate::body::read_bounded;
use crate::decode::ReplyBody;
use crate::errors::{http_error, no_response, timeout};
use crate::event_stream::{EventStream, Next, carries_message};
use crate::exchange::{HttpRequest, RequestKind};
use crate::media::{Media, classify};
use crate::mode::ModeState;
use crate::post::{post, shared_body};
use crate::shared::Shared;
use crate::{legacy, listener};

/// POSTs one message. For a notification or a response, the reply status
/// is all that matters (any 2xx = delivered, within the notify timeout).
/// For a request, the reply is read until its response arrived (the
/// dispatcher then drops this future) or the reply ended.
pub(crate) async fn send(
    shared: &Shared,
    mut message: Outgoing,
    dispatcher: &Arc<Dispatcher>,
    undecided: bool,
) -> Result<(), TransportError> {
    let is_initialize = message.method.as_deref() == Some("initialize");
    if message.kind == OutgoingKind::Notification
        && message.method.as_deref() == Some("notifications/cancelled")
        && !shared.session.rules().cancel_notification
    {
        // 2026-07-28: the request's reply stream was dropped with its
        // future, and that is the cancellation; there is no
        // client-to-server notification to POST.
        tracing::debug!(connection = %shared.label(), "notifications/cancelled not POSTed: the dropped reply stream cancels the request");
        return Ok(());
    }
    let kind = RequestKind::Post {
        method: message.method.clone(),
        with_session: !is_initialize,
        metadata: message.metadata_headers.clone(),
    };
    let request = HttpRequest::new(shared.url.clone(), shared_body(&mut message), kind);
    let (reply, deadline) = post(shared, &request, &message).await?;
    let status = reply.response.status();
    if undecided {
        if is_initialize && matches!(status.as_u16(), 400 | 404 | 405) {
            tracing::debug!(connection = %shared.label(), status = status.as_u16(), "POST refused: falling back to the legacy HTTP+SSE transport");
            drop(reply);
            return fall_back_to_legacy(shared, message, dispatcher).await;
        }
        if status.is_success() {
            shared.session.set_mode(ModeState::Streamable);
        }
    }
    if !status.is_success() {
        return Err(http_error(shared, reply, message.id.as_ref(), deadline).await);
    }
    if is_initialize {
        shared.session.capture_session_id(reply.response.headers());
    }
    // Accepted: the request's bytes are never sent again (redirects and
    // the auth hook's retries come before a 2xx), so they are freed now
    // rather than held while a large reply is read.
    message.body = Body::default();
    let Some(id) = message
        .id
        .clone()
        .filter(|_| message.kind == OutgoingKind::Request)
    else {
        // A notification or a response: any 2xx means delivered; the
        // body (if any) is not ours to interpret.
        tracing::trace!(connection = %shared.label(), status = status.as_u16(), "message delivered");
        if message.method.as_deref() == Some("notifications/initialized")
            && shared.config.listen_after_initialized
            && let Some(me) = shared.me.upgrade()
            && let Some(answered) = listener::start(&me, dispatcher)
        {
            // Requests sent after the handshake must find the GET
            // stream in place: a server may send what they cause only
            // there, and a late GET can look like a resumption.
            let limit = shared.config.timeouts.listen;
            if tokio::time::timeout(limit, answered).await.is_err() {
                tracing::debug!(connection = %shared.label(), ms = limit.as_millis() as u64, "GET stream not answered in time; continuing without waiting");
            }
        }
        return Ok(());
    };
    let media = classify(reply.response.headers());
    let body = reply.response.into_body();
    let status = status.as_u16();
    // A server that sends its JSON reply as `text/plain`, or with no
    // type at all, is common and its meaning is plain: the body is read
    // as JSON when it is JSON (one warning per connection).
    let sloppy = match &media {
        Media::Missing => Some("no Content-Type".to_owned()),
        Media::Other(other) if !other.contains("Content-Encoding") => {
            Some(format!("Content-Type {other}"))
        }
        _ => None,
    };
    if let Some(said) = sloppy {
        let bytes = read_bounded(body, shared.config.max_event_bytes).await?;
        if !looks_like_json(&bytes) {
            return Err(match media {
                Media::Other(media) => unsupported_body(&id, status, &media),
                _ => reply_without_response(&id, status, "a body without a Content-Type"),
            });
        }
        if !shared.warned_media.swap(true, Ordering::Relaxed) {
            tracing::warn!(connection = %shared.label(), %said, "a JSON reply came with {said}; read as application/json");
        }
        return json_reply(without_bom(shared, bytes), &id, status, dispatcher).await;
    }
    match media {
        Media::Json => {
            let bytes = read_bounded(body, shared.config.max_event_bytes).await?;
            json_reply(without_bom(shared, bytes), &id, status, dispatcher).await
        }
        Media::EventStream => read_reply_stream(shared, body, &id, dispatcher).await,
        Media::Missing => Err(reply_without_response(
            &id,
            status,
            "a body without a Content-Type",
        )),
        Media::Other(media) => Err(unsupported_body(&id, status, &media)),
    }
}

/// Reads an SSE reply to request `id`, delivering every message as it
/// arrives; resumes with GET + `Last-Event-ID` when the stream ends early
/// and the server gave event ids.
async fn read_reply_stream(
    shared: &Shared,
    body: ReplyBody,
    id: &RequestId,
    dispatcher: &Arc<Dispatcher>,
) -> Result<(), TransportError> {
    let limit = shared.config.max_event_bytes;
    let idle = shared.config.timeouts.sse_idle;
    let backoff = shared.config.reconnect;
    let mut stream = EventStream::new(body, limit, idle);
    let mut last_event_id: Option<String> = None;
    let mut retry = None;
    let mut attempt = 0u32;
    loop {
        let end = loop {
            match stream.next().await {
                Next::Event(event) => {
                    if carries_message(&event) {
                        // Only a message is progress: a server that sends a priming
                        // event and drops the stream, again and again, runs out of
                        // reconnection attempts instead of looping forever.
                        attempt = 0;
                        dispatcher.handle_frame(event.data.into_bytes()).await;
                    } else {
                        tracing::debug!(connection = %shared.label(), event = %event.event_type, "SSE event without a message skipped");
                    }
                }
                Next::TooLarge(limit) => {
                    tracing::warn!(connection = %shared.label(), %id, limit, "SSE event over the size limit; failing the request");
                    return Err(TransportError::message_too_large(limit));
                }
                Next::Idle(d) if dispatcher.is_answering() => {
                    // The server waits for our answer to its request (a
                    // form a person is filling in): its silence is ours.
                    tracing::debug!(connection = %shared.label(), %id, idle_ms = d.as_millis() as u64, "SSE reply silent while a server request is answered; waiting on");
                }
                Next::Idle(d) => return Err(timeout(d, TimeoutPhase::SseResponse)),
                Next::End(why) => break why,
            }
        };
        if let Some(last) = stream.last_event_id() {
            last_event_id = Some(last);
        }
        if let Some(r) = stream.retry() {
            retry = Some(r);
        }
        let Some(resume_from) = last_event_id
            .clone()
            .filter(|_| shared.session.rules().resumable)
        else {
            return Err(no_response(id, Some(&end)));
        };
        // The response may have been in the last read: let the
        // dispatcher take it before anything is re-requested.
        tokio::task::yield_now().await;
        stream = loop {
            if !backoff.allows(attempt + 1) {
                return Err(no_response(
                    id,
                    Some(&format!("{end}; gave up resuming after {attempt} attempts")),
                ));
            }
            tokio::time::sleep(backoff.delay(attempt + 1, retry)).await;
            attempt += 1;
            tracing::debug!(connection = %shared.label(), %id, last_event_id = %resume_from, attempt, "resuming the SSE reply");
            let kind = RequestKind::Get {
                last_event_id: Some(resume_from.clone()),
            };
            let request = HttpRequest::new(shared.url.clone(), Bytes::new(), kind);
            match shared.exchange.send(&request, &shared.session, None).await {
                Err(e) => {
                    tracing::debug!(connection = %shared.label(), error = %e, "resumption failed")
                }
                Ok(reply) => {
                    let status = reply.response.status();
                    if status.is_success()
                        && classify(reply.response.headers()) == Media::EventStream
                    {
                        break EventStream::new(reply.response.into_body(), limit, idle);
                    }
                    if status.is_client_error() {
                        return Err(no_response(
                            id,
                            Some(&format!(
                                "{end}; resumption refused with HTTP {}",
                                status.as_u16()
                            )),
                        ));
                    }
                    tracing::debug!(connection = %shared.label(), status = status.as_u16(), "resumption reply unusable");
                }
            }
        };
    }
}

/// Auto mode: the first request's POST was refused with 400/404/405, so
/// the server predates Streamable HTTP: open the legacy SSE stream on the
/// same URL and re-send that request there.
async fn fall_back_to_legacy(
    shared: &Shared,
    message: Outgoing,
    dispatcher: &Arc<Dispatcher>,
) -> Result<(), TransportError> {
    let Some(me) = shared.me.upgrade() else {
        return Err(TransportError::Closed(CloseReason::new(
            "transport dropped",
        )));
    };
    let link = {
        let _guard = shared.session.lock_fallback().await;
        match shared.session.mode() {
            ModeState::Legacy(link) => link,
            _ => {
                let link = legacy::open(&me, dispatcher).await?;
                shared.session.set_mode(ModeState::Legacy(link.clone()));
                link
            }
        }
    };
    legacy::send(shared, &link, message).await
}

/// The error of a request whose 2xx reply was complete but held no response
/// to it (an empty body, `{}`, another message): the connection is fine, so
/// this is not `Closed`.
fn reply_without_response(id: &RequestId, status: u16, detail: &str) -> TransportError {
    TransportError::protocol_in_request(
        id.clone(),
        format!("the HTTP {status} reply to request {id} held no response ({detail})"),
    )
}

/// The error for a reply to request `id` whose body is of a type MCP does
/// not use (and is not JSON): names the type.
fn unsupported_body(id: &RequestId, status: u16, media: &str) -> TransportError {
    TransportError::protocol_in_request(
        id.clone(),
        format!(
            "unsupported body ({media}) in the HTTP {status} reply to request {id}{}",
            if media.contains("Content-Encoding") {
                ""
            } else {
                " (expected application/json or text/event-stream)"
            }
        ),
    )
}

/// `body` (a JSON reply) without a leading UTF-8 byte order mark, which
/// RFC 8259 § 8.1 lets a JSON reader ignore (and serde_json refuses): a
/// slice, not a copy; warned once per connection.
fn without_bom(shared: &Shared, body: Bytes) -> Bytes {
    let rest = mcp_transport::bom::strip_bom_once(
        &body,
        &format_args!("the JSON replies of connection {}", shared.label()),
        &shared.warned_bom,
    )
    .len();
    body.slice(body.len() - rest..)
}

/// `true` when `body` (past a byte order mark and white space) opens a JSON
/// object or array: what a message, or a batch, starts with.
fn looks_like_json(body: &[u8]) -> bool {
    let body = body
        .strip_prefix(mcp_transport::bom::UTF8_BOM)
        .unwrap_or(body);
    matches!(
        body.iter().find(|b| !b.is_ascii_whitespace()),
        Some(b'{' | b'[')
    )
}

/// Hands a JSON reply to request `id` (its byte order mark already dropped)
/// to the dispatcher. Always an error for the caller: when the body was the
/// response, the dispatcher has it and prefers it over this error.
async fn json_reply(
    body: Bytes,
    id: &RequestId,
    status: u16,
    dispatcher: &Arc<Dispatcher>,
) -> Result<(), TransportError> {
    let detail = if body.iter().all(u8::is_ascii_whitespace) {
        "an empty body"
    } else {
        "a JSON body that was not its response"
    };
    dispatcher.handle_frame(body).await;
    Err(reply_without_response(id, status, detail))
}
