//! What a key does to the state, outside a form.

use super::form::prompt_schema;
use super::*;

impl App {
    /// What a key does.
    pub(crate) fn key(&mut self, key: KeyEvent) -> Vec<Action> {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        if ctrl && matches!(key.code, KeyCode::Char('c' | 'q')) {
            self.quit = true;
            return Vec::new();
        }
        if self.login.is_some() {
            return self.login_key(key);
        }
        if self.form.is_some() {
            return self.form_key(key);
        }
        if self.searching {
            match key.code {
                KeyCode::Esc => {
                    self.searching = false;
                    self.search.clear();
                }
                KeyCode::Enter | KeyCode::Down => self.searching = false,
                KeyCode::Backspace => {
                    self.search.pop();
                }
                KeyCode::Char(c) if !ctrl => self.search.push(c),
                _ => {}
            }
            self.cursor[Pane::Tools.index()] = 0;
            return Vec::new();
        }
        self.notice = None;
        match key.code {
            KeyCode::Char('q') => self.quit = true,
            KeyCode::Tab | KeyCode::Right => self.pane = self.next_pane(1),
            KeyCode::BackTab | KeyCode::Left => self.pane = self.next_pane(-1),
            KeyCode::Char(c @ '1'..='7') => {
                self.pane = Pane::ALL[c as usize - '1' as usize];
            }
            KeyCode::Up | KeyCode::Char('k') => self.move_cursor(-1),
            KeyCode::Down | KeyCode::Char('j') => self.move_cursor(1),
            KeyCode::PageUp => self.scroll_output(-10),
            KeyCode::PageDown => self.scroll_output(10),
            KeyCode::Char('K') => self.info_scroll = self.info_scroll.saturating_sub(5),
            KeyCode::Char('J') => self.info_scroll = self.info_scroll.saturating_add(5),
            KeyCode::Char(']') => self.switch_server(1),
            KeyCode::Char('[') => self.switch_server(-1),
            KeyCode::Char('/') if self.pane == Pane::Tools => {
                self.searching = true;
            }
            KeyCode::Enter | KeyCode::Char('c') if self.pane == Pane::Tasks => {
                return self.task_key(key.code).unwrap_or_default();
            }
            KeyCode::Char('c') | KeyCode::Esc if self.running.is_some() => {
                self.notice = Some("cancelling…".into());
                return vec![Action::CancelCall];
            }
            KeyCode::Char('R') => return self.reconnect_all(),
            KeyCode::Char(c @ ('L' | 'D')) if self.pane == Pane::Servers => {
                return self.start_login(c == 'D');
            }
            KeyCode::Char('r') => {
                if let Some(s) = self.current() {
                    return vec![Action::Refresh {
                        server: s.name.clone(),
                    }];
                }
            }
            KeyCode::Char('s') if self.pane == Pane::Resources => return self.toggle_subscribe(),
            KeyCode::Char('o') if self.pane == Pane::Tools => return self.open_link(),
            KeyCode::Char('t') if self.pane == Pane::Tools => return self.open_tool(true),
            KeyCode::Char('w') if self.pane == Pane::Tools => {
                if let Some(o) = self.outputs.get("tools")
                    && !o.media.is_empty()
                {
                    let stem = o.title.split(' ').next().unwrap_or("result").to_owned();
                    return vec![Action::SaveMedia {
                        stem,
                        media: o.media.clone(),
                    }];
                }
                self.notice = Some("the result has no image or audio to save".into());
            }
            KeyCode::Char(c @ ('+' | '-')) if self.pane == Pane::Log => {
                let Some(server) = self.current().map(|s| s.name.clone()) else {
                    return Vec::new();
                };
                let at = match (self.log_level, c) {
                    (None, _) => 1,
                    (Some(l), '+') => (l + 1).min(LOG_LEVELS.len() - 1),
                    (Some(l), _) => l.saturating_sub(1),
                };
                self.log_level = Some(at);
                return vec![Action::SetLevel {
                    server,
                    level: LOG_LEVELS[at],
                }];
            }
            KeyCode::Enter => return self.open(),
            _ => {}
        }
        Vec::new()
    }

