//! An interactive form for `elicitation/create` (spec `client/elicitation`
//! § Form mode): one prompt per property of the requested schema, with its
//! title, description and default, type-checked before it is accepted.
//!
//! I/O is passed in, so the logic is tested without a terminal.

use std::io::{self, BufRead, Write};

use mcp_types::elicitation::{ElicitAction, ElicitResult};
use serde_json::{Map, Number, Value};

use crate::output::visible;

/// Wrong answers allowed per field before the form is cancelled.
pub(crate) const MAX_ATTEMPTS: usize = 5;

/// One line of input; `None` at end of input.
fn read_line(input: &mut dyn BufRead) -> io::Result<Option<String>> {
    let mut line = String::new();
    if input.read_line(&mut line)? == 0 {
        return Ok(None);
    }
    Ok(Some(line.trim_end_matches(['\n', '\r']).to_owned()))
}

/// Parses one answer for a property schema; `Err` says why it is invalid.
pub(crate) fn parse_answer(raw: &str, prop: &Value) -> Result<Value, String> {
    let ty = prop.get("type").and_then(Value::as_str).unwrap_or("string");
    let choices: Option<Vec<&str>> = prop
        .get("enum")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .or_else(|| {
            prop.get("oneOf").and_then(Value::as_array).map(|a| {
                a.iter()
                    .filter_map(|o| o.get("const").and_then(Value::as_str))
                    .collect()
            })
        });
    match ty {
        "boolean" => match raw.trim().to_ascii_lowercase().as_str() {
            "y" | "yes" | "true" => Ok(Value::Bool(true)),
            "n" | "no" | "false" => Ok(Value::Bool(false)),
            _ => Err("answer yes or no".into()),
        },
        "integer" => {
            let n: i64 = raw
                .trim()
                .parse()
                .map_err(|_| "enter a whole number".to_owned())?;
            check_range(n as f64, prop)?;
            Ok(Value::Number(n.into()))
        }
        "number" => {
            let n: f64 = raw
                .trim()
                .parse()
                .map_err(|_| "enter a number".to_owned())?;
            check_range(n, prop)?;
            Number::from_f64(n)
                .map(Value::Number)
                .ok_or_else(|| "enter a finite number".into())
        }
        "array" => {
            let items: Vec<String> = raw
                .split(',')
                .map(|s| s.trim().to_owned())
                .filter(|s| !s.is_empty())
                .collect();
            let allowed: Option<Vec<&str>> = prop
                .get("items")
                .and_then(|i| i.get("enum").or_else(|| i.get("anyOf")))
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(|v| {
                            v.as_str()
                                .or_else(|| v.get("const").and_then(Value::as_str))
                        })
                        .collect()
                });
            if let Some(allowed) = allowed
                && let Some(bad) = items.iter().find(|i| !allowed.contains(&i.as_str()))
            {
                return Err(format!("{bad:?} is not one of: {}", allowed.join(", ")));
            }
            Ok(Value::Array(items.into_iter().map(Value::String).collect()))
        }
        _ => {
            if let Some(choices) = choices {
                // Accept the value itself or its 1-based number.
                if let Some(c) = choices.iter().find(|c| **c == raw.trim()) {
                    return Ok(Value::String((*c).to_owned()));
                }
                if let Ok(i) = raw.trim().parse::<usize>()
                    && (1..=choices.len()).contains(&i)
                {
                    return Ok(Value::String(choices[i - 1].to_owned()));
                }
                return Err(format!("choose one of: {}", choices.join(", ")));
            }
            let len = raw.chars().count() as u64;
            if let Some(min) = prop.get("minLength").and_then(Value::as_u64)
                && len < min
            {
                return Err(format!("at least {min} characters"));
            }
            if let Some(max) = prop.get("maxLength").and_then(Value::as_u64)
                && len > max
            {
                return Err(format!("at most {max} characters"));
            }
            Ok(Value::String(raw.to_owned()))
        }
    }
}

fn check_range(n: f64, prop: &Value) -> Result<(), String> {
    if let Some(min) = prop.get("minimum").and_then(Value::as_f64)
        && n < min
    {
        return Err(format!("at least {min}"));
    }
    if let Some(max) = prop.get("maximum").and_then(Value::as_f64)
        && n > max
    {
        return Err(format!("at most {max}"));
    }
    Ok(())
}

