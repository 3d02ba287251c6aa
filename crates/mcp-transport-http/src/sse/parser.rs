//! Framing: bytes in arbitrary chunks to complete lines (WHATWG "Parsing an
//! event stream"): the leading BOM, the three line ends, the size limit and
//! the skip-to-boundary recovery. Complete lines go to the [`Interpreter`].
//!
//! Each input byte is looked at once by the line-end search (`memchr2`); a
//! line that lies wholly inside one chunk is handed on as a slice of that
//! chunk (with the chunk's [`Bytes`], when fed with
//! [`SseParser::feed_bytes`], so that values can be kept without a copy),
//! and only a line split across chunks is copied, into one reused buffer; a
//! long one (a large result) is then handed on in that buffer, so it is
//! copied once in all.

use std::time::Duration;

use bytes::Bytes;

use super::interpret::{Interpreter, Line};
use super::{SseEnd, SseError, SseEvent, SseLimits};

/// The UTF-8 byte order mark, stripped once at stream start.
const BOM: &[u8; 3] = b"\xEF\xBB\xBF";

/// A line split across chunks at least this long (bytes) is handed on in
/// the buffer it was joined in, without a copy; a shorter one is copied out
/// of a buffer that is kept for the next split line.
const HAND_OVER_BYTES: usize = 4096;

/// Incremental, I/O-free parser for one `text/event-stream` body at a time.
///
/// Feed it the body's chunks with [`SseParser::feed`] as they arrive (any
/// split is fine, even one byte at a time: the result is the same as for the
/// whole body at once), then call [`SseParser::finish`] at end of stream.
/// After `finish` the parser is ready for the next stream (a reconnection):
/// it keeps [`last_event_id`](SseParser::last_event_id) and
/// [`retry`](SseParser::retry), as WHATWG keeps them across reconnections.
///
/// Time is linear in the input; memory is bounded by
/// [`SseLimits::max_event_size`]. Comment lines (`:` keep-alives) are
/// counted, not kept, so their length is not limited.
#[derive(Debug)]
pub struct SseParser {
    limits: SseLimits,
    bom: BomState,
    /// The previous chunk ended in CR: an LF starting the next chunk belongs
    /// to the same line end.
    pending_cr: bool,
    /// Bytes of a line split across chunks (empty while skipping).
    line: Vec<u8>,
    /// After an over-limit event: discarding lines up to the next blank line.
    skipping: bool,
    /// While skipping: the current line has at least one byte (so its line
    /// end does not make a blank line).
    skip_line_has_bytes: bool,
    interp: Interpreter,
}

/// Progress of stripping the leading BOM.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BomState {
    /// At stream start; this many BOM bytes were seen (and held back) so far.
    Matching(usize),
    /// Past the start of the stream.
    Done,
}

impl Default for SseParser {
    fn default() -> Self {
        Self::new(SseLimits::default())
    }
}

impl SseParser {
    /// A parser at the start of a stream, with no last event ID and no
    /// reconnection time.
    pub fn new(limits: SseLimits) -> Self {
        Self {
            limits,
            bom: BomState::Matching(0),
            pending_cr: false,
            line: Vec::new(),
            skipping: false,
            skip_line_has_bytes: false,
            interp: Interpreter::default(),
        }
    }

    /// The limits this parser enforces.
    pub fn limits(&self) -> SseLimits {
        self.limits
    }

    /// Parses the next chunk of the stream and appends to `out`, in stream
    /// order, every event it completes (`Ok`) and one
    /// [`SseError::EventTooLarge`] per event that exceeded
    /// [`SseLimits::max_event_size`] (that event is dropped; parsing goes on
    /// after the next blank line). Bytes of an unfinished line or event are
    /// kept for the next call. An empty chunk does nothing.
    ///
    /// The values an event keeps (`data`, the id) are copied out of `chunk`;
    /// [`SseParser::feed_bytes`] slices them from a shared buffer instead.
    pub fn feed(&mut self, chunk: &[u8], out: &mut Vec<Result<SseEvent, SseError>>) {
        self.feed_inner(chunk, None, out);
    }

