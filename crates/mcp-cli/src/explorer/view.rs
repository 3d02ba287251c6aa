//! Drawing the explorer: one frame from the [`App`] state, nothing else.
//! Every text a server wrote passes [`visible`] first: an escape sequence
//! in a tool's description must not act on the terminal the explorer
//! draws on.

use ratatui::Frame;
use ratatui::layout::{Constraint, Direction as Dir, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, List, ListItem, ListState, Paragraph, Wrap};

use super::app::{App, Direction, FormTarget, Pane, ResourceItem, ServerState};
use crate::output::visible;

/// Server text as lines that cannot act on the terminal.
fn lines_of(text: &str) -> Vec<Line<'static>> {
    text.lines()
        .map(|l| Line::raw(visible(l).into_owned()))
        .collect()
}

fn clean(text: &str) -> String {
    visible(text).into_owned()
}

fn bold() -> Style {
    Style::default().add_modifier(Modifier::BOLD)
}

fn state_text(state: &ServerState) -> (String, Color) {
    match state {
        ServerState::Starting => ("starting".into(), Color::Yellow),
        ServerState::Connected => ("connected".into(), Color::Green),
        ServerState::Failed(_) => ("failed".into(), Color::Red),
        ServerState::NeedsLogin(_) => ("needs login".into(), Color::Magenta),
        ServerState::Disabled => ("disabled".into(), Color::DarkGray),
        ServerState::Closed(_) => ("closed".into(), Color::Red),
    }
}

/// Draws the whole screen.
pub(crate) fn draw(frame: &mut Frame<'_>, app: &App) {
    let rows = Layout::default()
        .direction(Dir::Vertical)
        .constraints([
            Constraint::Length(1),
            Constraint::Min(3),
            Constraint::Length(1),
            Constraint::Length(1),
        ])
        .split(frame.area());
    frame.render_widget(Paragraph::new(tabs(app)), rows[0]);
    match app.pane {
        Pane::Servers => servers(frame, app, rows[1]),
        Pane::Tools => tools(frame, app, rows[1]),
        Pane::Resources => resources(frame, app, rows[1]),
        Pane::Prompts => prompts(frame, app, rows[1]),
        Pane::Wire => wire(frame, app, rows[1]),
        Pane::Log => log(frame, app, rows[1]),
    }
    frame.render_widget(Paragraph::new(status(app)), rows[2]);
    frame.render_widget(
        Paragraph::new(Line::styled(keys(app), Style::default().fg(Color::Cyan))),
        rows[3],
    );
    if let Some(form) = &app.form
        && matches!(form.target, FormTarget::Question { .. })
    {
        let area = centered(frame.area(), 70, 60);
        frame.render_widget(ratatui::widgets::Clear, area);
        form_box(frame, app, area);
    }
}

/// `1 Servers  2 Tools …` with the current pane marked, then the server.
fn tabs(app: &App) -> Line<'static> {
    let mut spans = vec![Span::styled(
        " mcp ui ",
        bold().fg(Color::Black).bg(Color::Cyan),
    )];
    for (i, pane) in Pane::ALL.iter().enumerate() {
        let text = format!(" {} {} ", i + 1, pane.title());
        spans.push(if *pane == app.pane {
            Span::styled(text, bold().add_modifier(Modifier::REVERSED))
        } else {
            Span::raw(text)
        });
    }
    if let Some(s) = app.current() {
        let (state, color) = state_text(&s.state);
        spans.push(Span::raw(" │ "));
        spans.push(Span::styled(clean(&s.name), bold()));
        spans.push(Span::raw(" "));
        spans.push(Span::styled(state, Style::default().fg(color)));
        if let Some(info) = &s.info {
            spans.push(Span::raw(format!(" {}", info.revision)));
        }
    }
    Line::from(spans)
}

/// The progress of a running call, or the last notice.
fn status(app: &App) -> Line<'static> {
    if let Some(r) = &app.running {
        let progress = r
            .progress
            .as_ref()
            .map(|p| format!(" {}", crate::ui::progress_line(p)))
            .unwrap_or_default();
        return Line::styled(
            clean(&format!("calling {} on {}…{progress}", r.tool, r.server)),
            Style::default().fg(Color::Yellow),
        );
    }
    Line::raw(app.notice.as_deref().map(clean).unwrap_or_default())
}

