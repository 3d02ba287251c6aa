//! The subcommands, run against the connected servers: one file per
//! command, [`run()`] starts the servers and hands the command to it, and
//! [`Session`] is what the commands share (the servers, choosing one).

mod call;
mod complete;
mod follow;
mod model;
mod ping;
mod precheck;
mod prompt;
mod prompts;
mod read;
mod resources;
mod run;
mod servers;
mod session;
mod skills;
mod tasks;
mod tools;

use std::collections::BTreeMap;
use std::sync::Arc;

use mcp_client::{CancellationToken, Client};
use mcp_manager::Manager;
use serde::Serialize;

use crate::cli::Command;
use crate::exit::{FAILURE, Failure};
use crate::output;
use crate::servers::Server;
use crate::ui::Ui;

pub(crate) use run::run;

/// Everything a command needs, defined here so that each command's file
/// (this folder) adds its own methods.
struct Session {
    /// Every configured server (disabled ones included), by name.
    servers: Vec<Server>,
    /// The manager running them (for what it does beyond a client's
    /// methods, e.g. skills).
    manager: Manager,
    /// Config entries that were rejected (never started), with why.
    rejected: BTreeMap<String, String>,
    ui: Arc<Ui>,
    json: bool,
    cancel: CancellationToken,
    /// Listing warnings already printed (a command may read a list twice).
    warned: std::sync::Mutex<std::collections::BTreeSet<String>>,
    /// Tasks this command created and has not seen end: the server, its
    /// client and the task id. Ctrl-C drops the command mid-wait, so the
    /// `tasks/cancel` it owes is sent from here ([`Session::cancel_tasks`]).
    running_tasks: std::sync::Mutex<Vec<(String, Client, String)>>,
}

/// How many names an "available: …" list shows before "and N more": 10.
const MAX_LISTED: usize = 10;

impl Session {
    async fn dispatch(&self, command: Command) -> Result<u8, Failure> {
        match command {
            Command::Servers => self.servers_cmd().await,
            Command::Tools {
                server,
                as_dialect: Some(dialect),
                strict,
            } => self.model_tools(server.as_deref(), dialect, strict).await,
            Command::Tools { server, .. } => self.tools(server.as_deref()).await,
            Command::Call {
                words,
                from_model: Some(dialect),
                strict,
            } => self.model_call(dialect, strict, &words).await,
            Command::Call { words, .. } => self.call(&words).await,
            Command::Resources { server } => self.resources(server.as_deref()).await,
            Command::Read { words } => self.read(&words).await,
            Command::Prompts { server } => self.prompts(server.as_deref()).await,
            Command::Prompt { words } => self.prompt(&words).await,
            Command::Complete { words, context } => self.complete(&words, &context).await,
            Command::Ping { server } => self.ping(server.as_deref()).await,
            Command::Skills { server } => self.skills(server.as_deref()).await,
            Command::Skill { words, file } => self.skill(&words, file.as_deref()).await,
            Command::ServeDemo => Err(Failure::new("serve-demo takes no target options")),
            Command::Ui => Err(Failure::new("ui runs its own servers")),
            Command::Tasks { server } => self.tasks(server.as_deref()).await,
            Command::Task { words } => self.task(&words).await,
            Command::Log { server, level } => self.log(server.as_deref(), level.as_deref()).await,
            Command::Watch { words } => self.watch(&words).await,
            Command::Doctor { .. } => Err(Failure::new("doctor starts its own server")),
            Command::Login(_) | Command::Logout(_) | Command::Auth { .. } => {
                Err(Failure::new("login commands start no server"))
            }
        }
    }
}

/// `a, b, c` — at most [`MAX_LISTED`] names, then `and N more`.
fn capped_list(names: &[String]) -> String {
    if names.is_empty() {
        return "none".to_owned();
    }
    let mut text = names
        .iter()
        .take(MAX_LISTED)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > MAX_LISTED {
        text.push_str(&format!(" and {} more", names.len() - MAX_LISTED));
    }
    text
}

fn print_json(value: &impl Serialize) -> Result<(), Failure> {
    let text = serde_json::to_string_pretty(value)
        .map_err(|e| Failure::new(format!("cannot serialize the output: {e}")))?;
    output::json_line(&text)
}

/// A client error, prefixed with the server's name. A "log in first"
/// names the server (see [`Failure::with_login_server`]): with several
/// remote servers, the offer to log in needs to know which one refused.
/// A server that could not send its request to this client in the
/// revision negotiated gets the command line's own words and the option
/// that helps (the library's error names its own API).
fn prefixed(server: &str, e: mcp_client::ClientError) -> Failure {
    if let mcp_client::ClientError::ServerRequestNotInRevision {
        server_request,
        version,
        error,
        ..
    } = &e
    {
        let answer: String = error
            .message
            .chars()
            .take(crate::exit::HTTP_BODY_PREVIEW)
            .collect();
        return Failure::new(format!(
            "{server}: the server could not send {server_request} to this client in protocol \
             revision {version}, which carries server requests only inside a multi round-trip \
             result (it answered: MCP error {}: {answer})\n\
             mcp: hint: run it in a handshake revision: --protocol-version handshake, or \
             \"protocolVersion\": \"handshake\" in its config entry; mcp remembers this, and \
             later runs without a protocol version connect it so by themselves",
            error.code
        ));
    }
    let mut f = Failure::from(e);
    if f.code == crate::exit::LOGIN_NEEDED {
        f.message = format!("{server}: {}", f.message);
        return f.with_login_server(server);
    }
    if f.code == FAILURE {
        f.message = format!("{server}: {}", f.message);
    }
    f
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_transport::{AuthErrorKind, TransportError};

    #[test]
    fn a_login_needed_mid_command_names_its_server() {
        let e = mcp_client::ClientError::from(TransportError::auth(
            AuthErrorKind::NeedsLogin,
            "https://mcp.example.com/mcp",
            "no stored login",
        ));
        let f = prefixed("billing", e);
        assert_eq!(f.code, crate::exit::LOGIN_NEEDED);
        assert_eq!(f.login_server.as_deref(), Some("billing"));
        assert!(f.message.starts_with("billing: "), "{}", f.message);

        let other = mcp_client::ClientError::from(TransportError::auth(
            AuthErrorKind::Denied,
            "https://mcp.example.com/mcp",
            "insufficient scope",
        ));
        let f = prefixed("billing", other);
        assert_eq!(f.code, FAILURE);
        assert_eq!(f.login_server, None);
        assert!(f.message.starts_with("billing: "), "{}", f.message);
    }
}
