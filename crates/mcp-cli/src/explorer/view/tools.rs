//! The Tools pane: the list (with its search), the selected tool's
//! description, annotations and schemas (or its call form), and the
//! result of the last call.

use super::form::form_box;
use super::*;

pub(super) fn tools(frame: &mut Frame<'_>, app: &App, area: Rect) {
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

#[cfg(test)]
mod tests {
    use super::super::tests::{key, screen};
    use super::*;
    use crate::explorer::app::tests_support::demo_view;
    use crate::explorer::app::{Event, Output};
    use crossterm::event::KeyCode;

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
}
