//! Newline-delimited framing for the demo server's stdin (MCP stdio transport:
//! one JSON-RPC message per line, no embedded newlines).
//!
//! Bounded: a line longer than the limit is reported once as
//! [`Line::TooLong`] and discarded up to its newline; reading then carries on.

use tokio::io::{AsyncBufRead, AsyncBufReadExt};

/// Default maximum length of one incoming line: 4 MiB (4 194 304 bytes).
pub(crate) const DEFAULT_MAX_LINE_BYTES: usize = 4 * 1024 * 1024;

/// One item read from the input.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Line {
    /// A complete line, without its `\n` (and without a trailing `\r`).
    Message(Vec<u8>),
    /// A line over the limit, discarded; carries the limit in bytes.
    TooLong(usize),
}

/// Reads newline-delimited lines of at most `max` bytes each.
#[derive(Debug)]
pub(super) struct LineReader<R> {
    inner: R,
    max: usize,
}

impl<R: AsyncBufRead + Unpin> LineReader<R> {
    /// Wraps `inner`, with a per-line limit of `max` bytes.
    pub(super) fn new(inner: R, max: usize) -> Self {
        LineReader { inner, max }
    }

    /// The next line; `Ok(None)` at end of input. A final line without a
    /// newline is still returned.
    pub(super) async fn next_line(&mut self) -> std::io::Result<Option<Line>> {
        let mut buf = Vec::new();
        let mut overflow = false;
        loop {
            let chunk = self.inner.fill_buf().await?;
            if chunk.is_empty() {
                // End of input.
                return Ok(match (overflow, buf.is_empty()) {
                    (true, _) => Some(Line::TooLong(self.max)),
                    (false, true) => None,
                    (false, false) => Some(Line::Message(trim_cr(buf))),
                });
            }
            let (taken, done) = match chunk.iter().position(|&b| b == b'\n') {
                Some(i) => (i, true),
                None => (chunk.len(), false),
            };
            if !overflow {
                if buf.len() + taken > self.max {
                    overflow = true;
                    buf = Vec::new();
                } else {
                    buf.extend_from_slice(&chunk[..taken]);
                }
            }
            let consumed = if done { taken + 1 } else { taken };
            self.inner.consume(consumed);
            if done {
                return Ok(Some(if overflow {
                    Line::TooLong(self.max)
                } else {
                    Line::Message(trim_cr(buf))
                }));
            }
        }
    }
}

fn trim_cr(mut line: Vec<u8>) -> Vec<u8> {
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn read_all(input: &[u8], max: usize) -> Vec<Line> {
        // A tiny buffer so that lines straddle reads.
        let reader = tokio::io::BufReader::with_capacity(3, input);
        let mut lines = LineReader::new(reader, max);
        let mut out = Vec::new();
        while let Some(line) = lines.next_line().await.unwrap() {
            out.push(line);
        }
        out
    }

    #[tokio::test]
    async fn splits_lines_across_reads() {
        let out = read_all(b"{\"a\":1}\n{\"b\":2}\r\nlast", 100).await;
        assert_eq!(
            out,
            vec![
                Line::Message(b"{\"a\":1}".to_vec()),
                Line::Message(b"{\"b\":2}".to_vec()),
                Line::Message(b"last".to_vec()),
            ]
        );
    }

    #[tokio::test]
    async fn over_long_line_is_reported_once_then_reading_continues() {
        let out = read_all(b"0123456789abcdef\nok\n", 8).await;
        assert_eq!(out, vec![Line::TooLong(8), Line::Message(b"ok".to_vec())]);
    }

    #[tokio::test]
    async fn exactly_the_limit_is_accepted() {
        let out = read_all(b"12345678\n", 8).await;
        assert_eq!(out, vec![Line::Message(b"12345678".to_vec())]);
    }
}