    /// `R`, and a login that succeeded: every server starts again.
    pub(super) fn reconnect_all(&mut self) -> Vec<Action> {
        for s in &mut self.servers {
            if s.state != ServerState::Disabled {
                s.state = ServerState::Starting;
                s.info = None;
                s.subscribed.clear();
                s.tasks.clear();
            }
        }
        self.running = None;
        self.notice = Some("reconnecting every server…".into());
        vec![Action::Reconnect]
    }

    fn next_pane(&self, by: isize) -> Pane {
        let n = Pane::ALL.len() as isize;
        Pane::ALL[((self.pane.index() as isize + by).rem_euclid(n)) as usize]
    }

    fn switch_server(&mut self, by: isize) {
        if self.servers.is_empty() {
            return;
        }
        let n = self.servers.len() as isize;
        self.server = ((self.server as isize + by).rem_euclid(n)) as usize;
        self.cursor[Pane::Servers.index()] = self.server;
        for pane in [Pane::Tools, Pane::Resources, Pane::Prompts] {
            self.cursor[pane.index()] = 0;
        }
        self.info_scroll = 0;
    }

    fn scroll_output(&mut self, by: i32) {
        if self.pane == Pane::Tasks {
            self.scroll_task_result(by);
            return;
        }
        if self.pane == Pane::Wire {
            let len = self.wire.len();
            if len > 0 {
                let at = (self.selected() as i32 + by).clamp(0, len as i32 - 1);
                self.cursor[Pane::Wire.index()] = at as usize;
            }
            return;
        }
        if let Some(k) = Self::output_key(self.pane)
            && let Some(o) = self.outputs.get_mut(k)
        {
            o.scroll = (i32::from(o.scroll) + by).max(0) as u16;
        }
    }

    /// Enter: the selected server becomes current; a tool's form opens; a
    /// resource is read (a template's form opens); a prompt's form opens; a
    /// wire line opens whole.
    fn open(&mut self) -> Vec<Action> {
        let at = self.selected();
        match self.pane {
            Pane::Servers => {
                if at < self.servers.len() {
                    self.server = at;
                    self.pane = Pane::Tools;
                }
            }
            Pane::Tools => return self.open_tool(false),
            Pane::Resources => {
                let Some(s) = self.current() else {
                    return Vec::new();
                };
                match self.resource_items().get(at) {
                    Some(ResourceItem::Resource(i)) => {
                        return vec![Action::ReadResource {
                            server: s.name.clone(),
                            uri: s.resources[*i].uri.clone(),
                        }];
                    }
                    Some(ResourceItem::Template(i)) => {
                        let t = &s.templates[*i];
                        let schema = template_schema(&t.uri_template);
                        self.form = Some(Form::from_schema(
                            FormTarget::Template {
                                server: s.name.clone(),
                                template: t.uri_template.clone(),
                            },
                            format!("read {}", t.uri_template),
                            t.description.clone(),
                            &schema.0,
                            Some(&schema.1),
                        ));
                    }
                    None => {}
                }
            }
            Pane::Prompts => {
                let Some(s) = self.current() else {
                    return Vec::new();
                };
                if let Some(p) = s.prompts.get(at) {
                    let (schema, order) = prompt_schema(p);
                    self.form = Some(Form::from_schema(
                        FormTarget::Prompt {
                            server: s.name.clone(),
                            prompt: p.name.clone(),
                        },
                        format!("get {}", p.name),
                        p.description.clone(),
                        &schema,
                        Some(&order),
                    ));
                    if self.form.as_ref().is_some_and(|f| f.inputs.is_empty()) {
                        return self.submit();
                    }
                }
            }
            Pane::Wire => {
                self.wire_open = if self.wire_open == Some(at) {
                    None
                } else {
                    Some(at)
                };
            }
            Pane::Log | Pane::Tasks => {}
        }
        Vec::new()
    }

    /// Enter (or `t`, `as_task`) in Tools: the selected tool's form, for a
    /// call that runs as a task when the tool must or `t` asked for it.
    fn open_tool(&mut self, as_task: bool) -> Vec<Action> {
        let at = self.selected();
        let Some((server, tool, order)) = self.current().and_then(|s| {
            let (_, t) = self.visible_tools().get(at).copied()?;
            Some((
                s.name.clone(),
                t.clone(),
                s.tool_orders.get(&t.name).cloned(),
            ))
        }) else {
            return Vec::new();
        };
        if self.running.is_some() {
            self.notice = Some("a call is running: c cancels it".into());
            return Vec::new();
        }
        let as_task = match self.call_as_task(&tool, as_task) {
            Ok(a) => a,
            Err(why) => {
                self.notice = Some(why);
                return Vec::new();
            }
        };
        let title = if as_task {
            format!("call {} as a task", tool.name)
        } else {
            format!("call {}", tool.name)
        };
        let form = Form::from_schema(
            FormTarget::Tool {
                server,
                tool: tool.name.clone(),
                as_task,
            },
            title,
            tool.description.clone(),
            &tool.input_schema,
            order.as_deref(),
        );
        self.form = Some(form);
        Vec::new()
    }

