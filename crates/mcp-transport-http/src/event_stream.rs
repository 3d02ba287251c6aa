//! Reading an HTTP `text/event-stream` body through the SSE parser: one
//! event at a time, with an optional idle bound.

use std::collections::VecDeque;
use std::time::Duration;

use http_body_util::BodyExt;

use crate::decode::ReplyBody;
use crate::sse::{SseError, SseEvent, SseLimits, SseParser};

/// What reading the stream produced next.
#[derive(Debug)]
pub(crate) enum Next {
    /// A dispatched event.
    Event(SseEvent),
    /// An event exceeded the limit (bytes); the stream continues.
    TooLarge(usize),
    /// Nothing arrived for this long.
    Idle(Duration),
    /// The stream ended: cleanly, inside an event, or with a read error.
    End(String),
}

/// An SSE response body being read.
pub(crate) struct EventStream {
    body: ReplyBody,
    parser: SseParser,
    queue: VecDeque<Result<SseEvent, SseError>>,
    scratch: Vec<Result<SseEvent, SseError>>,
    idle: Option<Duration>,
    ended: bool,
}

impl EventStream {
    /// Reads `body` with events bounded to `limit` bytes.
    pub(crate) fn new(body: ReplyBody, limit: usize, idle: Option<Duration>) -> EventStream {
        EventStream {
            body,
            parser: SseParser::new(SseLimits::default().with_max_event_size(limit)),
            queue: VecDeque::new(),
            scratch: Vec::new(),
            idle,
            ended: false,
        }
    }

    /// The last event ID so far (`None` when none was set).
    pub(crate) fn last_event_id(&self) -> Option<String> {
        self.parser.last_event_id().map(str::to_owned)
    }

    /// The reconnection time the server set with `retry:`.
    pub(crate) fn retry(&self) -> Option<Duration> {
        self.parser.retry()
    }

    /// The next event, or how the stream stopped.
    pub(crate) async fn next(&mut self) -> Next {
        loop {
            if let Some(item) = self.queue.pop_front() {
                return match item {
                    Ok(event) => Next::Event(event),
                    Err(SseError::EventTooLarge { limit }) => Next::TooLarge(limit),
                };
            }
            if self.ended {
                return Next::End("stream already ended".into());
            }
            let frame = match self.idle {
                Some(d) => match tokio::time::timeout(d, self.body.frame()).await {
                    Ok(f) => f,
                    Err(_) => return Next::Idle(d),
                },
                None => self.body.frame().await,
            };
            match frame {
                None => {
                    self.ended = true;
                    return Next::End(if self.parser.finish().is_incomplete() {
                        "stream ended inside an event".into()
                    } else {
                        "stream ended".into()
                    });
                }
                Some(Err(e)) => {
                    self.ended = true;
                    return Next::End(format!("stream failed: {e}"));
                }
                Some(Ok(frame)) => {
                    if let Ok(data) = frame.into_data() {
                        self.parser.feed_bytes(&data, &mut self.scratch);
                        self.queue.extend(self.scratch.drain(..));
                    }
                }
            }
        }
    }
}

/// `true` for an event that carries an MCP message: type `message` (the
/// default) and non-empty data. Empty data is a priming event (SEP-1699),
/// never parsed.
pub(crate) fn carries_message(event: &SseEvent) -> bool {
    (event.event_type == "message" || event.event_type.is_empty()) && !event.data.is_empty()
}
