//! Newline-delimited framing of the server's stdout (spec:
//! `basic/transports` § stdio: "Messages are delimited by newlines, and MUST
//! NOT contain embedded newlines"). No I/O here: bytes in, frames out.
//!
//! - Lines are split on the raw byte `\n`; one trailing `\r` is stripped
//!   (Windows servers); blank lines are skipped (servers that pad
//!   their output).
//! - One UTF-8 byte order mark opening the stream (.NET and Mono servers
//!   write one) is stripped from the first line, with one warning
//!   ([`mcp_transport::bom`]); a mark anywhere else is part of its line.
//! - UTF-8 is not decoded here: a frame is the line's bytes, decoded as a
//!   whole later, so a character split across reads is intact.
//! - A line longer than the limit yields one [`Frame::TooLong`] carrying its
//!   first [`TOO_LONG_PREFIX`] bytes; the rest of it, up to the next `\n`, is
//!   discarded without being stored. Memory stays bounded by the limit.
//! - The transport reads straight into the framer's buffer
//!   ([`LineFramer::read_buffer`]) and every line is handed out as a
//!   [`Bytes`] slice of it: no copy from the read to the dispatcher, which
//!   keeps slices of the same bytes as raw results. Each input
//!   byte is examined once by `memchr`'s line-end search, whatever the
//!   chunking. A line longer than the free space is moved once into a
//!   buffer at least twice its size, so its copies stay within a constant
//!   factor of its length.

use bytes::{Buf, Bytes, BytesMut};
use mcp_types::RequestId;

/// How many leading bytes of an over-long line are kept, for diagnosis and
/// to find its `"id"` ([`sniff_id`]): 4096 bytes.
pub const TOO_LONG_PREFIX: usize = 4096;

/// The free space [`LineFramer::read_buffer`] provides for one read: at
/// least 256 KiB, so a response of that size is read in one call.
pub const READ_CHUNK: usize = 256 * 1024;

/// Below this much free space the read buffer is grown before a read: 4 KiB.
const MIN_SPARE: usize = 4 * 1024;

/// One unit of the server's output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame {
    /// A complete, non-blank line without its `\n` / `\r\n`: a slice of the
    /// bytes read, not a copy.
    Line(Bytes),
    /// A line exceeded the limit; it is being discarded up to the next `\n`.
    TooLong {
        /// Its first bytes (at most [`TOO_LONG_PREFIX`]).
        prefix: Vec<u8>,
        /// The limit it exceeded, in bytes.
        limit: usize,
    },
}

/// Splits a byte stream into [`Frame`]s. See the module docs.
#[derive(Debug)]
pub struct LineFramer {
    /// Bytes read and not yet handed out: at most one incomplete line once
    /// [`next_frame`](Self::next_frame) returned `None`.
    buf: BytesMut,
    /// Leading bytes of `buf` already searched for `\n` (none found).
    scanned: usize,
    max_line_bytes: usize,
    discard: Option<Discard>,
    /// No line was split off yet: the next one is the first of the stream,
    /// where a byte order mark is stripped.
    at_start: bool,
    /// Names the stream in the byte order mark's warning.
    source: Box<str>,
}

/// An over-long line being skipped.
#[derive(Debug)]
struct Discard {
    /// Its first bytes, up to [`TOO_LONG_PREFIX`].
    prefix: Vec<u8>,
    /// Whether its `TooLong` frame was emitted.
    reported: bool,
    /// Whether the line has bytes past `prefix` (so a `\r` ending the
    /// prefix is part of the line, not its line end).
    truncated: bool,
}

impl LineFramer {
    /// A framer accepting lines of up to `max_line_bytes` bytes (excluding
    /// the line end).
    pub fn new(max_line_bytes: usize) -> Self {
        LineFramer {
            buf: BytesMut::new(),
            scanned: 0,
            max_line_bytes,
            discard: None,
            at_start: true,
            source: "a stdio server's stdout".into(),
        }
    }

    /// Names the stream (say, "the stdout of stdio server X") in the one
    /// warning logged when a byte order mark opens it.
    pub fn with_source(mut self, source: impl Into<String>) -> Self {
        self.source = source.into().into_boxed_str();
        self
    }

