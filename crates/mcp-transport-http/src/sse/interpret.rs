//! Field interpretation: one complete line in, state changes and dispatched
//! events out (WHATWG "Interpreting an event stream"). Knows nothing of
//! chunks, line ends, the BOM or limits; see `parser.rs` for those.
//!
//! Lines are raw bytes. Comparing field names and testing values on bytes is
//! the same as doing it on decoded text: the delimiters (`:`, space, LF), NUL
//! and the ASCII digits never occur inside a multi-byte UTF-8 sequence, and an
//! invalid sequence decodes to U+FFFD, which matches no field name.

use std::borrow::Cow;
use std::time::Duration;

use bytes::Bytes;

use super::{SseError, SseEvent, Utf8Bytes};

/// The longest `id` field kept, in bytes; a longer one is ignored (the last
/// event id stays as it was), so the id echoed in `Last-Event-ID` stays small.
pub(crate) const MAX_EVENT_ID_BYTES: usize = 1024;
/// The longest `event` field kept, in bytes.
pub(crate) const MAX_EVENT_TYPE_BYTES: usize = 256;
/// The type given to an event whose `event` field exceeded
/// [`MAX_EVENT_TYPE_BYTES`] (never `message`, so never parsed as JSON-RPC).
const OVERLONG_EVENT_TYPE: &str = "overlong-event-type";

/// The event type used when an event has no (or an empty) `event` field.
const DEFAULT_EVENT_TYPE: &str = "message";

/// One complete line (without its line end), and the chunk it lies in when
/// it lies wholly in one: values are then sliced from the chunk instead of
/// copied.
#[derive(Debug, Clone, Copy)]
pub(super) struct Line<'a> {
    /// The line's bytes; a sub-slice of `chunk` when that is `Some`.
    pub(super) bytes: &'a [u8],
    /// The shared buffer holding `bytes`, if any.
    pub(super) chunk: Option<&'a Bytes>,
}

/// WHATWG "data buffer", shaped for the usual single `data` line.
#[derive(Debug, Default)]
enum DataBuffer {
    /// No `data` line yet.
    #[default]
    Empty,
    /// One `data` line: its value, decoded (a slice of the chunk when
    /// possible). Decoding line by line is decoding the joined text: a line
    /// end is ASCII, so it ends any invalid sequence before it.
    One(Utf8Bytes),
    /// Several `data` lines: their values joined with `\n`, decoded at
    /// dispatch.
    Joined(Vec<u8>),
}

impl DataBuffer {
    fn push(&mut self, line: &Line<'_>, value: &[u8]) {
        match self {
            Self::Empty => *self = Self::One(Utf8Bytes::decode_slice(value, line.chunk)),
            Self::One(first) => {
                let first = first.as_bytes();
                let mut joined = Vec::with_capacity(first.len() + value.len() + 1);
                joined.extend_from_slice(first);
                joined.push(b'\n');
                joined.extend_from_slice(value);
                *self = Self::Joined(joined);
            }
            Self::Joined(joined) => {
                joined.push(b'\n');
                joined.extend_from_slice(value);
            }
        }
    }
}

/// Buffers of the event being read, and the stream-level state.
#[derive(Debug, Default)]
pub(super) struct Interpreter {
    data: DataBuffer,
    /// Raw bytes of the data buffer as WHATWG keeps it: each `data` value
    /// plus one `\n` (what the event size limit counts).
    data_len: usize,
    /// WHATWG "event type buffer"; empty stands for `"message"`.
    event_type: String,
    /// The value of an `id` field in the event being read. WHATWG's "last
    /// event ID buffer" is this when `Some`, else `last_event_id`: the two
    /// only differ between an `id` line and the next blank line, so the id
    /// is moved (not copied) into `last_event_id` at the blank line.
    pending_id: Option<Utf8Bytes>,
    /// WHATWG "last event ID string" as of the last blank line.
    last_event_id: Utf8Bytes,
    /// WHATWG "reconnection time", once a valid `retry` field was seen.
    retry: Option<Duration>,
    /// A `retry` set by the event being read.
    event_retry: Option<Duration>,
    /// Comment lines seen.
    comments: u64,
    /// A field line was seen since the last blank line.
    in_event: bool,
}

