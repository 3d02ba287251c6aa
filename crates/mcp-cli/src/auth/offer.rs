//! The one offer to log in: a command run from a terminal that stops
//! because a server needs a login asks `Log in to SERVER now? [Y/n]` on
//! stderr, logs in as `mcp login SERVER` would, and runs the command
//! again, once. Never for `--json`, `--no-input` (`MCP_NO_INPUT`), or
//! when stdin or stderr is not a terminal (scripts, pipes): those get the
//! message naming the command, and exit code 3.

use std::io::{IsTerminal as _, Write as _};
use std::sync::Arc;

use clap::Parser as _;
use mcp_client::CancellationToken;
use mcp_manager::{ServerConfig, TransportConfig};

use crate::cli::{Cli, Command};
use crate::exit::{self, Failure, LOGIN_NEEDED};
use crate::ui::Ui;

/// Runs the command; when it needs a login and may ask, offers it once
/// and runs the command again after a login. A second "needs login" ends
/// the command like the first would have, without asking again.
///
/// Errors: the command's; a failed login's (exit code 2); an answer of no
/// keeps the command's failure (already printed before the question).
pub(crate) async fn run_offering_login(
    cli: Cli,
    ui: Arc<Ui>,
    cancel: CancellationToken,
) -> Result<u8, Failure> {
    // The retry runs the same command line: parsed again, as it was.
    let again = if may_ask(&cli) {
        Cli::try_parse().ok()
    } else {
        None
    };
    let outcome = crate::commands::run(cli, Arc::clone(&ui), cancel.clone()).await;
    let (failure, cli) = match (outcome, again) {
        (Err(f), Some(cli)) if f.code == LOGIN_NEEDED => (f, cli),
        (outcome, _) => return outcome,
    };
    let Some((name, login_arg)) = login_target(&cli, failure.login_server.as_deref()) else {
        return Err(failure);
    };
    ui.finish();
    crate::output::err_line(&format!("mcp: {}", exit::tidy(&failure.message)));
    let told = Failure {
        code: LOGIN_NEEDED,
        message: String::new(),
        login_server: None,
    };
    if !ask(&name, &cancel).await? {
        return Err(told);
    }
    super::commands::login_offered(&cli, &login_arg, &cancel).await?;
    crate::commands::run(cli, ui, cancel).await
}

/// `true` when this run may ask the user: a command that talks to servers,
/// stdin and stderr terminals, neither `--json` nor `--no-input`.
fn may_ask(cli: &Cli) -> bool {
    !cli.json
        && !cli.no_input
        && !matches!(
            cli.command,
            Command::Login(_) | Command::Logout(_) | Command::Auth { .. } | Command::ServeDemo
        )
        && std::io::stdin().is_terminal()
        && std::io::stderr().is_terminal()
}

/// The server to log in to (its name, and what `mcp login` takes for it:
/// the configuration name, or the URL of a `--url` target): `named` when
/// the failure said, else the one remote server that may need a login.
fn login_target(cli: &Cli, named: Option<&str>) -> Option<(String, String)> {
    let config = crate::targets::resolve(cli).ok()?;
    let wants_login = |s: &&ServerConfig| {
        !s.disabled && matches!(&s.transport, TransportConfig::Remote(r) if r.wants_oauth())
    };
    let entry = match named {
        Some(name) => config.servers.get(name).filter(|s| wants_login(s))?,
        None => {
            let mut candidates = config.servers.values().filter(wants_login);
            match (candidates.next(), candidates.next()) {
                (Some(only), None) => only,
                _ => return None,
            }
        }
    };
    let TransportConfig::Remote(remote) = &entry.transport else {
        return None;
    };
    let arg = match entry.source {
        Some(_) => entry.name.clone(),
        None => remote.url.clone(),
    };
    Some((entry.name.clone(), arg))
}

/// Asks `Log in to NAME now? [Y/n]` on stderr and reads the answer from
/// stdin: empty, `y` or `yes` (any case) is yes; anything else, or the end
/// of input, is no.
///
/// Errors: interrupted (Ctrl-C) while waiting.
async fn ask(name: &str, cancel: &CancellationToken) -> Result<bool, Failure> {
    let mut err = std::io::stderr().lock();
    let _ = write!(
        err,
        "Log in to {} now? [Y/n] ",
        crate::output::visible(name)
    );
    let _ = err.flush();
    drop(err);
    let read = tokio::task::spawn_blocking(|| {
        let mut line = String::new();
        std::io::stdin().read_line(&mut line).map(|n| (n, line))
    });
    let answer = tokio::select! {
        r = read => r,
        () = cancel.cancelled() => return Err(Failure::interrupted()),
    };
    Ok(match answer {
        Ok(Ok((n, line))) if n > 0 => {
            matches!(line.trim().to_ascii_lowercase().as_str(), "" | "y" | "yes")
        }
        _ => false,
    })
}
