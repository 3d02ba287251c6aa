//! A stdio server's stderr tail inside a message about it: where it starts
//! and how it is set out below the message, one line per line the server
//! wrote. Used by the failure messages and the printer alike.

use std::borrow::Cow;

/// Where a stdio server's stderr tail starts in a message: what the
/// transport (`CloseReason`, the tail on the lines after) and the manager (a
/// startup timeout, the tail's first line right after) write before it.
pub(crate) const TAIL_MARK: &str = "; stderr tail:";

/// How each line of a stderr tail starts: indented under what it explains,
/// so that no line of it can pass for a row or a message of its own.
pub(crate) const TAIL_LINE: &str = "  | ";

/// `text` (a message about a server) with a stdio server's stderr tail
/// (after [`TAIL_MARK`]) set out below it: one line per line
/// the server wrote, each under [`TAIL_LINE`], trailing blank lines dropped;
/// the rest as it is. The printer escapes control characters line by line
/// ([`crate::output::visible`]). Apply it once, to one server's message, before messages
/// are joined: what follows a tail is taken as part of it.
pub(crate) fn tail_below(text: &str) -> Cow<'_, str> {
    if !text.contains(TAIL_MARK) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(set_out_tail(text, &|head: &str| head.to_owned()))
}

/// `text` with `head` applied to what comes before its stderr tail, and the
/// tail set out below (see [`tail_below`]).
pub(crate) fn set_out_tail(text: &str, head: &dyn Fn(&str) -> String) -> String {
    let Some(at) = text.find(TAIL_MARK) else {
        return head(text);
    };
    let mut out = head(&text[..at]);
    out.push_str(TAIL_MARK);
    let mut lines = text[at + TAIL_MARK.len()..].split('\n');
    // The manager writes a tail's first line right after the mark.
    let inline = lines.next().unwrap_or_default().trim();
    let mut tail: Vec<&str> = std::iter::once(inline)
        .filter(|l| !l.is_empty())
        .chain(lines.map(str::trim_end))
        .collect();
    while tail.last().is_some_and(|l| l.is_empty()) {
        tail.pop();
    }
    for line in tail {
        out.push('\n');
        out.push_str(TAIL_LINE);
        out.push_str(line);
    }
    out
}
