//! What an [`Event`] the runtime reports does to the state.

use super::*;

impl App {
    /// Applies what the runtime reports; may ask for more (a list changed:
    /// list again).
    pub(crate) fn apply(&mut self, event: Event) -> Vec<Action> {
        match event {
            Event::Server(view) => {
                let view = *view;
                match self.servers.iter_mut().find(|s| s.name == view.name) {
                    Some(s) => {
                        let subscribed = std::mem::take(&mut s.subscribed);
                        let tasks = std::mem::take(&mut s.tasks);
                        *s = view;
                        s.subscribed = subscribed;
                        Self::merge_tasks(tasks, &mut s.tasks);
                    }
                    None => self.servers.push(view),
                }
            }
            Event::Closed { server, reason } => {
                if let Some(s) = self.servers.iter_mut().find(|s| s.name == server) {
                    s.state = ServerState::Closed(reason.clone());
                }
                self.push_log(LogLine {
                    server: server.clone(),
                    level: "mcp".into(),
                    text: format!("connection closed: {reason}"),
                });
                if self.running.as_ref().is_some_and(|r| r.server == server) {
                    self.running = None;
                }
            }
            Event::Wire(line) => {
                if self.wire.len() == KEPT_LINES {
                    self.wire.pop_front();
                    self.wire_open = self.wire_open.and_then(|i| i.checked_sub(1));
                }
                // Follows the newest line unless one is being read.
                let follow = self.wire_open.is_none()
                    && self.cursor[Pane::Wire.index()] + 1 >= self.wire.len();
                self.wire.push_back(line);
                if follow {
                    self.cursor[Pane::Wire.index()] = self.wire.len() - 1;
                }
            }
            Event::Log(line) => {
                let follow = self.cursor[Pane::Log.index()] + 1 >= self.log.len();
                self.push_log(line);
                if follow {
                    self.cursor[Pane::Log.index()] = self.log.len() - 1;
                }
            }
            Event::Progress(p) => {
                if let Some(r) = &mut self.running {
                    r.progress = Some(p);
                }
            }
            Event::Output { pane, output } => {
                if let Some(k) = Self::output_key(pane) {
                    self.outputs.insert(k, output);
                }
            }
            Event::CallEnded => {
                self.running = None;
                self.notice = None;
            }
            Event::Task { server, task, tool } => self.task_arrived(&server, *task, tool),
            Event::TaskResult {
                server,
                task_id,
                output,
            } => self.task_result(&server, &task_id, output),
            Event::Subscribed { server, uri, on } => {
                if let Some(s) = self.servers.iter_mut().find(|s| s.name == server) {
                    if on {
                        s.subscribed.insert(uri.clone());
                    } else {
                        s.subscribed.remove(&uri);
                    }
                }
                self.notice = Some(format!(
                    "{} {uri}",
                    if on {
                        "subscribed to"
                    } else {
                        "unsubscribed from"
                    }
                ));
            }
            Event::ListChanged { server, what } => {
                self.push_log(LogLine {
                    server: server.clone(),
                    level: "mcp".into(),
                    text: format!("{what} list changed; listed again"),
                });
                return vec![Action::Refresh { server }];
            }
            Event::ResourceUpdated { server, uri } => {
                self.push_log(LogLine {
                    server: server.clone(),
                    level: "mcp".into(),
                    text: format!("resource updated: {uri}"),
                });
                self.notice = Some(format!("updated: {uri}"));
                // What is shown of it is read again.
                let shown = self
                    .output(Pane::Resources)
                    .is_some_and(|o| o.title.ends_with(&uri));
                if shown {
                    return vec![Action::ReadResource { server, uri }];
                }
            }
            Event::Completions { argument, values } => {
                if let Some(form) = &mut self.form
                    && let Some(input) = form.inputs.get_mut(form.focus)
                    && input.field.name == argument
                {
                    input.completions = values;
                }
            }
            Event::Ask(form) => {
                if self.form.is_none() {
                    self.form = Some(*form);
                } else {
                    self.queued.push_back(*form);
                }
            }
            Event::Notice(text) => self.notice = Some(text),
            Event::LoginNotice(line) => {
                if let Some(dialog) = &mut self.login {
                    dialog.lines.push(line);
                }
            }
            Event::LoginEnded(outcome) => return self.login_ended(outcome),
        }
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests_support::{demo_view, key};
    use super::super::*;

    #[test]
    fn reconnecting_marks_the_servers_starting() {
        let mut app = App::new(vec![demo_view()]);
        app.servers[0].state = ServerState::Closed("gone".into());
        assert_eq!(app.key(key(KeyCode::Char('R'))), vec![Action::Reconnect]);
        assert_eq!(app.servers[0].state, ServerState::Starting);
        assert!(app.servers[0].info.is_none());
    }

    #[test]
    fn a_list_change_lists_again_and_ctrl_c_quits() {
        let mut app = App::new(vec![demo_view()]);
        assert_eq!(
            app.apply(Event::ListChanged {
                server: "demo".into(),
                what: "tools"
            }),
            vec![Action::Refresh {
                server: "demo".into()
            }]
        );
        app.key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL));
        assert!(app.quit);
    }
}