    /// The configured limit, in bytes.
    pub fn max_line_bytes(&self) -> usize {
        self.max_line_bytes
    }

    /// Bytes of an incomplete line currently buffered.
    pub fn buffered(&self) -> usize {
        self.buf.len()
    }

    /// The buffer to read the next chunk into (append only, e.g. with
    /// `AsyncReadExt::read_buf`), with at least 4 KiB free and usually
    /// [`READ_CHUNK`]; then call [`next_frame`](Self::next_frame) until it
    /// returns `None`.
    pub fn read_buffer(&mut self) -> &mut BytesMut {
        if self.buf.capacity() - self.buf.len() < MIN_SPARE {
            // A long incomplete line doubles the buffer: amortized, each
            // byte of it is moved a constant number of times.
            self.buf.reserve(READ_CHUNK.max(self.buf.len()));
        }
        &mut self.buf
    }

    /// Feeds `chunk` (copied into the buffer), appending every frame it
    /// completes to `out`.
    pub fn push(&mut self, chunk: &[u8], out: &mut Vec<Frame>) {
        self.buf.extend_from_slice(chunk);
        while let Some(frame) = self.next_frame() {
            out.push(frame);
        }
    }

    /// The next frame in the bytes read so far, or `None` when they hold
    /// no complete line (an unfinished line is kept for the next read).
    pub fn next_frame(&mut self) -> Option<Frame> {
        loop {
            if let Some(discard) = &mut self.discard {
                let newline = memchr::memchr(b'\n', &self.buf);
                let segment_end = newline.unwrap_or(self.buf.len());
                if !discard.reported {
                    let keep = (TOO_LONG_PREFIX - discard.prefix.len()).min(segment_end);
                    discard.prefix.extend_from_slice(&self.buf[..keep]);
                    discard.truncated |= segment_end > keep;
                }
                match newline {
                    Some(i) => self.buf.advance(i + 1),
                    None => self.buf.clear(),
                }
                let frame = self.report_if_ready(newline.is_some());
                if newline.is_some() {
                    self.discard = None;
                }
                match (frame, newline) {
                    (Some(frame), _) => return Some(frame),
                    (None, Some(_)) => continue,
                    (None, None) => return None,
                }
            }
            let Some(offset) = memchr::memchr(b'\n', &self.buf[self.scanned..]) else {
                self.scanned = self.buf.len();
                // One byte of slack for a '\r' that may precede the '\n'.
                if self.buf.len() > self.max_line_bytes.saturating_add(1) {
                    let first = first_line(&mut self.at_start, &self.source, &self.buf);
                    let keep = first.len().min(TOO_LONG_PREFIX);
                    self.discard = Some(Discard {
                        prefix: first[..keep].to_vec(),
                        reported: false,
                        truncated: first.len() > keep,
                    });
                    self.buf.clear();
                    self.scanned = 0;
                    if let Some(frame) = self.report_if_ready(false) {
                        return Some(frame);
                    }
                }
                return None;
            };
            let end = self.scanned + offset;
            self.scanned = 0;
            let mut line = self.buf.split_to(end + 1);
            line.truncate(end);
            if line.last() == Some(&b'\r') {
                line.truncate(end - 1);
            }
            let skip = line.len() - first_line(&mut self.at_start, &self.source, &line).len();
            line.advance(skip);
            if line.len() > self.max_line_bytes {
                return Some(Frame::TooLong {
                    prefix: line[..line.len().min(TOO_LONG_PREFIX)].to_vec(),
                    limit: self.max_line_bytes,
                });
            }
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            return Some(Frame::Line(line.freeze()));
        }
    }

    /// The pending `TooLong`, once its prefix is complete: the line has a
    /// byte past it, or ended. The prefix is then the same however the
    /// input was chunked (a `\r` at its end is the line end only when
    /// nothing follows it on the line).
    fn report_if_ready(&mut self, ends_line: bool) -> Option<Frame> {
        let discard = self.discard.as_mut()?;
        if discard.reported || !(ends_line || discard.truncated) {
            return None;
        }
        discard.reported = true;
        let mut prefix = std::mem::take(&mut discard.prefix);
        if ends_line && !discard.truncated && prefix.last() == Some(&b'\r') {
            prefix.pop();
        }
        Some(Frame::TooLong {
            prefix,
            limit: self.max_line_bytes,
        })
    }