/// The keys that work now.
pub(crate) fn keys(app: &App) -> String {
    if let Some(form) = &app.form {
        return match form.target {
            FormTarget::Question { .. } => {
                "Tab/↓ next field  ↑ previous  Enter accept  Esc decline  Ctrl-D cancel".into()
            }
            FormTarget::Prompt { .. } | FormTarget::Template { .. } => {
                "type (completions appear)  Tab take completion/next  ↑ previous  Enter submit  Esc close".into()
            }
            FormTarget::Tool { .. } => {
                "Tab/↓ next field  ↑ previous  Enter call  Esc close".into()
            }
        };
    }
    if app.searching {
        return "type to filter  Enter done  Esc clear".into();
    }
    let pane = match app.pane {
        Pane::Servers => "Enter use server  R reconnect all",
        Pane::Tools if app.running.is_some() => "c cancel the call  PgUp/PgDn result",
        Pane::Tools
            if app
                .output(Pane::Tools)
                .is_some_and(|o| !o.links.is_empty() || !o.media.is_empty()) =>
        {
            "Enter call  / search  o open link  w save media  PgUp/PgDn result"
        }
        Pane::Tools => "Enter call  / search  PgUp/PgDn result  J/K schema",
        Pane::Resources => "Enter read  s subscribe  PgUp/PgDn contents",
        Pane::Prompts => "Enter get  PgUp/PgDn messages",
        Pane::Wire => "Enter whole message  PgUp/PgDn",
        Pane::Log => "+/- log level",
    };
    let pane = if pane.is_empty() {
        String::new()
    } else {
        format!("{pane}  ")
    };
    format!("Tab/1-6 pane  ↑↓ move  {pane}[ ] server  r refresh  q quit")
}

fn split(area: Rect, left: u16) -> std::rc::Rc<[Rect]> {
    Layout::default()
        .direction(Dir::Horizontal)
        .constraints([Constraint::Percentage(left), Constraint::Min(10)])
        .split(area)
}

fn list<'a>(frame: &mut Frame<'_>, area: Rect, title: &str, items: Vec<ListItem<'a>>, at: usize) {
    let mut state = ListState::default();
    if !items.is_empty() {
        state.select(Some(at.min(items.len() - 1)));
    }
    let widget = List::new(items)
        .block(
            Block::default()
                .borders(Borders::ALL)
                .title(title.to_owned()),
        )
        .highlight_style(Style::default().add_modifier(Modifier::REVERSED))
        .highlight_symbol("› ");
    frame.render_stateful_widget(widget, area, &mut state);
}

