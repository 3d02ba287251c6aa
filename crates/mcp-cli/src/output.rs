//! Writing results to stdout without ever panicking on a closed pipe.
//!
//! `println!` panics when stdout is gone (`mcp --json tools | head -1`).
//! Every result line goes through [`line()`] / [`text()`] instead: a write that fails with
//! `EPIPE` (`BrokenPipe`) ends the command quietly with exit code
//! [`BROKEN_PIPE`] (141 = 128 + SIGPIPE, what a shell reports for a tool
//! killed by SIGPIPE, e.g. `yes | head -1`); any other write error is a
//! failure with a message.

use std::io::{self, Write};

use crate::exit::Failure;

/// Exit code when stdout was closed by the reader: 141 (128 + SIGPIPE).
pub const BROKEN_PIPE: u8 = 141;

/// The failure for a write error on stdout.
pub fn write_failure(e: &io::Error) -> Failure {
    if e.kind() == io::ErrorKind::BrokenPipe {
        Failure {
            code: BROKEN_PIPE,
            message: String::new(),
        }
    } else {
        Failure::new(format!("cannot write to stdout: {e}"))
    }
}

/// Writes `text` and a newline to stdout, then flushes.
///
/// Errors: see the module docs.
pub fn line(text: &str) -> Result<(), Failure> {
    write_to(&mut io::stdout().lock(), text, true)
}

/// Writes `text` to stdout as is, then flushes.
///
/// Errors: see the module docs.
pub fn text(text: &str) -> Result<(), Failure> {
    write_to(&mut io::stdout().lock(), text, false)
}

fn write_to(out: &mut dyn Write, text: &str, newline: bool) -> Result<(), Failure> {
    let result = out
        .write_all(text.as_bytes())
        .and_then(|()| {
            if newline {
                out.write_all(b"\n")
            } else {
                Ok(())
            }
        })
        .and_then(|()| out.flush());
    result.map_err(|e| write_failure(&e))
}

/// Writes one line to stderr, ignoring errors (a closed terminal after
/// SIGHUP must not turn into a panic).
pub fn err_line(text: &str) {
    let mut err = io::stderr().lock();
    let _ = writeln!(err, "{text}");
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Closed;
    impl Write for Closed {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::Error::from(io::ErrorKind::BrokenPipe))
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn broken_pipe_is_a_quiet_exit_141() {
        let f = write_to(&mut Closed, "x", true).unwrap_err();
        assert_eq!(f.code, BROKEN_PIPE);
        assert!(f.message.is_empty());
        let mut buf = Vec::new();
        write_to(&mut buf, "a", true).unwrap();
        write_to(&mut buf, "b", false).unwrap();
        assert_eq!(buf, b"a\nb");
    }
}
