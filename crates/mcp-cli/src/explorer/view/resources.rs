//! The Resources pane: resources and templates, the selected one's
//! details (or a template's form), and what was read.

use super::form::form_box;
use super::*;

pub(super) fn resources(frame: &mut Frame<'_>, app: &App, area: Rect) {
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
