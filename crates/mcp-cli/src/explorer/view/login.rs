//! The login dialog: what the login says (the URL to open, or where to
//! enter a code), a line to paste the URL the browser ended on, and how
//! the login ended.

use super::*;

pub(super) fn login_box(frame: &mut Frame<'_>, app: &App) {
    let Some(dialog) = &app.login else {
        return;
    };
    let area = centered(frame.area(), 80, 70);
    frame.render_widget(ratatui::widgets::Clear, area);
    let mut lines = Vec::new();
    if dialog.lines.is_empty() {
        lines.push(Line::raw("starting the login…"));
    }
    // The URL is shown whole, wrapped, with nothing around it on its
    // lines: a terminal's selection copies it as it is.
    lines.extend(dialog.lines.iter().flat_map(|l| lines_of(l)));
    lines.push(Line::raw(""));
    match &dialog.outcome {
        Some(Ok(done)) => lines.push(Line::styled(
            format!("{}; reconnecting", clean(done)),
            bold().fg(Color::Green),
        )),
        Some(Err(why)) => lines.push(Line::styled(clean(why), bold().fg(Color::Red))),
        None if dialog.device => {}
        None => {
            lines.push(Line::styled(
                "If the browser cannot reach this machine, paste the URL it ended on (or the code):",
                Style::default().fg(Color::DarkGray),
            ));
            lines.push(Line::from(vec![
                Span::styled("› ", bold()),
                Span::raw(clean(&dialog.paste)),
                Span::styled("▏", Style::default().fg(Color::Cyan)),
            ]));
        }
    }
    let how = if dialog.device {
        "with a code on another device"
    } else {
        "in a browser"
    };
    frame.render_widget(
        boxed(
            format!("log in to {} {how}", clean(&dialog.server)),
            lines,
            0,
        ),
        area,
    );
}

#[cfg(test)]
mod tests {
    use super::super::tests::screen;
    use super::*;
    use crate::explorer::app::tests_support::demo_view;
    use crate::explorer::app::{Event, LoginDialog};

    #[test]
    fn the_login_dialog_shows_the_url_the_paste_and_the_outcome() {
        let mut app = App::new(vec![demo_view()]);
        app.login = Some(LoginDialog {
            server: "remote".into(),
            device: false,
            lines: Vec::new(),
            paste: String::new(),
            outcome: None,
        });
        let s = screen(&app, 100, 30);
        assert!(s.contains("log in to remote in a browser"), "{s}");
        assert!(s.contains("starting the login…"), "{s}");
        app.apply(Event::LoginNotice(
            "To log in, open this URL in a browser:".into(),
        ));
        app.apply(Event::LoginNotice(
            "  http://127.0.0.1:9/authorize?code_challenge=abc".into(),
        ));
        let s = screen(&app, 100, 30);
        assert!(
            s.contains("http://127.0.0.1:9/authorize?code_challenge=abc"),
            "{s}"
        );
        assert!(s.contains("paste the URL it ended on"), "{s}");
        assert!(s.contains("Esc stop the login"), "{s}");
        app.apply(Event::LoginEnded(Ok("Logged in to remote".into())));
        let s = screen(&app, 100, 30);
        assert!(s.contains("Logged in to remote; reconnecting"), "{s}");
        assert!(s.contains("Enter close"), "{s}");
        // Small screens draw.
        for (w, h) in [(1, 1), (10, 4)] {
            let _ = screen(&app, w, h);
        }
    }
}
