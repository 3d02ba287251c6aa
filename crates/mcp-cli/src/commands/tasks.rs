//! `mcp tasks` and `mcp task get|result|cancel` (2025-11-25 tasks, spec
//! `basic/utilities/tasks`).

use mcp_client::{Client, RequestOptions};
use mcp_types::tasks::Task;

use super::{Session, prefixed, print_json};
use crate::exit::{Failure, SUCCESS, TOOL_ERROR};
use crate::output;

/// `ID  status  created  (message)`.
fn task_line(task: &Task) -> String {
    let status = serde_json::to_value(&task.status)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default();
    let mut line = format!("{}  {status}  {}", task.task_id, task.created_at);
    if let Some(m) = &task.status_message {
        line.push_str(&format!("  ({m})"));
    }
    line
}

fn has_tasks(client: &Client) -> bool {
    client.server_capabilities().tasks.is_some()
}

impl Session {
    /// `mcp tasks [SERVER]`: each server's tasks (`tasks/list`).
    pub(super) async fn tasks(&self, only: Option<&str>) -> Result<u8, Failure> {
        let mut groups = Vec::new();
        let mut all = Vec::new();
        for (name, client) in self.selected(only)? {
            if !has_tasks(client) {
                if only.is_some() {
                    return Err(Failure::new(format!("{name} does not offer tasks")));
                }
                continue;
            }
            let listing = client
                .tasks_listing(Default::default())
                .await
                .map_err(|e| prefixed(name, e))?;
            self.warn_left_out(
                name,
                "tasks/list",
                &listing.problems,
                listing.incomplete.as_ref(),
            );
            let mut lines: Vec<String> = listing.items.iter().map(task_line).collect();
            if lines.is_empty() {
                lines.push("no tasks".into());
            }
            for task in listing.items {
                all.push(serde_json::json!({"server": name, "task": task}));
            }
            groups.push((name, lines));
        }
        if groups.is_empty() {
            return Err(Failure::new("no server offers tasks"));
        }
        if self.json {
            print_json(&all)?;
        } else {
            self.print_grouped(&groups)?;
        }
        Ok(SUCCESS)
    }

    /// `mcp task [SERVER] get|result|cancel ID`.
    pub(super) async fn task(&self, words: &[String]) -> Result<u8, Failure> {
        let (server, action, id) = match words {
            [action, id] => (None, action, id),
            [server, action, id] => (Some(server.as_str()), action, id),
            _ => {
                return Err(Failure::new(
                    "usage: mcp task [SERVER] get|result|cancel ID",
                ));
            }
        };
        let servers: Vec<(&str, &Client)> = self
            .selected(server)?
            .into_iter()
            .filter(|(_, c)| has_tasks(c))
            .collect();
        let (name, client) = match servers.as_slice() {
            [one] => *one,
            [] => return Err(Failure::new("no server offers tasks")),
            _ => {
                return Err(Failure::new(
                    "several servers offer tasks: name one, `mcp task SERVER get ID`",
                ));
            }
        };
        match action.as_str() {
            "get" | "cancel" => {
                let task = if action == "get" {
                    client.get_task(id.clone(), Default::default()).await
                } else {
                    client.cancel_task(id.clone(), Default::default()).await
                }
                .map_err(|e| prefixed(name, e))?;
                if self.json {
                    print_json(&task)?;
                } else {
                    output::line(&task_line(&task))?;
                }
                Ok(SUCCESS)
            }
            "result" => {
                // Waits as long as the task runs; Ctrl-C stops waiting.
                let result = client
                    .tool_task_result(id.clone(), RequestOptions::default().without_timeout())
                    .await
                    .map_err(|e| prefixed(name, e))?;
                if self.json {
                    print_json(&result)?;
                } else {
                    output::text(&crate::render::call_result(&result))?;
                }
                Ok(if result.is_error == Some(true) {
                    TOOL_ERROR
                } else {
                    SUCCESS
                })
            }
            other => Err(Failure::new(format!(
                "task: expected get, result or cancel, got {other:?}"
            ))),
        }
    }
}
