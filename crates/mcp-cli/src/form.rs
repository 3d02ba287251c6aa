//! An interactive form for `elicitation/create` (spec `client/elicitation`
//! § Form mode): one prompt per property of the requested schema, in the
//! schema's order, with its title, description and default, checked before
//! it is accepted.
//!
//! The prompts are `inquire`'s, but for text fields, whose line editor is
//! `form/line.rs` (a shell's keys: Ctrl-U, Ctrl-W, …; no control key types
//! its letter). Both put the terminal in raw mode while they
//! ask and restore the mode after, so a terminal a background job left
//! without canonical mode or echo does not trap the form (Enter arrives as
//! `\r` either way), and Ctrl-C arrives as a key rather than a signal:
//! [`FormError::Interrupted`], which the caller turns into the command's
//! interruption. Esc cancels the form (the server gets `cancel`).

// The field rules are shared with `mcp ui`'s forms.
pub(crate) mod field;
mod line;
mod order;

use std::io::{self, Write};

use inquire::error::InquireError;
use inquire::ui::RenderConfig;
use inquire::validator::Validation;
use inquire::{Confirm, MultiSelect, Select};
use mcp_types::elicitation::{ElicitAction, ElicitResult};
use serde_json::{Map, Value};

use crate::output::visible;
use field::{Field, Kind};
pub(crate) use order::{SchemaOrderTap, SchemaOrders};

/// Why a form ended without a result.
#[derive(Debug)]
pub(crate) enum FormError {
    /// Ctrl-C: the whole command is to stop (exit 130).
    Interrupted,
    /// The terminal failed.
    Io(io::Error),
}

/// Stops the form: Esc cancels it, Ctrl-C interrupts the command.
enum Stop {
    Cancel,
    Fail(FormError),
}

impl From<InquireError> for Stop {
    fn from(e: InquireError) -> Self {
        match e {
            InquireError::OperationCanceled => Stop::Cancel,
            InquireError::OperationInterrupted => Stop::Fail(FormError::Interrupted),
            InquireError::IO(e) => Stop::Fail(FormError::Io(e)),
            other => Stop::Fail(FormError::Io(io::Error::other(other.to_string()))),
        }
    }
}

/// The entry a choice list opens on when its field has no default and may
/// be left out: Enter on it answers nothing.
const SKIP: &str = "(no answer)";

/// The entry a choice list opens on when its field has no default and is
/// required: Enter on it asks again.
const CHOOSE: &str = "(choose one)";

/// Runs the form on the terminal (stderr, input from the terminal). First asks
/// whether to answer at all, then asks each property in `order`, the order
/// the server wrote them in (see `form/order.rs`; `None` when it could not be
/// read: the map's order).
pub(crate) fn fill(
    server: &str,
    message: &str,
    schema: &Value,
    order: Option<&[String]>,
) -> Result<ElicitResult, FormError> {
    // Everything a server wrote is shown through `visible`: a message, a
    // title or a choice must not act on the terminal (retitle it, clear the
    // screen around a fake prompt).
    let mut err = io::stderr();
    let header = writeln!(err, "\n[{}] asks: {}", visible(server), visible(message))
        .and_then(|()| writeln!(err, "(Esc cancels the form, Ctrl-C stops the command)"));
    header.map_err(FormError::Io)?;
    inquire::set_global_render_config(render_config());
    match ask_all(&field::fields(schema, order)) {
        Ok(Some(content)) => {
            let mut result = ElicitResult::new(ElicitAction::Accept);
            result.content = Some(content);
            Ok(result)
        }
        Ok(None) => Ok(ElicitResult::new(ElicitAction::Decline)),
        Err(Stop::Cancel) => Ok(ElicitResult::new(ElicitAction::Cancel)),
        Err(Stop::Fail(e)) => Err(e),
    }
}

/// `inquire`'s look (colours unless `NO_COLOR`), with a validation message
/// led by `!`: its own `#` reads as a comment, not as what is wrong.
fn render_config() -> RenderConfig<'static> {
    let mut config = RenderConfig::default();
    config.error_message.prefix.content = "!";
    config
}