fn boxed(title: String, lines: Vec<Line<'static>>, scroll: u16) -> Paragraph<'static> {
    Paragraph::new(lines)
        .block(Block::default().borders(Borders::ALL).title(title))
        .wrap(Wrap { trim: false })
        .scroll((scroll, 0))
}

fn servers(frame: &mut Frame<'_>, app: &App, area: Rect) {
    let cols = split(area, 30);
    let items = app
        .servers
        .iter()
        .map(|s| {
            let (state, color) = state_text(&s.state);
            ListItem::new(Line::from(vec![
                Span::raw(clean(&s.name)),
                Span::raw("  "),
                Span::styled(state, Style::default().fg(color)),
            ]))
        })
        .collect();
    let at = app.selected_in(Pane::Servers);
    list(frame, cols[0], "Servers", items, at);
    let Some(s) = app.servers.get(at.min(app.servers.len().saturating_sub(1))) else {
        return;
    };
    let mut lines = Vec::new();
    let (state, color) = state_text(&s.state);
    lines.push(Line::from(vec![
        Span::styled("status: ", bold()),
        Span::styled(state, Style::default().fg(color)),
    ]));
    match &s.state {
        ServerState::Failed(why) | ServerState::Closed(why) => {
            lines.push(Line::styled("why:", bold()));
            lines.extend(lines_of(why));
        }
        ServerState::NeedsLogin(why) => {
            lines.push(Line::styled("needs login:", bold()));
            lines.extend(lines_of(why));
            lines.push(Line::raw(format!(
                "log in from a shell: mcp login {}",
                clean(&s.name)
            )));
        }
        _ => {}
    }
    if let Some(info) = &s.info {
        lines.push(Line::from(vec![
            Span::styled("revision: ", bold()),
            Span::raw(info.revision.clone()),
        ]));
        lines.push(Line::from(vec![
            Span::styled("server: ", bold()),
            Span::raw(clean(&info.implementation)),
        ]));
        lines.push(Line::raw(format!(
            "tools: {}  resources: {}  templates: {}  prompts: {}",
            s.tools.len(),
            s.resources.len(),
            s.templates.len(),
            s.prompts.len()
        )));
        if let Some(i) = &info.instructions {
            lines.push(Line::styled("instructions:", bold()));
            lines.extend(lines_of(i));
        }
        lines.push(Line::styled("capabilities:", bold()));
        lines.extend(lines_of(&info.capabilities));
    }
    for p in &s.problems {
        lines.push(Line::styled(clean(p), Style::default().fg(Color::Red)));
    }
    frame.render_widget(boxed(clean(&s.name), lines, app.info_scroll), cols[1]);
}

fn output_box(app: &App, pane: Pane, empty: &str) -> Paragraph<'static> {
    match app.output(pane) {
        Some(o) => {
            let mut lines = Vec::new();
            if o.error {
                lines.push(Line::styled(
                    "isError: true",
                    bold().fg(Color::White).bg(Color::Red),
                ));
            }
            lines.extend(o.lines.iter().map(|l| Line::raw(clean(l))));
            let title = clean(&o.title);
            let style = if o.error {
                Style::default().fg(Color::Red)
            } else {
                Style::default()
            };
            boxed(title, lines, o.scroll).style(style)
        }
        None => boxed("Output".into(), vec![Line::raw(empty.to_owned())], 0),
    }
}

fn tools(frame: &mut Frame<'_>, app: &App, area: Rect) {
    let cols = split(area, 35);
    let visible_tools = app.visible_tools();
    let items = visible_tools
        .iter()
        .map(|(_, t)| {
            let destructive = t.annotations.as_ref().is_some_and(|a| {
                a.destructive_hint == Some(true) && a.read_only_hint != Some(true)
            });
            let mut spans = vec![Span::raw(clean(&t.name))];
            if destructive {
                spans.push(Span::styled(
                    " ⚠ destructive",
                    Style::default().fg(Color::Red),
                ));
            }
            ListItem::new(Line::from(spans))
        })
        .collect();
    let title = if app.searching || !app.search.is_empty() {
        format!("Tools /{}", clean(&app.search))
    } else {
        "Tools".into()
    };
    let left = if app.searching {
        Layout::default()
            .direction(Dir::Vertical)
            .constraints([Constraint::Min(3)])
            .split(cols[0])[0]
    } else {
        cols[0]
    };
    list(frame, left, &title, items, app.selected());
    let right = Layout::default()
        .direction(Dir::Vertical)
        .constraints([Constraint::Percentage(55), Constraint::Min(3)])
        .split(cols[1]);
    if app
        .form
        .as_ref()
        .is_some_and(|f| matches!(f.target, FormTarget::Tool { .. }))
    {
        form_box(frame, app, right[0]);
    } else if let Some((_, t)) = visible_tools.get(app.selected()) {
        let mut lines = Vec::new();
        if let Some(title) = &t.title {
            lines.push(Line::styled(clean(title), bold()));
        }
        if let Some(d) = &t.description {
            lines.extend(lines_of(d));
        }
        if let Some(a) = &t.annotations {
            let mut hints = Vec::new();
            let flag = |name: &str, v: Option<bool>| v.map(|v| format!("{name}: {v}"));
            hints.extend(flag("readOnlyHint", a.read_only_hint));
            hints.extend(flag("destructiveHint", a.destructive_hint));
            hints.extend(flag("idempotentHint", a.idempotent_hint));
            hints.extend(flag("openWorldHint", a.open_world_hint));
            if !hints.is_empty() {
                let style = if a.destructive_hint == Some(true) {
                    Style::default().fg(Color::Red)
                } else {
                    Style::default()
                };
                lines.push(Line::styled(
                    format!("annotations: {}", hints.join(", ")),
                    style,
                ));
            }
        }
        lines.push(Line::styled("inputSchema:", bold()));
        lines.extend(lines_of(
            &serde_json::to_string_pretty(&t.input_schema).unwrap_or_default(),
        ));
        if let Some(o) = &t.output_schema {
            lines.push(Line::styled("outputSchema:", bold()));
            lines.extend(lines_of(
                &serde_json::to_string_pretty(o).unwrap_or_default(),
            ));
        }
        frame.render_widget(boxed(clean(&t.name), lines, app.info_scroll), right[0]);
    } else {
        frame.render_widget(
            boxed("Tool".into(), vec![Line::raw("no tool")], 0),
            right[0],
        );
    }
    frame.render_widget(
        output_box(app, Pane::Tools, "Enter opens the selected tool's form"),
        right[1],
    );
}

