//! The Log pane: the servers' `notifications/message` and what the
//! explorer noticed.

use super::*;

pub(super) fn log(frame: &mut Frame<'_>, app: &App, area: Rect) {
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
            crate::explorer::app::LOG_LEVELS[l]
        ),
        None => "Log (notifications/message, list changes, updates)".to_owned(),
    };
    list(frame, area, &title, items, app.selected_in(Pane::Log));
}

#[cfg(test)]
mod tests {
    use super::super::tests::screen;
    use super::*;
    use crate::explorer::app::tests_support::demo_view;
    use crate::explorer::app::{Event, LogLine};

    /// What the mouse reads rows against: a list drawn with its last line
    /// selected shows the lines that end with it, from row 2.
    #[test]
    fn a_long_list_shows_the_selected_line_last() {
        let mut app = App::new(vec![demo_view()]);
        app.pane = Pane::Log;
        for i in 0..50 {
            app.apply(Event::Log(LogLine {
                server: "demo".into(),
                level: "info".into(),
                text: format!("line {i}"),
            }));
        }
        let s = screen(&app, 120, 35);
        let rows: Vec<&str> = s.lines().collect();
        assert!(rows[2].contains("info: line 20"), "{s}");
        assert!(rows[31].contains("› [demo] info: line 49"), "{s}");
    }
}
