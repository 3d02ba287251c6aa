//! The WHATWG event-stream algorithm ("Parsing an event stream",
//! "Interpreting an event stream") applied to a whole stream, written as
//! plainly as possible: decode, strip the BOM, split lines, interpret. No
//! size limit, but this crate's two caps: an `id` longer than [`ID_CAP`]
//! bytes is ignored (like one with a NUL), and an `event` type longer than
//! [`TYPE_CAP`] bytes becomes [`OVERLONG_TYPE`].
//!
//! Not part of the library: the parser's unit tests use it, and the fuzz
//! target (`fuzz/fuzz_targets/sse_parser.rs`) includes this file by path, so
//! it uses nothing but `std`.

use std::time::Duration;

/// Mirrors `interpret::MAX_EVENT_ID_BYTES` (a unit test holds them equal).
pub(crate) const ID_CAP: usize = 1024;
/// Mirrors `interpret::MAX_EVENT_TYPE_BYTES`.
pub(crate) const TYPE_CAP: usize = 256;
/// The type of an event whose `event` field was longer than [`TYPE_CAP`].
pub(crate) const OVERLONG_TYPE: &str = "overlong-event-type";

/// A dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RefEvent {
    /// The event type (`"message"` when none was given).
    pub(crate) event_type: String,
    /// The data lines joined with `\n`.
    pub(crate) data: String,
    /// The last event ID at dispatch.
    pub(crate) last_event_id: String,
    /// A valid `retry` among the event's own lines.
    pub(crate) retry: Option<Duration>,
}

/// Runs the algorithm on `stream`; returns the events, the last event ID
/// and the reconnection time at the end.
///
/// Lines are split on the raw bytes and each value is decoded on its own:
/// the same text as decoding the whole stream first (a line end is ASCII,
/// so it ends any invalid sequence before it), while the caps can count
/// bytes as they came.
pub(crate) fn reference(stream: &[u8]) -> (Vec<RefEvent>, String, Option<Duration>) {
    let stream = stream.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(stream);
    let mut lines: Vec<&[u8]> = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < stream.len() {
        match stream[i] {
            b'\r' => {
                lines.push(&stream[start..i]);
                if stream.get(i + 1) == Some(&b'\n') {
                    i += 1;
                }
                start = i + 1;
            }
            b'\n' => {
                lines.push(&stream[start..i]);
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    // `stream[start..]` is an unterminated line: discarded at EOF.
    let (mut events, mut data, mut event_type) = (Vec::new(), String::new(), String::new());
    let (mut id_buffer, mut last_id, mut retry, mut event_retry) =
        (String::new(), String::new(), None, None);
    for line in lines {
        if line.is_empty() {
            last_id = id_buffer.clone();
            let this_retry = event_retry.take();
            if data.is_empty() {
                event_type.clear();
                continue;
            }
            data.pop();
            let event_type = match std::mem::take(&mut event_type) {
                t if t.is_empty() => "message".to_owned(),
                t => t,
            };
            events.push(RefEvent {
                event_type,
                data: std::mem::take(&mut data),
                last_event_id: last_id.clone(),
                retry: this_retry,
            });
            continue;
        }
        if line.first() == Some(&b':') {
            continue;
        }
        let (name, value) = match line.iter().position(|&b| b == b':') {
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &b""[..]),
        };
        let text = String::from_utf8_lossy(value);
        match name {
            b"event" if value.len() > TYPE_CAP => event_type = OVERLONG_TYPE.to_owned(),
            b"event" => event_type = text.into_owned(),
            b"data" => {
                data.push_str(&text);
                data.push('\n');
            }
            b"id" if !value.contains(&0) && value.len() <= ID_CAP => id_buffer = text.into_owned(),
            b"retry" if !value.is_empty() && value.iter().all(u8::is_ascii_digit) => {
                let ms = text.parse::<u64>().unwrap_or(u64::MAX);
                retry = Some(Duration::from_millis(ms));
                event_retry = retry;
            }
            _ => {}
        }
    }
    (events, last_id, retry)
}
