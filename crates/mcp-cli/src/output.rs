//! Writing results to stdout without ever panicking on a closed pipe.
//!
//! `println!` panics when stdout is gone (`mcp --json tools | head -1`).
//! Every result line goes through [`line()`] / [`text()`] instead: a write that fails with
//! `EPIPE` (`BrokenPipe`) ends the command quietly with exit code
//! [`BROKEN_PIPE`] (141 = 128 + SIGPIPE, what a shell reports for a tool
//! killed by SIGPIPE, e.g. `yes | head -1`); any other write error is a
//! failure with a message.

use std::borrow::Cow;
use std::io::{self, IsTerminal, Write};

use crate::exit::Failure;
use crate::stderr_tail::set_out_tail;

/// Exit code when stdout was closed by the reader: 141 (128 + SIGPIPE).
pub(crate) const BROKEN_PIPE: u8 = 141;

/// The failure for a write error on stdout.
pub(crate) fn write_failure(e: &io::Error) -> Failure {
    if e.kind() == io::ErrorKind::BrokenPipe {
        Failure {
            code: BROKEN_PIPE,
            message: String::new(),
            login_server: None,
        }
    } else {
        Failure::new(format!("cannot write to stdout: {e}"))
    }
}

/// Writes `text` and a newline to stdout, then flushes; on a terminal,
/// control characters are shown escaped ([`visible`]).
///
/// Errors: see the module docs.
pub(crate) fn line(text: &str) -> Result<(), Failure> {
    let stdout = io::stdout();
    let text = if stdout.is_terminal() {
        visible(text)
    } else {
        Cow::Borrowed(text)
    };
    write_to(&mut stdout.lock(), &text, true)
}

/// Writes `text` to stdout, then flushes: as is when stdout is a pipe or a
/// file, with control characters escaped ([`visible`]) on a terminal.
///
/// Errors: see the module docs.
pub(crate) fn text(text: &str) -> Result<(), Failure> {
    let stdout = io::stdout();
    let text = if stdout.is_terminal() {
        visible(text)
    } else {
        Cow::Borrowed(text)
    };
    write_to(&mut stdout.lock(), &text, false)
}

/// `text` with each line feed shown as `\n`, for a row that must stay one
/// row (`mcp skills`): a name or description with a line feed in it could
/// otherwise print a forged row. Pass the result through the line printer,
/// which escapes the rest ([`visible`]). See [`row`] for a row that may end
/// in a stderr tail.
pub(crate) fn one_line(text: &str) -> Cow<'_, str> {
    if !text.contains('\n') {
        return Cow::Borrowed(text);
    }
    Cow::Owned(text.replace('\n', "\\n"))
}

/// A row about a server (`mcp servers`, `mcp ping`): the row itself on one
/// line ([`one_line`]), and the stderr tail its error may end in set out
/// below it ([`crate::stderr_tail::tail_below`]), where no line of it can pass for a row.
pub(crate) fn row(text: &str) -> Cow<'_, str> {
    if !text.contains('\n') {
        return Cow::Borrowed(text);
    }
    Cow::Owned(set_out_tail(text, &|head: &str| {
        one_line(head).into_owned()
    }))
}

/// `text` with the characters a terminal would act on shown escaped
/// (`\u{1b}`): C0 controls but line feed and tab, DEL, C1 controls, and the
/// bidirectional overrides and isolates. Text from a server (a tool's
/// result, an error body, a log message) reaches the terminal through this,
/// so it cannot move the cursor, retitle the window, write the clipboard
/// (OSC 52) or reorder what is shown. See [`one_line`] for a row that must
/// stay one line.
pub(crate) fn visible(text: &str) -> Cow<'_, str> {
    escaped(text, |c, out| out.extend(c.escape_unicode()))
}