fn resources(frame: &mut Frame<'_>, app: &App, area: Rect) {
    let cols = split(area, 40);
    let Some(s) = app.current() else {
        return;
    };
    let items_of = app.resource_items();
    let items = items_of
        .iter()
        .map(|item| match item {
            ResourceItem::Resource(i) => {
                let r = &s.resources[*i];
                let mark = if s.subscribed.contains(&r.uri) {
                    "● "
                } else {
                    ""
                };
                ListItem::new(format!("{mark}{}", clean(&r.uri)))
            }
            ResourceItem::Template(i) => ListItem::new(Line::styled(
                format!("{} (template)", clean(&s.templates[*i].uri_template)),
                Style::default().fg(Color::Blue),
            )),
        })
        .collect();
    list(frame, cols[0], "Resources", items, app.selected());
    let right = Layout::default()
        .direction(Dir::Vertical)
        .constraints([Constraint::Length(8), Constraint::Min(3)])
        .split(cols[1]);
    if app
        .form
        .as_ref()
        .is_some_and(|f| matches!(f.target, FormTarget::Template { .. }))
    {
        form_box(frame, app, right[0]);
    } else {
        let mut lines = Vec::new();
        match items_of.get(app.selected()) {
            Some(ResourceItem::Resource(i)) => {
                lines.push(Line::raw(clean(&crate::render::resource_line(
                    &s.resources[*i],
                ))));
                if s.subscribed.contains(&s.resources[*i].uri) {
                    lines.push(Line::styled(
                        "subscribed",
                        Style::default().fg(Color::Green),
                    ));
                }
            }
            Some(ResourceItem::Template(i)) => {
                lines.push(Line::raw(clean(&crate::render::template_line(
                    &s.templates[*i],
                ))));
                lines.push(Line::raw("Enter fills its variables, then reads"));
            }
            None => lines.push(Line::raw("no resources")),
        }
        frame.render_widget(boxed("Resource".into(), lines, 0), right[0]);
    }
    frame.render_widget(output_box(app, Pane::Resources, "Enter reads"), right[1]);
}

fn prompts(frame: &mut Frame<'_>, app: &App, area: Rect) {
    let cols = split(area, 35);
    let Some(s) = app.current() else {
        return;
    };
    let items = s
        .prompts
        .iter()
        .map(|p| ListItem::new(clean(&p.name)))
        .collect();
    list(frame, cols[0], "Prompts", items, app.selected());
    let right = Layout::default()
        .direction(Dir::Vertical)
        .constraints([Constraint::Percentage(45), Constraint::Min(3)])
        .split(cols[1]);
    if app
        .form
        .as_ref()
        .is_some_and(|f| matches!(f.target, FormTarget::Prompt { .. }))
    {
        form_box(frame, app, right[0]);
    } else if let Some(p) = s.prompts.get(app.selected()) {
        frame.render_widget(
            boxed(clean(&p.name), lines_of(&crate::render::prompt_line(p)), 0),
            right[0],
        );
    } else {
        frame.render_widget(
            boxed("Prompt".into(), vec![Line::raw("no prompts")], 0),
            right[0],
        );
    }
    frame.render_widget(
        output_box(app, Pane::Prompts, "Enter gets the prompt"),
        right[1],
    );
}

