//! The forms: what a tool, prompt, template or elicitation asks for, the
//! keys inside a form, and what a submitted form becomes.

use super::*;

/// Where a submitted form goes.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum FormTarget {
    Tool {
        server: String,
        tool: String,
        /// Task-augmented (2025-11-25 tasks).
        as_task: bool,
    },
    Prompt {
        server: String,
        prompt: String,
    },
    Template {
        server: String,
        template: String,
    },
    /// A request of `server` to the person (`elicitation/create`,
    /// `sampling/createMessage`, `roots/list`), answered as question `id`.
    Question {
        server: String,
        id: u64,
    },
}

/// One input of a form.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FormInput {
    pub field: Field,
    /// A property the form rules read as text but whose schema wants
    /// something else (an object, an untyped value): typed as JSON, kept
    /// a string when it is not JSON.
    pub json: bool,
    pub text: String,
    pub error: Option<String>,
    /// Values `completion/complete` offered for what is typed.
    pub completions: Vec<String>,
}

/// An open form: a tool's arguments, a prompt's, a template's variables,
/// or a server's question.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Form {
    pub target: FormTarget,
    pub title: String,
    pub message: Option<String>,
    pub inputs: Vec<FormInput>,
    pub focus: usize,
}

impl Form {
    /// A form for `schema` (a JSON Schema object), fields in `order` (as
    /// the server wrote them) — the same field rules as the command
    /// line's elicitation form.
    pub(crate) fn from_schema(
        target: FormTarget,
        title: String,
        message: Option<String>,
        schema: &Value,
        order: Option<&[String]>,
    ) -> Form {
        let props = schema.get("properties").and_then(Value::as_object);
        let inputs = field::fields(schema, order)
            .into_iter()
            .map(|field| {
                let ty = props
                    .and_then(|p| p.get(&field.name))
                    .and_then(|p| p.get("type"));
                let json = match ty {
                    Some(Value::String(t)) => t == "object" || t == "null",
                    Some(_) => true,
                    None => props
                        .and_then(|p| p.get(&field.name))
                        .is_some_and(|p| p.get("enum").is_none()),
                } && matches!(field.kind, Kind::Text { .. });
                FormInput {
                    field,
                    json,
                    text: String::new(),
                    error: None,
                    completions: Vec::new(),
                }
            })
            .collect();
        Form {
            target,
            title,
            message,
            inputs,
            focus: 0,
        }
    }

    /// The answers, each checked by its field's rules; `Err` marks the
    /// inputs that are wrong (their `error`) and names the first.
    pub(crate) fn values(&mut self) -> Result<Map<String, Value>, String> {
        let mut out = Map::new();
        let mut first = None;
        for (i, input) in self.inputs.iter_mut().enumerate() {
            input.error = None;
            let checked = if input.json && !input.text.trim().is_empty() {
                Ok(Some(
                    serde_json::from_str(&input.text)
                        .unwrap_or_else(|_| Value::String(input.text.clone())),
                ))
            } else {
                input.field.check(&input.text)
            };
            match checked {
                Ok(Some(v)) => {
                    out.insert(input.field.name.clone(), whole(v));
                }
                Ok(None) => {}
                Err(e) => {
                    first.get_or_insert((i, format!("{}: {e}", input.field.label)));
                    input.error = Some(e);
                }
            }
        }
        match first {
            Some((i, e)) => {
                self.focus = i;
                Err(e)
            }
            None => Ok(out),
        }
    }
}

impl App {
    pub(super) fn form_key(&mut self, key: KeyEvent) -> Vec<Action> {
        let Some(form) = &mut self.form else {
            return Vec::new();
        };
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let count = form.inputs.len();
        match key.code {
            KeyCode::Esc => return self.close_form(false),
            KeyCode::Char('d') if ctrl => return self.close_form(true),
            KeyCode::Enter => return self.submit(),
            KeyCode::Tab | KeyCode::Down if count > 0 => {
                // Tab on a completion takes the first offered value.
                if key.code == KeyCode::Tab
                    && let Some(input) = form.inputs.get_mut(form.focus)
                    && let Some(first) = input.completions.first().cloned()
                    && input.text != first
                {
                    input.text = first;
                    input.completions.clear();
                    return Vec::new();
                }
                form.focus = (form.focus + 1) % count;
            }
            KeyCode::BackTab | KeyCode::Up if count > 0 => {
                form.focus = (form.focus + count - 1) % count;
            }
            KeyCode::Backspace => {
                if let Some(input) = form.inputs.get_mut(form.focus) {
                    input.text.pop();
                    return self.complete_focused();
                }
            }
            KeyCode::Char(c) if !ctrl => {
                if let Some(input) = form.inputs.get_mut(form.focus) {
                    input.text.push(c);
                    input.error = None;
                    return self.complete_focused();
                }
            }
            _ => {}
        }
        Vec::new()
    }

