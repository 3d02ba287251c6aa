//! A form as drawn: a tool's arguments, a prompt's, a template's
//! variables, or a server's question (elicitation, sampling, roots).

use super::*;

pub(super) fn form_box(frame: &mut Frame<'_>, app: &App, area: Rect) {
    let Some(form) = &app.form else {
        return;
    };
    let mut lines = Vec::new();
    if let Some(m) = &form.message {
        lines.extend(lines_of(m));
        lines.push(Line::raw(""));
    }
    if form.inputs.is_empty() {
        lines.push(Line::raw("(no arguments)"));
    }
    for (i, input) in form.inputs.iter().enumerate() {
        let focused = i == form.focus;
        let mark = if input.field.required { "*" } else { " " };
        let label = format!("{}{mark} ", clean(&input.field.label));
        let mut spans = vec![
            Span::styled(if focused { "› " } else { "  " }, bold()),
            Span::styled(label, if focused { bold() } else { Style::default() }),
        ];
        if input.text.is_empty() {
            let hint = input
                .field
                .default_text()
                .map(|d| format!("default: {d}"))
                .unwrap_or_else(|| kind_hint(&input.field.kind, input.json));
            spans.push(Span::styled(
                clean(&hint),
                Style::default().fg(Color::DarkGray),
            ));
        } else {
            spans.push(Span::raw(clean(&input.text)));
        }
        if focused {
            spans.push(Span::styled("▏", Style::default().fg(Color::Cyan)));
        }
        if let Some(e) = &input.error {
            spans.push(Span::styled(
                format!("  ✗ {}", clean(e)),
                Style::default().fg(Color::Red),
            ));
        }
        lines.push(Line::from(spans));
        if focused && !input.completions.is_empty() {
            let shown: Vec<String> = input.completions.iter().take(8).map(|c| clean(c)).collect();
            lines.push(Line::styled(
                format!("    completions: {}", shown.join("  ")),
                Style::default().fg(Color::Green),
            ));
        }
        if focused && let Some(d) = &input.field.description {
            lines.push(Line::styled(
                format!("    {}", clean(d)),
                Style::default().fg(Color::DarkGray),
            ));
        }
    }
    lines.push(Line::styled(
        "* required",
        Style::default().fg(Color::DarkGray),
    ));
    frame.render_widget(boxed(clean(&form.title), lines, 0), area);
}

fn kind_hint(kind: &crate::form::field::Kind, json: bool) -> String {
    use crate::form::field::Kind;
    if json {
        return "JSON".into();
    }
    match kind {
        Kind::Text {
            format: Some(f), ..
        } => f.placeholder().into(),
        Kind::Text { .. } => "text".into(),
        Kind::Integer { .. } => "integer".into(),
        Kind::Number { .. } => "number".into(),
        Kind::Boolean => "yes/no".into(),
        Kind::Choice(options) => options
            .iter()
            .map(|c| c.value.clone())
            .collect::<Vec<_>>()
            .join("|"),
        Kind::MultiChoice { options, .. } => format!(
            "comma-separated of {}",
            options
                .iter()
                .map(|c| c.value.clone())
                .collect::<Vec<_>>()
                .join("|")
        ),
        Kind::List => "comma-separated".into(),
    }
}