fn form_box(frame: &mut Frame<'_>, app: &App, area: Rect) {
    let Some(form) = &app.form else {
        return;
    };
    let mut lines = Vec::new();
    if let Some(m) = &form.message {
        lines.extend(lines_of(m));
        lines.push(Line::raw(""));
    }
    if form.inputs.is_empty() {
        lines.push(Line::raw("(no arguments)"));
    }
    for (i, input) in form.inputs.iter().enumerate() {
        let focused = i == form.focus;
        let mark = if input.field.required { "*" } else { " " };
        let label = format!("{}{mark} ", clean(&input.field.label));
        let mut spans = vec![
            Span::styled(if focused { "› " } else { "  " }, bold()),
            Span::styled(label, if focused { bold() } else { Style::default() }),
        ];
        if input.text.is_empty() {
            let hint = input
                .field
                .default_text()
                .map(|d| format!("default: {d}"))
                .unwrap_or_else(|| kind_hint(&input.field.kind, input.json));
            spans.push(Span::styled(
                clean(&hint),
                Style::default().fg(Color::DarkGray),
            ));
        } else {
            spans.push(Span::raw(clean(&input.text)));
        }
        if focused {
            spans.push(Span::styled("▏", Style::default().fg(Color::Cyan)));
        }
        if let Some(e) = &input.error {
            spans.push(Span::styled(
                format!("  ✗ {}", clean(e)),
                Style::default().fg(Color::Red),
            ));
        }
        lines.push(Line::from(spans));
        if focused && !input.completions.is_empty() {
            let shown: Vec<String> = input.completions.iter().take(8).map(|c| clean(c)).collect();
            lines.push(Line::styled(
                format!("    completions: {}", shown.join("  ")),
                Style::default().fg(Color::Green),
            ));
        }
        if focused && let Some(d) = &input.field.description {
            lines.push(Line::styled(
                format!("    {}", clean(d)),
                Style::default().fg(Color::DarkGray),
            ));
        }
    }
    lines.push(Line::styled(
        "* required",
        Style::default().fg(Color::DarkGray),
    ));
    frame.render_widget(boxed(clean(&form.title), lines, 0), area);
}

fn kind_hint(kind: &crate::form::field::Kind, json: bool) -> String {
    use crate::form::field::Kind;
    if json {
        return "JSON".into();
    }
    match kind {
        Kind::Text {
            format: Some(f), ..
        } => f.placeholder().into(),
        Kind::Text { .. } => "text".into(),
        Kind::Integer { .. } => "integer".into(),
        Kind::Number { .. } => "number".into(),
        Kind::Boolean => "yes/no".into(),
        Kind::Choice(options) => options
            .iter()
            .map(|c| c.value.clone())
            .collect::<Vec<_>>()
            .join("|"),
        Kind::MultiChoice { options, .. } => format!(
            "comma-separated of {}",
            options
                .iter()
                .map(|c| c.value.clone())
                .collect::<Vec<_>>()
                .join("|")
        ),
        Kind::List => "comma-separated".into(),
    }
}

fn wire(frame: &mut Frame<'_>, app: &App, area: Rect) {
    let rows = if app.wire_open.is_some() {
        Layout::default()
            .direction(Dir::Vertical)
            .constraints([Constraint::Percentage(50), Constraint::Min(3)])
            .split(area)
    } else {
        Layout::default()
            .direction(Dir::Vertical)
            .constraints([Constraint::Min(3)])
            .split(area)
    };
    let width = rows[0].width.saturating_sub(4) as usize;
    let items = app
        .wire
        .iter()
        .map(|w| {
            let (arrow, color) = match w.direction {
                Direction::Sent => ("→", Color::Cyan),
                Direction::Received => ("←", Color::Green),
                Direction::Local => ("·", Color::DarkGray),
            };
            let took = w.took_ms.map(|t| format!(" ({t} ms)")).unwrap_or_default();
            let head = format!(
                "{:>7.3}s {arrow} {} {}{took}  ",
                w.at_ms as f64 / 1000.0,
                clean(&w.server),
                w.summary
            );
            let room = width.saturating_sub(head.chars().count());
            let text: String = clean(&w.text).chars().take(room).collect();
            ListItem::new(Line::from(vec![
                Span::styled(head, Style::default().fg(color)),
                Span::styled(text, Style::default().fg(Color::DarkGray)),
            ]))
        })
        .collect();
    list(
        frame,
        rows[0],
        "Wire (JSON-RPC, secrets ***)",
        items,
        app.selected_in(Pane::Wire),
    );
    if let Some(w) = app.wire_open.and_then(|i| app.wire.get(i)) {
        let pretty = serde_json::from_str::<serde_json::Value>(&w.text)
            .ok()
            .and_then(|v| serde_json::to_string_pretty(&v).ok())
            .unwrap_or_else(|| w.text.clone());
        frame.render_widget(boxed(w.summary.clone(), lines_of(&pretty), 0), rows[1]);
    }
}

