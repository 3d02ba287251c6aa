//! Newline-delimited framing of the server's stdout (spec:
//! `basic/transports` § stdio: "Messages are delimited by newlines, and MUST
//! NOT contain embedded newlines"). No I/O here: bytes in, frames out.
//!
//! - Lines are split on the raw byte `\n`; one trailing `\r` is stripped
//!   (Windows servers, case B16); blank lines are skipped (B14).
//! - UTF-8 is not decoded here: a frame is the line's bytes, decoded as a
//!   whole later, so a character split across reads is intact (B05).
//! - A line longer than the limit yields one [`Frame::TooLong`] carrying its
//!   first [`TOO_LONG_PREFIX`] bytes; the rest of it, up to the next `\n`, is
//!   discarded without being stored (B15). Memory stays bounded by the limit.
//! - Each input byte is examined once, by `memchr`'s line-end search: linear
//!   in the input, whatever the chunking. A line that lies wholly inside one
//!   read is handed out as a slice of it ([`LineFramer::next_frame`]); only a
//!   line split across reads is copied, into a buffer that keeps its capacity
//!   (up to [`RETAINED_LINE_CAPACITY`]) from one such line to the next.

use mcp_types::RequestId;

/// How many leading bytes of an over-long line are kept, for diagnosis and
/// to find its `"id"` ([`sniff_id`]): 4096 bytes.
pub const TOO_LONG_PREFIX: usize = 4096;

/// One unit of the server's output, owned (see [`LineFramer::push`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame {
    /// A complete, non-blank line without its `\n` / `\r\n`.
    Line(Vec<u8>),
    /// A line exceeded the limit; it is being discarded up to the next `\n`.
    TooLong {
        /// Its first bytes (at most [`TOO_LONG_PREFIX`]).
        prefix: Vec<u8>,
        /// The limit it exceeded, in bytes.
        limit: usize,
    },
}

/// One unit of the server's output, borrowed where it can be (see
/// [`LineFramer::next_frame`]): a line that lies wholly inside one read is a
/// slice of that read, a line split across reads a slice of the framer's
/// buffer. Either way it is valid until the next call on the framer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FrameRef<'a> {
    /// A complete, non-blank line without its `\n` / `\r\n`.
    Line(&'a [u8]),
    /// A line exceeded the limit; it is being discarded up to the next `\n`.
    TooLong {
        /// Its first bytes (at most [`TOO_LONG_PREFIX`]).
        prefix: Vec<u8>,
        /// The limit it exceeded, in bytes.
        limit: usize,
    },
}

impl FrameRef<'_> {
    /// The owned [`Frame`] (copies a line).
    pub fn into_owned(self) -> Frame {
        match self {
            FrameRef::Line(line) => Frame::Line(line.to_vec()),
            FrameRef::TooLong { prefix, limit } => Frame::TooLong { prefix, limit },
        }
    }
}

/// Capacity the line buffer keeps between lines split across reads, so it
/// does not regrow from empty for each one: 1 MiB. A longer line's buffer is
/// released once the line is handed out.
pub const RETAINED_LINE_CAPACITY: usize = 1 << 20;

/// Splits a byte stream into [`Frame`]s. See the module docs.
#[derive(Debug)]
pub struct LineFramer {
    /// The start of a line split across reads.
    buf: Vec<u8>,
    /// `buf` holds a line handed out by `next_frame`; cleared on the next call.
    emitted: bool,
    max_line_bytes: usize,
    discard: Option<Discard>,
}

/// An over-long line being skipped.
#[derive(Debug)]
struct Discard {
    /// Its first bytes, up to [`TOO_LONG_PREFIX`].
    prefix: Vec<u8>,
    /// Whether its `TooLong` frame was emitted.
    reported: bool,
}

/// What one line (without its `\n`) becomes.
enum Complete {
    Blank,
    Line(usize),
    TooLong(usize),
}

impl LineFramer {
    /// A framer accepting lines of up to `max_line_bytes` bytes (excluding
    /// the line end).
    pub fn new(max_line_bytes: usize) -> Self {
        LineFramer {
            buf: Vec::new(),
            emitted: false,
            max_line_bytes,
            discard: None,
        }
    }

