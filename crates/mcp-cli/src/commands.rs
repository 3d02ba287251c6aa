//! The subcommands, run against the connected servers.

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use mcp_client::{CallOptions, CancellationToken, Client, RequestOptions, TaskOptions};
use mcp_manager::{Manager, ServerStatus, StartListings};
use mcp_types::completion::{
    CompleteRequestParams, CompletionArgument, CompletionContext, CompletionReference,
    PromptReference, ResourceTemplateReference,
};
use mcp_types::tools::{CallToolResult, TaskSupport};
use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::arguments::{is_argument, string_arguments, tool_arguments};
use crate::cli::{Cli, Command};
use crate::exit::{FAILURE, Failure, SUCCESS, TOOL_ERROR};
use crate::output;
use crate::render;
use crate::servers::{self, ConnectSettings, Server};
use crate::targets;
use crate::ui::Ui;

/// The longest a tool call may run while it keeps sending progress: one hour.
const MAX_CALL_TIME: Duration = Duration::from_secs(3600);

/// After Ctrl-C, how long the cancelled requests' notifications/cancelled
/// get to be sent before the connections close: 200 ms.
const CANCEL_FLUSH: Duration = Duration::from_millis(200);

/// How many names an "available: …" list shows before "and N more": 10.
const MAX_LISTED: usize = 10;

/// Everything a command needs.
struct Session {
    /// Every configured server (disabled ones included), by name.
    servers: Vec<Server>,
    /// Config entries that were rejected (never started), with why.
    rejected: BTreeMap<String, String>,
    ui: Arc<Ui>,
    json: bool,
    cancel: CancellationToken,
    /// Listing warnings already printed (a command may read a list twice).
    warned: std::sync::Mutex<std::collections::BTreeSet<String>>,
}

/// Runs the command line; returns the exit code.
///
/// Errors: a [`Failure`] carrying its exit code and message.
pub async fn run(cli: Cli, ui: Arc<Ui>, cancel: CancellationToken) -> Result<u8, Failure> {
    // Word counts and argument syntax are checked before any server starts.
    precheck(&cli.command)?;
    let mut config = targets::resolve(&cli)?;
    let mut rejected = BTreeMap::new();
    for e in &config.errors {
        if let Some(name) = &e.server {
            rejected
                .entry(name.clone())
                .or_insert_with(|| format!("{}: {}", e.path, e.kind));
        }
    }
    // A bad entry is skipped with a warning; the good ones still run.
    for e in &config.errors {
        ui.line(&format!("mcp: warning: {e}"));
    }
    if !servers::any_enabled(&config) {
        return Err(Failure::new(if rejected.is_empty() {
            "the configuration lists no enabled server"
        } else {
            "no server to run: the configuration's entries were rejected (see the warnings above)"
        }));
    }
    let discover_timeout = match cli.discover_timeout {
        Some(secs) if secs.is_finite() && secs > 0.0 => {
            Some(Duration::from_secs_f64(secs.min(MAX_TIMEOUT.as_secs_f64())))
        }
        Some(secs) => {
            return Err(Failure::new(format!(
                "--discover-timeout {secs}: expected a number of seconds above 0"
            )));
        }
        None => None,
    };
    // The command line's choices apply to every entry that makes none of its own.
    for server in config.servers.values_mut() {
        server.protocol_version = server.protocol_version.or(cli.protocol_version);
        server.discover_timeout = server.discover_timeout.or(discover_timeout);
        if let (
            mcp_manager::TransportConfig::Remote(remote),
            Some(mcp_manager::VersionPreference::Only(v)),
        ) = (&server.transport, server.protocol_version)
            && remote.kind == mcp_manager::RemoteKind::Sse
            && v.is_stateless()
        {
            return Err(Failure::new(format!(
                "server {}: the HTTP+SSE transport (--sse, type \"sse\") carries only the handshake revisions, not {v}",
                server.name
            )));
        }
    }
    let settings = ConnectSettings {
        timeout: Duration::from_secs(cli.timeout.clamp(1, MAX_TIMEOUT.as_secs())),
        verbose: cli.verbose,
        allow_input: !cli.no_input,
        listings: listings_for(&cli.command),
    };
    let bound = servers::start_bound(&config, &settings);
    let manager = Manager::start(config, servers::manager_options(&settings, &ui)).await;
    let outcome = match until_cancelled(&cancel, manager.wait_started(bound)).await {
        Err(f) => Err(f),
        Ok(_) => {
            let session = Session {
                servers: servers::snapshot(&manager),
                rejected,
                ui: Arc::clone(&ui),
                json: cli.json,
                cancel: cancel.clone(),
                warned: Default::default(),
            };
            until_cancelled(&cancel, session.dispatch(cli.command))
                .await
                .and_then(|r| r)
        }
    };
    ui.finish();
    if matches!(&outcome, Err(f) if crate::exit::is_interrupted(f.code)) {
        // The transport sends notifications/cancelled from a task of its own;
        // let it go out before the connections close.
        tokio::time::sleep(CANCEL_FLUSH).await;
    }
    manager.shutdown().await;
    outcome
}