    /// Completion as you type, for a prompt's or a template's argument.
    fn complete_focused(&self) -> Vec<Action> {
        let Some(form) = &self.form else {
            return Vec::new();
        };
        let server = match &form.target {
            FormTarget::Prompt { server, .. } | FormTarget::Template { server, .. } => server,
            _ => return Vec::new(),
        };
        let offered = self
            .servers
            .iter()
            .find(|s| &s.name == server)
            .and_then(|s| s.info.as_ref())
            .is_some_and(|i| i.capabilities.contains("\"completions\""));
        let Some(input) = form.inputs.get(form.focus) else {
            return Vec::new();
        };
        if !offered {
            return Vec::new();
        }
        let context = form
            .inputs
            .iter()
            .filter(|i| i.field.name != input.field.name && !i.text.is_empty())
            .map(|i| (i.field.name.clone(), i.text.clone()))
            .collect();
        vec![Action::Complete {
            server: server.clone(),
            target: form.target.clone(),
            argument: input.field.name.clone(),
            value: input.text.clone(),
            context,
        }]
    }

    /// Esc closes a form (a server's question: declined; Ctrl-D: cancelled).
    fn close_form(&mut self, cancel: bool) -> Vec<Action> {
        let Some(form) = self.form.take() else {
            return Vec::new();
        };
        self.form = self.queued.pop_front();
        match form.target {
            FormTarget::Question { id, .. } => vec![Action::Answered {
                id,
                content: None,
                cancel,
            }],
            _ => Vec::new(),
        }
    }

    pub(super) fn submit(&mut self) -> Vec<Action> {
        let Some(form) = &mut self.form else {
            return Vec::new();
        };
        let values = match form.values() {
            Ok(v) => v,
            Err(e) => {
                self.notice = Some(e);
                return Vec::new();
            }
        };
        let target = form.target.clone();
        self.form = self.queued.pop_front();
        match target {
            FormTarget::Tool {
                server,
                tool,
                as_task,
            } => {
                self.running = Some(Running {
                    server: server.clone(),
                    tool: tool.clone(),
                    progress: None,
                });
                self.outputs.remove("tools");
                vec![Action::CallTool {
                    server,
                    tool,
                    arguments: values,
                    as_task,
                }]
            }
            FormTarget::Prompt { server, prompt } => vec![Action::GetPrompt {
                server,
                prompt,
                arguments: values
                    .into_iter()
                    .map(|(k, v)| (k, crate::handler::log_text(&v)))
                    .collect(),
            }],
            FormTarget::Template { server, template } => vec![Action::ReadTemplate {
                server,
                template,
                variables: values,
            }],
            FormTarget::Question { id, .. } => vec![Action::Answered {
                id,
                content: Some(values),
                cancel: false,
            }],
        }
    }
}

/// A number typed without a fraction (`2` read as 2.0 by the form rules)
/// goes out as it was typed, `2`: a tool echoing it shows what was typed.
fn whole(v: Value) -> Value {
    /// The largest integer an f64 holds exactly: 2^53.
    const EXACT: f64 = 9_007_199_254_740_992.0;
    match v.as_f64() {
        Some(x) if v.is_f64() && x.fract() == 0.0 && x.abs() <= EXACT => Value::from(x as i64),
        _ => v,
    }
}

/// A prompt's arguments as a form schema: every argument a string, in the
/// order listed.
pub(super) fn prompt_schema(p: &Prompt) -> (Value, Vec<String>) {
    let mut props = Map::new();
    let mut required = Vec::new();
    let mut order = Vec::new();
    for a in p.arguments.iter().flatten() {
        let mut prop = Map::new();
        prop.insert("type".into(), "string".into());
        if let Some(d) = &a.description {
            prop.insert("description".into(), d.clone().into());
        }
        props.insert(a.name.clone(), Value::Object(prop));
        if a.required == Some(true) {
            required.push(Value::String(a.name.clone()));
        }
        order.push(a.name.clone());
    }
    (
        serde_json::json!({"type": "object", "properties": props, "required": required}),
        order,
    )
}

/// A URI template's variables as a form schema (strings, in the order they
/// appear): `{id}`, `{+path}`, `{?a,b}` give `id`, `path`, `a`, `b`.
pub(crate) fn template_schema(template: &str) -> (Value, Vec<String>) {
    let mut order: Vec<String> = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}') else {
            break;
        };
        let expr = &rest[open + 1..open + close];
        let expr = expr.trim_start_matches(['+', '#', '.', '/', ';', '?', '&']);
        for var in expr.split(',') {
            let name = var.trim_end_matches('*');
            let name = name.split(':').next().unwrap_or(name);
            if !name.is_empty() && !order.iter().any(|n| n == name) {
                order.push(name.to_owned());
            }
        }
        rest = &rest[open + close + 1..];
    }
    let props: Map<String, Value> = order
        .iter()
        .map(|n| (n.clone(), serde_json::json!({"type": "string"})))
        .collect();
    (
        serde_json::json!({"type": "object", "properties": props, "required": order}),
        order,
    )
}