    /// [`SseParser::feed`] for a chunk held as [`Bytes`] (a hyper body
    /// frame, say), without copies: an event whose one `data` line lies
    /// wholly in `chunk` gets a slice of it as its
    /// [`data`](SseEvent::data), and a long `id` likewise (text of up to
    /// [`Utf8Bytes::INLINE_CAPACITY`](super::Utf8Bytes::INLINE_CAPACITY)
    /// bytes is copied inline instead). Such a slice keeps the chunk's
    /// allocation alive while it lives. Several `data` lines, or one split
    /// across chunks, are joined into a new buffer. The result is the same
    /// as with [`SseParser::feed`], for any split of the stream.
    ///
    /// ```
    /// use bytes::Bytes;
    /// use mcp_transport_http::sse::SseParser;
    ///
    /// let chunk = Bytes::from_static(b"id: 1\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n");
    /// let mut parser = SseParser::default();
    /// let mut out = Vec::new();
    /// parser.feed_bytes(&chunk, &mut out);
    /// let event = out.remove(0).expect("within limits");
    /// assert_eq!(event.data, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}");
    /// assert_eq!(event.data.as_bytes().as_ptr(), chunk[12..].as_ptr()); // no copy
    /// assert_eq!(event.id(), Some("1"));
    /// let frame: Bytes = event.data.into_bytes(); // what the dispatcher takes
    /// assert_eq!(frame.as_ptr(), chunk[12..].as_ptr());
    /// ```
    pub fn feed_bytes(&mut self, chunk: &Bytes, out: &mut Vec<Result<SseEvent, SseError>>) {
        self.feed_inner(chunk, Some(chunk), out);
    }

    /// Strips the BOM at stream start, then frames the rest. `shared`, when
    /// given, holds `chunk`.
    fn feed_inner(
        &mut self,
        chunk: &[u8],
        shared: Option<&Bytes>,
        out: &mut Vec<Result<SseEvent, SseError>>,
    ) {
        let BomState::Matching(seen) = self.bom else {
            self.frame(chunk, shared, out);
            return;
        };
        let want = &BOM[seen..];
        let matched = chunk
            .iter()
            .zip(want)
            .take_while(|(got, want)| got == want)
            .count();
        if matched == want.len() {
            self.bom = BomState::Done;
            self.frame(&chunk[matched..], shared, out);
        } else if matched == chunk.len() {
            // Still a BOM prefix; wait for more bytes.
            self.bom = BomState::Matching(seen + matched);
        } else {
            // Not a BOM: the bytes held back from earlier chunks are the start
            // of the first line, followed by this whole chunk.
            self.bom = BomState::Done;
            self.frame(&BOM[..seen], None, out);
            self.frame(chunk, shared, out);
        }
    }

    /// Ends the stream (EOF): an unfinished line or event is discarded, as
    /// WHATWG says, and any `id` in it does not update the last event ID.
    /// Returns whether that happened, so a transport can tell that the server
    /// closed the stream in the middle of an event.
    ///
    /// The parser is then reset for a new stream (the BOM is expected again);
    /// the last event ID, the reconnection time and the comment count are
    /// kept.
    pub fn finish(&mut self) -> SseEnd {
        let partial_line = match self.bom {
            BomState::Matching(seen) => seen > 0,
            // A partial comment line loses no event.
            BomState::Done => self.line.first().is_some_and(|&b| b != b':'),
        };
        let in_event = self.interp.discard_event();
        let end = if !self.skipping && (in_event || partial_line) {
            SseEnd::IncompleteEventDiscarded
        } else {
            SseEnd::Complete
        };
        self.bom = BomState::Matching(0);
        self.pending_cr = false;
        self.line.clear();
        self.skipping = false;
        self.skip_line_has_bytes = false;
        end
    }

