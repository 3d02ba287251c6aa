//! Exit codes and the CLI's failure type.

use std::fmt;

/// Success.
pub const SUCCESS: u8 = 0;
/// The tool ran and returned `isError: true`.
pub const TOOL_ERROR: u8 = 1;
/// Usage, configuration, connection or protocol failure.
pub const FAILURE: u8 = 2;
/// Interrupted by Ctrl-C (128 + SIGINT).
pub const INTERRUPTED: u8 = 130;

/// Why a command did not succeed, with the exit code to use.
#[derive(Debug)]
pub struct Failure {
    /// The process exit code.
    pub code: u8,
    /// What to print on stderr (`mcp: <message>`); empty prints nothing.
    pub message: String,
}

impl Failure {
    /// A failure with exit code [`FAILURE`].
    pub fn new(message: impl Into<String>) -> Self {
        Failure {
            code: FAILURE,
            message: message.into(),
        }
    }

    /// The call was interrupted ([`INTERRUPTED`]).
    pub fn interrupted() -> Self {
        Failure {
            code: INTERRUPTED,
            message: "interrupted; the request was cancelled".into(),
        }
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
        Failure::new(error_chain(&e))
    }
}

/// `error: cause: cause…`, from an error and its sources.
pub fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let s_text = s.to_string();
        if !text.contains(&s_text) {
            text.push_str(": ");
            text.push_str(&s_text);
        }
        source = s.source();
    }
    text
}
