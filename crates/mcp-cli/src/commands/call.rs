//! `mcp call`: calls a tool, as a task when the tool requires one.

use std::sync::Arc;
use std::time::Duration;

use mcp_client::{Client, RequestOptions};
use mcp_types::tools::{CallToolResult, TaskSupport};
use serde_json::Map;

use super::{Session, capped_list, prefixed, print_json};
use crate::arguments::{is_argument, tool_arguments};
use crate::exit::{Failure, SUCCESS, TOOL_ERROR};
use crate::output;
use crate::render;

/// The longest a tool call may run while it keeps sending progress: one hour.
const MAX_CALL_TIME: Duration = Duration::from_secs(3600);

impl Session {
    pub(super) async fn call(&self, words: &[String]) -> Result<u8, Failure> {
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
        // The tool's own name: `tool_name` may be its qualified name.
        let tool_name = tool.name.as_str();
        let arguments =
            tool_arguments(arg_words, Some(&tool.input_schema)).map_err(Failure::new)?;
        let ui = Arc::clone(&self.ui);
        let options = RequestOptions::default()
            // `--timeout`, or the entry's own `timeout` (the manager set it).
            .with_timeout(client.options().request_timeout)
            .with_timeout_reset_on_progress(MAX_CALL_TIME)
            .with_cancel(self.cancel.clone())
            .with_progress(move |p| ui.progress(&p));
        let must_be_task = tool
            .execution
            .as_ref()
            .and_then(|e| e.task_support.as_ref())
            == Some(&TaskSupport::Required);
        let result = if must_be_task {
            self.call_as_task(name, client, tool_name, arguments, options)
                .await?
        } else {
            client
                .call_tool(tool_name, arguments, options)
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
    pub(super) async fn call_as_task(
        &self,
        name: &str,
        client: &Client,
        tool_name: &str,
        arguments: Map<String, serde_json::Value>,
        request: RequestOptions,
    ) -> Result<CallToolResult, Failure> {
        let created = client
            .call_tool_as_task(tool_name, arguments, Default::default(), request)
            .await
            .map_err(|e| prefixed(name, e))?;
        let task_id = created.task.task_id;
        self.ui
            .line(&format!("mcp: {tool_name} runs as task {task_id}"));
        // Until its result is in, the task is on the list Ctrl-C cancels:
        // Ctrl-C drops this future mid-wait, so it cannot ask itself.
        self.running_tasks
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push((name.to_owned(), client.clone(), task_id.clone()));
        let wait = RequestOptions::default()
            .with_timeout(MAX_CALL_TIME)
            .with_cancel(self.cancel.clone());
        let outcome = client.tool_task_result(task_id.clone(), wait).await;
        if !matches!(&outcome, Err(e) if e.is_cancelled()) {
            self.running_tasks
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .retain(|(_, _, id)| *id != task_id);
        }
        outcome.map_err(|e| prefixed(name, e))
    }

    /// The server offering `tool`: `server` when given, else the one server
    /// whose tool list has it. `tool` is the tool's name, or else its
    /// qualified name in `mcp-manager`'s namespace (`server__tool`).
    pub(super) async fn find_tool(
        &self,
        server: Option<&str>,
        tool: &str,
    ) -> Result<(&str, &Client, mcp_types::tools::Tool), Failure> {
        let mut offering = Vec::new();
        let mut everything = Vec::new();
        let mut listed = Vec::new();
        for (name, client) in self.selected_for(server, tool)? {
            let tools = self.tool_list(name, client).await?;
            if let Some(t) = tools.iter().find(|t| t.name == tool) {
                offering.push((name, client, t.clone()));
            }
            everything.extend(tools.iter().map(|t| {
                if self.servers.len() > 1 {
                    format!("{name} {}", t.name)
                } else {
                    t.name.clone()
                }
            }));
            listed.push((name, client, tools));
        }
        if offering.is_empty() {
            let items = listed
                .iter()
                .flat_map(|(s, _, tools)| tools.iter().map(|t| (*s, t.name.as_str())));
            if let Some((owner, own_name)) = super::session::resolve_qualified(items, tool)
                && let Some((s, c, tools)) = listed.iter().find(|(s, _, _)| *s == owner)
                && let Some(t) = tools.iter().find(|t| t.name == own_name)
            {
                offering.push((*s, *c, t.clone()));
            } else if server.is_none()
                && let Some(f) = self.not_started_owner(tool)
            {
                return Err(f);
            }
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
}
