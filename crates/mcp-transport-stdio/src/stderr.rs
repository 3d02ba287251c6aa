//! The server's stderr: drained from the moment of spawn (so a chatty
//! server never blocks on a full pipe), split into lines for
//! `tracing` (target `mcp_stdio::stderr`, field `server`) and the optional
//! callback, with the last bytes kept in a bounded ring for the close reason.
//! The parsing parts ([`StderrLines`], [`TailRing`]) do no I/O.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use tokio::io::AsyncReadExt;
use tokio::process::ChildStderr;

use crate::config::{STDERR_LINE_MAX, StderrCallback};

/// The last `cap` bytes written to stderr.
#[derive(Debug)]
pub(crate) struct TailRing {
    buf: VecDeque<u8>,
    cap: usize,
}

impl TailRing {
    /// An empty ring keeping at most `cap` bytes.
    pub(crate) fn new(cap: usize) -> Self {
        TailRing {
            buf: VecDeque::with_capacity(cap.min(64 * 1024)),
            cap,
        }
    }

    /// Appends `bytes`, dropping the oldest past the cap.
    pub(crate) fn push(&mut self, bytes: &[u8]) {
        if self.cap == 0 {
            return;
        }
        let bytes = &bytes[bytes.len().saturating_sub(self.cap)..];
        let overflow = (self.buf.len() + bytes.len()).saturating_sub(self.cap);
        self.buf.drain(..overflow);
        self.buf.extend(bytes);
    }

    /// The tail as text (lossy UTF-8, starting at a character boundary), or
    /// `None` when nothing was written.
    pub(crate) fn text(&self) -> Option<String> {
        if self.buf.is_empty() {
            return None;
        }
        let bytes: Vec<u8> = self.buf.iter().copied().collect();
        // Skip continuation bytes of a character cut by the ring.
        let start = bytes
            .iter()
            .take(3)
            .take_while(|b| (**b & 0xC0) == 0x80)
            .count();
        Some(String::from_utf8_lossy(&bytes[start..]).into_owned())
    }
}

/// Splits stderr into lines on `\n` or `\r` (progress updates), each capped
/// at `max` bytes; the rest of a longer line is dropped.
#[derive(Debug)]
pub(crate) struct StderrLines {
    line: Vec<u8>,
    max: usize,
    truncated: bool,
}

impl StderrLines {
    /// A splitter capping lines at `max` bytes.
    pub(crate) fn new(max: usize) -> Self {
        StderrLines {
            line: Vec::new(),
            max,
            truncated: false,
        }
    }

    /// Feeds `chunk`, calling `emit` with each complete line (lossy UTF-8;
    /// a capped line ends in `…`). Blank lines are skipped.
    pub(crate) fn push(&mut self, chunk: &[u8], emit: &mut impl FnMut(String)) {
        for &b in chunk {
            if b == b'\n' || b == b'\r' {
                self.flush(emit);
            } else if self.line.len() < self.max {
                self.line.push(b);
            } else {
                self.truncated = true;
            }
        }
    }

    /// Emits a pending unterminated line.
    pub(crate) fn flush(&mut self, emit: &mut impl FnMut(String)) {
        if !self.line.is_empty() {
            let mut text = String::from_utf8_lossy(&self.line).into_owned();
            if self.truncated {
                text.push('…');
            }
            if !text.trim().is_empty() {
                emit(text);
            }
        }
        self.line.clear();
        self.truncated = false;
    }
}

/// Reads `stderr` until EOF: lines to `tracing` and `callback`, bytes to `tail`.
pub(crate) async fn drain(
    mut stderr: ChildStderr,
    label: Arc<str>,
    tail: Arc<Mutex<TailRing>>,
    callback: Option<StderrCallback>,
) {
    let mut lines = StderrLines::new(STDERR_LINE_MAX);
    // Read into spare capacity, never zeroed: an idle connection whose
    // server writes nothing to stderr touches none of it.
    let mut buf = Vec::with_capacity(8 * 1024);
    let mut emit = |line: String| {
        tracing::info!(target: "mcp_stdio::stderr", server = %label, "{line}");
        if let Some(cb) = &callback {
            cb(&line);
        }
    };
    loop {
        buf.clear();
        match stderr.read_buf(&mut buf).await {
            Ok(0) => break,
            Ok(_) => {
                tail.lock().unwrap_or_else(|p| p.into_inner()).push(&buf);
                lines.push(&buf, &mut emit);
            }
            Err(e) => {
                tracing::debug!(server = %label, error = %e, "reading stderr failed");
                break;
            }
        }
    }
    lines.flush(&mut emit);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ring_keeps_the_last_bytes() {
        let mut r = TailRing::new(5);
        assert_eq!(r.text(), None);
        r.push(b"abc");
        r.push(b"defg");
        assert_eq!(r.text().as_deref(), Some("cdefg"));
        r.push(b"0123456789");
        assert_eq!(r.text().as_deref(), Some("56789"));
    }

    #[test]
    fn ring_starts_at_a_char_boundary() {
        let mut r = TailRing::new(3);
        r.push("xé!".as_bytes()); // x C3 A9 21 -> A9 21 kept? no: cap 3 keeps C3 A9 21
        assert_eq!(r.text().as_deref(), Some("é!"));
        r.push(b"z"); // A9 21 7A
        assert_eq!(r.text().as_deref(), Some("!z"));
    }

    #[test]
    fn lines_are_split_and_capped() {
        let mut l = StderrLines::new(4);
        let mut got = Vec::new();
        l.push(b"ab\ncdefgh\r\rij", &mut |s| got.push(s));
        l.flush(&mut |s| got.push(s));
        assert_eq!(got, vec!["ab", "cdef…", "ij"]);
    }
}