impl Interpreter {
    /// Bytes in the data buffer (counted against the event size limit).
    pub(super) fn data_len(&self) -> usize {
        self.data_len
    }

    pub(super) fn last_event_id(&self) -> &Utf8Bytes {
        &self.last_event_id
    }

    pub(super) fn retry(&self) -> Option<Duration> {
        self.retry
    }

    pub(super) fn comments(&self) -> u64 {
        self.comments
    }

    /// Processes one complete line. (Inlined into the framing loop, its
    /// one caller: measurably faster per line with `mcp-bench sse`.)
    #[inline(always)]
    pub(super) fn line(&mut self, line: Line<'_>, out: &mut Vec<Result<SseEvent, SseError>>) {
        let bytes = line.bytes;
        let Some(&first) = bytes.first() else {
            self.dispatch(out);
            return;
        };
        if first == b':' {
            self.comments = self.comments.saturating_add(1);
            return;
        }
        self.in_event = true;
        // The common MCP line first, without searching for the colon.
        if let Some(value) = bytes.strip_prefix(b"data:") {
            let value = value.strip_prefix(b" ").unwrap_or(value);
            self.data_len += value.len() + 1;
            self.data.push(&line, value);
            return;
        }
        // The other two lines MCP servers send, likewise: the name ends at
        // the first colon, so these prefixes are exactly those fields.
        if bytes == b"event: message" {
            self.event_type.clear();
            return;
        }
        if let Some(value) = bytes.strip_prefix(b"id:") {
            self.id_field(value.strip_prefix(b" ").unwrap_or(value), &line);
            return;
        }
        let (name, value) = match bytes.iter().position(|&b| b == b':') {
            Some(colon) => {
                let value = &bytes[colon + 1..];
                (&bytes[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (bytes, &[][..]),
        };
        match name {
            b"event" if value.len() > MAX_EVENT_TYPE_BYTES => {
                // Nothing MCP dispatches has a long type; an event with an
                // over-long type is never a `message`.
                self.event_type.clear();
                self.event_type.push_str(OVERLONG_EVENT_TYPE);
            }
            b"event" => {
                self.event_type.clear();
                // An empty buffer dispatches as "message": no copy for MCP's type.
                if value != DEFAULT_EVENT_TYPE.as_bytes() {
                    self.event_type.push_str(&decode(value));
                }
            }
            b"data" => {
                self.data_len += value.len() + 1;
                self.data.push(&line, value);
            }
            b"id" => self.id_field(value, &line),
            b"retry" => {
                if let Some(ms) = parse_retry(value) {
                    let retry = Duration::from_millis(ms);
                    self.retry = Some(retry);
                    self.event_retry = Some(retry);
                }
            }
            _ => {}
        }
    }

    /// An `id` field with value `value` (a slice of `line`).
    #[inline]
    fn id_field(&mut self, value: &[u8], line: &Line<'_>) {
        // An id longer than MAX_EVENT_ID_BYTES is ignored like one with a
        // NUL: it would be kept between events and sent back in the
        // Last-Event-ID header of every reconnection.
        if value.len() <= MAX_EVENT_ID_BYTES && !value.contains(&0) {
            self.pending_id = Some(Utf8Bytes::decode_slice(value, line.chunk));
        }
    }

    /// Blank line: WHATWG "dispatch the event".
    fn dispatch(&mut self, out: &mut Vec<Result<SseEvent, SseError>>) {
        self.in_event = false;
        let retry = self.event_retry.take();
        if let Some(id) = self.pending_id.take() {
            self.last_event_id = id;
        }
        self.data_len = 0;
        let data = match std::mem::take(&mut self.data) {
            DataBuffer::Empty => {
                self.event_type.clear();
                return;
            }
            DataBuffer::One(value) => value,
            DataBuffer::Joined(joined) => Utf8Bytes::decode(Bytes::from(joined)),
        };
        let event_type = if self.event_type.is_empty() {
            Cow::Borrowed(DEFAULT_EVENT_TYPE)
        } else {
            Cow::Owned(std::mem::take(&mut self.event_type))
        };
        out.push(Ok(SseEvent {
            event_type,
            data,
            last_event_id: self.last_event_id.clone(),
            retry,
        }));
    }

    /// Drops the event being read without dispatching it: its data, type,
    /// `id` and per-event `retry` have no effect. (A valid `retry` already
    /// set the stream's reconnection time, as WHATWG applies it at once.)
    /// Returns whether an event was being read.
    pub(super) fn discard_event(&mut self) -> bool {
        let was_in_event = self.in_event;
        self.data = DataBuffer::Empty;
        self.data_len = 0;
        self.event_type.clear();
        self.pending_id = None;
        self.event_retry = None;
        self.in_event = false;
        was_in_event
    }
}

/// WHATWG "UTF-8 decode" of a field value: borrowed when already valid.
fn decode(value: &[u8]) -> Cow<'_, str> {
    // `from_utf8` first: much cheaper than the lossy decoder on short valid
    // values, which is what servers send.
    match std::str::from_utf8(value) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(value),
    }
}

/// A `retry` value: only ASCII digits (and at least one), base ten,
/// saturating at `u64::MAX` ms.
fn parse_retry(value: &[u8]) -> Option<u64> {
    if value.is_empty() || !value.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(value.iter().fold(0u64, |ms, digit| {
        ms.saturating_mul(10)
            .saturating_add(u64::from(digit - b'0'))
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(bytes: &[u8]) -> Line<'_> {
        Line { bytes, chunk: None }
    }

    fn run(lines: &[&[u8]]) -> (Interpreter, Vec<SseEvent>) {
        let mut interp = Interpreter::default();
        let mut out = Vec::new();
        for line in lines {
            interp.line(plain(line), &mut out);
        }
        let events = out
            .into_iter()
            .map(|item| item.expect("interpreter never errors"))
            .collect();
        (interp, events)
    }

    #[test]
    fn data_lines_join_with_lf_and_one_space_is_removed() {
        let (_, events) = run(&[b"data: a", b"data:b", b"data:  c", b""]);
        assert_eq!(events.len(), 1);
        assert_eq!(events[0].data, "a\nb\n c");
        assert_eq!(events[0].event_type, "message");
    }

    #[test]
    fn line_without_colon_is_a_field_with_empty_value() {
        let (_, events) = run(&[b"data", b"data", b""]);
        assert_eq!(events[0].data, "\n");
        let (interp, _) = run(&[b"id: 3", b"", b"id", b""]);
        assert_eq!(interp.last_event_id(), "");
    }

    #[test]
    fn overlong_ids_and_types_are_not_kept() {
        let long_id = format!("id: {}", "x".repeat(MAX_EVENT_ID_BYTES + 1));
        let long_type = format!("event: {}", "t".repeat(MAX_EVENT_TYPE_BYTES + 1));
        let (interp, events) = run(&[
            b"id: 7",
            b"",
            long_id.as_bytes(),
            long_type.as_bytes(),
            b"data: x",
            b"",
        ]);
        assert_eq!(interp.last_event_id(), "7", "the over-long id is ignored");
        assert_eq!(events.len(), 1);
        assert_eq!(events[0].event_type, OVERLONG_EVENT_TYPE);
        assert!(!events[0].is_message());
    }

    #[test]
    fn comments_are_counted_not_interpreted() {
        let (interp, events) = run(&[b": keep-alive", b":data: x", b"", b":"]);
        assert!(events.is_empty());
        assert_eq!(interp.comments(), 3);
        assert!(!interp.in_event);
    }

    #[test]
    fn event_field_sets_type_and_resets_after_dispatch() {
        let (_, events) = run(&[b"event: ping", b"data: 1", b"", b"data: 2", b""]);
        assert_eq!(events[0].event_type, "ping");
        assert_eq!(events[1].event_type, "message");
        let (_, events) = run(&[b"event:", b"data: x", b""]);
        assert_eq!(events[0].event_type, "message");
        // The type of an event without data does not leak into the next one.
        let (_, events) = run(&[b"event: ping", b"", b"data: y", b""]);
        assert_eq!(events[0].event_type, "message");
    }

    #[test]
    fn fast_paths_match_the_generic_field_split() {
        // `event: message` after another type resets it to "message".
        let (_, events) = run(&[b"event: ping", b"event: message", b"data: x", b""]);
        assert_eq!(events[0].event_type, "message");
        // `id:` with no space, one space (removed) and two (one kept).
        let (_, events) = run(&[
            b"id:7", b"data: a", b"", b"id: 8", b"data: b", b"", b"id:  9", b"data: c", b"",
        ]);
        let ids: Vec<_> = events.iter().map(|e| e.last_event_id.as_str()).collect();
        assert_eq!(ids, ["7", "8", " 9"]);
        // Not the fast paths: other names sharing a prefix.
        let (interp, events) = run(&[b"ids: 1", b"event: messages", b"data: d", b""]);
        assert_eq!(interp.last_event_id(), "");
        assert_eq!(events[0].event_type, "messages");
    }

    #[test]
    fn id_with_nul_is_ignored() {
        let (interp, events) = run(&[b"id: 1", b"id: 2\0x", b"data: d", b""]);
        assert_eq!(events[0].last_event_id, "1");
        assert_eq!(interp.last_event_id(), "1");
    }

    #[test]
    fn id_persists_across_events_and_only_commits_on_blank_line() {
        let (interp, events) = run(&[b"id: a", b"data: 1", b"", b"data: 2", b"", b"id: b"]);
        assert_eq!(events[0].last_event_id, "a");
        assert_eq!(events[1].last_event_id, "a");
        assert_eq!(interp.last_event_id(), "a");
        assert!(interp.in_event);
    }

    #[test]
    fn retry_needs_only_ascii_digits() {
        for bad in [
            &b"retry: soon"[..],
            b"retry:",
            b"retry: 12a",
            b"retry: -1",
            b"retry:  5",
        ] {
            let (interp, _) = run(&[bad, b""]);
            assert_eq!(interp.retry(), None, "{:?}", String::from_utf8_lossy(bad));
        }
        let (interp, events) = run(&[b"retry: 2500", b"data: x", b"", b"data: y", b""]);
        assert_eq!(interp.retry(), Some(Duration::from_millis(2500)));
        assert_eq!(events[0].retry, Some(Duration::from_millis(2500)));
        assert_eq!(events[1].retry, None);
        let (interp, _) = run(&[b"retry: 99999999999999999999999", b""]);
        assert_eq!(interp.retry(), Some(Duration::from_millis(u64::MAX)));
    }

    #[test]
    fn unknown_fields_are_ignored() {
        let (_, events) = run(&[
            b"x-unknown: 1",
            b"Data: no",
            b"data : no",
            b"data: yes",
            b"",
        ]);
        assert_eq!(events.len(), 1);
        assert_eq!(events[0].data, "yes");
    }

    #[test]
    fn empty_data_buffer_does_not_dispatch_but_updates_id() {
        let (interp, events) = run(&[b"id: p", b"event: x", b""]);
        assert!(events.is_empty());
        assert_eq!(interp.last_event_id(), "p");
    }

    #[test]
    fn empty_data_line_dispatches_empty_data() {
        let (_, events) = run(&[b"data:", b""]);
        assert_eq!(events.len(), 1);
        assert_eq!(events[0].data, "");
    }

    #[test]
    fn invalid_utf8_becomes_replacement_character() {
        let (_, events) = run(&[b"data: a\xFFb\xE2\x80", b"event: \xC3", b""]);
        assert_eq!(events[0].data, "a\u{FFFD}b\u{FFFD}");
        assert_eq!(events[0].event_type, "\u{FFFD}");
    }

    #[test]
    fn discard_event_reverts_id_and_data() {
        let mut interp = Interpreter::default();
        let mut out = Vec::new();
        for line in [&b"id: 1"[..], b"", b"id: 2", b"retry: 9", b"data: x"] {
            interp.line(plain(line), &mut out);
        }
        assert!(interp.discard_event());
        assert_eq!(interp.data_len(), 0);
        interp.line(plain(b""), &mut out);
        assert!(out.is_empty());
        assert_eq!(interp.last_event_id(), "1");
        assert_eq!(interp.retry(), Some(Duration::from_millis(9)));
    }
}
