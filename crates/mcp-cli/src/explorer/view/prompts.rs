//! The Prompts pane: the prompts, the selected one's arguments (or its
//! form), and the messages of the last get.

use super::form::form_box;
use super::*;

pub(super) fn prompts(frame: &mut Frame<'_>, app: &App, area: Rect) {
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
