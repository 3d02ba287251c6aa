//! The Wire pane: every JSON-RPC message, requests and responses timed,
//! one opened whole.

use super::*;

pub(super) fn wire(frame: &mut Frame<'_>, app: &App, area: Rect) {
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

#[cfg(test)]
mod tests {
    use super::super::tests::{key, screen};
    use super::*;
    use crate::explorer::app::tests_support::demo_view;
    use crate::explorer::app::{Event, WireLine};
    use crossterm::event::KeyCode;

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
}