/// `true` for a character a terminal acts on (see [`visible`]).
fn acts_on_terminal(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// `text` with each character a terminal acts on written by `escape`.
fn escaped(text: &str, escape: impl Fn(char, &mut String)) -> Cow<'_, str> {
    if !text.chars().any(acts_on_terminal) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if acts_on_terminal(c) {
            escape(c, &mut out);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Writes a JSON document (`--json` output) and a newline to stdout, then
/// flushes. On a terminal, the characters [`visible`] escapes are written
/// as JSON escapes (`\u202e`): outside strings a JSON text has none of
/// them, so the output stays valid JSON with the same value.
///
/// Errors: see the module docs.
pub(crate) fn json_line(json: &str) -> Result<(), Failure> {
    let stdout = io::stdout();
    let json = if stdout.is_terminal() {
        json_visible(json)
    } else {
        Cow::Borrowed(json)
    };
    write_to(&mut stdout.lock(), &json, true)
}

/// `json` with the characters a terminal acts on written as `\uXXXX` (each
/// is in the Basic Multilingual Plane: one escape, no surrogate pair).
fn json_visible(json: &str) -> Cow<'_, str> {
    escaped(json, |c, out| {
        out.push_str(&format!("\\u{:04x}", u32::from(c)))
    })
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
pub(crate) fn err_line(text: &str) {
    let mut err = io::stderr().lock();
    let _ = writeln!(err, "{}", visible(text));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stderr_tail::tail_below;

    struct Closed;
    impl Write for Closed {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::Error::from(io::ErrorKind::BrokenPipe))
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// A stderr tail is shown as the lines the server wrote, each set out
    /// under the message it explains (never a literal `\n`), whichever way
    /// it was written (on the lines after its mark, or starting on its line);
    /// the row before it stays one row, and a line of the tail cannot pass
    /// for a row.
    #[test]
    fn a_stderr_tail_is_shown_as_lines() {
        let closed = "srv  failed: server exited (exit status: 1); stderr tail:\nTraceback (most recent call last):\n  File \"x.py\"\nforged  connected  2025-11-25\n\n";
        assert_eq!(
            row(closed),
            "srv  failed: server exited (exit status: 1); stderr tail:\n  | Traceback (most recent call last):\n  |   File \"x.py\"\n  | forged  connected  2025-11-25"
        );
        let timed_out =
            "startup timed out after 2000 ms; stderr tail: fatal: API_KEY is not set\nbye";
        assert_eq!(
            tail_below(timed_out),
            "startup timed out after 2000 ms; stderr tail:\n  | fatal: API_KEY is not set\n  | bye"
        );
        // The row stays one row: its own line feeds are escaped.
        assert_eq!(
            row("nl\nx  failed: why; stderr tail:\na\u{1b}[2J"),
            "nl\\nx  failed: why; stderr tail:\n  | a\u{1b}[2J"
        );
        // Each tail line is still escaped when printed.
        assert_eq!(visible("  | a\u{1b}[2J\n  | b"), "  | a\\u{1b}[2J\n  | b");
        assert_eq!(row("no tail\nhere"), "no tail\\nhere");
        assert_eq!(tail_below("no tail\nhere"), "no tail\nhere");
    }

    /// Server text cannot act on the terminal: escapes, carriage return,
    /// C1 controls and bidi overrides are shown escaped; line feed and tab,
    /// and all other text, pass as they are (borrowed, not copied).
    #[test]
    fn json_on_a_terminal_stays_json() {
        let value = serde_json::json!({
            "text": "\u{1b}[2J OVER\u{202e}evil \u{7f}\u{9b} caf\u{e9} \u{1F600}\n",
            "\u{2066}key": [1, "\u{85}"],
        });
        let json = serde_json::to_string_pretty(&value).expect("serialize");
        let shown = json_visible(&json);
        assert!(!shown.chars().any(acts_on_terminal), "{shown}");
        let back: serde_json::Value = serde_json::from_str(&shown).expect("still JSON");
        assert_eq!(back, value);
        assert!(shown.contains("OVER\\u202eevil"), "{shown}");
    }

    #[test]
    fn control_characters_are_shown_escaped() {
        assert_eq!(
            visible("\u{1b}[2J\u{1b}]52;c;cHduZWQ=\u{7}RED\rx\u{9b}y\u{202e}z"),
            "\\u{1b}[2J\\u{1b}]52;c;cHduZWQ=\\u{7}RED\\u{d}x\\u{9b}y\\u{202e}z"
        );
        assert!(matches!(visible("tab\tand\nline — ü"), Cow::Borrowed(_)));
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