fn default_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(a) => a
            .iter()
            .map(|x| x.as_str().map_or_else(|| x.to_string(), str::to_owned))
            .collect::<Vec<_>>()
            .join(","),
        other => other.to_string(),
    }
}

/// Runs the form. First asks whether to answer at all (Enter, `y` or `yes`
/// accepts, `n`/`no` declines, `c`/`cancel` cancels; anything else is asked
/// again, up to [`MAX_ATTEMPTS`] times), then prompts each property. End of
/// input cancels.
///
/// Errors: I/O errors on `input`/`out`.
pub(crate) fn fill(
    server: &str,
    message: &str,
    schema: &Value,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
) -> io::Result<ElicitResult> {
    // Everything a server wrote is shown through `visible`: a message, a
    // title or a choice must not act on the terminal (retitle it, clear the
    // screen around a fake prompt).
    writeln!(out, "\n[{}] asks: {}", visible(server), visible(message))?;
    write!(out, "Answer? [Y]es / [n]o (decline) / [c]ancel: ")?;
    out.flush()?;
    let mut attempts = 0;
    loop {
        let answer = read_line(input)?;
        match answer
            .as_deref()
            .map(|a| a.trim().to_ascii_lowercase())
            .as_deref()
        {
            None => return Ok(ElicitResult::new(ElicitAction::Cancel)),
            Some("" | "y" | "yes") => break,
            Some("n" | "no") => return Ok(ElicitResult::new(ElicitAction::Decline)),
            Some("c" | "cancel") => return Ok(ElicitResult::new(ElicitAction::Cancel)),
            Some(_) => {}
        }
        attempts += 1;
        if attempts >= MAX_ATTEMPTS {
            writeln!(out, "  too many invalid answers; cancelled")?;
            return Ok(ElicitResult::new(ElicitAction::Cancel));
        }
        write!(out, "  answer y, n or c: ")?;
        out.flush()?;
    }
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let empty = Map::new();
    let props = schema
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let mut content = Map::new();
    for (name, prop) in props {
        let is_required = required.contains(&name.as_str());
        let label = prop.get("title").and_then(Value::as_str).unwrap_or(name);
        let ty = prop.get("type").and_then(Value::as_str).unwrap_or("string");
        let default = prop.get("default");
        let mut attempts = 0;
        loop {
            write!(out, "{}", visible(label))?;
            if let Some(d) = prop.get("description").and_then(Value::as_str) {
                write!(out, " ({})", visible(d))?;
            }
            let choices = prop.get("enum").and_then(Value::as_array).map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .collect::<Vec<_>>()
                    .join("/")
            });
            match (ty, choices) {
                (_, Some(c)) => write!(out, " [{}]", visible(&c))?,
                ("boolean", None) => write!(out, " [y/n]")?,
                ("string", None) => {}
                (t, None) => write!(out, " <{}>", visible(t))?,
            }
            if let Some(d) = default {
                write!(out, " [default: {}]", visible(&default_text(d)))?;
            }
            write!(out, "{}: ", if is_required { " *" } else { "" })?;
            out.flush()?;
            let Some(raw) = read_line(input)? else {
                return Ok(ElicitResult::new(ElicitAction::Cancel));
            };
            if raw.trim().is_empty() {
                if let Some(d) = default {
                    content.insert(name.clone(), d.clone());
                    break;
                }
                if !is_required {
                    break;
                }
                writeln!(out, "  required")?;
            } else {
                match parse_answer(&raw, prop) {
                    Ok(v) => {
                        content.insert(name.clone(), v);
                        break;
                    }
                    Err(why) => writeln!(out, "  invalid: {}", visible(&why))?,
                }
            }
            attempts += 1;
            if attempts >= MAX_ATTEMPTS {
                writeln!(out, "  too many invalid answers; cancelled")?;
                return Ok(ElicitResult::new(ElicitAction::Cancel));
            }
        }
    }
    let mut result = ElicitResult::new(ElicitAction::Accept);
    result.content = Some(content);
    Ok(result)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(schema: Value, input: &str) -> (ElicitResult, String) {
        let mut out = Vec::new();
        let result = fill("demo", "Tell me", &schema, &mut input.as_bytes(), &mut out).unwrap();
        (result, String::from_utf8(out).unwrap())
    }

    #[test]
    fn accepts_typed_answers_and_defaults() {
        let schema = json!({"type": "object", "properties": {
            "age": {"type": "integer", "title": "Age", "minimum": 0},
            "name": {"type": "string", "title": "Name", "description": "Your name"},
            "ok": {"type": "boolean", "default": true},
            "size": {"type": "string", "enum": ["s", "m", "l"]}
        }, "required": ["name"]});
        // Order is alphabetical: age, name, ok, size.
        let (result, shown) = run(schema, "\nx\n41\nAda\n\n2\n");
        assert_eq!(result.action, ElicitAction::Accept);
        assert_eq!(
            Value::Object(result.content.unwrap()),
            json!({"age": 41, "name": "Ada", "ok": true, "size": "m"})
        );
        assert!(shown.contains("invalid: enter a whole number"));
        assert!(shown.contains("Name (Your name) *: "));
        assert!(shown.contains("[default: true]"));
    }

    /// Nothing a server wrote reaches the terminal raw: its message, a
    /// property's title, description, choices, default, and the answers an
    /// invalid reply is checked against.
    #[test]
    fn server_text_cannot_act_on_the_terminal() {
        let esc = "\u{1b}]0;PWNED\u{7}\u{1b}[2J\u{202e}";
        let schema = json!({"type": "object", "properties": {
            "p": {"type": "string", "title": format!("T{esc}"), "description": format!("D{esc}"),
                  "enum": [format!("a{esc}"), "b"], "default": format!("x{esc}")},
            "q": {"type": format!("n{esc}")}
        }});
        let mut out = Vec::new();
        let message = format!("Enter{esc}");
        fill(
            &format!("s{esc}"),
            &message,
            &schema,
            &mut "\nzz\n\n\n".as_bytes(),
            &mut out,
        )
        .unwrap();
        let shown = String::from_utf8(out).unwrap();
        assert!(
            !shown.contains('\u{1b}') && !shown.contains('\u{7}') && !shown.contains('\u{202e}'),
            "{shown:?}"
        );
        assert!(shown.contains("Enter\\u{1b}]0;PWNED"), "{shown:?}");
    }

    #[test]
    fn only_yes_or_enter_accepts_the_form() {
        let schema = json!({"type": "object", "properties": {"name": {"type": "string"}}});
        let (result, shown) = run(schema.clone(), "maybe\nyes\nAda\n");
        assert_eq!(result.action, ElicitAction::Accept);
        assert!(shown.contains("answer y, n or c"));
        let (result, _) = run(schema.clone(), "maybe\nNo\n");
        assert_eq!(result.action, ElicitAction::Decline);
        let (result, _) = run(schema, "x\nx\nx\nx\nx\n");
        assert_eq!(result.action, ElicitAction::Cancel);
    }

    #[test]
    fn required_fields_are_asked_again() {
        let schema = json!({"type": "object", "properties": {"name": {"type": "string"}},
                            "required": ["name"]});
        let (result, shown) = run(schema, "y\n\nBob\n");
        assert_eq!(result.content.unwrap()["name"], "Bob");
        assert!(shown.contains("required"));
    }

    #[test]
    fn decline_cancel_and_end_of_input() {
        let schema = json!({"type": "object", "properties": {"name": {"type": "string"}}});
        assert_eq!(run(schema.clone(), "n\n").0.action, ElicitAction::Decline);
        assert_eq!(run(schema.clone(), "c\n").0.action, ElicitAction::Cancel);
        assert_eq!(run(schema.clone(), "").0.action, ElicitAction::Cancel);
        assert_eq!(run(schema, "y\n").0.action, ElicitAction::Cancel);
    }

    #[test]
    fn answer_parsing() {
        assert_eq!(
            parse_answer("yes", &json!({"type": "boolean"})),
            Ok(json!(true))
        );
        assert!(parse_answer("maybe", &json!({"type": "boolean"})).is_err());
        assert_eq!(
            parse_answer("2.5", &json!({"type": "number"})),
            Ok(json!(2.5))
        );
        assert!(parse_answer("11", &json!({"type": "integer", "maximum": 10})).is_err());
        assert!(parse_answer("ab", &json!({"type": "string", "minLength": 3})).is_err());
        assert_eq!(
            parse_answer(
                "a, b",
                &json!({"type": "array", "items": {"enum": ["a", "b"]}})
            ),
            Ok(json!(["a", "b"]))
        );
        assert!(parse_answer("z", &json!({"type": "array", "items": {"enum": ["a"]}})).is_err());
        assert_eq!(
            parse_answer(
                "x",
                &json!({"type": "string", "oneOf": [{"const": "x", "title": "X"}]})
            ),
            Ok(json!("x"))
        );
    }
}
