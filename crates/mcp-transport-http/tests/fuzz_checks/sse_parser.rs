//! Fuzz check of the WHATWG event-stream parser, shared by the cargo-fuzz
//! target `sse_parser` (`cargo xtask fuzz sse_parser`, with inputs up to
//! 16 KiB to reach lines of 4 KiB and more: split long lines are handed
//! over, not copied) and by `tests/fuzz_corpus.rs`, which replays the kept
//! corpus on stable.
//!
//! Input layout: byte 0 picks the event size limit (128 and above: the
//! default limit), byte 1 the number `n` of chunk lengths that follow
//! (`n % 16`), then `n` bytes of chunk lengths (0 is an empty chunk; the
//! lengths repeat until the stream is used up), then the stream itself.
//!
//! Checks: the stream fed in those chunks, fed whole and fed one byte at a
//! time gives the same events, errors, last event ID, reconnection time,
//! comment count and end-of-stream outcome, through both entries
//! (`feed_bytes`, zero-copy, and `feed`, copying); with the default limit,
//! the result is the plain whole-stream model's (`src/sse/reference.rs`,
//! shared with the unit tests), so a fault that every chunking shares is
//! caught too. The parser must not panic.

use bytes::Bytes;
use mcp_transport_http::sse::{SseEnd, SseError, SseEvent, SseLimits, SseParser};
use std::time::Duration;

use crate::reference;

type Observed = (
    Vec<Result<SseEvent, SseError>>,
    Option<String>,
    Option<Duration>,
    u64,
    SseEnd,
);

/// Parses with the zero-copy entry (`feed_bytes`, each chunk a slice of
/// `stream`, as a network read hands over pieces of one buffer), or with
/// `feed` when `copying`.
fn observe<'a>(
    limits: SseLimits,
    copying: bool,
    stream: &Bytes,
    chunks: impl Iterator<Item = &'a [u8]>,
) -> Observed {
    let mut parser = SseParser::new(limits);
    let mut out = Vec::new();
    for chunk in chunks {
        if copying {
            parser.feed(chunk, &mut out);
        } else {
            parser.feed_bytes(&stream.slice_ref(chunk), &mut out);
        }
    }
    let id = parser.last_event_id().map(str::to_owned);
    let retry = parser.retry();
    let comments = parser.comments_seen();
    (out, id, retry, comments, parser.finish())
}

/// Splits `stream` into chunks of the given lengths, repeated.
fn chunked<'a>(stream: &'a [u8], lengths: &'a [u8]) -> impl Iterator<Item = &'a [u8]> {
    let mut rest = stream;
    let mut lengths = lengths.iter().cycle();
    let mut empties = 0usize;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let len = usize::from(*lengths.next().unwrap_or(&u8::MAX));
        if len == 0 {
            // Bound the run of empty chunks when every length is 0.
            empties += 1;
            if empties > 4 {
                empties = 0;
                let (head, tail) = rest.split_at(1);
                rest = tail;
                return Some(head);
            }
        } else {
            empties = 0;
        }
        let (head, tail) = rest.split_at(len.min(rest.len()));
        rest = tail;
        Some(head)
    })
}

/// Runs the check on one fuzz input (see the module docs).
pub(crate) fn check(input: &[u8]) {
    let [limit_byte, count, rest @ ..] = input else {
        return;
    };
    let limit = match limit_byte {
        0..=127 => usize::from(*limit_byte),
        _ => SseLimits::DEFAULT_MAX_EVENT_SIZE,
    };
    let limits = SseLimits::default().with_max_event_size(limit);
    let count = usize::from(count % 16).min(rest.len());
    let (lengths, stream) = rest.split_at(count);

    let shared = Bytes::copy_from_slice(stream);
    let stream = &shared[..];
    let whole = observe(limits, false, &shared, std::iter::once(stream));
    let in_chunks = observe(limits, false, &shared, chunked(stream, lengths));
    assert_eq!(in_chunks, whole, "chunked {lengths:?}");
    let copying = observe(limits, true, &shared, chunked(stream, lengths));
    assert_eq!(copying, whole, "copying, chunked {lengths:?}");
    let bytewise = observe(limits, false, &shared, stream.chunks(1));
    assert_eq!(bytewise, whole, "byte by byte");

    // The default limit (64 MiB) is beyond any input here: the model applies.
    if *limit_byte >= 128 {
        let (events, id, retry) = reference::reference(stream);
        let (out, got_id, got_retry, _, _) = &whole;
        let got: Vec<reference::RefEvent> = out
            .iter()
            .map(|item| {
                let event = item.as_ref().expect("no event reaches the default limit");
                reference::RefEvent {
                    event_type: event.event_type.to_string(),
                    data: event.data.as_str().to_owned(),
                    last_event_id: event.last_event_id.as_str().to_owned(),
                    retry: event.retry,
                }
            })
            .collect();
        assert_eq!(got, events, "against the model");
        assert_eq!(got_id.clone().unwrap_or_default(), id);
        assert_eq!(*got_retry, retry);
    }
}
