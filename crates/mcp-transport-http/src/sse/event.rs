//! What the parser produces: dispatched events and the end-of-stream outcome.

use std::borrow::Cow;
use std::time::Duration;

use super::Utf8Bytes;

/// One dispatched event-stream event (WHATWG "Interpreting an event stream",
/// "dispatch the event").
///
/// For MCP the interesting events have type `"message"` and a JSON-RPC
/// message as `data`. An event whose `data` is `""` is a priming event
/// (SEP-1699): it only carries an `id` (and maybe a `retry`) and must not be
/// parsed as JSON.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SseEvent {
    /// The event type: the last `event` field's value, or `"message"` if the
    /// event had none (or an empty one). `"message"` is borrowed, so the
    /// usual MCP event costs no allocation for its type.
    pub event_type: Cow<'static, str>,
    /// The `data` lines' values joined with `"\n"`, UTF-8 decoded with
    /// U+FFFD for invalid sequences. May be empty (priming event).
    ///
    /// With [`SseParser::feed_bytes`](super::SseParser::feed_bytes), an
    /// event with one `data` line that arrived within one chunk gets a slice
    /// of that chunk (no copy); several `data` lines, or one split across
    /// chunks, are joined into a new buffer.
    pub data: Utf8Bytes,
    /// The last event ID at dispatch (set by this or an earlier event's `id`
    /// field); `""` means none, i.e. no `Last-Event-ID` header on resumption.
    /// Shared with the parser and the other events that carry it (a
    /// reference count, not a copy per event).
    pub last_event_id: Utf8Bytes,
    /// The reconnection time set by a valid `retry` field among this event's
    /// own lines, if any (milliseconds on the wire). The parser's current
    /// value, which also counts `retry` fields in events that were not
    /// dispatched, is [`SseParser::retry`](super::SseParser::retry).
    pub retry: Option<Duration>,
}

impl SseEvent {
    /// True if the event type is `"message"` (the type MCP messages use).
    pub fn is_message(&self) -> bool {
        self.event_type == "message"
    }

    /// The last event ID at dispatch, `None` if it is empty. (Validates the
    /// id's UTF-8 again, see [`Utf8Bytes::as_str`]; ids are at most 1 KiB.)
    pub fn id(&self) -> Option<&str> {
        (!self.last_event_id.is_empty()).then(|| self.last_event_id.as_str())
    }
}

/// How an event stream ended, returned by
/// [`SseParser::finish`](super::SseParser::finish).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
#[must_use]
pub enum SseEnd {
    /// The stream ended on an event boundary (or after comment lines only):
    /// nothing was lost.
    Complete,
    /// The stream ended inside an event (field lines, or part of a line, with
    /// no blank line after them). WHATWG discards such an event, and any `id`
    /// in it does not update the last event ID. An event already reported as
    /// [`SseError::EventTooLarge`](super::SseError::EventTooLarge) is not
    /// reported again here.
    IncompleteEventDiscarded,
}

impl SseEnd {
    /// True for [`SseEnd::IncompleteEventDiscarded`].
    pub fn is_incomplete(self) -> bool {
        matches!(self, Self::IncompleteEventDiscarded)
    }
}
