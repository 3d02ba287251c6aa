//! What every command shares: the [`Session`]'s servers, choosing among
//! them, and printing per server.

use mcp_client::Client;
use mcp_manager::naming::{self, NameTable, SEPARATOR};

use crate::arguments::is_argument;
use crate::exit::Failure;
use crate::output;

use super::Session;

/// How long `tasks/cancel` may take after Ctrl-C: 2 000 ms.
const TASK_CANCEL_WAIT: std::time::Duration = std::time::Duration::from_millis(2_000);

/// A server that did not start: its name, and why.
pub(super) type NotStarted = (String, String);

/// The `(server, name)` a qualified name stands for among `items` (each a
/// server and the name of one of its tools or prompts): the name
/// `mcp-manager` gives the item in its one namespace (`server__tool`,
/// sanitized and disambiguated as `mcp_manager::naming` says), so a name a
/// host built on the manager shows works here too. `None` when it is none
/// of theirs.
pub(super) fn resolve_qualified<'a>(
    items: impl IntoIterator<Item = (&'a str, &'a str)>,
    qualified: &str,
) -> Option<(String, String)> {
    if !qualified.contains(SEPARATOR) {
        return None;
    }
    let table = NameTable::build(items.into_iter().map(|(s, k)| (s, k, k)));
    table
        .resolve(qualified)
        .map(|(s, k)| (s.to_owned(), k.to_owned()))
}

impl Session {
    /// `true` for a configured server name, started or not (a rejected
    /// config entry included).
    pub(super) fn is_server(&self, name: &str) -> bool {
        self.servers.iter().any(|s| s.name == name) || self.rejected.contains_key(name)
    }

    /// "server X was not started: why", for a rejected entry or a server
    /// that failed to start; `None` when `name` is neither.
    pub(super) fn not_started(&self, name: &str) -> Option<Failure> {
        let mut login = false;
        let why = match self.rejected.get(name) {
            Some(why) => why.clone(),
            None => {
                let server = self.servers.iter().find(|s| s.name == name)?;
                login = server.needs_login();
                match server.reach() {
                    Err(Some(why)) => why,
                    _ => return None,
                }
            }
        };
        let message = format!(
            "server {name} was not started: {}",
            crate::stderr_tail::tail_below(&crate::exit::tidy(&why))
        );
        Some(if login {
            Failure::login_needed(message).with_login_server(name)
        } else {
            Failure::new(message)
        })
    }

