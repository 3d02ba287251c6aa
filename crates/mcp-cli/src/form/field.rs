//! The fields of an elicitation form, read from the requested schema (spec
//! `client/elicitation` § Requested Schema: a flat object of primitives), and
//! the checking of a typed answer. No terminal here: this is what the prompts
//! ask and how an answer becomes the JSON value sent back.

use serde_json::{Number, Value};

use crate::output::visible;

/// A format the elicitation schema allows on a string (`StringSchema.format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format {
    /// `date`: a full date, `2026-12-02` (RFC 3339 `full-date`).
    Date,
    /// `date-time`: `2026-12-02T10:00:00Z` (RFC 3339 `date-time`, with offset).
    DateTime,
    /// `email`: an address, `ada@example.com`.
    Email,
    /// `uri`: an absolute URI, `https://example.com/x` (RFC 3986).
    Uri,
}

impl Format {
    fn from_schema(name: &str) -> Option<Self> {
        match name {
            "date" => Some(Format::Date),
            "date-time" => Some(Format::DateTime),
            "email" => Some(Format::Email),
            "uri" => Some(Format::Uri),
            _ => None,
        }
    }

    /// What an answer looks like, shown greyed in the empty input.
    pub(crate) fn placeholder(self) -> &'static str {
        match self {
            Format::Date => "YYYY-MM-DD",
            Format::DateTime => "YYYY-MM-DDTHH:MM:SSZ",
            Format::Email => "name@example.com",
            Format::Uri => "https://…",
        }
    }

    /// `Err` says what is wrong with `s` for this format.
    fn check(self, s: &str) -> Result<(), String> {
        let ok = match self {
            Format::Date => chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d").is_ok(),
            Format::DateTime => chrono::DateTime::parse_from_rfc3339(s).is_ok(),
            Format::Email => email_address::EmailAddress::parse_with_options(
                s,
                email_address::Options::default().without_display_text(),
            )
            .is_ok(),
            Format::Uri => fluent_uri::Uri::parse(s).is_ok(),
        };
        if ok {
            Ok(())
        } else {
            Err(match self {
                Format::Date => "enter a date as YYYY-MM-DD".into(),
                Format::DateTime => {
                    "enter a date and time as YYYY-MM-DDTHH:MM:SS with a zone (Z or +01:00)".into()
                }
                Format::Email => "enter an email address".into(),
                Format::Uri => "enter an absolute URI (with a scheme, e.g. https://)".into(),
            })
        }
    }
}

/// One option of a single or multiple choice.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Choice {
    /// The value sent back (`enum` item or `const`).
    pub(crate) value: String,
    /// Its display label (`oneOf`/`anyOf` `title`, legacy `enumNames`), if any.
    pub(crate) title: Option<String>,
}

impl Choice {
    /// How the option is shown: `Title (value)`, or the value; server text made
    /// harmless for the terminal.
    pub(crate) fn shown(&self) -> String {
        match &self.title {
            Some(t) if t != &self.value => format!("{} ({})", visible(t), visible(&self.value)),
            _ => visible(&self.value).into_owned(),
        }
    }
}

/// What kind of answer a field takes.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Kind {
    /// A string, with optional length bounds and format.
    Text {
        min_len: Option<u64>,
        max_len: Option<u64>,
        format: Option<Format>,
    },
    /// A whole number within optional bounds.
    Integer { min: Option<f64>, max: Option<f64> },
    /// A number within optional bounds.
    Number { min: Option<f64>, max: Option<f64> },
    /// Yes or no.
    Boolean,
    /// One of the options.
    Choice(Vec<Choice>),
    /// Any number of the options, within optional bounds.
    MultiChoice {
        options: Vec<Choice>,
        min_items: Option<u64>,
        max_items: Option<u64>,
    },
    /// An array of free strings, typed comma-separated.
    List,
}

/// What a required field left empty is told.
pub(crate) const REQUIRED: &str = "a value is required";

/// One property of the requested schema.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Field {
    /// The property name (the key of the answer).
    pub(crate) name: String,
    /// Its `title`, else its name.
    pub(crate) label: String,
    /// Its `description`.
    pub(crate) description: Option<String>,
    /// Listed in `required`.
    pub(crate) required: bool,
    /// Its `default`.
    pub(crate) default: Option<Value>,
    /// What it takes.
    pub(crate) kind: Kind,
}