    /// Ends the stream: a final line without `\n` is emitted as a frame
    /// (lenient), and the framer is reset for a new stream (whose first
    /// line may open with a byte order mark again).
    pub fn finish(&mut self, out: &mut Vec<Frame>) {
        if self.discard.is_some() {
            if let Some(frame) = self.report_if_ready(true) {
                out.push(frame);
            }
        } else if !self.buf.is_empty() {
            self.buf.extend_from_slice(b"\n");
            self.scanned = 0;
            while let Some(frame) = self.next_frame() {
                out.push(frame);
            }
        }
        self.buf = BytesMut::new();
        self.scanned = 0;
        self.discard = None;
        self.at_start = true;
    }
}

/// `line` (the bytes that start a line) without a byte order mark when it
/// is the stream's first line (`at_start`, which is then cleared); later
/// lines are as read.
fn first_line<'a>(at_start: &mut bool, source: &str, line: &'a [u8]) -> &'a [u8] {
    if !std::mem::take(at_start) {
        return line;
    }
    mcp_transport::bom::strip_bom(line, &source)
}

/// Finds the top-level `"id"` member of a JSON object from its first bytes
/// (e.g. the prefix of an over-long line), without parsing the rest.
///
/// Returns a number or string id when the member appears, at nesting depth
/// 1, within `prefix`; `None` otherwise (including when a `result` before it
/// is longer than the prefix).
pub fn sniff_id(prefix: &[u8]) -> Option<RequestId> {
    let mut depth = 0usize;
    let mut i = 0;
    let mut key_start: Option<usize> = None;
    let mut last_key_is_id = false;
    while i < prefix.len() {
        match prefix[i] {
            b'"' => {
                let start = i + 1;
                let end = string_end(prefix, start)?;
                if depth == 1 {
                    key_start = Some(start);
                    last_key_is_id = &prefix[start..end] == b"id";
                }
                i = end + 1;
                continue;
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth = depth.saturating_sub(1),
            b':' if depth == 1 && key_start.is_some() => {
                if last_key_is_id {
                    return parse_id_value(&prefix[i + 1..]);
                }
                key_start = None;
            }
            b',' => key_start = None,
            _ => {}
        }
        i += 1;
    }
    None
}

/// The index of the closing quote of a string starting at `start`.
fn string_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut j = start;
    while j < bytes.len() {
        match bytes[j] {
            b'\\' => j += 2,
            b'"' => return Some(j),
            _ => j += 1,
        }
    }
    None
}

fn parse_id_value(rest: &[u8]) -> Option<RequestId> {
    let start = rest.iter().position(|b| !b.is_ascii_whitespace())?;
    let rest = &rest[start..];
    if rest.first() == Some(&b'"') {
        let end = string_end(rest, 1)?;
        let s: String = serde_json::from_slice(&rest[..=end]).ok()?;
        return Some(RequestId::String(s));
    }
    let end = rest
        .iter()
        .position(|b| !(b.is_ascii_digit() || *b == b'-'))
        .unwrap_or(rest.len());
    if end == rest.len() {
        return None; // the number may continue past the prefix
    }
    std::str::from_utf8(&rest[..end])
        .ok()?
        .parse::<i64>()
        .ok()
        .map(RequestId::Number)
}

