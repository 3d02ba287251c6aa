//! Exit codes and the CLI's failure type.

use std::fmt;
use std::sync::atomic::{AtomicU8, Ordering};

use crate::stderr_tail::TAIL_MARK;

/// Success.
pub(crate) const SUCCESS: u8 = 0;
/// The tool ran and returned `isError: true`.
pub(crate) const TOOL_ERROR: u8 = 1;
/// Usage, configuration, connection or protocol failure.
pub(crate) const FAILURE: u8 = 2;
/// A remote server needs a login: the message names the `mcp login`
/// command to run.
pub(crate) const LOGIN_NEEDED: u8 = 3;
/// Interrupted by Ctrl-C (128 + SIGINT).
pub(crate) const INTERRUPTED: u8 = 130;

/// SIGINT, SIGTERM and SIGHUP: the signals handled like Ctrl-C.
pub(crate) const SIGINT: u8 = 2;
/// See [`SIGINT`].
pub(crate) const SIGTERM: u8 = 15;
/// See [`SIGINT`].
pub(crate) const SIGHUP: u8 = 1;

/// The signal that interrupted this process (0: none yet).
static SIGNAL: AtomicU8 = AtomicU8::new(0);

/// Records the signal that interrupts the command (the first one wins); the
/// exit code becomes 128 + `signal`.
pub(crate) fn record_signal(signal: u8) {
    let _ = SIGNAL.compare_exchange(0, signal, Ordering::AcqRel, Ordering::Acquire);
}

/// Fires at a second handled signal: the user will not wait for the
/// servers to stop gracefully.
static INSISTED: std::sync::LazyLock<tokio_util::sync::CancellationToken> =
    std::sync::LazyLock::new(tokio_util::sync::CancellationToken::new);

/// Records a signal that came after the one that interrupted the command.
pub(crate) fn insist() {
    INSISTED.cancel();
}

/// Resolves once a second signal came ([`insist`]).
pub(crate) async fn insisted() {
    INSISTED.cancelled().await;
}

/// The exit code of a command that ended with `code`: an interruption
/// recorded meanwhile wins over a success or a tool error. Ctrl-C read as a
/// key by a form races with the answer the form then gives up on (the
/// server may finish the call before the cancellation lands); the user
/// still asked to stop, so the exit says so.
pub(crate) fn final_code(code: u8) -> u8 {
    match SIGNAL.load(Ordering::Acquire) {
        0 => code,
        _ if code == SUCCESS || code == TOOL_ERROR => Failure::interrupted().code,
        _ => code,
    }
}

/// `true` when `code` is an exit code of an interruption (128 + a handled signal).
pub(crate) fn is_interrupted(code: u8) -> bool {
    [SIGINT, SIGTERM, SIGHUP].iter().any(|s| 128 + s == code)
}

/// Why a command did not succeed, with the exit code to use.
#[derive(Debug)]
pub(crate) struct Failure {
    /// The process exit code.
    pub code: u8,
    /// What to print on stderr (`mcp: <message>`); empty prints nothing.
    pub message: String,
    /// The configured server whose login is needed, when the failure is
    /// about one (a [`LOGIN_NEEDED`] failure naming its server).
    pub login_server: Option<String>,
}

impl Failure {
    /// A failure with exit code [`LOGIN_NEEDED`].
    pub(crate) fn login_needed(message: impl Into<String>) -> Self {
        Failure {
            code: LOGIN_NEEDED,
            message: message.into(),
            login_server: None,
        }
    }

    /// A failure with exit code [`FAILURE`].
    pub(crate) fn new(message: impl Into<String>) -> Self {
        Failure {
            code: FAILURE,
            message: message.into(),
            login_server: None,
        }
    }

    /// The command was interrupted by a signal: exit code 128 + the signal
    /// recorded by [`record_signal`] ([`INTERRUPTED`] when none was).
    pub(crate) fn interrupted() -> Self {
        let (code, what) = match SIGNAL.load(Ordering::Acquire) {
            SIGTERM => (128 + SIGTERM, "terminated (SIGTERM)"),
            SIGHUP => (128 + SIGHUP, "hung up (SIGHUP)"),
            _ => (INTERRUPTED, "interrupted"),
        };
        Failure {
            code,
            message: format!("{what}; the request was cancelled"),
            login_server: None,
        }
    }

