//! Drawing the explorer: one frame from the [`App`] state, nothing else.
//! Every text a server wrote passes [`visible`] first: an escape sequence
//! in a tool's description must not act on the terminal the explorer
//! draws on.

//!
//! Each pane is drawn in a file of its own; the tab line, the status and
//! key lines, the dialogs over any pane and the shared pieces are here.

mod form;
mod log;
mod login;
mod prompts;
mod resources;
mod servers;
mod tasks;
mod tools;
mod wire;

use ratatui::Frame;
use ratatui::layout::{Constraint, Direction as Dir, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, List, ListItem, ListState, Paragraph, Wrap};

use super::app::{App, Direction, FormTarget, Output, Pane, ResourceItem, ServerState};
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
        Pane::Servers => servers::servers(frame, app, rows[1]),
        Pane::Tools => tools::tools(frame, app, rows[1]),
        Pane::Resources => resources::resources(frame, app, rows[1]),
        Pane::Prompts => prompts::prompts(frame, app, rows[1]),
        Pane::Wire => wire::wire(frame, app, rows[1]),
        Pane::Log => log::log(frame, app, rows[1]),
        Pane::Tasks => tasks::tasks(frame, app, rows[1]),
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
        form::form_box(frame, app, area);
    }
    login::login_box(frame, app);
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
    if let Some(login) = &app.login {
        return match (&login.outcome, login.device) {
            (Some(_), _) => "Enter close  Esc close".into(),
            (None, true) => "Esc stop the login".into(),
            (None, false) => "type or paste  Enter send the paste  Esc stop the login".into(),
        };
    }
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
        Pane::Servers
            if app
                .servers
                .get(app.selected_in(Pane::Servers))
                .is_some_and(|s| matches!(s.state, ServerState::NeedsLogin(_))) =>
        {
            "L log in  D log in with a code  R reconnect all"
        }
        Pane::Servers => "Enter use server  R reconnect all",
        Pane::Tools if app.running.is_some() => "c cancel the call  PgUp/PgDn result",
        Pane::Tools
            if app
                .output(Pane::Tools)
                .is_some_and(|o| !o.links.is_empty() || !o.media.is_empty()) =>
        {
            "Enter call  / search  o open link  w save media  PgUp/PgDn result"
        }
        Pane::Tools if app.selected_tool_may_be_a_task() => {
            "Enter call  t call as a task  / search  PgUp/PgDn result"
        }
        Pane::Tools => "Enter call  / search  PgUp/PgDn result  J/K schema",
        Pane::Resources => "Enter read  s subscribe  PgUp/PgDn contents",
        Pane::Prompts => "Enter get  PgUp/PgDn messages",
        Pane::Wire => "Enter whole message  PgUp/PgDn",
        Pane::Log => "+/- log level",
        Pane::Tasks => "Enter result  c cancel  PgUp/PgDn result",
    };
    let pane = if pane.is_empty() {
        String::new()
    } else {
        format!("{pane}  ")
    };
    format!("Tab/1-7 pane  ↑↓ move  {pane}[ ] server  r refresh  q quit")
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

fn output_box(app: &App, pane: Pane, empty: &str) -> Paragraph<'static> {
    match app.output(pane) {
        Some(o) => output_paragraph(o),
        None => boxed("Output".into(), vec![Line::raw(empty.to_owned())], 0),
    }
}

/// A result, a read's contents or a prompt's messages, `isError` marked.
fn output_paragraph(o: &Output) -> Paragraph<'static> {
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
    use crate::explorer::app::Event;
    use crate::explorer::app::tests_support::demo_view;
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;

    pub(super) fn screen(app: &App, w: u16, h: u16) -> String {
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

    pub(super) fn key(app: &mut App, code: KeyCode) {
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
