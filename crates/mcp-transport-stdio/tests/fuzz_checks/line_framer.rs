//! Fuzz check of `LineFramer` and `sniff_id`, shared by the cargo-fuzz
//! target `line_framer` (`cargo xtask fuzz line_framer`, inputs up to 16 KiB
//! to reach lines past the 4 KiB `TOO_LONG_PREFIX`) and by
//! `tests/fuzz_corpus.rs`, which replays the kept corpus on stable.
//!
//! Input: byte 0 picks the line limit, byte 1 the chunk size, the rest is the
//! stream. Checks: no panic; the frames are those of a plain model of the
//! rules (split on `\n`, strip one `\r`, skip blank lines, an over-long line
//! is one `TooLong` with its first bytes, a last line without `\n` counts);
//! they do not depend on the chunking, fed with `push` or read into
//! `read_buffer` as the transport does; every line is within the limit and
//! holds no `\n`; every prefix is bounded and starts its line.

use mcp_transport_stdio::framing::{Frame, LineFramer, TOO_LONG_PREFIX, sniff_id};

fn frames<'a>(max: usize, chunks: impl Iterator<Item = &'a [u8]>) -> Vec<Frame> {
    let mut framer = LineFramer::new(max);
    let mut out = Vec::new();
    for chunk in chunks {
        framer.push(chunk, &mut out);
    }
    framer.finish(&mut out);
    out
}

/// The transport's way in: bytes appended to `read_buffer`, then
/// `next_frame` until it has nothing.
fn frames_read<'a>(max: usize, chunks: impl Iterator<Item = &'a [u8]>) -> Vec<Frame> {
    let mut framer = LineFramer::new(max);
    let mut out = Vec::new();
    for chunk in chunks {
        framer.read_buffer().extend_from_slice(chunk);
        while let Some(frame) = framer.next_frame() {
            out.push(frame);
        }
    }
    framer.finish(&mut out);
    out
}

/// The rules, applied to the whole stream as plainly as possible.
fn model(max: usize, stream: &[u8]) -> Vec<Frame> {
    let mut out = Vec::new();
    let mut lines: Vec<&[u8]> = stream.split(|&b| b == b'\n').collect();
    // The piece after the last `\n`: a line when it has bytes (lenient EOF).
    if lines.last().is_some_and(|tail| tail.is_empty()) {
        lines.pop();
    }
    for line in lines {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.len() > max {
            out.push(Frame::TooLong {
                prefix: line[..line.len().min(TOO_LONG_PREFIX)].to_vec(),
                limit: max,
            });
        } else if !line.iter().all(u8::is_ascii_whitespace) {
            out.push(Frame::Line(bytes::Bytes::copy_from_slice(line)));
        }
    }
    out
}

/// Runs the check on one fuzz input (see the module docs).
pub(crate) fn check(data: &[u8]) {
    if data.len() < 2 {
        return;
    }
    let max = data[0] as usize * 37;
    let chunk = (data[1] as usize).max(1);
    let stream = &data[2..];
    let whole = frames(max, std::iter::once(stream));
    assert_eq!(whole, model(max, stream), "against the model");
    let chunked = frames(max, stream.chunks(chunk));
    assert_eq!(whole, chunked);
    let read = frames_read(max, stream.chunks(chunk));
    assert_eq!(whole, read, "through read_buffer");
    for frame in &whole {
        match frame {
            Frame::Line(line) => {
                assert!(line.len() <= max);
                assert!(!line.contains(&b'\n'));
            }
            Frame::TooLong { prefix, .. } => {
                assert!(prefix.len() <= TOO_LONG_PREFIX);
                let _ = sniff_id(prefix);
            }
        }
    }
    let _ = sniff_id(stream);
}
