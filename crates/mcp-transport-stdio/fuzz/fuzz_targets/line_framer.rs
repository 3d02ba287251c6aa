//! Fuzzes `LineFramer` and `sniff_id`:
//! `cargo +nightly fuzz run line_framer` (from crates/mcp-transport-stdio/fuzz).
//!
//! Input: byte 0 picks the line limit, byte 1 the chunk size, the rest is the
//! stream. Checks: no panic; the frames do not depend on the chunking; every
//! line is within the limit and holds no `\n`; every prefix is bounded.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_transport_stdio::framing::{Frame, LineFramer, TOO_LONG_PREFIX, sniff_id};

fn frames(max: usize, chunks: impl Iterator<Item = Vec<u8>>) -> Vec<Frame> {
    let mut framer = LineFramer::new(max);
    let mut out = Vec::new();
    for chunk in chunks {
        framer.push(&chunk, &mut out);
    }
    framer.finish(&mut out);
    out
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 2 {
        return;
    }
    let max = data[0] as usize * 37;
    let chunk = (data[1] as usize).max(1);
    let stream = &data[2..];
    let whole = frames(max, std::iter::once(stream.to_vec()));
    let chunked = frames(max, stream.chunks(chunk).map(<[u8]>::to_vec));
    assert_eq!(whole, chunked);
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
});