    /// `o`: the result's first resource link, read in the Resources pane.
    fn open_link(&mut self) -> Vec<Action> {
        let link = self
            .outputs
            .get("tools")
            .and_then(|o| o.links.first().cloned());
        let (Some(uri), Some(server)) = (link, self.current().map(|s| s.name.clone())) else {
            self.notice = Some("the result has no resource link".into());
            return Vec::new();
        };
        self.pane = Pane::Resources;
        vec![Action::ReadResource { server, uri }]
    }

    fn toggle_subscribe(&mut self) -> Vec<Action> {
        let at = self.selected();
        let Some(s) = self.current() else {
            return Vec::new();
        };
        let Some(ResourceItem::Resource(i)) = self.resource_items().get(at).copied() else {
            self.notice = Some("only a resource can be subscribed to".into());
            return Vec::new();
        };
        if !s.info.as_ref().is_some_and(|i| i.subscribe) {
            self.notice = Some(format!(
                "{} does not offer subscriptions (resources.subscribe)",
                s.name
            ));
            return Vec::new();
        }
        let uri = s.resources[i].uri.clone();
        vec![Action::Subscribe {
            server: s.name.clone(),
            on: !s.subscribed.contains(&uri),
            uri,
        }]
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests_support::{demo_view, key, typed};
    use super::super::*;

    #[test]
    fn search_filters_the_tools() {
        let mut app = App::new(vec![demo_view()]);
        app.key(key(KeyCode::Char('2')));
        app.key(key(KeyCode::Char('/')));
        typed(&mut app, "sum");
        assert!(app.visible_tools().is_empty());
        for _ in 0..3 {
            app.key(key(KeyCode::Backspace));
        }
        typed(&mut app, "ADD");
        let names: Vec<&str> = app
            .visible_tools()
            .iter()
            .map(|(_, t)| t.name.as_str())
            .collect();
        assert_eq!(names, ["add"]);
        app.key(key(KeyCode::Esc));
        assert_eq!(app.visible_tools().len(), 2);
    }

    #[test]
    fn a_result_link_opens_media_save_and_the_log_level_steps() {
        let mut app = App::new(vec![demo_view()]);
        app.key(key(KeyCode::Char('2')));
        assert!(app.key(key(KeyCode::Char('o'))).is_empty());
        assert_eq!(
            app.notice.as_deref(),
            Some("the result has no resource link")
        );
        app.apply(Event::Output {
            pane: Pane::Tools,
            output: Output {
                title: "get-tiny-image → result".into(),
                links: vec!["demo://a".into()],
                media: vec![Media {
                    mime: "image/png".into(),
                    data: "aGk=".into(),
                }],
                ..Default::default()
            },
        });
        assert_eq!(
            app.key(key(KeyCode::Char('w'))),
            vec![Action::SaveMedia {
                stem: "get-tiny-image".into(),
                media: vec![Media {
                    mime: "image/png".into(),
                    data: "aGk=".into()
                }],
            }]
        );
        assert_eq!(
            app.key(key(KeyCode::Char('o'))),
            vec![Action::ReadResource {
                server: "demo".into(),
                uri: "demo://a".into()
            }]
        );
        assert_eq!(app.pane, Pane::Resources);
        app.key(key(KeyCode::Char('6')));
        let level = |app: &mut App, c| match app.key(key(KeyCode::Char(c))).as_slice() {
            [Action::SetLevel { level, .. }] => *level,
            other => panic!("{other:?}"),
        };
        assert_eq!(level(&mut app, '+'), "info");
        assert_eq!(level(&mut app, '-'), "debug");
        assert_eq!(level(&mut app, '-'), "debug");
        for _ in 0..10 {
            level(&mut app, '+');
        }
        assert_eq!(level(&mut app, '+'), "emergency");
    }
}