    /// The last event ID (WHATWG "last event ID string") as of the last blank
    /// line: what to send as `Last-Event-ID` when resuming. `None` if no `id`
    /// field was seen or the last one was empty.
    ///
    /// Validates the id's UTF-8 again (at most 1 KiB, see
    /// [`Utf8Bytes::as_str`](super::Utf8Bytes::as_str)); the id itself, shared
    /// with the events, is [`SseParser::last_event_id_text`].
    pub fn last_event_id(&self) -> Option<&str> {
        let id = self.interp.last_event_id();
        (!id.is_empty()).then(|| id.as_str())
    }

    /// The last event ID as [`Utf8Bytes`](super::Utf8Bytes) (empty when
    /// none): the buffer the events carry, without a copy.
    pub fn last_event_id_text(&self) -> &super::Utf8Bytes {
        self.interp.last_event_id()
    }

    /// The reconnection time from the last valid `retry` field (milliseconds
    /// on the wire), `None` if there was none. Applied as soon as its line is
    /// complete, as WHATWG says, even in an event that is not dispatched.
    /// Not clamped here: the transport's backoff policy clamps it.
    pub fn retry(&self) -> Option<Duration> {
        self.interp.retry()
    }

    /// Number of comment lines (starting with `:`) seen so far, across
    /// streams. Servers send them as keep-alives; a transport may compare
    /// this before and after [`feed`](SseParser::feed) to refresh an idle
    /// timer. Saturates at `u64::MAX`.
    pub fn comments_seen(&self) -> u64 {
        self.interp.comments()
    }

    /// Splits `input` (past the BOM) into lines. `shared`, when given,
    /// holds `input`.
    fn frame(
        &mut self,
        mut input: &[u8],
        shared: Option<&Bytes>,
        out: &mut Vec<Result<SseEvent, SseError>>,
    ) {
        if input.is_empty() {
            return;
        }
        if self.pending_cr {
            self.pending_cr = false;
            if input[0] == b'\n' {
                input = &input[1..];
            }
        }
        while let Some(end) = find_line_end(input) {
            let (part, rest) = input.split_at(end);
            self.complete_line(part, shared, out);
            input = match rest {
                [b'\r', b'\n', tail @ ..] => tail,
                [b'\r'] => {
                    // Maybe the first half of a CRLF: the line is complete
                    // either way, but an LF next must not count as a line end.
                    self.pending_cr = true;
                    &[]
                }
                [_, tail @ ..] => tail,
                [] => &[],
            };
        }
        self.partial_line(input, out);
    }

    /// A line end was found; `part` is the line's bytes in this chunk
    /// (`shared` holds them, if given).
    fn complete_line(
        &mut self,
        part: &[u8],
        shared: Option<&Bytes>,
        out: &mut Vec<Result<SseEvent, SseError>>,
    ) {
        if self.skipping {
            if part.is_empty() && !self.skip_line_has_bytes {
                // Blank line: the discarded event ends here.
                self.skipping = false;
            }
            self.skip_line_has_bytes = false;
            return;
        }
        if self
            .line
            .first()
            .map_or(part.first() == Some(&b':'), |&b| b == b':')
        {
            // A comment: only its `:` was kept (see `partial_line`); it
            // counts, whatever its length.
            self.line.clear();
            let comment = Line {
                bytes: b":",
                chunk: None,
            };
            self.interp.line(comment, out);
            return;
        }
        if self.over_limit(self.line.len() + part.len()) {
            self.line.clear();
            self.overflow(false, out);
            return;
        }
        if self.line.is_empty() {
            let line = Line {
                bytes: part,
                chunk: shared,
            };
            self.interp.line(line, out);
        } else if self.line.len() + part.len() >= HAND_OVER_BYTES {
            // A long line split across chunks (a large result): the joined
            // buffer becomes the event's data, instead of being copied once
            // more and kept for reuse.
            self.line.extend_from_slice(part);
            let joined = Bytes::from(std::mem::take(&mut self.line));
            let line = Line {
                bytes: &joined,
                chunk: Some(&joined),
            };
            self.interp.line(line, out);
        } else {
            self.line.extend_from_slice(part);
            let joined = std::mem::take(&mut self.line);
            let line = Line {
                bytes: &joined,
                chunk: None,
            };
            self.interp.line(line, out);
            self.line = joined;
            self.line.clear();
        }
    }

