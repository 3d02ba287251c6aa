//! The mouse, optional beside the keys: a click on the tab line picks a
//! pane, a click on a list picks its row, the wheel moves through the
//! list. Positions are read against the layout the view draws (the tab
//! line on row 0, a list's first row on row 2, its column as wide as the
//! pane's share); nothing the mouse does is out of the keys' reach.

use crossterm::event::{MouseButton, MouseEvent, MouseEventKind};

use super::*;

/// Columns of the tab line's leading ` mcp ui `.
const TABS_START: u16 = 8;

impl App {
    /// The share (percent) of the width the list of `pane` takes; all of
    /// it for Wire and Log.
    fn list_share(pane: Pane) -> u16 {
        match pane {
            Pane::Servers => 30,
            Pane::Tools | Pane::Prompts => 35,
            Pane::Resources => 40,
            Pane::Tasks => 45,
            Pane::Wire | Pane::Log => 100,
        }
    }

    /// What a mouse event does, on a screen `width` × `height`.
    pub(crate) fn mouse(&mut self, event: MouseEvent, width: u16, height: u16) -> Vec<Action> {
        if self.form.is_some() || self.login.is_some() || self.searching {
            return Vec::new();
        }
        match event.kind {
            MouseEventKind::ScrollUp => self.move_cursor(-1),
            MouseEventKind::ScrollDown => self.move_cursor(1),
            MouseEventKind::Down(MouseButton::Left) if event.row == 0 => {
                let mut x = TABS_START;
                for (i, pane) in Pane::ALL.iter().enumerate() {
                    let w = format!(" {} {} ", i + 1, pane.title()).chars().count() as u16;
                    if (x..x + w).contains(&event.column) {
                        self.pane = *pane;
                        break;
                    }
                    x += w;
                }
            }
            MouseEventKind::Down(MouseButton::Left) => {
                // The list's rows: below its border, above the bottom
                // border and the two lines under the panes.
                let inside = width * Self::list_share(self.pane) / 100;
                let last = height.saturating_sub(3);
                if event.column == 0
                    || event.column + 1 >= inside
                    || event.row < 2
                    || event.row >= last
                {
                    return Vec::new();
                }
                // The view draws each list from a fresh state: scrolled
                // just enough to show the selected row.
                let shown = usize::from(last - 2);
                let offset = (self.selected() + 1).saturating_sub(shown);
                let at = offset + usize::from(event.row - 2);
                if at < self.rows() {
                    self.cursor[self.pane.index()] = at;
                    self.info_scroll = 0;
                    self.wire_open = None;
                }
            }
            _ => {}
        }
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests_support::demo_view;
    use super::*;
    use crossterm::event::KeyModifiers;

    fn at(kind: MouseEventKind, column: u16, row: u16) -> MouseEvent {
        MouseEvent {
            kind,
            column,
            row,
            modifiers: KeyModifiers::NONE,
        }
    }

    fn click(column: u16, row: u16) -> MouseEvent {
        at(MouseEventKind::Down(MouseButton::Left), column, row)
    }

    #[test]
    fn a_click_picks_a_tab_or_a_row_and_the_wheel_moves() {
        let mut app = App::new(vec![demo_view()]);
        // " mcp ui  1 Servers  2 Tools  3 Resources …": `2 Tools` is at 19…27.
        app.mouse(click(21, 0), 120, 35);
        assert_eq!(app.pane, Pane::Tools);
        let seven = " mcp ui  1 Servers  2 Tools  3 Resources  4 Prompts  5 Wire  6 Log  7 Tasks "
            .find("7 Tasks")
            .unwrap() as u16;
        app.mouse(click(seven, 0), 120, 35);
        assert_eq!(app.pane, Pane::Tasks);
        app.mouse(click(119, 0), 120, 35);
        assert_eq!(app.pane, Pane::Tasks, "past the tabs: nothing");

        // The second tool's row (row 3); a click right of the list does nothing.
        app.pane = Pane::Tools;
        app.mouse(click(5, 3), 120, 35);
        assert_eq!(app.selected(), 1);
        app.mouse(click(90, 2), 120, 35);
        assert_eq!(app.selected(), 1);
        // Below the last tool: nothing.
        app.mouse(click(5, 10), 120, 35);
        assert_eq!(app.selected(), 1);
        app.mouse(at(MouseEventKind::ScrollUp, 5, 5), 120, 35);
        assert_eq!(app.selected(), 0);
        app.mouse(at(MouseEventKind::ScrollDown, 5, 5), 120, 35);
        assert_eq!(app.selected(), 1);

        // A scrolled list: the row clicked is counted from its first shown.
        app.pane = Pane::Log;
        for i in 0..50 {
            app.apply(Event::Log(LogLine {
                server: "demo".into(),
                level: "info".into(),
                text: format!("line {i}"),
            }));
        }
        // 35 rows: rows 2..=31 show 30 lines, the newest (49) last.
        app.mouse(click(5, 2), 120, 35);
        assert_eq!(app.selected(), 49 + 1 - 30);
        // Drawn again, the list starts at its first line (line 20 is in
        // view): the last row is line 29.
        app.mouse(click(5, 31), 120, 35);
        assert_eq!(app.selected(), 29);

        // A dialog takes no clicks.
        app.pane = Pane::Tools;
        app.key(crossterm::event::KeyEvent::new(
            KeyCode::Enter,
            KeyModifiers::NONE,
        ));
        assert!(app.form.is_some());
        app.mouse(click(38, 0), 120, 35);
        assert_eq!(app.pane, Pane::Tools);
    }
}