fn log(frame: &mut Frame<'_>, app: &App, area: Rect) {
    let items = app
        .log
        .iter()
        .map(|l| {
            let color = match l.level.as_str() {
                "error" | "critical" | "alert" | "emergency" => Color::Red,
                "warning" => Color::Yellow,
                "mcp" => Color::Cyan,
                _ => Color::Reset,
            };
            ListItem::new(Line::from(vec![
                Span::styled(
                    format!("[{}] {}: ", clean(&l.server), clean(&l.level)),
                    Style::default().fg(color),
                ),
                Span::raw(clean(&l.text)),
            ]))
        })
        .collect();
    let title = match app.log_level {
        Some(l) => format!(
            "Log (notifications/message at {} and above, list changes, updates)",
            super::app::LOG_LEVELS[l]
        ),
        None => "Log (notifications/message, list changes, updates)".to_owned(),
    };
    list(frame, area, &title, items, app.selected_in(Pane::Log));
}

/// A rectangle of `w`% × `h`% in the middle of `area`.
fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let width = area.width * w / 100;
    let height = area.height * h / 100;
    Rect {
        x: area.x + (area.width - width) / 2,
        y: area.y + (area.height - height) / 2,
        width,
        height,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explorer::app::tests_support::demo_view;
    use crate::explorer::app::{Event, Output, WireLine};
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;

    fn screen(app: &App, w: u16, h: u16) -> String {
        let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
        terminal.draw(|f| draw(f, app)).unwrap();
        let buffer = terminal.backend().buffer().clone();
        let mut out = String::new();
        for y in 0..h {
            for x in 0..w {
                out.push_str(buffer[(x, y)].symbol());
            }
            out.push('\n');
        }
        out
    }

    fn key(app: &mut App, code: KeyCode) {
        app.key(KeyEvent::new(code, KeyModifiers::NONE));
    }

    #[test]
    fn the_servers_pane_shows_status_revision_capabilities_and_instructions() {
        let app = App::new(vec![demo_view()]);
        let s = screen(&app, 100, 30);
        for want in [
            "1 Servers",
            "6 Log",
            "demo  connected",
            "revision: 2025-11-25",
            "server: mcp-demo 0.1.0",
            "Try the tools.",
            "\"completions\"",
            "q quit",
        ] {
            assert!(s.contains(want), "{want:?} missing in\n{s}");
        }
    }

    #[test]
    fn a_failed_server_shows_why_and_a_login_is_named() {
        let mut failed = demo_view();
        failed.state = ServerState::Failed("exited with status 1\n  | boom: no such file".into());
        failed.info = None;
        let mut login = demo_view();
        login.name = "remote".into();
        login.state = ServerState::NeedsLogin("authorization needs login for https://x".into());
        let mut app = App::new(vec![failed, login]);
        let s = screen(&app, 100, 20);
        assert!(s.contains("demo  failed"), "{s}");
        assert!(s.contains("| boom: no such file"), "{s}");
        key(&mut app, KeyCode::Down);
        let s = screen(&app, 100, 20);
        assert!(s.contains("remote  needs login"), "{s}");
        assert!(s.contains("mcp login remote"), "{s}");
    }

    #[test]
    fn tools_show_destructive_schemas_form_progress_and_error_results() {
        let mut app = App::new(vec![demo_view()]);
        key(&mut app, KeyCode::Char('2'));
        key(&mut app, KeyCode::Down);
        let s = screen(&app, 110, 40);
        assert!(s.contains("add ⚠ destructive"), "{s}");
        assert!(s.contains("destructiveHint: true"), "{s}");
        assert!(s.contains("inputSchema:"), "{s}");
        key(&mut app, KeyCode::Enter);
        let s = screen(&app, 110, 40);
        assert!(s.contains("call add"), "{s}");
        assert!(s.contains("› a* number"), "{s}");
        assert!(s.contains("Enter call"), "{s}");
        key(&mut app, KeyCode::Char('2'));
        key(&mut app, KeyCode::Tab);
        key(&mut app, KeyCode::Char('3'));
        key(&mut app, KeyCode::Enter);
        app.apply(Event::Progress(mcp_client::Progress {
            progress: 2.0,
            total: Some(5.0),
            message: Some("step 2".into()),
        }));
        let s = screen(&app, 110, 40);
        assert!(
            s.contains("calling add on demo… progress: 2/5 (40%) step 2"),
            "{s}"
        );
        assert!(s.contains("c cancel the call"), "{s}");
        app.apply(Event::Output {
            pane: Pane::Tools,
            output: Output {
                title: "add → result".into(),
                error: true,
                lines: vec!["went wrong".into()],
                scroll: 0,
                ..Default::default()
            },
        });
        app.apply(Event::CallEnded);
        let s = screen(&app, 110, 40);
        assert!(s.contains("isError: true"), "{s}");
        assert!(s.contains("went wrong"), "{s}");
    }

    #[test]
    fn server_text_cannot_act_on_the_terminal() {
        let mut view = demo_view();
        view.tools[0].description = Some("evil \u{1b}[2J text".into());
        let mut app = App::new(vec![view]);
        key(&mut app, KeyCode::Char('2'));
        let s = screen(&app, 100, 30);
        assert!(!s.contains('\u{1b}'), "{s}");
        assert!(s.contains("evil \\u{1b}[2J text"), "{s}");
    }

    #[test]
    fn the_wire_pane_pairs_and_times_and_opens_a_message() {
        let mut app = App::new(vec![demo_view()]);
        key(&mut app, KeyCode::Char('5'));
        app.apply(Event::Wire(WireLine {
            at_ms: 1200,
            server: "demo".into(),
            direction: super::Direction::Sent,
            summary: "request tools/list (id 1)".into(),
            text: r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#.into(),
            took_ms: None,
        }));
        app.apply(Event::Wire(WireLine {
            at_ms: 1234,
            server: "demo".into(),
            direction: super::Direction::Received,
            summary: "result of 1".into(),
            text: r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}"#.into(),
            took_ms: Some(34),
        }));
        let s = screen(&app, 120, 20);
        assert!(s.contains("1.200s → demo request tools/list (id 1)"), "{s}");
        assert!(s.contains("1.234s ← demo result of 1 (34 ms)"), "{s}");
        key(&mut app, KeyCode::Enter);
        let s = screen(&app, 120, 20);
        assert!(s.contains("\"tools\": []"), "{s}");
    }

    #[test]
    fn an_elicitation_is_a_dialog_over_any_pane_and_small_screens_draw() {
        let mut app = App::new(vec![demo_view()]);
        let form = crate::explorer::app::Form::from_schema(
            FormTarget::Question {
                server: "demo".into(),
                id: 1,
            },
            "demo asks".into(),
            Some("What is your name?".into()),
            &serde_json::json!({"type": "object", "properties": {"name": {"type": "string", "default": "Ada"}}}),
            None,
        );
        app.apply(Event::Ask(Box::new(form)));
        let s = screen(&app, 100, 30);
        assert!(s.contains("What is your name?"), "{s}");
        assert!(s.contains("default: Ada"), "{s}");
        assert!(s.contains("Esc decline"), "{s}");
        // Tiny terminals draw without panicking.
        for (w, h) in [(1, 1), (10, 4), (20, 6)] {
            let _ = screen(&app, w, h);
        }
    }
}