    /// The chunk ended inside a line; keep `part` for the next chunk.
    fn partial_line(&mut self, part: &[u8], out: &mut Vec<Result<SseEvent, SseError>>) {
        if part.is_empty() {
            return;
        }
        if self.skipping {
            self.skip_line_has_bytes = true;
            return;
        }
        // A comment's text is never used: keep its `:` only, so that a
        // long one (or an endless keep-alive line) costs no memory and no
        // event is lost to the size limit for it.
        if self.line.first() == Some(&b':') {
            return;
        }
        if self.line.is_empty() && part.first() == Some(&b':') {
            self.line.push(b':');
            return;
        }
        if self.over_limit(self.line.len() + part.len()) {
            self.line.clear();
            self.overflow(true, out);
            return;
        }
        self.line.extend_from_slice(part);
    }

    /// Whether the event would exceed the limit with a line of `line_len`
    /// bytes being read.
    fn over_limit(&self, line_len: usize) -> bool {
        self.interp.data_len().saturating_add(line_len) > self.limits.max_event_size
    }

    /// Reports the event once, drops it and skips to the next blank line.
    fn overflow(&mut self, mid_line: bool, out: &mut Vec<Result<SseEvent, SseError>>) {
        out.push(Err(SseError::EventTooLarge {
            limit: self.limits.max_event_size,
        }));
        self.interp.discard_event();
        self.skipping = true;
        self.skip_line_has_bytes = mid_line;
    }
}

/// Position of the first LF or CR in `input`.
///
/// A `data` line (usually the long one) goes straight to `memchr2`. The
/// other lines are short (`id: 17`, `event: message`, the blank line), so
/// their first 16 bytes are looked at eight at a time before paying for
/// `memchr2`'s setup. (Sending `data` lines through those 16 bytes first
/// measured 10% slower on `mcp-bench sse`.)
fn find_line_end(input: &[u8]) -> Option<usize> {
    if input.starts_with(b"data:") {
        // Usually the long line of an event: straight to memchr2.
        return memchr::memchr2(b'\n', b'\r', input);
    }
    for offset in [0, 8] {
        let Some(word) = input.get(offset..).and_then(<[u8]>::first_chunk::<8>) else {
            return memchr::memchr2(b'\n', b'\r', &input[offset..]).map(|at| offset + at);
        };
        let word = u64::from_le_bytes(*word);
        let hits = zero_bytes(word ^ EVERY_LF) | zero_bytes(word ^ EVERY_CR);
        if hits != 0 {
            // Little-endian: the lowest flagged byte comes first.
            return Some(offset + (hits.trailing_zeros() / 8) as usize);
        }
    }
    memchr::memchr2(b'\n', b'\r', &input[16..]).map(|at| 16 + at)
}

/// `0x01` in every byte of a word.
const EVERY_BYTE: u64 = 0x0101_0101_0101_0101;
/// LF in every byte of a word.
const EVERY_LF: u64 = EVERY_BYTE * b'\n' as u64;
/// CR in every byte of a word.
const EVERY_CR: u64 = EVERY_BYTE * b'\r' as u64;