/// Runs `fut` unless Ctrl-C comes first (dropping it cancels its requests).
async fn until_cancelled<T>(
    cancel: &CancellationToken,
    fut: impl Future<Output = T>,
) -> Result<T, Failure> {
    tokio::select! {
        value = fut => Ok(value),
        () = cancel.cancelled() => Err(Failure::interrupted()),
    }
}

/// Checks what can be checked before a server starts: the number of words
/// and the syntax of `key=value` / JSON arguments (their types are checked
/// against the tool's `inputSchema` later).
///
/// Errors: a usage [`Failure`].
fn precheck(command: &Command) -> Result<(), Failure> {
    match command {
        Command::Call { words } | Command::Prompt { words } => {
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

/// `a, b, c` — at most [`MAX_LISTED`] names, then `and N more`.
fn capped_list(names: &[String]) -> String {
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
    output::line(&text)
}

impl Session {
    async fn dispatch(&self, command: Command) -> Result<u8, Failure> {
        match command {
            Command::Servers => self.servers_cmd().await,
            Command::Tools { server } => self.tools(server.as_deref()).await,
            Command::Call { words } => self.call(&words).await,
            Command::Resources { server } => self.resources(server.as_deref()).await,
            Command::Read { words } => self.read(&words).await,
            Command::Prompts { server } => self.prompts(server.as_deref()).await,
            Command::Prompt { words } => self.prompt(&words).await,
            Command::Complete { words, context } => self.complete(&words, &context).await,
            Command::Ping { server } => self.ping(server.as_deref()).await,
            Command::ServeDemo => Err(Failure::new("serve-demo takes no target options")),
        }
    }

    /// `true` for a configured server name, started or not (a rejected
    /// config entry included).
    fn is_server(&self, name: &str) -> bool {
        self.servers.iter().any(|s| s.name == name) || self.rejected.contains_key(name)
    }

    /// "server X was not started: why", for a rejected entry or a server
    /// that failed to start; `None` when `name` is neither.
    fn not_started(&self, name: &str) -> Option<Failure> {
        let why = match self.rejected.get(name) {
            Some(why) => why.clone(),
            None => match self.servers.iter().find(|s| s.name == name)?.reach() {
                Err(Some(why)) => why,
                _ => return None,
            },
        };
        Some(Failure::new(format!(
            "server {name} was not started: {}",
            crate::exit::tidy(&why)
        )))
    }

    /// The servers that did not start (rejected or failed), by name.
    fn not_started_names(&self) -> Vec<String> {
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
    fn selected(&self, only: Option<&str>) -> Result<Vec<(&str, &Client)>, Failure> {
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
                    why.unwrap_or_else(|| "disabled in the configuration".into())
                ))),
            };
        }
        let mut ok = Vec::new();
        let mut errors = Vec::new();
        for s in &self.servers {
            match s.reach() {
                Ok(c) => ok.push((s.name.as_str(), c)),
                Err(Some(why)) => errors.push(format!("{}: {}", s.name, crate::exit::tidy(&why))),
                Err(None) => {}
            }
        }
        if ok.is_empty() {
            return Err(Failure::new(errors.join("\n")));
        }
        for e in errors {
            self.ui.line(&format!("mcp: skipped {e}"));
        }
        Ok(ok)
    }

    fn names(&self) -> String {
        self.servers
            .iter()
            .map(|s| s.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Prints `lines` per server: bare with one server, under a header with several.
    ///
    /// Errors: stdout closed or failing ([`output`]).
    fn print_grouped(&self, groups: &[(&str, Vec<String>)]) -> Result<(), Failure> {
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

    /// Each server's status as the manager reports it: connected (revision,
    /// server info, counts from the manager's listings; `-` when the server
    /// lacks the capability; the error, not a count, when the listing
    /// failed), failed (why) or disabled.
    async fn servers_cmd(&self) -> Result<u8, Failure> {
        let mut rows = Vec::new();
        for s in &self.servers {
            let row = match (&s.status, &s.client) {
                (
                    ServerStatus::Connected {
                        revision,
                        tools,
                        prompts,
                        resources,
                    },
                    Some(c),
                ) => {
                    let n = c.negotiated();
                    let caps = &n.capabilities;
                    // A listing that failed has no count: its error stands
                    // in for it (`{"error": …}`), so 0 means "none listed".
                    let count = |declared: bool, method: &str, n: &usize| -> Value {
                        if !declared {
                            return Value::Null;
                        }
                        match s.listing_failures.iter().find(|f| f.method == method) {
                            Some(f) => json!({"error": crate::exit::tidy(&f.error)}),
                            None => json!(n),
                        }
                    };
                    json!({
                        "name": s.name,
                        "status": "connected",
                        "protocolVersion": revision.as_str(),
                        "serverInfo": {"name": n.server_info.name, "version": n.server_info.version},
                        "tools": count(caps.tools.is_some(), "tools/list", tools),
                        "resources": count(caps.resources.is_some(), "resources/list", resources),
                        "prompts": count(caps.prompts.is_some(), "prompts/list", prompts),
                    })
                }
                (ServerStatus::Disabled, _) => json!({"name": s.name, "status": "disabled"}),
                (ServerStatus::Failed { why }, _) => {
                    json!({"name": s.name, "status": "failed", "error": crate::exit::tidy(why)})
                }
                (other, _) => {
                    json!({"name": s.name, "status": "failed", "error": other.to_string()})
                }
            };
            rows.push(row);
        }
        let all_ok = rows.iter().all(|r| r["status"] != "failed");
        if self.json {
            print_json(&rows)?;
        } else {
            for row in &rows {
                let name = row["name"].as_str().unwrap_or("");
                match row["status"].as_str() {
                    Some("failed") => {
                        output::line(&output::one_line(&format!(
                            "{name}  failed: {}",
                            row["error"].as_str().unwrap_or("")
                        )))?;
                        continue;
                    }
                    Some("disabled") => {
                        output::line(&format!("{name}  disabled"))?;
                        continue;
                    }
                    _ => {}
                }
                let count = |k: &str| match (&row[k], row[k]["error"].as_str()) {
                    (Value::Number(n), _) => n.to_string(),
                    (_, Some(error)) => format!("failed ({error})"),
                    _ => "-".to_owned(),
                };
                output::line(&output::one_line(&format!(
                    "{name}  connected  {}  {} {}  tools: {}  resources: {}  prompts: {}",
                    row["protocolVersion"].as_str().unwrap_or(""),
                    row["serverInfo"]["name"].as_str().unwrap_or(""),
                    row["serverInfo"]["version"].as_str().unwrap_or(""),
                    count("tools"),
                    count("resources"),
                    count("prompts"),
                )))?;
            }
        }
        Ok(if all_ok { SUCCESS } else { FAILURE })
    }

    /// A server's tools: the list the manager fetched at startup (kept by
    /// the client, in the server's order), fetched again only if missing.
    async fn tool_list(
        &self,
        name: &str,
        client: &Client,
    ) -> Result<Vec<mcp_types::tools::Tool>, Failure> {
        let tools = match client.cached_tools() {
            Some(tools) => tools.as_ref().clone(),
            None if client.server_capabilities().tools.is_none() => return Ok(Vec::new()),
            None => client
                .list_all_tools()
                .await
                .map_err(|e| prefixed(name, e))?,
        };
        let (problems, incomplete) = client.cached_tools_left_out();
        self.warn_left_out(name, "tools/list", &problems, incomplete.as_ref());
        Ok(tools)
    }

    /// One warning per entry a listing left out, and one when it stopped
    /// early; the entries that decoded are listed as usual.
    fn warn_left_out(
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

    async fn tools(&self, only: Option<&str>) -> Result<u8, Failure> {
        let mut json_out = Map::new();
        let mut groups = Vec::new();
        for (name, client) in self.selected(only)? {
            let tools = self.tool_list(name, client).await?;
            groups.push((name, tools.iter().map(render::tool_line).collect()));
            json_out.insert(
                name.to_owned(),
                serde_json::to_value(&tools).unwrap_or_default(),
            );
        }
        if self.json {
            print_json(&json_out)?;
        } else {
            self.print_grouped(&groups)?;
        }
        Ok(SUCCESS)
    }

    /// Splits `[SERVER] NAME rest…`: the first word is a server when it
    /// names one and the next word is a name, not an argument.
    fn split_server<'w>(&self, words: &'w [String]) -> (Option<&'w str>, &'w [String]) {
        match words {
            [first, second, ..] if self.is_server(first) && !is_argument(second) => {
                (Some(first.as_str()), &words[1..])
            }
            _ => (None, words),
        }
    }

    async fn call(&self, words: &[String]) -> Result<u8, Failure> {
        let (server, rest) = self.split_server(words);
        let Some((tool_name, arg_words)) = rest.split_first() else {
            return Err(Failure::new(
                "usage: mcp call [SERVER] TOOL [JSON | key=value ...]",
            ));
        };
        if is_argument(tool_name) {
            return Err(Failure::new(format!(
                "expected a tool name before the arguments, got {tool_name:?}"
            )));
        }
        if server.is_none() && rest.len() == words.len() {
            // `call broken ...` where `broken` is a server that did not start.
            if let Some(f) = self.not_started(tool_name) {
                return Err(f);
            }
        }
        let (name, client, tool) = self.find_tool(server, tool_name).await?;
        let arguments =
            tool_arguments(arg_words, Some(&tool.input_schema)).map_err(Failure::new)?;
        let ui = Arc::clone(&self.ui);
        let options = CallOptions::default()
            // `--timeout`, or the entry's own `timeout` (the manager set it).
            .with_timeout(client.options().request_timeout)
            .reset_timeout_on_progress(MAX_CALL_TIME)
            .with_cancel(self.cancel.clone())
            .with_progress(move |p| ui.progress(&p));
        let must_be_task = tool
            .execution
            .as_ref()
            .and_then(|e| e.task_support.as_ref())
            == Some(&TaskSupport::Required);
        let result = if must_be_task {
            self.call_as_task(name, client, tool_name, arguments, options.request)
                .await?
        } else {
            client
                .call_tool(tool_name, Some(arguments), options)
                .await
                .map_err(|e| prefixed(name, e))?
        };
        self.ui.finish();
        let is_error = result.is_error == Some(true);
        if self.json {
            print_json(&result)?;
        } else {
            let text = render::call_result(&result);
            if !text.is_empty() {
                output::line(&text)?;
            }
        }
        if is_error {
            self.ui.line(&format!(
                "mcp: tool {tool_name:?} reported an error (isError)"
            ));
            return Ok(TOOL_ERROR);
        }
        Ok(SUCCESS)
    }

    /// A tool whose `execution.taskSupport` is `"required"` (2025-11-25
    /// `basic/utilities/tasks`): `tools/call` creates a task, `tasks/result`
    /// waits for its outcome (up to [`MAX_CALL_TIME`]); Ctrl-C sends
    /// `tasks/cancel`.
    async fn call_as_task(
        &self,
        name: &str,
        client: &Client,
        tool_name: &str,
        arguments: Map<String, serde_json::Value>,
        request: RequestOptions,
    ) -> Result<CallToolResult, Failure> {
        let created = client
            .call_tool_as_task(
                tool_name,
                Some(arguments),
                TaskOptions {
                    request: Some(request),
                    ..TaskOptions::default()
                },
            )
            .await
            .map_err(|e| prefixed(name, e))?;
        let task_id = created.task.task_id;
        self.ui
            .line(&format!("mcp: {tool_name} runs as task {task_id}"));
        let wait = RequestOptions::default()
            .with_timeout(MAX_CALL_TIME)
            .with_cancel(self.cancel.clone());
        match client.tool_task_result(task_id.clone(), Some(wait)).await {
            Ok(result) => Ok(result),
            Err(e) => {
                if e.is_cancelled() {
                    // Best effort, bounded: the task is the server's to end.
                    let cancel = client.cancel_task(task_id);
                    let _ = tokio::time::timeout(Duration::from_secs(2), cancel).await;
                }
                Err(prefixed(name, e))
            }
        }
    }

    /// The server offering `tool`: `server` when given, else the one server
    /// whose tool list has it.
    async fn find_tool(
        &self,
        server: Option<&str>,
        tool: &str,
    ) -> Result<(&str, &Client, mcp_types::tools::Tool), Failure> {
        let mut offering = Vec::new();
        let mut everything = Vec::new();
        for (name, client) in self.selected(server)? {
            let tools = self.tool_list(name, client).await?;
            if let Some(t) = tools.iter().find(|t| t.name == tool) {
                offering.push((name, client, t.clone()));
            }
            everything.extend(tools.into_iter().map(|t| {
                if self.servers.len() > 1 {
                    format!("{name} {}", t.name)
                } else {
                    t.name
                }
            }));
        }
        match offering.len() {
            1 => Ok(offering.remove(0)),
            0 => {
                let not_started = self.not_started_names();
                Err(Failure::new(format!(
                    "no tool named {tool:?}{} (available: {}){}",
                    server.map(|s| format!(" on {s}")).unwrap_or_default(),
                    capped_list(&everything),
                    if server.is_none() && !not_started.is_empty() {
                        format!("; not started: {}", capped_list(&not_started))
                    } else {
                        String::new()
                    }
                )))
            }
            _ => Err(Failure::new(format!(
                "several servers offer {tool:?} ({}): name one, e.g. `mcp call {} {tool} ...`",
                offering.iter().map(|o| o.0).collect::<Vec<_>>().join(", "),
                offering[0].0
            ))),
        }
    }

    async fn resources(&self, only: Option<&str>) -> Result<u8, Failure> {
        let mut json_out = Map::new();
        let mut groups = Vec::new();
        for (name, client) in self.selected(only)? {
            if client.server_capabilities().resources.is_none() {
                groups.push((name, vec!["(no resources capability)".to_owned()]));
                continue;
            }
            let listing = client
                .resources_listing()
                .await
                .map_err(|e| prefixed(name, e))?;
            let resources = listing.items;
            self.warn_left_out(
                name,
                "resources/list",
                &listing.problems,
                listing.incomplete.as_ref(),
            );
            let templates = match client.resource_templates_listing().await {
                Ok(t) => {
                    let method = "resources/templates/list";
                    self.warn_left_out(name, method, &t.problems, t.incomplete.as_ref());
                    t.items
                }
                Err(e) if e.is_method_not_found() => Vec::new(),
                Err(e) => return Err(prefixed(name, e)),
            };
            let mut lines: Vec<String> = resources.iter().map(render::resource_line).collect();
            lines.extend(
                templates
                    .iter()
                    .map(|t| format!("template {}", render::template_line(t))),
            );
            groups.push((name, lines));
            json_out.insert(
                name.to_owned(),
                json!({"resources": resources, "resourceTemplates": templates}),
            );
        }
        if self.json {
            print_json(&json_out)?;
        } else {
            self.print_grouped(&groups)?;
        }
        Ok(SUCCESS)
    }

    async fn read(&self, words: &[String]) -> Result<u8, Failure> {
        let (server, uri) = match words {
            [server, uri] => (Some(server.as_str()), uri.as_str()),
            [uri] => (None, uri.as_str()),
            _ => return Err(Failure::new("usage: mcp read [SERVER] URI")),
        };
        let candidates = self.selected(server)?;
        let (name, client) = if candidates.len() == 1 {
            candidates[0]
        } else {
            let mut found = None;
            for (name, client) in &candidates {
                if client.server_capabilities().resources.is_none() {
                    continue;
                }
                if let Ok(list) = client.list_all_resources().await
                    && list.iter().any(|r| r.uri == uri)
                {
                    found = Some((*name, *client));
                    break;
                }
            }
            found.ok_or_else(|| {
                Failure::new(format!(
                    "no server lists {uri:?}; name one: `mcp read SERVER URI`"
                ))
            })?
        };
        let result = client
            .read_resource(uri)
            .await
            .map_err(|e| prefixed(name, e))?;
        if self.json {
            print_json(&result)?;
        } else {
            for c in &result.contents {
                let text = render::resource_contents(c);
                if text.ends_with('\n') {
                    output::text(&text)?;
                } else {
                    output::line(&text)?;
                }
            }
        }
        Ok(SUCCESS)
    }

    async fn prompts(&self, only: Option<&str>) -> Result<u8, Failure> {
        let mut json_out = Map::new();
        let mut groups = Vec::new();
        for (name, client) in self.selected(only)? {
            if client.server_capabilities().prompts.is_none() {
                groups.push((name, vec!["(no prompts capability)".to_owned()]));
                continue;
            }
            let listing = client
                .prompts_listing()
                .await
                .map_err(|e| prefixed(name, e))?;
            let prompts = listing.items;
            self.warn_left_out(
                name,
                "prompts/list",
                &listing.problems,
                listing.incomplete.as_ref(),
            );
            groups.push((name, prompts.iter().map(render::prompt_line).collect()));
            json_out.insert(
                name.to_owned(),
                serde_json::to_value(&prompts).unwrap_or_default(),
            );
        }
        if self.json {
            print_json(&json_out)?;
        } else {
            self.print_grouped(&groups)?;
        }
        Ok(SUCCESS)
    }

    /// The server offering prompt `prompt`: `server` when given, else the
    /// only server whose prompt list has it.
    async fn find_prompt(
        &self,
        server: Option<&str>,
        prompt: &str,
    ) -> Result<(&str, &Client), Failure> {
        let candidates = self.selected(server)?;
        if candidates.len() == 1 {
            return Ok(candidates[0]);
        }
        let mut offering = Vec::new();
        for (name, client) in candidates {
            if client.server_capabilities().prompts.is_none() {
                continue;
            }
            let listing = client
                .prompts_listing()
                .await
                .map_err(|e| prefixed(name, e))?;
            let prompts = listing.items;
            self.warn_left_out(
                name,
                "prompts/list",
                &listing.problems,
                listing.incomplete.as_ref(),
            );
            if prompts.iter().any(|p| p.name == prompt) {
                offering.push((name, client));
            }
        }
        match offering.len() {
            1 => Ok(offering[0]),
            0 => Err(Failure::new(format!(
                "no server offers a prompt named {prompt:?}"
            ))),
            _ => Err(Failure::new(format!(
                "several servers offer {prompt:?}: name one"
            ))),
        }
    }

    async fn prompt(&self, words: &[String]) -> Result<u8, Failure> {
        let (server, rest) = self.split_server(words);
        let Some((prompt, arg_words)) = rest.split_first() else {
            return Err(Failure::new(
                "usage: mcp prompt [SERVER] NAME [key=value ...]",
            ));
        };
        let args = string_arguments(arg_words).map_err(Failure::new)?;
        let (name, client) = self.find_prompt(server, prompt).await?;
        let arguments = (!args.is_empty()).then_some(args);
        let result = client
            .get_prompt(prompt.as_str(), arguments)
            .await
            .map_err(|e| prefixed(name, e))?;
        if self.json {
            print_json(&result)?;
        } else {
            if let Some(d) = &result.description {
                self.ui.line(d);
            }
            output::line(&render::prompt_result(&result))?;
        }
        Ok(SUCCESS)
    }

    async fn complete(&self, words: &[String], context: &[String]) -> Result<u8, Failure> {
        let (server, rest) = match words {
            [server, rest @ ..] if rest.len() == 4 => (Some(server.as_str()), rest),
            rest => (None, rest),
        };
        let [kind, reference, argument, value] = rest else {
            return Err(Failure::new(
                "usage: mcp complete [SERVER] prompt|resource REF ARG VALUE",
            ));
        };
        let reference = match kind.as_str() {
            "prompt" => CompletionReference::Prompt(PromptReference {
                name: reference.clone(),
                ..Default::default()
            }),
            "resource" => CompletionReference::Resource(ResourceTemplateReference {
                uri: reference.clone(),
                ..Default::default()
            }),
            other => {
                return Err(Failure::new(format!(
                    "complete: expected \"prompt\" or \"resource\", got {other:?}"
                )));
            }
        };
        let context: BTreeMap<String, String> = string_arguments(context).map_err(Failure::new)?;
        let (name, client) = match (kind.as_str(), server) {
            ("prompt", _) => self.find_prompt(server, &words[words.len() - 3]).await?,
            _ => {
                let c = self.selected(server)?;
                if c.len() > 1 {
                    return Err(Failure::new(
                        "several servers: name one, `mcp complete SERVER resource ...`",
                    ));
                }
                c[0]
            }
        };
        let params = CompleteRequestParams {
            reference,
            argument: CompletionArgument {
                name: argument.clone(),
                value: value.clone(),
                extra: Map::new(),
            },
            context: (!context.is_empty()).then(|| CompletionContext {
                arguments: Some(context),
                extra: Map::new(),
            }),
            meta: None,
            extra: Map::new(),
        };
        let result = client
            .complete(params)
            .await
            .map_err(|e| prefixed(name, e))?;
        if self.json {
            print_json(&result)?;
        } else {
            for v in &result.completion.values {
                output::line(v)?;
            }
            if result.completion.has_more == Some(true) {
                self.ui.line(&format!(
                    "mcp: more completions available{}",
                    result
                        .completion
                        .total
                        .map(|t| format!(" ({t} in all)"))
                        .unwrap_or_default()
                ));
            }
        }
        Ok(SUCCESS)
    }

    async fn ping(&self, only: Option<&str>) -> Result<u8, Failure> {
        let mut rows = Vec::new();
        let mut failed = false;
        for (name, client) in self.selected(only)? {
            let start = Instant::now();
            match client.ping().await {
                Ok(()) => {
                    let ms = start.elapsed().as_millis() as u64;
                    rows.push(json!({"name": name, "ok": true, "ms": ms}));
                }
                Err(e) => {
                    failed = true;
                    rows.push(
                        json!({"name": name, "ok": false, "error": crate::exit::tidy(&crate::exit::error_chain(&e))}),
                    );
                }
            }
        }
        if self.json {
            print_json(&rows)?;
        } else {
            for r in &rows {
                let name = r["name"].as_str().unwrap_or("");
                if r["ok"] == true {
                    output::line(&format!("{name}: ok ({} ms)", r["ms"]))?;
                } else {
                    output::line(&format!(
                        "{name}: failed: {}",
                        r["error"].as_str().unwrap_or("")
                    ))?;
                }
            }
        }
        Ok(if failed { FAILURE } else { SUCCESS })
    }
}

/// A client error, prefixed with the server's name.
/// The longest `--timeout` and `--discover-timeout` taken: a week
/// (604 800 s); a larger value is taken as this one (deadlines are computed
/// by adding it to the clock).
const MAX_TIMEOUT: Duration = Duration::from_secs(7 * 24 * 3600);

/// The lists a command needs when its servers start: `servers` shows every
/// count; `tools` and `call` need the tools (to find and type a tool);
/// `prompts`, `prompt` and `complete` the prompts; `resources` the
/// resources; `read` lists a server's resources itself only when no server
/// is named; `ping` needs none.
fn listings_for(command: &Command) -> StartListings {
    let only = |tools, prompts, resources| StartListings {
        tools,
        prompts,
        resources,
    };
    match command {
        Command::Servers => StartListings::ALL,
        Command::Tools { .. } | Command::Call { .. } => only(true, false, false),
        Command::Prompts { .. } | Command::Prompt { .. } | Command::Complete { .. } => {
            only(false, true, false)
        }
        Command::Resources { .. } => only(false, false, true),
        Command::Read { .. } | Command::Ping { .. } | Command::ServeDemo => StartListings::NONE,
    }
}

fn prefixed(server: &str, e: mcp_client::ClientError) -> Failure {
    let hint = cannot_reach_client(&e);
    let mut f = Failure::from(e);
    if f.code == FAILURE {
        f.message = format!("{server}: {}", f.message);
        if hint {
            f.message.push_str(&format!(
                "\nmcp: hint: {server} could not send its request to this client in the revision \
                 negotiated (2026-07-28 carries server requests only inside a multi round-trip result); \
                 run it in the handshake era: --protocol-version handshake, or \
                 \"protocolVersion\": \"handshake\" in its config entry"
            ));
        }
    }
    f
}

/// `true` for a server's error saying it could not send a server-to-client
/// request (`elicitation/create`, `sampling/createMessage`, `roots/list`):
/// Invalid Request naming one of them. Servers written for the handshake era
/// answer so under 2026-07-28, where a request has no back-channel.
fn cannot_reach_client(e: &mcp_client::ClientError) -> bool {
    const SERVER_REQUESTS: [&str; 3] =
        ["elicitation/create", "sampling/createMessage", "roots/list"];
    matches!(e, mcp_client::ClientError::Server { error, .. }
        if error.code == mcp_types::ErrorCode::INVALID_REQUEST
            && SERVER_REQUESTS.iter().any(|m| error.message.contains(m)))
}