fn choices_of(list: Option<&Value>, titles: Option<&Value>) -> Option<Vec<Choice>> {
    let list = list?.as_array()?;
    let titles: Vec<Option<&str>> = titles
        .and_then(Value::as_array)
        .map(|t| t.iter().map(Value::as_str).collect())
        .unwrap_or_default();
    Some(
        list.iter()
            .enumerate()
            .filter_map(|(i, v)| {
                // An item is a plain value (`enum`) or `{const, title}` (`oneOf`/`anyOf`).
                let value = v
                    .as_str()
                    .or_else(|| v.get("const").and_then(Value::as_str))?;
                let title = v
                    .get("title")
                    .and_then(Value::as_str)
                    .or_else(|| titles.get(i).copied().flatten());
                Some(Choice {
                    value: value.to_owned(),
                    title: title.map(str::to_owned),
                })
            })
            .collect(),
    )
}

impl Field {
    fn from_schema(name: &str, prop: &Value, required: bool) -> Field {
        let ty = prop.get("type").and_then(Value::as_str).unwrap_or("string");
        let num = |k: &str| prop.get(k).and_then(Value::as_f64);
        let count = |k: &str| prop.get(k).and_then(Value::as_u64);
        let kind = match ty {
            "boolean" => Kind::Boolean,
            "integer" => Kind::Integer {
                min: num("minimum"),
                max: num("maximum"),
            },
            "number" => Kind::Number {
                min: num("minimum"),
                max: num("maximum"),
            },
            "array" => {
                let items = prop.get("items");
                match choices_of(
                    items.and_then(|i| i.get("enum").or_else(|| i.get("anyOf"))),
                    None,
                ) {
                    Some(options) => Kind::MultiChoice {
                        options,
                        min_items: count("minItems"),
                        max_items: count("maxItems"),
                    },
                    None => Kind::List,
                }
            }
            _ => match choices_of(
                prop.get("enum").or_else(|| prop.get("oneOf")),
                prop.get("enumNames"),
            ) {
                Some(options) => Kind::Choice(options),
                None => Kind::Text {
                    min_len: count("minLength"),
                    max_len: count("maxLength"),
                    format: prop
                        .get("format")
                        .and_then(Value::as_str)
                        .and_then(Format::from_schema),
                },
            },
        };
        let text = |k: &str| prop.get(k).and_then(Value::as_str).map(str::to_owned);
        Field {
            name: name.to_owned(),
            label: text("title").unwrap_or_else(|| name.to_owned()),
            description: text("description"),
            required,
            default: prop.get("default").cloned(),
            kind,
        }
    }

    /// The default as it would be typed (`a,b` for a list).
    pub(crate) fn default_text(&self) -> Option<String> {
        self.default.as_ref().map(|v| match v {
            Value::String(s) => s.clone(),
            Value::Array(a) => a
                .iter()
                .map(|x| x.as_str().map_or_else(|| x.to_string(), str::to_owned))
                .collect::<Vec<_>>()
                .join(","),
            other => other.to_string(),
        })
    }

    /// Checks a typed answer (text, numbers, lists): `Ok(None)` for no answer
    /// (empty, optional, no default), the default for an empty answer, else the
    /// value; `Err` says what is wrong.
    pub(crate) fn check(&self, raw: &str) -> Result<Option<Value>, String> {
        if raw.trim().is_empty() {
            return match (&self.default, self.required) {
                (Some(d), _) => Ok(Some(d.clone())),
                (None, false) => Ok(None),
                (None, true) => Err(REQUIRED.into()),
            };
        }
        parse_answer(raw, &self.kind).map(Some)
    }
}

/// The fields of `schema`, in `order` (the property names as the server
/// wrote them, read from the message text: see `order.rs`); a property the
/// order does not name (no order was read) comes after, in the map's order.
pub(crate) fn fields(schema: &Value, order: Option<&[String]>) -> Vec<Field> {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return Vec::new();
    };
    let written = order.unwrap_or_default();
    let place = |name: &str| written.iter().position(|n| n == name).unwrap_or(usize::MAX);
    let mut names: Vec<&String> = props.keys().collect();
    // Stable: names the order lacks keep the map's order among themselves.
    names.sort_by_key(|name| place(name));
    names
        .into_iter()
        .filter_map(|name| {
            let prop = props.get(name)?;
            Some(Field::from_schema(
                name,
                prop,
                required.contains(&name.as_str()),
            ))
        })
        .collect()
}

fn check_range(n: f64, min: Option<f64>, max: Option<f64>) -> Result<(), String> {
    if let Some(min) = min
        && n < min
    {
        return Err(format!("at least {min}"));
    }
    if let Some(max) = max
        && n > max
    {
        return Err(format!("at most {max}"));
    }
    Ok(())
}