/// The high bit set in each byte of `word` that may be zero: the lowest one
/// flagged is exactly the first zero byte (a borrow can only flag bytes
/// above a real zero), which is all [`find_line_end`] uses.
const fn zero_bytes(word: u64) -> u64 {
    word.wrapping_sub(EVERY_BYTE) & !word & (EVERY_BYTE << 7)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_end_search_finds_the_first_lf_or_cr() {
        // Short lines (the word path), and long ones (memchr2's vector loop
        // and its tail), with and without the `data:` shortcut.
        for len in (0..40).chain([63, 64, 65, 127, 128, 129, 300, 1000]) {
            let mut line = vec![b'x'; len];
            assert_eq!(find_line_end(&line), None);
            let mut prefixed = b"data:".to_vec();
            prefixed.extend_from_slice(&line);
            assert_eq!(find_line_end(&prefixed), None);
            for at in (0..len).filter(|at| len < 40 || at % 7 == 0 || at + 2 > len) {
                for end in [b'\n', b'\r'] {
                    line[at] = end;
                    // Other bytes that a borrow could confuse, after the end.
                    for (i, byte) in line.iter_mut().enumerate().skip(at + 1) {
                        *byte = [0x0B, 0x0C, 0x0E, 0x00, b'\n', 0x8D][i % 6];
                    }
                    assert_eq!(find_line_end(&line), Some(at), "len {len}, end at {at}");
                    prefixed.truncate(5);
                    prefixed.extend_from_slice(&line);
                    assert_eq!(find_line_end(&prefixed), Some(5 + at), "data: + len {len}");
                    line.fill(b'x');
                }
            }
        }
        assert_eq!(
            find_line_end(b"\x0B\x0C\x0E\x09\x8A\x8D\x00\x01\rx"),
            Some(8)
        );
        for (line, end) in [
            (&b"data:\n"[..], Some(5)),
            (b"data: x\r\n", Some(7)),
            (b"data: 0123456789abcdef", None),
            (b"data", None),
            (b"dat\n", Some(3)),
        ] {
            assert_eq!(find_line_end(line), end, "{line:?}");
        }
    }

    fn feed_all(parser: &mut SseParser, chunks: &[&[u8]]) -> Vec<Result<SseEvent, SseError>> {
        let mut out = Vec::new();
        for chunk in chunks {
            parser.feed(chunk, &mut out);
        }
        out
    }

    fn datas(items: &[Result<SseEvent, SseError>]) -> Vec<Result<&str, SseError>> {
        items
            .iter()
            .map(|item| item.as_ref().map(|e| e.data.as_str()).map_err(Clone::clone))
            .collect()
    }

    #[test]
    fn lf_crlf_and_lone_cr_end_lines() {
        for stream in [
            &b"data: a\n\ndata: b\n\n"[..],
            b"data: a\r\n\r\ndata: b\r\n\r\n",
            b"data: a\r\rdata: b\r\r",
            b"data: a\r\n\rdata: b\n\r\n",
        ] {
            let mut parser = SseParser::default();
            let out = feed_all(&mut parser, &[stream]);
            assert_eq!(datas(&out), [Ok("a"), Ok("b")], "{stream:?}");
        }
    }

    #[test]
    fn cr_then_lf_in_next_chunk_is_one_line_end() {
        let mut parser = SseParser::default();
        let out = feed_all(&mut parser, &[b"data: a\r", b"\ndata: b\r", b"\n\r", b"\n"]);
        assert_eq!(datas(&out), [Ok("a\nb")]);
        // An empty chunk in between keeps the pending CR.
        let mut parser = SseParser::default();
        let out = feed_all(&mut parser, &[b"data: a\r", b"", b"\ndata: b\n\n"]);
        assert_eq!(datas(&out), [Ok("a\nb")]);
    }

    #[test]
    fn cr_at_chunk_end_dispatches_without_waiting() {
        let mut parser = SseParser::default();
        let out = feed_all(&mut parser, &[b"data: a\r\r"]);
        assert_eq!(datas(&out), [Ok("a")]);
        let out = feed_all(&mut parser, &[b"\ndata: b\n\n"]);
        assert_eq!(datas(&out), [Ok("b")]);
    }

    #[test]
    fn bom_is_stripped_once_even_when_split() {
        for chunks in [
            &[&b"\xEF\xBB\xBFdata: a\n\n"[..]][..],
            &[b"\xEF", b"\xBB", b"\xBF", b"data: a\n\n"],
            &[b"\xEF\xBB", b"\xBFdata: a\n\n"],
            &[b"", b"\xEF", b"", b"\xBB\xBFdata: a\n\n"],
        ] {
            let mut parser = SseParser::default();
            assert_eq!(datas(&feed_all(&mut parser, chunks)), [Ok("a")]);
        }
        // A second BOM is part of the first line: field name "\u{FEFF}data".
        let mut parser = SseParser::default();
        let out = feed_all(
            &mut parser,
            &[b"\xEF\xBB\xBF\xEF\xBB\xBFdata: a\n\ndata: b\n\n"],
        );
        assert_eq!(datas(&out), [Ok("b")]);
        // A BOM after the start is not stripped.
        let mut parser = SseParser::default();
        let out = feed_all(&mut parser, &[b"\n", b"\xEF\xBB\xBFdata: a\n\ndata: b\n\n"]);
        assert_eq!(datas(&out), [Ok("b")]);
    }

    #[test]
    fn bom_prefix_that_is_not_a_bom_is_kept() {
        let mut parser = SseParser::default();
        let out = feed_all(&mut parser, &[b"\xEF\xBB", b"\ndata: a\n\n"]);
        assert_eq!(datas(&out), [Ok("a")]);
        let mut parser = SseParser::default();
        let out = feed_all(&mut parser, &[b"\xEF", b"data: a\n\n"]);
        assert!(out.is_empty(), "the first line is an unknown field");
        let mut parser = SseParser::default();
        let out = feed_all(&mut parser, &[b"data: \xEF\xBB\xBF\n\n"]);
        assert_eq!(datas(&out), [Ok("\u{FEFF}")]);
    }

    #[test]
    fn utf8_split_across_chunks_decodes_after_framing() {
        let mut parser = SseParser::default();
        let out = feed_all(
            &mut parser,
            &[
                b"data: caf\xC3",
                b"\xA9 \xE2\x80",
                b"\x94 \xF0\x9F\x98",
                b"\x80\n\n",
            ],
        );
        assert_eq!(datas(&out), [Ok("café — 😀")]);
    }

    #[test]
    fn finish_reports_a_discarded_event() {
        let cases: [(&[u8], SseEnd); 8] = [
            (b"", SseEnd::Complete),
            (b"data: a\n\n", SseEnd::Complete),
            (b": ping\n", SseEnd::Complete),
            (b": pi", SseEnd::Complete),
            (b"data: a\n", SseEnd::IncompleteEventDiscarded),
            (b"data: a", SseEnd::IncompleteEventDiscarded),
            (b"id: 9\n", SseEnd::IncompleteEventDiscarded),
            (b"\xEF\xBB", SseEnd::IncompleteEventDiscarded),
        ];
        for (stream, expected) in cases {
            let mut parser = SseParser::default();
            let out = feed_all(&mut parser, &[stream]);
            assert!(out.iter().all(Result::is_ok));
            assert_eq!(parser.finish(), expected, "{stream:?}");
        }
    }

    #[test]
    fn finish_discards_uncommitted_id_and_resets_for_next_stream() {
        let mut parser = SseParser::default();
        let out = feed_all(
            &mut parser,
            &[b"id: 1\nretry: 50\ndata: a\n\nid: 2\ndata: b"],
        );
        assert_eq!(datas(&out), [Ok("a")]);
        assert!(parser.finish().is_incomplete());
        assert_eq!(parser.last_event_id(), Some("1"));
        assert_eq!(parser.retry(), Some(Duration::from_millis(50)));
        // The next stream may start with a BOM again, and "data: b" is gone.
        let out = feed_all(&mut parser, &[b"\xEF\xBB\xBFdata: c\n\n"]);
        assert_eq!(datas(&out), [Ok("c")]);
        assert_eq!(out[0].as_ref().map(|e| e.id()), Ok(Some("1")));
    }

    #[test]
    fn finish_resets_pending_cr() {
        let mut parser = SseParser::default();
        let out = feed_all(&mut parser, &[b"data: a\r"]);
        assert!(out.is_empty());
        assert!(parser.finish().is_incomplete());
        // A new stream starting with LF: that LF is a blank line.
        let out = feed_all(&mut parser, &[b"data: b\n", b"\n"]);
        assert_eq!(datas(&out), [Ok("b")]);
    }

    #[test]
    fn over_limit_event_yields_one_error_and_recovers() {
        let limits = SseLimits::default().with_max_event_size(16);
        let too_large = Err(SseError::EventTooLarge { limit: 16 });
        // Data accumulated over several lines, in one chunk and byte by byte.
        let stream: &[u8] = b"data: 0123456\ndata: 789abcdef\ndata: more\nid: x\n\ndata: ok\n\n";
        let mut whole = SseParser::new(limits);
        let out = feed_all(&mut whole, &[stream]);
        assert_eq!(datas(&out), [too_large.clone(), Ok("ok")]);
        assert_eq!(
            whole.last_event_id(),
            None,
            "the dropped event's id is dropped"
        );
        let mut bytes = SseParser::new(limits);
        let chunks: Vec<&[u8]> = stream.chunks(1).collect();
        assert_eq!(datas(&feed_all(&mut bytes, &chunks)), datas(&out));

        // One long line that never ends within the chunk: the buffer stays bounded.
        let mut parser = SseParser::new(limits);
        let mut out = Vec::new();
        parser.feed(b"data: ", &mut out);
        for _ in 0..1000 {
            parser.feed(b"xxxxxxxxxxxxxxxx", &mut out);
            assert!(parser.line.len() <= 16);
        }
        parser.feed(b"\r\n\r\n: c\ndata: after\n\n", &mut out);
        assert_eq!(datas(&out), [too_large.clone(), Ok("after")]);
        assert_eq!(parser.comments_seen(), 1);
        assert_eq!(parser.finish(), SseEnd::Complete);
    }

    #[test]
    fn limit_is_inclusive_and_counts_data_plus_line() {
        // "data: " + 10 bytes = 16 bytes line; data buffer then holds 11.
        let limits = SseLimits::default().with_max_event_size(16);
        let mut parser = SseParser::new(limits);
        let out = feed_all(&mut parser, &[b"data: 0123456789\n\n"]);
        assert_eq!(datas(&out), [Ok("0123456789")]);
        // 11 bytes of data plus a 6-byte line "data:x" = 17 > 16.
        let out = feed_all(&mut parser, &[b"data: 0123456789\ndata:x\n\ndata: y\n\n"]);
        assert_eq!(
            datas(&out),
            [Err(SseError::EventTooLarge { limit: 16 }), Ok("y")]
        );
        // Any single line counts, but comments: they are not kept.
        let out = feed_all(
            &mut parser,
            &[b"id:01234567890123456\ndata: z\n\ndata: w\n\n"],
        );
        assert_eq!(
            datas(&out),
            [Err(SseError::EventTooLarge { limit: 16 }), Ok("w")]
        );
        let out = feed_all(
            &mut parser,
            &[b":01234567890123456\ndata: z\n\ndata: w\n\n"],
        );
        assert_eq!(datas(&out), [Ok("z"), Ok("w")]);
    }

    /// A comment line of any length, split across any number of chunks,
    /// is counted and costs no buffer (found by a hostile server: a 100 MiB
    /// `:` line failed the response after it with `MessageTooLarge`).
    #[test]
    fn long_comment_lines_are_counted_not_kept() {
        let mut parser = SseParser::new(SseLimits::default().with_max_event_size(16));
        let mut out = Vec::new();
        parser.feed(b": keep", &mut out);
        for _ in 0..1000 {
            parser.feed(b"-alive-alive-alive", &mut out);
            assert!(parser.line.len() <= 1);
        }
        parser.feed(b"\r\ndata: ok\n\n:", &mut out);
        parser.feed(b"x\r", &mut out);
        parser.feed(b"\ndata: y\n\n", &mut out);
        assert_eq!(datas(&out), [Ok("ok"), Ok("y")]);
        assert_eq!(parser.comments_seen(), 2);
        assert_eq!(parser.finish(), SseEnd::Complete);
    }

    #[test]
    fn over_limit_at_end_of_stream_is_not_reported_twice() {
        let mut parser = SseParser::new(SseLimits::default().with_max_event_size(4));
        let out = feed_all(&mut parser, &[b"data: 123456"]);
        assert_eq!(datas(&out), [Err(SseError::EventTooLarge { limit: 4 })]);
        assert_eq!(parser.finish(), SseEnd::Complete);
    }

    #[test]
    fn default_limit_is_64_mib() {
        assert_eq!(
            SseParser::default().limits().max_event_size,
            64 * 1024 * 1024
        );
    }
}