    /// The servers that did not start (rejected or failed), by name.
    pub(super) fn not_started_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.rejected.keys().cloned().collect();
        names.extend(
            self.servers
                .iter()
                .filter(|s| matches!(s.reach(), Err(Some(_))))
                .map(|s| s.name.clone()),
        );
        names
    }

    /// The connected servers, or only `only`. Unreachable servers are
    /// reported on stderr; none left is a failure.
    pub(super) fn selected(&self, only: Option<&str>) -> Result<Vec<(&str, &Client)>, Failure> {
        if let Some(name) = only {
            if let Some(f) = self.not_started(name) {
                return Err(f);
            }
            let server = self
                .servers
                .iter()
                .find(|s| s.name == name)
                .ok_or_else(|| {
                    Failure::new(format!("no server named {name:?} (have: {})", self.names()))
                })?;
            return match server.reach() {
                Ok(c) => Ok(vec![(server.name.as_str(), c)]),
                Err(why) => Err(Failure::new(format!(
                    "{name}: {}",
                    why.map_or_else(
                        || "disabled in the configuration".into(),
                        |why| crate::stderr_tail::tail_below(&crate::exit::tidy(&why)).into_owned()
                    )
                ))),
            };
        }
        let mut ok = Vec::new();
        let mut errors = Vec::new();
        let mut login: Option<&str> = None;
        for s in &self.servers {
            match s.reach() {
                Ok(c) => ok.push((s.name.as_str(), c)),
                Err(Some(why)) => {
                    if s.needs_login() && login.is_none() {
                        login = Some(s.name.as_str());
                    }
                    // Set out per server: what follows a stderr tail would
                    // read as part of it once the errors are joined.
                    errors.push(format!(
                        "{}: {}",
                        s.name,
                        crate::stderr_tail::tail_below(&crate::exit::tidy(&why))
                    ));
                }
                Err(None) => {}
            }
        }
        if ok.is_empty() {
            let message = errors.join("\n");
            return Err(if let Some(server) = login {
                Failure::login_needed(message).with_login_server(server)
            } else {
                Failure::new(message)
            });
        }
        for e in errors {
            self.ui.line(&format!("mcp: skipped {e}"));
        }
        Ok(ok)
    }

    /// [`selected`](Self::selected), for a command about the tool or
    /// prompt `name`: when no server is reachable and `name` is a qualified
    /// name of one that did not start (the only one started for it, see
    /// `run::named_servers`), the failure says that server was not started.
    pub(super) fn selected_for(
        &self,
        server: Option<&str>,
        name: &str,
    ) -> Result<Vec<(&str, &Client)>, Failure> {
        self.selected(server).map_err(|f| match server {
            None => self.not_started_owner(name).unwrap_or(f),
            Some(_) => f,
        })
    }

    /// Every server that is not disabled, split into the connected ones
    /// and the ones that did not start (a rejected config entry, a failed
    /// start), with why; nothing is printed.
    pub(super) fn reachable(&self) -> (Vec<(&str, &Client)>, Vec<NotStarted>) {
        let mut ok = Vec::new();
        let mut not_started: Vec<NotStarted> = self
            .rejected
            .iter()
            .map(|(name, why)| (name.clone(), crate::exit::tidy(why)))
            .collect();
        for s in &self.servers {
            match s.reach() {
                Ok(c) => ok.push((s.name.as_str(), c)),
                Err(Some(why)) => {
                    not_started.push((s.name.clone(), crate::exit::tidy(&why)));
                }
                Err(None) => {}
            }
        }
        (ok, not_started)
    }

    /// Sends `tasks/cancel` for every task still running (after Ctrl-C),
    /// all at once, waiting at most [`TASK_CANCEL_WAIT`] for the answers:
    /// the task is the server's to end, the command only asks.
    pub(super) async fn cancel_tasks(&self) {
        let running =
            std::mem::take(&mut *self.running_tasks.lock().unwrap_or_else(|p| p.into_inner()));
        let mut asks = tokio::task::JoinSet::new();
        for (name, client, task_id) in running {
            asks.spawn(async move {
                if let Err(e) = client.cancel_task(task_id, Default::default()).await {
                    tracing::warn!(server = %name, error = %e, "tasks/cancel failed");
                }
            });
        }
        let all = async { while asks.join_next().await.is_some() {} };
        if tokio::time::timeout(TASK_CANCEL_WAIT, all).await.is_err() {
            tracing::warn!("tasks/cancel unanswered; exiting without the answer");
        }
    }

    pub(super) fn names(&self) -> String {
        self.servers
            .iter()
            .map(|s| s.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Prints `lines` per server: bare with one server, under a header with several.
    ///
    /// Errors: stdout closed or failing ([`output`]).
    pub(super) fn print_grouped(&self, groups: &[(&str, Vec<String>)]) -> Result<(), Failure> {
        let several = groups.len() > 1;
        for (name, lines) in groups {
            if several {
                output::line(&format!("{name}:"))?;
            }
            for line in lines {
                if several {
                    output::line(&format!("  {line}"))?;
                } else {
                    output::line(line)?;
                }
            }
        }
        Ok(())
    }

    /// One warning per entry a listing left out, and one when it stopped
    /// early; the entries that decoded are listed as usual.
    pub(super) fn warn_left_out(
        &self,
        name: &str,
        method: &str,
        problems: &[mcp_types::lenient::EntryProblem],
        incomplete: Option<&mcp_client::Incomplete>,
    ) {
        let lines = problems
            .iter()
            .map(ToString::to_string)
            .chain(incomplete.map(|why| format!("{why}; the list may be incomplete")));
        let mut warned = self.warned.lock().unwrap_or_else(|p| p.into_inner());
        for line in lines {
            let line = format!("mcp: warning: {name}: {method}: {line}");
            if warned.insert(line.clone()) {
                self.ui.line(&line);
            }
        }
    }

    /// A server that did not start, when `qualified` is a qualified name of
    /// one of its items (`server__tool`: its sanitized name, then
    /// [`SEPARATOR`]): "server X was not started: why".
    pub(super) fn not_started_owner(&self, qualified: &str) -> Option<Failure> {
        self.not_started_names()
            .into_iter()
            .find(|s| {
                qualified
                    .strip_prefix(&naming::sanitize(s))
                    .is_some_and(|rest| rest.starts_with(SEPARATOR))
            })
            .and_then(|s| self.not_started(&s))
    }

    /// Splits `[SERVER] NAME rest…`: the first word is a server when it
    /// names one and the next word is a name, not an argument.
    pub(super) fn split_server<'w>(&self, words: &'w [String]) -> (Option<&'w str>, &'w [String]) {
        match words {
            [first, second, ..] if self.is_server(first) && !is_argument(second) => {
                (Some(first.as_str()), &words[1..])
            }
            _ => (None, words),
        }
    }
}