#[cfg(test)]
mod tests {
    use super::super::tests_support::{demo_view, key, typed};
    use super::super::*;
    use serde_json::json;

    #[test]
    fn a_tool_form_takes_the_written_order_checks_types_and_calls() {
        let mut app = App::new(vec![demo_view()]);
        app.key(key(KeyCode::Char('2')));
        app.key(key(KeyCode::Down));
        assert!(app.key(key(KeyCode::Enter)).is_empty());
        let form = app.form.as_ref().unwrap();
        let names: Vec<&str> = form.inputs.iter().map(|i| i.field.name.as_str()).collect();
        assert_eq!(names, ["a", "b"], "the schema's written order");
        typed(&mut app, "x");
        assert!(app.key(key(KeyCode::Enter)).is_empty(), "not a number");
        assert!(app.notice.as_deref().unwrap().starts_with("a: "));
        app.key(key(KeyCode::Backspace));
        typed(&mut app, "2");
        app.key(key(KeyCode::Tab));
        typed(&mut app, "3");
        let actions = app.key(key(KeyCode::Enter));
        assert_eq!(
            actions,
            vec![Action::CallTool {
                server: "demo".into(),
                tool: "add".into(),
                arguments: json!({"a": 2, "b": 3}).as_object().unwrap().clone(),
                as_task: false,
            }]
        );
        assert!(app.running.is_some());
        assert_eq!(app.key(key(KeyCode::Char('c'))), vec![Action::CancelCall]);
    }

    #[test]
    fn resources_read_templates_fill_and_prompts_complete() {
        let mut app = App::new(vec![demo_view()]);
        app.key(key(KeyCode::Char('3')));
        assert_eq!(
            app.key(key(KeyCode::Enter)),
            vec![Action::ReadResource {
                server: "demo".into(),
                uri: "demo://readme".into()
            }]
        );
        app.key(key(KeyCode::Down));
        app.key(key(KeyCode::Enter));
        typed(&mut app, "7");
        assert_eq!(
            app.key(key(KeyCode::Enter)),
            vec![Action::ReadTemplate {
                server: "demo".into(),
                template: "demo://notes/{id}".into(),
                variables: json!({"id": "7"}).as_object().unwrap().clone(),
            }]
        );
        app.key(key(KeyCode::Char('4')));
        app.key(key(KeyCode::Enter));
        let asked = typed(&mut app, "Gr");
        assert!(
            matches!(&asked[..], [Action::Complete { argument, value, .. }] if argument == "name" && value == "Gr"),
            "{asked:?}"
        );
        app.apply(Event::Completions {
            argument: "name".into(),
            values: vec!["Grace".into()],
        });
        app.key(key(KeyCode::Tab));
        assert_eq!(app.form.as_ref().unwrap().inputs[0].text, "Grace");
        let got = app.key(key(KeyCode::Enter));
        assert!(
            matches!(&got[..], [Action::GetPrompt { arguments, .. }] if arguments["name"] == "Grace"),
            "{got:?}"
        );
    }

    #[test]
    fn an_elicitation_is_answered_declined_or_cancelled() {
        let mut app = App::new(vec![demo_view()]);
        let form = Form::from_schema(
            FormTarget::Question {
                server: "demo".into(),
                id: 4,
            },
            "demo asks".into(),
            Some("Your name?".into()),
            &json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}),
            None,
        );
        app.apply(Event::Ask(Box::new(form.clone())));
        app.apply(Event::Ask(Box::new(form)));
        assert_eq!(app.queued.len(), 1);
        assert!(app.key(key(KeyCode::Enter)).is_empty(), "required");
        typed(&mut app, "Ada");
        assert_eq!(
            app.key(key(KeyCode::Enter)),
            vec![Action::Answered {
                id: 4,
                content: Some(json!({"name": "Ada"}).as_object().unwrap().clone()),
                cancel: false
            }]
        );
        assert!(app.form.is_some(), "the queued question comes next");
        assert_eq!(
            app.key(key(KeyCode::Esc)),
            vec![Action::Answered {
                id: 4,
                content: None,
                cancel: false
            }]
        );
        assert!(app.form.is_none());
    }

    #[test]
    fn template_variables_are_read_in_order() {
        assert_eq!(
            template_schema("file:///{+path}{?a,b*}{#frag:3}").1,
            ["path", "a", "b", "frag"]
        );
    }
}