/// The first 200 characters of `bytes`, lossily decoded, for a log line
/// about a line that was not kept.
pub(crate) fn preview(bytes: &[u8]) -> String {
    let cut = &bytes[..bytes.len().min(200)];
    let mut s = String::from_utf8_lossy(cut).into_owned();
    if bytes.len() > 200 {
        s.push('…');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn frames(max: usize, chunks: &[&[u8]]) -> Vec<Frame> {
        let mut f = LineFramer::new(max);
        let mut out = Vec::new();
        for c in chunks {
            f.push(c, &mut out);
        }
        f.finish(&mut out);
        out
    }

    fn line(s: &str) -> Frame {
        Frame::Line(Bytes::copy_from_slice(s.as_bytes()))
    }

    #[test]
    fn a_byte_order_mark_opening_the_stream_is_stripped_however_split() {
        let stream = b"\xEF\xBB\xBF{\"a\":1}\r\n\xEF\xBB\xBF{\"b\":2}\n";
        let want = vec![line("{\"a\":1}"), line("\u{feff}{\"b\":2}")];
        for cut in 0..stream.len() {
            let (head, tail) = stream.split_at(cut);
            assert_eq!(frames(100, &[head, tail]), want, "cut at {cut}");
        }
        let bytewise: Vec<&[u8]> = stream.chunks(1).collect();
        assert_eq!(frames(100, &bytewise), want);
        // A mark alone on the first line leaves a blank line: skipped.
        assert_eq!(frames(100, &[b"\xEF\xBB\xBF\r\n{}\n"]), vec![line("{}")]);
        // After a first line, even a blank one, a mark is text.
        assert_eq!(
            frames(100, &[b"\n\xEF\xBB\xBF{}\n"]),
            vec![line("\u{feff}{}")]
        );
        // An over-long first line's prefix has no mark either.
        assert_eq!(
            frames(4, &[b"\xEF\xBB\xBF{\"id\":7,\"result\":1}\n"]),
            vec![Frame::TooLong {
                prefix: b"{\"id\":7,\"result\":1}".to_vec(),
                limit: 4
            }]
        );
        // A final line without its line end, and a new stream after finish.
        let mut f = LineFramer::new(100);
        let mut out = Vec::new();
        f.push(b"\xEF\xBB\xBF{}", &mut out);
        f.finish(&mut out);
        f.push(b"\xEF\xBB\xBF[]\n", &mut out);
        assert_eq!(out, vec![line("{}"), line("[]")]);
    }

    #[test]
    fn splits_on_lf_strips_one_cr_skips_blank() {
        let out = frames(100, &[b"a\r\n\r\n\nb\n  \nc\r\r\n"]);
        assert_eq!(out, vec![line("a"), line("b"), line("c\r")]);
    }

    #[test]
    fn utf8_split_across_chunks_is_intact() {
        let out = frames(100, &[b"caf\xC3", b"\xA9 \xE2\x80", b"\x94\n"]);
        assert_eq!(out, vec![line("café —")]);
    }

    #[test]
    fn over_long_line_is_discarded_and_reading_goes_on() {
        let mut f = LineFramer::new(8);
        let mut out = Vec::new();
        f.push(b"{\"id\":7,", &mut out);
        f.push(b"\"x\":\"aaaaaaaa", &mut out);
        f.push(b"aaaaaaaaaaaaaaaaaa", &mut out);
        assert!(f.buffered() == 0, "discarded bytes are not stored");
        f.push(b"aaa\"}\nok\n", &mut out);
        assert_eq!(
            out,
            vec![
                Frame::TooLong {
                    prefix: b"{\"id\":7,\"x\":\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"}".to_vec(),
                    limit: 8
                },
                line("ok")
            ]
        );
    }

    #[test]
    fn too_long_is_reported_once_the_prefix_is_full() {
        let mut f = LineFramer::new(8);
        let mut out = Vec::new();
        f.push(&[b'a'; TOO_LONG_PREFIX + 10], &mut out);
        assert_eq!(out.len(), 1, "reported before the line ends");
        assert!(f.buffered() == 0, "discarded bytes are not stored");
        f.push(&[b'a'; 100_000], &mut out);
        f.push(b"a\nok\n", &mut out);
        assert_eq!(out.len(), 2);
        assert_eq!(out[1], line("ok"));
    }

    #[test]
    fn limit_is_inclusive_and_excludes_crlf() {
        assert_eq!(frames(3, &[b"abc\r\n"]), vec![line("abc")]);
        assert!(matches!(frames(3, &[b"abcd\n"])[0], Frame::TooLong { .. }));
        assert!(matches!(
            frames(3, &[b"abcd\r\n"])[0],
            Frame::TooLong { .. }
        ));
    }

    #[test]
    fn lines_are_slices_of_the_read_buffer() {
        let mut f = LineFramer::new(100);
        let data = b"{\"a\":1}\r\n\n{\"b\":2}\n{\"c\"";
        f.read_buffer().extend_from_slice(data);
        let start = f.buf.as_ptr();
        let Some(Frame::Line(first)) = f.next_frame() else {
            panic!("expected a line");
        };
        assert_eq!(&first[..], b"{\"a\":1}");
        assert_eq!(first.as_ptr(), start, "no copy");
        assert_eq!(f.next_frame(), Some(line("{\"b\":2}")));
        assert_eq!(f.next_frame(), None);
        assert_eq!(f.buffered(), 4);
        f.read_buffer().extend_from_slice(b":3}\n");
        assert_eq!(f.next_frame(), Some(line("{\"c\":3}")));
        assert_eq!(f.buffered(), 0, "a handed-out line is not pending input");
    }

    /// A line longer than the free space grows the buffer geometrically:
    /// a 1 MiB line read 4 KiB at a time is moved O(1) times per byte,
    /// never once per read.
    #[test]
    fn a_long_line_grows_the_buffer_geometrically() {
        let mut f = LineFramer::new(4 << 20);
        let mut grows = 0;
        let mut capacity = 0;
        for _ in 0..256 {
            let buf = f.read_buffer();
            if buf.capacity() != capacity {
                grows += 1;
                capacity = buf.capacity();
            }
            buf.extend_from_slice(&[b'x'; 4096]);
            assert_eq!(f.next_frame(), None);
        }
        f.read_buffer().extend_from_slice(b"\n");
        let Some(Frame::Line(l)) = f.next_frame() else {
            panic!("expected the line")
        };
        assert_eq!(l.len(), 1 << 20);
        assert!(grows <= 8, "{grows} reallocations for a 1 MiB line");
    }

    #[test]
    fn unterminated_last_line_is_emitted() {
        assert_eq!(frames(10, &[b"a\nb"]), vec![line("a"), line("b")]);
    }

    #[test]
    fn sniffs_top_level_id() {
        assert_eq!(
            sniff_id(br#"{"jsonrpc":"2.0","id":42,"result":{"#),
            Some(RequestId::Number(42))
        );
        assert_eq!(
            sniff_id(br#"{ "id" : "a\"b", "result"#),
            Some(RequestId::String("a\"b".into()))
        );
        assert_eq!(
            sniff_id(br#"{"result":{"id":5,"x":"aaaa"#),
            None,
            "nested ids are not the message id"
        );
        assert_eq!(
            sniff_id(br#"{"result":{"id":5},"id":6,"#),
            Some(RequestId::Number(6))
        );
        assert_eq!(
            sniff_id(br#"{"x":"\"id\":3","id":4}"#),
            Some(RequestId::Number(4))
        );
        assert_eq!(sniff_id(br#"{"id":12"#), None, "number may be cut");
        assert_eq!(sniff_id(b"not json at all"), None);
        assert_eq!(sniff_id(br#"{"id":null,"#), None);
    }

    /// Input for the framer properties: short lines, blank and CRLF lines,
    /// and lines of about [`TOO_LONG_PREFIX`] bytes with a `\r` near the
    /// prefix's end (where the prefix of an over-long line is cut).
    fn framer_input() -> impl Strategy<Value = Vec<u8>> {
        let piece = prop_oneof![
            proptest::collection::vec(
                prop_oneof![Just(b'\n'), Just(b'\r'), Just(b'a'), any::<u8>()],
                0..40
            ),
            (
                TOO_LONG_PREFIX - 3..TOO_LONG_PREFIX + 3,
                any::<bool>(),
                any::<bool>()
            )
                .prop_map(|(len, cr, lf)| {
                    let mut line = vec![b'x'; len];
                    if cr {
                        line.push(b'\r');
                    }
                    if lf {
                        line.push(b'\n');
                    }
                    line
                }),
        ];
        proptest::collection::vec(piece, 0..6).prop_map(|p| p.concat())
    }

    /// Feeds `data` the transport's way: `chunks` bytes at a time into
    /// `read_buffer()`, then `next_frame()` until `None`. Checks the bound
    /// on what stays buffered after each read.
    fn frames_via_read_buffer(max: usize, data: &[u8], chunks: &[usize]) -> Vec<Frame> {
        let mut f = LineFramer::new(max);
        let mut out = Vec::new();
        let mut rest = data;
        let mut sizes = chunks.iter().cycle();
        while !rest.is_empty() {
            let n = (*sizes.next().unwrap_or(&1)).clamp(1, rest.len());
            let buf = f.read_buffer();
            assert!(
                buf.capacity() - buf.len() >= MIN_SPARE,
                "read_buffer has room"
            );
            buf.extend_from_slice(&rest[..n]);
            rest = &rest[n..];
            while let Some(frame) = f.next_frame() {
                out.push(frame);
            }
            // At most one incomplete line within the limit (plus a '\r')
            // is kept; a line being discarded keeps nothing.
            assert!(
                f.buffered() <= max + 1,
                "{} buffered, limit {max}",
                f.buffered()
            );
            if f.discard.is_some() {
                assert_eq!(f.buffered(), 0, "discarded bytes are not stored");
            }
        }
        f.finish(&mut out);
        out
    }

    /// Regression: an over-long line's prefix depended on the chunking
    /// when a `\r` sat at its last kept byte: cut by the line end (fed
    /// whole: stripped) or by the prefix size (in pieces: kept), and the
    /// other way round for a longer line.
    #[test]
    fn too_long_prefix_ignores_chunking_at_a_cr() {
        let mut exact = vec![b'x'; TOO_LONG_PREFIX - 1];
        exact.extend_from_slice(b"\r\nok\n");
        let mut longer = vec![b'x'; TOO_LONG_PREFIX - 1];
        longer.extend_from_slice(b"\ryy\nok\n");
        for data in [exact, longer] {
            let whole = frames(8, &[&data]);
            let at_prefix = frames(8, &[&data[..TOO_LONG_PREFIX], &data[TOO_LONG_PREFIX..]]);
            let early = frames(8, &[&data[..10], &data[10..]]);
            assert_eq!(at_prefix, whole);
            assert_eq!(early, whole);
            let Frame::TooLong { prefix, .. } = &whole[0] else {
                panic!("{whole:?}")
            };
            let line_len = data.iter().position(|&b| b == b'\n').unwrap_or(0);
            let line = &data[..line_len];
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            assert_eq!(&prefix[..], &line[..line.len().min(TOO_LONG_PREFIX)]);
        }
    }

    proptest! {
        /// The transport's way of feeding the framer (`read_buffer` +
        /// `next_frame`, reads of any size) gives the frames `push` gives
        /// for the whole input, with at most the limit buffered.
        #[test]
        fn read_buffer_reads_match_push(
            data in framer_input(),
            chunks in proptest::collection::vec(1usize..5000, 1..8),
            max in prop_oneof![0usize..40, Just(TOO_LONG_PREFIX - 1), Just(TOO_LONG_PREFIX), Just(TOO_LONG_PREFIX + 1)],
        ) {
            let whole = frames(max, &[&data]);
            prop_assert_eq!(frames_via_read_buffer(max, &data, &chunks), whole);
        }

        /// Chunk-boundary independence: any split of the input gives the
        /// same frames as feeding it whole.
        #[test]
        fn chunking_does_not_matter(
            data in proptest::collection::vec(
                prop_oneof![Just(b'\n'), Just(b'\r'), Just(b'a'), Just(b'{'), any::<u8>()], 0..300),
            cuts in proptest::collection::vec(0usize..300, 0..20),
            max in 0usize..40,
        ) {
            let whole = frames(max, &[&data]);
            let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(data.len())).collect();
            cuts.sort_unstable();
            let mut pieces = Vec::new();
            let mut last = 0;
            for c in cuts {
                pieces.push(&data[last..c]);
                last = c;
            }
            pieces.push(&data[last..]);
            prop_assert_eq!(frames(max, &pieces), whole.clone());
            for f in &whole {
                match f {
                    Frame::Line(l) => prop_assert!(l.len() <= max && !l.contains(&b'\n')),
                    Frame::TooLong { prefix, .. } => prop_assert!(prefix.len() <= TOO_LONG_PREFIX),
                }
            }
        }
    }
}