    /// Names the server whose login is needed.
    pub(crate) fn with_login_server(mut self, server: impl Into<String>) -> Self {
        self.login_server = Some(server.into());
        self
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl From<mcp_client::ClientError> for Failure {
    fn from(e: mcp_client::ClientError) -> Self {
        if e.is_cancelled() {
            return Failure::interrupted();
        }
        let login = e
            .transport_error()
            .and_then(|t| t.auth_kind())
            .is_some_and(|k| k == mcp_transport::AuthErrorKind::NeedsLogin);
        // A stdio server that closed mid-command: its stderr tail is set out
        // here, while the message is about one server.
        let mut failure = Failure::new(crate::stderr_tail::tail_below(&error_chain(&e)));
        if login {
            failure.code = LOGIN_NEEDED;
        }
        failure
    }
}

pub(crate) use mcp_manager::error_chain;

/// How much of an HTTP error body a message shows: 200 characters.
pub(crate) const HTTP_BODY_PREVIEW: usize = 200;

/// A message made fit for one stderr line: a server message that repeats
/// our own `MCP error <code>: ` prefix (some SDKs put it in the message
/// itself) is printed once, and the body after `HTTP <status>: ` (a whole
/// HTML error page, say) is cut to [`HTTP_BODY_PREVIEW`] characters on one
/// line. A stdio server's stderr tail (after [`TAIL_MARK`]) is left as it
/// is: [`crate::stderr_tail::tail_below`] shows it, line by line.
pub(crate) fn tidy(message: &str) -> String {
    let (head, tail) = match message.find(TAIL_MARK) {
        Some(at) => message.split_at(at),
        None => (message, ""),
    };
    // A hint of ours after the message is not part of an HTTP body: it is
    // kept whole after the cut body.
    let (head, hint) = match head.find(HINT_MARK) {
        Some(at) => head.split_at(at),
        None => (head, ""),
    };
    let mut text = dedupe_mcp_prefix(head);
    if let Some(at) = http_status_at(&text) {
        let body_start = at + "HTTP 000: ".len();
        let body: String = text[body_start..]
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        let mut cut: String = body.chars().take(HTTP_BODY_PREVIEW).collect();
        if cut.len() < body.len() {
            cut.push('…');
        }
        text.truncate(body_start);
        text.push_str(&cut);
    }
    text.push_str(hint);
    text.push_str(tail);
    text
}

/// Between a message and a hint of ours that follows it (what to do about
/// it), e.g. `HTTP 400: …; hint: drop --sse`.
pub(crate) const HINT_MARK: &str = "; hint: ";

/// The byte offset of the first `HTTP <3 digits>: ` in `text`.
fn http_status_at(text: &str) -> Option<usize> {
    text.match_indices("HTTP ").map(|(i, _)| i).find(|&i| {
        let rest = &text.as_bytes()[i + 5..];
        rest.len() >= 5 && rest[..3].iter().all(u8::is_ascii_digit) && &rest[3..5] == b": "
    })
}

/// `MCP error -32602: MCP error -32602: x` → `MCP error -32602: x`.
fn dedupe_mcp_prefix(message: &str) -> String {
    let mut text = message.to_owned();
    let mut from = 0;
    while let Some(found) = text[from..].find("MCP error ") {
        let start = from + found;
        let Some(colon) = text[start..].find(": ") else {
            break;
        };
        let prefix_end = start + colon + 2;
        let prefix = text[start..prefix_end].to_owned();
        while text[prefix_end..].starts_with(&prefix) {
            text.replace_range(prefix_end..prefix_end + prefix.len(), "");
        }
        from = prefix_end;
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubled_server_prefix_is_printed_once() {
        assert_eq!(
            tidy(
                "x: server answered resources/read with an error: MCP error -32602: MCP error -32602: Resource demo://nope not found"
            ),
            "x: server answered resources/read with an error: MCP error -32602: Resource demo://nope not found"
        );
        assert_eq!(tidy("MCP error -1: fine"), "MCP error -1: fine");
    }

    #[test]
    fn http_bodies_are_cut_to_one_short_line() {
        let page = format!(
            "<!DOCTYPE HTML>\n<html>\n{}</html>",
            "<p>x</p>\n".repeat(100)
        );
        let message = tidy(&format!(
            "py: handshake failed: transport error: HTTP 501: {page}"
        ));
        assert!(message.starts_with(
            "py: handshake failed: transport error: HTTP 501: <!DOCTYPE HTML> <html>"
        ));
        assert!(!message.contains('\n'));
        assert!(message.ends_with('…'));
        assert!(message.chars().count() < 300, "{message}");
        assert_eq!(tidy("HTTP 404: not found"), "HTTP 404: not found");
    }

    #[test]
    fn a_hint_after_an_http_body_is_kept_whole() {
        let hint = "; hint: the server refused the HTTP+SSE stream; drop --sse";
        let message = format!("HTTP 400: {}{hint}", "x ".repeat(300));
        let shown = tidy(&message);
        assert!(shown.ends_with(&format!("…{hint}")), "{shown}");
    }

    #[test]
    fn a_stderr_tail_keeps_its_lines() {
        let message =
            "startup timed out (exit status: 1); stderr tail:\nTraceback:\n  HTTP 500: x\n\ny";
        assert_eq!(tidy(message), message);
        assert_eq!(
            tidy("HTTP 502: a\nb; stderr tail: c\nd"),
            "HTTP 502: a b; stderr tail: c\nd"
        );
    }
}