/// The answers; `None` when the user declines.
fn ask_all(fields: &[Field]) -> Result<Option<Map<String, Value>>, Stop> {
    let start = Select::new(
        "Answer?",
        vec!["yes, fill in the form", "no (decline)", "cancel"],
    )
    .without_filtering()
    .raw_prompt()?;
    match start.index {
        0 => {}
        1 => return Ok(None),
        _ => return Err(Stop::Cancel),
    }
    let mut content = Map::new();
    for f in fields {
        if let Some(v) = ask(f)? {
            content.insert(f.name.clone(), v);
        }
    }
    Ok(Some(content))
}

/// Asks one field: `None` when left unanswered. A field without a default
/// is unanswered until the person answers it: no prompt starts on an
/// answer the schema did not give (a yes, the first choice); a required
/// one is asked again, an optional one left empty is left out.
fn ask(f: &Field) -> Result<Option<Value>, Stop> {
    let label = prompt_label(f);
    let help = f.description.as_deref().map(|d| visible(d).into_owned());
    match &f.kind {
        Kind::Boolean => ask_boolean(f, &label, help.as_deref()),
        Kind::Choice(options) => ask_choice(f, options, &label, help.as_deref()),
        Kind::MultiChoice {
            options,
            min_items,
            max_items,
        } => {
            let shown: Vec<String> = options.iter().map(|c| c.shown()).collect();
            let defaults: Vec<usize> = f
                .default
                .as_ref()
                .and_then(Value::as_array)
                .map(|d| {
                    options
                        .iter()
                        .enumerate()
                        .filter(|(_, c)| d.iter().any(|v| v.as_str() == Some(&c.value)))
                        .map(|(i, _)| i)
                        .collect()
                })
                .unwrap_or_default();
            let (min, max) = (*min_items, *max_items);
            // Choosing none is leaving the field out, which a required
            // field cannot be (unless its schema allows no items).
            let must_choose = f.required && min.is_none();
            let mut prompt = MultiSelect::new(&label, shown)
                .with_default(&defaults)
                .with_formatter(&|chosen| {
                    if chosen.is_empty() {
                        SKIP.to_owned()
                    } else {
                        chosen
                            .iter()
                            .map(|o| o.value.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    }
                })
                .with_validator(
                    move |chosen: &[inquire::list_option::ListOption<&String>]| {
                        let n = chosen.len() as u64;
                        Ok(match (min, max) {
                            _ if must_choose && n == 0 => {
                                Validation::Invalid(field::REQUIRED.into())
                            }
                            (Some(min), _) if n < min => {
                                Validation::Invalid(format!("choose at least {min}").into())
                            }
                            (_, Some(max)) if n > max => {
                                Validation::Invalid(format!("choose at most {max}").into())
                            }
                            _ => Validation::Valid,
                        })
                    },
                );
            let help_text = format!(
                "{}space selects, enter confirms",
                help.as_deref()
                    .map(|h| format!("{h}; "))
                    .unwrap_or_default()
            );
            prompt = prompt.with_help_message(&help_text);
            let picked = prompt.raw_prompt()?;
            if picked.is_empty() && !f.required {
                return Ok(None);
            }
            Ok(Some(Value::Array(
                picked
                    .iter()
                    .filter_map(|o| options.get(o.index))
                    .map(|c| Value::String(c.value.clone()))
                    .collect(),
            )))
        }
        Kind::Text { .. } | Kind::Integer { .. } | Kind::Number { .. } | Kind::List => {
            ask_text(f, &label, help.as_deref())
        }
    }
}

/// The entries of a single-choice list: the options, led by [`SKIP`] or
/// [`CHOOSE`] when the field has no default (so the list does not open on
/// an answer), and the entry the cursor starts on (the default).
fn choice_entries(
    f: &Field,
    options: &[field::Choice],
) -> (Vec<String>, Option<&'static str>, usize) {
    let default_at = f
        .default
        .as_ref()
        .and_then(Value::as_str)
        .and_then(|d| options.iter().position(|c| c.value == d));
    let lead = match default_at {
        Some(_) => None,
        None if f.required => Some(CHOOSE),
        None => Some(SKIP),
    };
    let offset = usize::from(lead.is_some());
    let shown = lead
        .map(str::to_owned)
        .into_iter()
        .chain(options.iter().map(field::Choice::shown))
        .collect();
    (shown, lead, default_at.map_or(0, |i| i + offset))
}

fn ask_choice(
    f: &Field,
    options: &[field::Choice],
    label: &str,
    help: Option<&str>,
) -> Result<Option<Value>, Stop> {
    let (shown, lead, start) = choice_entries(f, options);
    let offset = usize::from(lead.is_some());
    loop {
        let mut prompt = Select::new(label, shown.clone()).with_starting_cursor(start);
        if let Some(h) = help {
            prompt = prompt.with_help_message(h);
        }
        let picked = prompt.raw_prompt()?;
        match picked
            .index
            .checked_sub(offset)
            .and_then(|i| options.get(i))
        {
            Some(c) => return Ok(Some(Value::String(c.value.clone()))),
            None if f.required => {
                writeln!(io::stderr(), "  {}", field::REQUIRED)
                    .map_err(|e| Stop::Fail(FormError::Io(e)))?;
            }
            None => return Ok(None),
        }
    }
}

/// The prompt line holds only the label (and `*` when required): a
/// description can be long and would wrap, leaving the cursor alone at the
/// start of the next line, so it goes below the input as help.
fn prompt_label(f: &Field) -> String {
    format!(
        "{}{}",
        visible(&f.label),
        if f.required { " *" } else { "" }
    )
}

/// The entries of an optional yes/no without a default, in order.
const OPTIONAL_YES_NO: [&str; 3] = [SKIP, "yes", "no"];

fn ask_boolean(f: &Field, label: &str, help: Option<&str>) -> Result<Option<Value>, Stop> {
    let default = f.default.as_ref().and_then(Value::as_bool);
    if default.is_none() && !f.required {
        // An optional yes/no without a default opens on no answer: consent
        // is never given by pressing Enter.
        let mut prompt = Select::new(label, OPTIONAL_YES_NO.to_vec()).without_filtering();
        if let Some(h) = help {
            prompt = prompt.with_help_message(h);
        }
        return Ok(match prompt.raw_prompt()?.index {
            1 => Some(Value::Bool(true)),
            2 => Some(Value::Bool(false)),
            _ => None,
        });
    }
    // Without a default, an empty answer does not parse: asked again.
    let mut prompt =
        Confirm::new(label).with_error_message("a value is required: answer y (yes) or n (no)");
    if let Some(d) = default {
        prompt = prompt.with_default(d);
    }
    if let Some(h) = help {
        prompt = prompt.with_help_message(h);
    }
    Ok(Some(Value::Bool(prompt.prompt()?)))
}

fn ask_text(f: &Field, label: &str, help: Option<&str>) -> Result<Option<Value>, Stop> {
    let default = f.default_text().map(|d| visible(&d).into_owned());
    let placeholder = match (&default, &f.kind) {
        (Some(d), _) => Some(d.clone()),
        (
            None,
            Kind::Text {
                format: Some(fmt), ..
            },
        ) => Some(fmt.placeholder().to_owned()),
        (None, Kind::List) => Some("a,b,c".to_owned()),
        _ => None,
    };
    let help_text = match (help, &default) {
        (Some(h), Some(d)) => Some(format!("{h} (Enter: {d})")),
        (None, Some(d)) => Some(format!("Enter: {d}")),
        (Some(h), None) => Some(h.to_owned()),
        (None, None) => None,
    };
    let checker = f.clone();
    // The answered line shows what was taken: the default for an empty
    // answer, "(no answer)" for a field left out.
    let taken = |raw: &str| -> String {
        if !raw.trim().is_empty() {
            return raw.to_owned();
        }
        default.clone().unwrap_or_else(|| SKIP.to_owned())
    };
    // A text field is `line::ask`'s, not `inquire`'s Text: that one types
    // Ctrl-U, Ctrl-W (any Ctrl-letter it has no action for) as the letter.
    let check = move |raw: &str| {
        checker
            .check(raw)
            .map(|_| ())
            .map_err(|why| visible(&why).into_owned())
    };
    let raw = line::ask(&line::TextPrompt {
        label,
        placeholder: placeholder.as_deref(),
        help: help_text.as_deref(),
        check: &check,
        shown: &taken,
    })?;
    // The validator accepted it, so this cannot fail; if it somehow does, the
    // field is left out rather than sent malformed, and the log says so.
    match f.check(&raw) {
        Ok(v) => Ok(v),
        Err(why) => {
            tracing::warn!(field = %f.name, %why, "an accepted answer failed its check; left out");
            Ok(None)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_long_description_stays_off_the_prompt_line() {
        let long = "a description long enough to wrap on any terminal ".repeat(4);
        let schema = json!({"type": "object", "properties": {
            "name": {"type": "string", "title": "Name", "description": long},
            "nick": {"type": "string", "description": long}
        }, "required": ["name"]});
        let labels: Vec<String> = field::fields(&schema, None)
            .iter()
            .map(prompt_label)
            .collect();
        assert_eq!(labels, ["Name *", "nick"]);
    }

    #[test]
    fn no_field_without_a_default_opens_on_an_answer() {
        let schema = json!({"type": "object", "properties": {
            "opt": {"type": "string", "enum": ["a", "b"]},
            "req": {"type": "string", "oneOf": [{"const": "a"}, {"const": "b"}]},
            "dflt": {"type": "string", "enum": ["a", "b"], "default": "b"},
            "int": {"type": "integer"}, "num": {"type": "number"},
            "text": {"type": "string"}, "list": {"type": "array", "items": {"type": "string"}},
            "rint": {"type": "integer"}, "rtext": {"type": "string", "format": "email"}
        }, "required": ["req", "rint", "rtext"]});
        let fields = field::fields(&schema, None);
        let by = |name: &str| fields.iter().find(|f| f.name == name).unwrap();
        let entries = |name: &str| match &by(name).kind {
            Kind::Choice(options) => {
                let (shown, lead, start) = choice_entries(by(name), options);
                (shown[start].clone(), lead)
            }
            other => panic!("{name}: {other:?}"),
        };
        assert_eq!(entries("opt"), (SKIP.to_owned(), Some(SKIP)));
        assert_eq!(entries("req"), (CHOOSE.to_owned(), Some(CHOOSE)));
        assert_eq!(entries("dflt"), ("b".to_owned(), None));
        // An optional yes/no opens on no answer.
        assert_eq!(OPTIONAL_YES_NO[0], SKIP);
        // Typed fields: empty is no answer (left out), or asked again.
        for name in ["int", "num", "text", "list"] {
            assert_eq!(by(name).check(""), Ok(None), "{name}");
        }
        for name in ["rint", "rtext"] {
            assert_eq!(
                by(name).check(" "),
                Err(field::REQUIRED.to_owned()),
                "{name}"
            );
        }
    }

    #[test]
    fn server_text_on_the_prompt_line_cannot_act_on_the_terminal() {
        let esc = "\u{1b}]0;PWNED\u{7}\u{1b}[2J\u{202e}";
        let schema = json!({"type": "object", "properties": {
            "p": {"type": "string", "title": format!("T{esc}"),
                  "oneOf": [{"const": format!("a{esc}"), "title": format!("A{esc}")}]}
        }});
        let f = &field::fields(&schema, None)[0];
        let mut shown = vec![prompt_label(f)];
        if let Kind::Choice(options) = &f.kind {
            shown.extend(options.iter().map(|c| c.shown()));
        }
        for s in &shown {
            assert!(
                !s.contains('\u{1b}') && !s.contains('\u{7}') && !s.contains('\u{202e}'),
                "{s:?}"
            );
        }
        assert_eq!(shown.len(), 2, "{shown:?}");
    }
}
