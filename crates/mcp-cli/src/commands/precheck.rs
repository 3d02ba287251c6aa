//! What can be checked before a server starts.

use crate::arguments::{is_argument, string_arguments, tool_arguments};
use crate::cli::Command;
use crate::exit::Failure;

/// Checks what can be checked before a server starts: the number of words
/// and the syntax of `key=value` / JSON arguments (their types are checked
/// against the tool's `inputSchema` later).
///
/// Errors: a usage [`Failure`].
pub(super) fn precheck(command: &Command) -> Result<(), Failure> {
    match command {
        Command::Call {
            words,
            from_model: None,
            ..
        }
        | Command::Prompt { words } => {
            let first_argument = words.iter().position(|w| is_argument(w));
            if first_argument == Some(0) {
                return Err(Failure::new(format!(
                    "expected a name before the arguments, got {:?}",
                    words[0]
                )));
            }
            // At most two names ([SERVER] NAME) come before the arguments.
            let names = first_argument.unwrap_or(words.len()).min(2);
            let rest = &words[names..];
            if !rest.is_empty() {
                if matches!(command, Command::Call { .. }) {
                    tool_arguments(rest, None).map_err(Failure::new)?;
                } else {
                    string_arguments(rest).map_err(Failure::new)?;
                }
            }
        }
        Command::Read { words } if words.len() > 2 => {
            return Err(Failure::new("usage: mcp read [SERVER] URI"));
        }
        Command::Complete { words, context } => {
            if !(4..=5).contains(&words.len()) {
                return Err(Failure::new(
                    "usage: mcp complete [SERVER] prompt|resource REF ARG VALUE [--context K=V ...]",
                ));
            }
            let kind = &words[words.len() - 4];
            if kind != "prompt" && kind != "resource" {
                return Err(Failure::new(format!(
                    "complete: expected \"prompt\" or \"resource\", got {kind:?}"
                )));
            }
            string_arguments(context).map_err(Failure::new)?;
        }
        _ => {}
    }
    Ok(())
}