    /// The configured limit, in bytes.
    pub fn max_line_bytes(&self) -> usize {
        self.max_line_bytes
    }

    /// Bytes of an incomplete line currently buffered.
    pub fn buffered(&self) -> usize {
        if self.emitted { 0 } else { self.buf.len() }
    }

    /// Feeds `chunk`, appending every frame it completes to `out` (owned
    /// copies; [`next_frame`](Self::next_frame) avoids the copy).
    pub fn push(&mut self, mut chunk: &[u8], out: &mut Vec<Frame>) {
        while let Some(frame) = self.next_frame(&mut chunk) {
            out.push(frame.into_owned());
        }
    }

    /// Reads from `input` up to the end of the next frame and returns it, or
    /// consumes all of `input` and returns `None` (an unfinished line is
    /// kept for the next call). Call it again with the rest of `input` until
    /// it returns `None`. The line end is found with `memchr`; a line that
    /// lies wholly inside `input` is returned as a slice of it, without a
    /// copy.
    pub fn next_frame<'r, 's: 'r, 'c: 'r>(
        &'s mut self,
        input: &mut &'c [u8],
    ) -> Option<FrameRef<'r>> {
        if self.emitted {
            self.emitted = false;
            if self.buf.capacity() > RETAINED_LINE_CAPACITY {
                self.buf = Vec::new();
            } else {
                self.buf.clear();
            }
        }
        loop {
            let chunk: &'c [u8] = input;
            if chunk.is_empty() {
                return None;
            }
            let newline = memchr::memchr(b'\n', chunk);
            let (segment, rest, ends_line) = match newline {
                Some(i) => (&chunk[..i], &chunk[i + 1..], true),
                None => (chunk, &chunk[chunk.len()..], false),
            };
            *input = rest;
            if let Some(discard) = &mut self.discard {
                let mut frame = None;
                if !discard.reported {
                    let keep = (TOO_LONG_PREFIX - discard.prefix.len()).min(segment.len());
                    discard.prefix.extend_from_slice(&segment[..keep]);
                    frame = self.report_if_ready(ends_line);
                }
                if ends_line {
                    self.discard = None;
                }
                match frame {
                    Some(frame) => return Some(frame),
                    None => continue,
                }
            }
            // One byte of slack for a '\r' that may precede the '\n'.
            if self.buf.len() + segment.len() > self.max_line_bytes.saturating_add(1) {
                let mut prefix = Vec::with_capacity(TOO_LONG_PREFIX);
                let from_buf = self.buf.len().min(TOO_LONG_PREFIX);
                prefix.extend_from_slice(&self.buf[..from_buf]);
                self.buf.clear();
                let keep = (TOO_LONG_PREFIX - prefix.len()).min(segment.len());
                prefix.extend_from_slice(&segment[..keep]);
                self.discard = Some(Discard {
                    prefix,
                    reported: false,
                });
                let frame = self.report_if_ready(ends_line);
                if ends_line {
                    self.discard = None;
                }
                match frame {
                    Some(frame) => return Some(frame),
                    None => continue,
                }
            }
            if !ends_line {
                self.buf.extend_from_slice(segment);
                continue;
            }
            if self.buf.is_empty() {
                // The whole line is in this read: hand out a slice of it.
                match self.complete(segment) {
                    Complete::Blank => continue,
                    Complete::Line(len) => return Some(FrameRef::Line(&segment[..len])),
                    Complete::TooLong(len) => return Some(self.too_long(&segment[..len])),
                }
            }
            self.buf.extend_from_slice(segment);
            match self.complete(&self.buf) {
                Complete::Blank => self.buf.clear(),
                Complete::Line(len) => {
                    self.emitted = true;
                    return Some(FrameRef::Line(&self.buf[..len]));
                }
                Complete::TooLong(len) => {
                    let frame = self.too_long(&self.buf[..len]);
                    self.buf.clear();
                    return Some(frame);
                }
            }
        }
    }

    /// Classifies a complete line: one trailing `\r` stripped, blank lines
    /// skipped, the limit checked.
    fn complete(&self, line: &[u8]) -> Complete {
        let len = match line.last() {
            Some(b'\r') => line.len() - 1,
            _ => line.len(),
        };
        if len > self.max_line_bytes {
            Complete::TooLong(len)
        } else if line[..len].iter().all(u8::is_ascii_whitespace) {
            Complete::Blank
        } else {
            Complete::Line(len)
        }
    }

    fn too_long(&self, line: &[u8]) -> FrameRef<'static> {
        FrameRef::TooLong {
            prefix: line[..line.len().min(TOO_LONG_PREFIX)].to_vec(),
            limit: self.max_line_bytes,
        }
    }

    /// The pending `TooLong`, once its prefix is complete: full, or the line
    /// ended. The prefix is then the same however the input was chunked.
    fn report_if_ready(&mut self, ends_line: bool) -> Option<FrameRef<'static>> {
        let discard = self.discard.as_mut()?;
        if discard.reported || !(ends_line || discard.prefix.len() >= TOO_LONG_PREFIX) {
            return None;
        }
        discard.reported = true;
        let mut prefix = std::mem::take(&mut discard.prefix);
        if ends_line && prefix.last() == Some(&b'\r') {
            prefix.pop();
        }
        Some(FrameRef::TooLong {
            prefix,
            limit: self.max_line_bytes,
        })
    }

    /// Ends the stream: a final line without `\n` is emitted as a frame
    /// (lenient), and the framer is reset.
    pub fn finish(&mut self, out: &mut Vec<Frame>) {
        if self.emitted {
            self.emitted = false;
            self.buf.clear();
        }
        if self.discard.is_some() {
            if let Some(frame) = self.report_if_ready(true) {
                out.push(frame.into_owned());
            }
        } else if !self.buf.is_empty() {
            match self.complete(&self.buf) {
                Complete::Blank => {}
                Complete::Line(len) => out.push(Frame::Line(self.buf[..len].to_vec())),
                Complete::TooLong(len) => out.push(self.too_long(&self.buf[..len]).into_owned()),
            }
        }
        self.buf = Vec::new();
        self.discard = None;
    }
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
        Frame::Line(s.as_bytes().to_vec())
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
    fn a_line_inside_one_read_is_a_slice_of_it() {
        let mut f = LineFramer::new(100);
        let data = b"{\"a\":1}\r\n\n{\"b\":2}\n{\"c\"";
        let mut input = &data[..];
        let first = f.next_frame(&mut input);
        let Some(FrameRef::Line(line)) = first else {
            panic!("expected a line, got {first:?}");
        };
        assert_eq!(line, b"{\"a\":1}");
        assert_eq!(line.as_ptr(), data.as_ptr(), "no copy");
        assert_eq!(
            f.next_frame(&mut input),
            Some(FrameRef::Line(&b"{\"b\":2}"[..]))
        );
        assert_eq!(f.next_frame(&mut input), None);
        assert!(input.is_empty());
        assert_eq!(f.buffered(), 4);
        let mut rest = &b":3}\n"[..];
        assert_eq!(
            f.next_frame(&mut rest),
            Some(FrameRef::Line(&b"{\"c\":3}"[..]))
        );
        assert_eq!(f.buffered(), 0, "a handed-out line is not pending input");
    }

    #[test]
    fn the_split_line_buffer_keeps_its_capacity() {
        let mut f = LineFramer::new(1 << 20);
        let mut none = Vec::new();
        f.push(&[b'x'; 50_000], &mut none);
        f.push(b"x\n", &mut none);
        let capacity = f.buf.capacity();
        assert!(capacity >= 50_001);
        f.push(&[b'y'; 50_000], &mut none);
        assert_eq!(f.buf.capacity(), capacity, "no regrowth from empty");
        f.push(b"\n", &mut none);
        assert_eq!(none.len(), 2);
        assert_eq!(none[1], Frame::Line(vec![b'y'; 50_000]));
    }

    #[test]
    fn a_huge_split_line_releases_its_buffer() {
        let mut f = LineFramer::new(4 << 20);
        let mut out = Vec::new();
        f.push(&vec![b'x'; RETAINED_LINE_CAPACITY + 10], &mut out);
        f.push(b"\nok\n", &mut out);
        assert_eq!(out.len(), 2);
        assert!(f.buf.capacity() <= RETAINED_LINE_CAPACITY);
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

    proptest! {
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
