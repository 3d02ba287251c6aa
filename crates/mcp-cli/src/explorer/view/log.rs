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
