//! The Tasks pane (2025-11-25 tasks): the current server's tasks with
//! their status, the selected one's details and its result; a server that
//! offers no tasks says so.

use mcp_types::tasks::TaskStatus;

use super::*;
use crate::explorer::app::status_word;

fn status_color(status: &TaskStatus) -> Color {
    match status {
        TaskStatus::Working => Color::Yellow,
        TaskStatus::InputRequired => Color::Magenta,
        TaskStatus::Completed => Color::Green,
        TaskStatus::Failed => Color::Red,
        _ => Color::DarkGray,
    }
}

pub(super) fn tasks(frame: &mut Frame<'_>, app: &App, area: Rect) {
    let Some(s) = app.current() else {
        return;
    };
    let support = s.info.as_ref().map(|i| i.tasks).unwrap_or_default();
    if !support.declared && s.tasks.is_empty() {
        let why = match &s.info {
            None => format!("{} is not connected", clean(&s.name)),
            Some(i) if i.revision == "2025-11-25" => format!(
                "{} does not offer tasks (its capabilities have no `tasks`)",
                clean(&s.name)
            ),
            Some(i) => format!(
                "{} speaks {}: tasks are a 2025-11-25 feature here",
                clean(&s.name),
                i.revision
            ),
        };
        frame.render_widget(boxed("Tasks".into(), vec![Line::raw(why)], 0), area);
        return;
    }
    let cols = split(area, 45);
    let items = s
        .tasks
        .iter()
        .map(|e| {
            let status = status_word(&e.task.status);
            let mut spans = vec![
                Span::styled(
                    format!("{status:<14} "),
                    Style::default().fg(status_color(&e.task.status)),
                ),
                Span::raw(clean(&e.task.task_id)),
            ];
            if let Some(tool) = &e.tool {
                spans.push(Span::styled(
                    format!("  {}", clean(tool)),
                    Style::default().fg(Color::DarkGray),
                ));
            }
            ListItem::new(Line::from(spans))
        })
        .collect();
    let title = if support.list {
        "Tasks (tasks/list, polled)"
    } else {
        "Tasks (made here; no tasks/list)"
    };
    list(frame, cols[0], title, items, app.selected());
    let right = Layout::default()
        .direction(Dir::Vertical)
        .constraints([Constraint::Length(9), Constraint::Min(3)])
        .split(cols[1]);
    let Some(entry) = app.selected_task() else {
        frame.render_widget(
            boxed(
                "Task".into(),
                vec![Line::raw(
                    "no task yet: a tool called as a task (t in Tools) shows up here",
                )],
                0,
            ),
            right[0],
        );
        return;
    };
    let t = &entry.task;
    let mut lines = vec![Line::from(vec![
        Span::styled("status: ", bold()),
        Span::styled(
            status_word(&t.status),
            Style::default().fg(status_color(&t.status)),
        ),
        Span::raw(
            t.status_message
                .as_deref()
                .map(|m| format!(" ({})", clean(m)))
                .unwrap_or_default(),
        ),
    ])];
    if let Some(tool) = &entry.tool {
        lines.push(Line::raw(format!("tool: {} (tools/call)", clean(tool))));
    }
    lines.push(Line::raw(format!(
        "created: {}  updated: {}",
        clean(&t.created_at),
        clean(&t.last_updated_at)
    )));
    let ms = |v: Option<u64>| v.map_or_else(|| "none".to_owned(), |v| format!("{v} ms"));
    lines.push(Line::raw(format!(
        "ttl: {}  pollInterval: {}",
        ms(t.ttl),
        ms(t.poll_interval)
    )));
    if t.status == TaskStatus::InputRequired {
        lines.push(Line::styled(
            "it waits for an answer: Enter fetches its question (tasks/result)",
            Style::default().fg(Color::Magenta),
        ));
    }
    frame.render_widget(
        boxed(format!("task {}", clean(&t.task_id)), lines, 0),
        right[0],
    );
    let result = match &entry.result {
        Some(o) => output_paragraph(o),
        None => boxed(
            "Result".into(),
            vec![Line::raw(if t.status.is_terminal() {
                "Enter fetches its result (tasks/result)"
            } else {
                "shown when it ends; Enter waits for it (tasks/result)"
            })],
            0,
        ),
    };
    frame.render_widget(result, right[1]);
}

#[cfg(test)]
mod tests {
    use super::super::tests::{key, screen};
    use super::*;
    use crate::explorer::app::tests_support::demo_view;
    use crate::explorer::app::{Event, Output, TaskSupport};
    use crossterm::event::KeyCode;

    fn task(id: &str, status: &str, message: Option<&str>) -> Box<mcp_types::tasks::Task> {
        Box::new(
            serde_json::from_value(serde_json::json!({
                "taskId": id, "status": status, "statusMessage": message,
                "createdAt": "2025-11-25T10:00:00Z", "lastUpdatedAt": "2025-11-25T10:00:01Z",
                "ttl": 300000, "pollInterval": 1000
            }))
            .unwrap(),
        )
    }

    #[test]
    fn tasks_show_their_status_live_and_the_selected_ones_result() {
        let mut view = demo_view();
        view.info.as_mut().unwrap().tasks = TaskSupport {
            declared: true,
            list: true,
            cancel: true,
            tool_calls: true,
        };
        let mut app = App::new(vec![view]);
        key(&mut app, KeyCode::Char('7'));
        let s = screen(&app, 120, 24);
        assert!(s.contains("7 Tasks"), "{s}");
        assert!(s.contains("no task yet"), "{s}");
        app.apply(Event::Task {
            server: "demo".into(),
            task: task("t-1", "working", Some("Gathering sources...")),
            tool: Some("research".into()),
        });
        let s = screen(&app, 120, 24);
        assert!(s.contains("› working        t-1  research"), "{s}");
        assert!(s.contains("status: working (Gathering sources...)"), "{s}");
        assert!(s.contains("ttl: 300000 ms  pollInterval: 1000 ms"), "{s}");
        assert!(s.contains("Enter result  c cancel"), "{s}");
        app.apply(Event::Task {
            server: "demo".into(),
            task: task("t-1", "input_required", None),
            tool: None,
        });
        let s = screen(&app, 120, 24);
        assert!(s.contains("input_required t-1"), "{s}");
        assert!(s.contains("Enter fetches its question"), "{s}");
        app.apply(Event::Task {
            server: "demo".into(),
            task: task("t-1", "completed", None),
            tool: None,
        });
        app.apply(Event::TaskResult {
            server: "demo".into(),
            task_id: "t-1".into(),
            output: Output {
                title: "research → result".into(),
                lines: vec!["# Research Report: rust".into()],
                ..Default::default()
            },
        });
        let s = screen(&app, 120, 24);
        assert!(s.contains("completed      t-1"), "{s}");
        assert!(s.contains("┌research → result"), "{s}");
        assert!(s.contains("# Research Report: rust"), "{s}");
    }

    #[test]
    fn a_server_without_tasks_says_so() {
        let mut app = App::new(vec![demo_view()]);
        key(&mut app, KeyCode::Char('7'));
        let s = screen(&app, 100, 12);
        assert!(
            s.contains("demo does not offer tasks (its capabilities have no `tasks`)"),
            "{s}"
        );
        app.servers[0].info.as_mut().unwrap().revision = "2026-07-28".into();
        let s = screen(&app, 100, 12);
        assert!(
            s.contains("demo speaks 2026-07-28: tasks are a 2025-11-25 feature here"),
            "{s}"
        );
    }
}