/// Parses a non-empty typed answer for `kind`; `Err` says why it is invalid.
pub(crate) fn parse_answer(raw: &str, kind: &Kind) -> Result<Value, String> {
    match kind {
        Kind::Boolean => match raw.trim().to_ascii_lowercase().as_str() {
            "y" | "yes" | "true" => Ok(Value::Bool(true)),
            "n" | "no" | "false" => Ok(Value::Bool(false)),
            _ => Err("answer yes or no".into()),
        },
        Kind::Integer { min, max } => {
            let n: i64 = raw
                .trim()
                .parse()
                .map_err(|_| "enter a whole number".to_owned())?;
            check_range(n as f64, *min, *max)?;
            Ok(Value::Number(n.into()))
        }
        Kind::Number { min, max } => {
            let n: f64 = raw
                .trim()
                .parse()
                .map_err(|_| "enter a number".to_owned())?;
            check_range(n, *min, *max)?;
            Number::from_f64(n)
                .map(Value::Number)
                .ok_or_else(|| "enter a finite number".into())
        }
        Kind::List => Ok(Value::Array(
            raw.split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(|s| Value::String(s.to_owned()))
                .collect(),
        )),
        Kind::MultiChoice { options, .. } => {
            let mut out = Vec::new();
            for item in raw.split(',').map(str::trim).filter(|s| !s.is_empty()) {
                match options.iter().find(|c| c.value == item) {
                    Some(c) => out.push(Value::String(c.value.clone())),
                    None => {
                        let all: Vec<&str> = options.iter().map(|c| c.value.as_str()).collect();
                        return Err(format!("{item:?} is not one of: {}", all.join(", ")));
                    }
                }
            }
            Ok(Value::Array(out))
        }
        Kind::Choice(options) => {
            // The value itself, or its 1-based number.
            let raw = raw.trim();
            if let Some(c) = options.iter().find(|c| c.value == raw) {
                return Ok(Value::String(c.value.clone()));
            }
            if let Ok(i) = raw.parse::<usize>()
                && (1..=options.len()).contains(&i)
            {
                return Ok(Value::String(options[i - 1].value.clone()));
            }
            let all: Vec<&str> = options.iter().map(|c| c.value.as_str()).collect();
            Err(format!("choose one of: {}", all.join(", ")))
        }
        Kind::Text {
            min_len,
            max_len,
            format,
        } => {
            let len = raw.chars().count() as u64;
            if let Some(min) = min_len
                && len < *min
            {
                return Err(format!("at least {min} characters"));
            }
            if let Some(max) = max_len
                && len > *max
            {
                return Err(format!("at most {max} characters"));
            }
            if let Some(f) = format {
                f.check(raw.trim())?;
            }
            Ok(Value::String(raw.to_owned()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn kind(prop: Value) -> Kind {
        Field::from_schema("x", &prop, false).kind
    }

    #[test]
    fn fields_follow_the_written_order() {
        // server-everything's form, as written: the one required field first,
        // then fields whose names sort before it.
        let text = r#"{"type":"object","properties":{
                "name":{"type":"string"},"check":{"type":"boolean"},
                "firstLine":{"type":"string"},"email":{"type":"string"}},"required":["name"]}"#;
        let schema: Value = serde_json::from_str(text).unwrap();
        let order: Vec<String> =
            super::super::order::scan(&format!(r#"{{"requestedSchema":{text}}}"#))
                .unwrap()
                .remove(0);
        let f = fields(&schema, Some(&order));
        let names: Vec<&str> = f.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["name", "check", "firstLine", "email"]);
        assert_eq!(
            f.iter().map(|f| f.required).collect::<Vec<_>>(),
            [true, false, false, false]
        );
        // Without an order (none was read), every field is still asked.
        let mut unordered: Vec<String> =
            fields(&schema, None).into_iter().map(|f| f.name).collect();
        unordered.sort();
        assert_eq!(unordered, ["check", "email", "firstLine", "name"]);
        // An order naming only some fields puts those first.
        let partial = ["firstLine".to_owned()];
        assert_eq!(fields(&schema, Some(&partial))[0].name, "firstLine");
        assert_eq!(fields(&schema, Some(&partial)).len(), 4);
    }

    #[test]
    fn every_enum_shape_shows_its_choices() {
        let c = |v: &str, t: Option<&str>| Choice {
            value: v.into(),
            title: t.map(Into::into),
        };
        let table = [
            (
                json!({"type": "string", "enum": ["s", "m"]}),
                Kind::Choice(vec![c("s", None), c("m", None)]),
            ),
            (
                json!({"type": "string", "oneOf": [{"const": "s", "title": "Small"}, {"const": "m", "title": "Medium"}]}),
                Kind::Choice(vec![c("s", Some("Small")), c("m", Some("Medium"))]),
            ),
            (
                json!({"type": "string", "enum": ["s", "m"], "enumNames": ["Small", "Medium"]}),
                Kind::Choice(vec![c("s", Some("Small")), c("m", Some("Medium"))]),
            ),
            (
                json!({"type": "array", "items": {"type": "string", "enum": ["r", "g"]}, "minItems": 1, "maxItems": 2}),
                Kind::MultiChoice {
                    options: vec![c("r", None), c("g", None)],
                    min_items: Some(1),
                    max_items: Some(2),
                },
            ),
            (
                json!({"type": "array", "items": {"anyOf": [{"const": "r", "title": "Red"}, {"const": "g", "title": "Green"}]}}),
                Kind::MultiChoice {
                    options: vec![c("r", Some("Red")), c("g", Some("Green"))],
                    min_items: None,
                    max_items: None,
                },
            ),
            (
                json!({"type": "array", "items": {"type": "string"}}),
                Kind::List,
            ),
        ];
        for (prop, want) in table {
            assert_eq!(kind(prop.clone()), want, "{prop}");
        }
        assert_eq!(c("s", Some("Small")).shown(), "Small (s)");
        assert_eq!(c("s", None).shown(), "s");
    }

    #[test]
    fn formats_are_checked() {
        let table = [
            ("date", "2026-12-02", true),
            ("date", "2026-02-30", false),
            ("date", "12/02/2026", false),
            ("date", "tomorrow", false),
            ("date-time", "2026-12-02T10:00:00Z", true),
            ("date-time", "2026-12-02T10:00:00+01:00", true),
            ("date-time", "2026-12-02T10:00:00", false),
            ("date-time", "2026-12-02", false),
            ("email", "ada@example.com", true),
            ("email", "ada", false),
            ("email", "Ada <ada@example.com>", false),
            ("uri", "https://example.com/x?y=1", true),
            ("uri", "urn:isbn:0451450523", true),
            ("uri", "example.com/x", false),
            ("uri", "not a uri", false),
        ];
        for (format, answer, ok) in table {
            let k = kind(json!({"type": "string", "format": format}));
            let got = parse_answer(answer, &k);
            assert_eq!(got.is_ok(), ok, "{format} {answer:?}: {got:?}");
        }
        // An unknown format is not enforced (the schema allows only these four).
        assert!(parse_answer("x", &kind(json!({"type": "string", "format": "ipv4"}))).is_ok());
    }

    #[test]
    fn answers_are_typed_and_bounded() {
        let int = kind(json!({"type": "integer", "maximum": 10}));
        assert_eq!(parse_answer("7", &int), Ok(json!(7)));
        assert!(parse_answer("11", &int).is_err());
        assert!(parse_answer("2.5", &int).is_err());
        assert_eq!(
            parse_answer("2.5", &kind(json!({"type": "number"}))),
            Ok(json!(2.5))
        );
        assert!(parse_answer("ab", &kind(json!({"type": "string", "minLength": 3}))).is_err());
        assert_eq!(
            parse_answer(
                "a, b",
                &kind(json!({"type": "array", "items": {"type": "string"}}))
            ),
            Ok(json!(["a", "b"]))
        );
        let pick = kind(
            json!({"type": "string", "oneOf": [{"const": "x", "title": "X"}, {"const": "y"}]}),
        );
        assert_eq!(parse_answer("x", &pick), Ok(json!("x")));
        assert_eq!(parse_answer("2", &pick), Ok(json!("y")));
        assert!(parse_answer("z", &pick).is_err());
        assert_eq!(parse_answer("yes", &Kind::Boolean), Ok(json!(true)));
    }

    #[test]
    fn empty_answers_take_the_default_or_are_left_out() {
        let schema = json!({"type": "object", "properties": {
            "a": {"type": "integer", "default": 3},
            "b": {"type": "string"},
            "c": {"type": "string"}
        }, "required": ["c"]});
        let f = fields(&schema, None);
        assert_eq!(f[0].check(""), Ok(Some(json!(3))));
        assert_eq!(f[0].default_text().as_deref(), Some("3"));
        assert_eq!(f[1].check("  "), Ok(None));
        assert_eq!(f[2].check(""), Err("a value is required".into()));
    }
}
