//! The Tasks pane's state (2025-11-25 tasks, spec `basic/utilities/tasks`):
//! what a server declared of tasks, each task known with its latest
//! state and outcome, and what a key does there.

use mcp_types::tasks::{Task, TaskStatus};
use mcp_types::tools::TaskSupport as ToolTaskSupport;

use super::*;

/// What a server declared of tasks (`capabilities.tasks`), counted only in
/// a revision that has them (2025-11-25).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct TaskSupport {
    /// `tasks` declared.
    pub declared: bool,
    /// `tasks.list`: `tasks/list` answers.
    pub list: bool,
    /// `tasks.cancel`: `tasks/cancel` answers.
    pub cancel: bool,
    /// `tasks.requests.tools.call`: a `tools/call` may be task-augmented.
    pub tool_calls: bool,
}

/// One task as the Tasks pane shows it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TaskEntry {
    pub task: Task,
    /// The tool of a task created by a call made in the explorer.
    pub tool: Option<String>,
    /// What `tasks/result` brought (or is being waited for).
    pub result: Option<Output>,
}

impl TaskEntry {
    pub(crate) fn new(task: Task) -> Self {
        TaskEntry {
            task,
            tool: None,
            result: None,
        }
    }
}

/// A task status as the spec writes it (`working`, `input_required`, …).
pub(crate) fn status_word(status: &TaskStatus) -> String {
    serde_json::to_value(status)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

impl App {
    /// The selected task of the current server.
    pub(crate) fn selected_task(&self) -> Option<&TaskEntry> {
        let at = self.selected_in(Pane::Tasks);
        self.current().and_then(|s| s.tasks.get(at))
    }

    /// How a tool of the current server is called: as a task when its
    /// `execution.taskSupport` is `required` (it cannot be called
    /// otherwise), or when `wanted` (`t`) and it is `optional`; `Err` says
    /// why `wanted` cannot be met.
    pub(super) fn call_as_task(&self, tool: &Tool, wanted: bool) -> Result<bool, String> {
        let support = tool
            .execution
            .as_ref()
            .and_then(|e| e.task_support.as_ref());
        let declared = self
            .current()
            .and_then(|s| s.info.as_ref())
            .is_some_and(|i| i.tasks.tool_calls);
        match support {
            Some(ToolTaskSupport::Required) => Ok(true),
            Some(ToolTaskSupport::Optional) if wanted && declared => Ok(true),
            Some(ToolTaskSupport::Optional) if wanted => Err(format!(
                "{} does not take task-augmented calls (tasks.requests.tools.call)",
                self.current().map_or("the server", |s| s.name.as_str())
            )),
            _ if wanted => Err(format!(
                "{} cannot run as a task (its execution.taskSupport is not optional)",
                tool.name
            )),
            _ => Ok(false),
        }
    }

    /// `true` when `t` would call the selected tool as a task.
    pub(crate) fn selected_tool_may_be_a_task(&self) -> bool {
        self.visible_tools()
            .get(self.selected())
            .is_some_and(|(_, t)| {
                t.execution.as_ref().and_then(|e| e.task_support.as_ref())
                    == Some(&ToolTaskSupport::Optional)
                    && self.call_as_task(t, true).is_ok()
            })
    }

    /// A task's state arrived: the entry is updated, or added at the end.
    pub(super) fn task_arrived(&mut self, server: &str, task: Task, tool: Option<String>) {
        let Some(s) = self.servers.iter_mut().find(|s| s.name == server) else {
            return;
        };
        match s.tasks.iter_mut().find(|e| e.task.task_id == task.task_id) {
            Some(entry) => {
                entry.task = task;
                if tool.is_some() {
                    entry.tool = tool;
                }
            }
            None => {
                let mut entry = TaskEntry::new(task);
                entry.tool = tool;
                s.tasks.push(entry);
            }
        }
    }

    /// What `tasks/result` brought, kept with its task.
    pub(super) fn task_result(&mut self, server: &str, task_id: &str, output: Output) {
        if let Some(entry) = self
            .servers
            .iter_mut()
            .find(|s| s.name == server)
            .and_then(|s| s.tasks.iter_mut().find(|e| e.task.task_id == task_id))
        {
            entry.result = Some(output);
        }
    }

    /// A server's fresh listing keeps what only the explorer knew of its
    /// tasks (their tools and outcomes) and the tasks the listing left out
    /// (a server without `tasks/list` lists none).
    pub(super) fn merge_tasks(old: Vec<TaskEntry>, new: &mut Vec<TaskEntry>) {
        for entry in old {
            match new
                .iter_mut()
                .find(|e| e.task.task_id == entry.task.task_id)
            {
                Some(listed) => {
                    listed.tool = entry.tool;
                    listed.result = entry.result;
                }
                None => new.push(entry),
            }
        }
    }

    /// A key of the Tasks pane: Enter asks for the selected task's result,
    /// `c` cancels it; `None` when the key means nothing there.
    pub(super) fn task_key(&mut self, code: KeyCode) -> Option<Vec<Action>> {
        if !matches!(code, KeyCode::Enter | KeyCode::Char('c')) {
            return None;
        }
        let Some(s) = self.current() else {
            return Some(Vec::new());
        };
        let server = s.name.clone();
        let support = s.info.as_ref().map(|i| i.tasks).unwrap_or_default();
        let Some(entry) = self.selected_task() else {
            self.notice = Some(if support.declared {
                format!("{server} has no task yet")
            } else {
                format!("{server} does not offer tasks")
            });
            return Some(Vec::new());
        };
        let task_id = entry.task.task_id.clone();
        let tool = entry.tool.clone();
        if code == KeyCode::Char('c') {
            if !support.cancel {
                self.notice = Some(format!(
                    "{server} does not take tasks/cancel (tasks.cancel)"
                ));
                return Some(Vec::new());
            }
            if entry.task.status.is_terminal() {
                self.notice = Some(format!(
                    "task {task_id} is {}: nothing to cancel",
                    status_word(&entry.task.status)
                ));
                return Some(Vec::new());
            }
            self.notice = Some(format!("cancelling task {task_id}…"));
            return Some(vec![Action::CancelTask { server, task_id }]);
        }
        let waiting = Output {
            title: format!("task {task_id} → waiting"),
            lines: vec![
                "waiting for the result (tasks/result); a question the task asks opens as a dialog"
                    .into(),
            ],
            ..Default::default()
        };
        self.task_result(&server, &task_id, waiting);
        Some(vec![Action::TaskResult {
            server,
            task_id,
            tool,
        }])
    }

    /// PgUp/PgDn in the Tasks pane: the selected task's result.
    pub(super) fn scroll_task_result(&mut self, by: i32) {
        let at = self.selected_in(Pane::Tasks);
        if let Some(o) = self
            .servers
            .get_mut(self.server)
            .and_then(|s| s.tasks.get_mut(at))
            .and_then(|e| e.result.as_mut())
        {
            o.scroll = (i32::from(o.scroll) + by).max(0) as u16;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests_support::{demo_view, key};
    use super::*;
    use serde_json::json;

    pub(crate) fn task(id: &str, status: &str) -> Task {
        serde_json::from_value(json!({
            "taskId": id, "status": status, "createdAt": "2025-11-25T10:00:00Z",
            "lastUpdatedAt": "2025-11-25T10:00:01Z", "ttl": 300000, "pollInterval": 1000
        }))
        .unwrap()
    }

    fn with_tasks() -> App {
        let mut view = demo_view();
        if let Some(info) = &mut view.info {
            info.tasks = TaskSupport {
                declared: true,
                list: true,
                cancel: true,
                tool_calls: true,
            };
        }
        App::new(vec![view])
    }

    #[test]
    fn a_task_is_added_then_updated_and_its_result_asked_for_and_cancelled() {
        let mut app = with_tasks();
        app.key(key(KeyCode::Char('7')));
        assert_eq!(app.pane, Pane::Tasks);
        assert!(app.key(key(KeyCode::Enter)).is_empty());
        assert_eq!(app.notice.as_deref(), Some("demo has no task yet"));
        app.apply(Event::Task {
            server: "demo".into(),
            task: Box::new(task("t1", "working")),
            tool: Some("research".into()),
        });
        app.apply(Event::Task {
            server: "demo".into(),
            task: Box::new(task("t1", "input_required")),
            tool: None,
        });
        let tasks = &app.servers[0].tasks;
        assert_eq!(tasks.len(), 1);
        assert_eq!(tasks[0].task.status, TaskStatus::InputRequired);
        assert_eq!(tasks[0].tool.as_deref(), Some("research"), "kept");
        assert_eq!(
            app.key(key(KeyCode::Char('c'))),
            vec![Action::CancelTask {
                server: "demo".into(),
                task_id: "t1".into()
            }]
        );
        assert_eq!(
            app.key(key(KeyCode::Enter)),
            vec![Action::TaskResult {
                server: "demo".into(),
                task_id: "t1".into(),
                tool: Some("research".into()),
            }]
        );
        assert!(app.selected_task().unwrap().result.is_some());
        app.apply(Event::Task {
            server: "demo".into(),
            task: Box::new(task("t1", "cancelled")),
            tool: None,
        });
        assert!(app.key(key(KeyCode::Char('c'))).is_empty());
        assert_eq!(
            app.notice.as_deref(),
            Some("task t1 is cancelled: nothing to cancel")
        );
    }

    #[test]
    fn a_server_without_tasks_is_told_and_a_listing_keeps_what_was_known() {
        let mut app = App::new(vec![demo_view()]);
        app.key(key(KeyCode::Char('7')));
        assert!(app.key(key(KeyCode::Char('c'))).is_empty());
        assert_eq!(app.notice.as_deref(), Some("demo does not offer tasks"));

        let mut app = with_tasks();
        app.apply(Event::Task {
            server: "demo".into(),
            task: Box::new(task("mine", "completed")),
            tool: Some("research".into()),
        });
        app.apply(Event::TaskResult {
            server: "demo".into(),
            task_id: "mine".into(),
            output: Output {
                title: "research → result".into(),
                ..Default::default()
            },
        });
        let mut fresh = app.servers[0].clone();
        fresh.tasks = vec![
            TaskEntry::new(task("other", "working")),
            TaskEntry::new(task("mine", "completed")),
        ];
        app.apply(Event::Server(Box::new(fresh)));
        let tasks = &app.servers[0].tasks;
        assert_eq!(tasks.len(), 2);
        assert_eq!(tasks[1].tool.as_deref(), Some("research"));
        assert!(tasks[1].result.is_some());
    }

    #[test]
    fn a_tool_runs_as_a_task_when_it_must_or_when_asked() {
        let mut app = with_tasks();
        let mut tools: Vec<Tool> = serde_json::from_value(json!([
            {"name": "must", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "required"}},
            {"name": "may", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "optional"}},
        ]))
        .unwrap();
        app.servers[0].tools.append(&mut tools);
        app.key(key(KeyCode::Char('2')));
        let call = |app: &mut App, name: &str| {
            let at = app
                .visible_tools()
                .iter()
                .position(|(_, t)| t.name == name)
                .unwrap();
            app.cursor[Pane::Tools.index()] = at;
            app.key(key(KeyCode::Enter));
            app.key(key(KeyCode::Enter))
        };
        // Enter opens the form, Enter calls: as a task when the tool must.
        assert!(matches!(
            call(&mut app, "must").as_slice(),
            [Action::CallTool { as_task: true, .. }]
        ));
        app.apply(Event::CallEnded);
        assert!(matches!(
            call(&mut app, "may").as_slice(),
            [Action::CallTool { as_task: false, .. }]
        ));
        app.apply(Event::CallEnded);
        // `t` opens the form for a task-augmented call.
        assert!(app.selected_tool_may_be_a_task());
        app.key(key(KeyCode::Char('t')));
        assert_eq!(app.form.as_ref().unwrap().title, "call may as a task");
        assert!(matches!(
            app.key(key(KeyCode::Enter)).as_slice(),
            [Action::CallTool { as_task: true, .. }]
        ));
        app.apply(Event::CallEnded);
        // A tool that cannot, or a server that does not take them: told why.
        app.cursor[Pane::Tools.index()] = 0;
        assert!(app.key(key(KeyCode::Char('t'))).is_empty());
        assert!(app.form.is_none());
        assert_eq!(
            app.notice.as_deref(),
            Some("echo cannot run as a task (its execution.taskSupport is not optional)")
        );
        app.servers[0].info.as_mut().unwrap().tasks.tool_calls = false;
        app.cursor[Pane::Tools.index()] = 3;
        app.key(key(KeyCode::Char('t')));
        assert!(app.form.is_none());
        assert_eq!(
            app.notice.as_deref(),
            Some("demo does not take task-augmented calls (tasks.requests.tools.call)")
        );
    }
}
