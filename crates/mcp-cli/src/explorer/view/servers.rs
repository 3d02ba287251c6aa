//! The Servers pane: each server's state, and what the selected one said
//! about itself (or why it is not connected).

use super::*;

pub(super) fn servers(frame: &mut Frame<'_>, app: &App, area: Rect) {
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
            lines.push(Line::raw(
                "L logs in here (a browser), D with a code on another device",
            ));
            lines.push(Line::raw(format!(
                "or from a shell: mcp login {}, then R",
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

#[cfg(test)]
mod tests {
    use super::super::tests::{key, screen};
    use super::*;
    use crate::explorer::app::tests_support::demo_view;
    use crossterm::event::KeyCode;

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
}
