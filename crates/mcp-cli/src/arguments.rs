//! Tool and prompt arguments from the command line: one JSON object, or
//! `key=value` pairs whose values are typed by the tool's `inputSchema` when
//! it says so, else parsed as JSON when they parse, else kept as strings.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

/// `true` when `word` looks like arguments rather than a name: `k=v` or a
/// JSON object.
pub fn is_argument(word: &str) -> bool {
    word.contains('=') || word.trim_start().starts_with('{')
}

/// The JSON Schema `type`(s) of property `key` in `schema`, if declared.
fn declared_types(schema: Option<&Value>, key: &str) -> Vec<String> {
    let Some(prop) = schema
        .and_then(|s| s.get("properties"))
        .and_then(|p| p.get(key))
    else {
        return Vec::new();
    };
    match prop.get("type") {
        Some(Value::String(t)) => vec![t.clone()],
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    }
}

/// One value: kept as a string when the schema allows only strings (so
/// `zip=02139` stays `"02139"`), else JSON when it parses, else a string.
fn typed_value(raw: &str, types: &[String]) -> Value {
    let only_string = !types.is_empty() && types.iter().all(|t| t == "string");
    if only_string {
        return Value::String(raw.to_owned());
    }
    match serde_json::from_str::<Value>(raw) {
        // A JSON string literal ("\"x\"") is taken as its contents.
        Ok(v) => v,
        Err(_) => Value::String(raw.to_owned()),
    }
}

/// Builds the `arguments` object of `tools/call`.
///
/// Errors: a message for a JSON that is not an object, a word that is not
/// `key=value`, an empty key, or a key given twice.
pub fn tool_arguments(
    words: &[String],
    schema: Option<&Value>,
) -> Result<Map<String, Value>, String> {
    if let [single] = words
        && single.trim_start().starts_with('{')
    {
        return match serde_json::from_str::<Value>(single) {
            Ok(Value::Object(map)) => Ok(map),
            Ok(_) => Err("the JSON arguments must be an object".into()),
            Err(e) => Err(format!("invalid JSON arguments: {e}")),
        };
    }
    let mut map = Map::new();
    for word in words {
        let (key, raw) = split_pair(word)?;
        let value = typed_value(raw, &declared_types(schema, key));
        if map.insert(key.to_owned(), value).is_some() {
            return Err(format!("argument {key:?} given twice"));
        }
    }
    Ok(map)
}

/// Builds the string arguments of `prompts/get` (or a completion context).
///
/// Errors: as [`tool_arguments`] for a malformed or repeated pair.
pub fn string_arguments(words: &[String]) -> Result<BTreeMap<String, String>, String> {
    let mut map = BTreeMap::new();
    for word in words {
        let (key, raw) = split_pair(word)?;
        if map.insert(key.to_owned(), raw.to_owned()).is_some() {
            return Err(format!("argument {key:?} given twice"));
        }
    }
    Ok(map)
}

fn split_pair(word: &str) -> Result<(&str, &str), String> {
    match word.split_once('=') {
        Some((key, value)) if !key.is_empty() => Ok((key, value)),
        Some(_) => Err(format!("empty argument name in {word:?}")),
        None => Err(format!(
            "expected key=value or one JSON object, got {word:?}"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn words(ws: &[&str]) -> Vec<String> {
        ws.iter().map(|w| (*w).to_owned()).collect()
    }

    #[test]
    fn values_parse_as_json_when_they_parse() {
        let args = tool_arguments(
            &words(&[
                "a=2",
                "b=2.5",
                "t=true",
                "o={\"x\":1}",
                "s=hello world",
                "n=null",
            ]),
            None,
        )
        .unwrap();
        assert_eq!(
            Value::Object(args),
            json!({"a": 2, "b": 2.5, "t": true, "o": {"x": 1}, "s": "hello world", "n": null})
        );
    }

    #[test]
    fn string_typed_properties_stay_strings() {
        let schema = json!({"type": "object", "properties": {
            "zip": {"type": "string"}, "n": {"type": "number"}, "either": {"type": ["string", "null"]}
        }});
        let args =
            tool_arguments(&words(&["zip=02139", "n=2", "either=3"]), Some(&schema)).unwrap();
        assert_eq!(
            Value::Object(args),
            json!({"zip": "02139", "n": 2, "either": 3})
        );
        let args = tool_arguments(&words(&["zip=true"]), Some(&schema)).unwrap();
        assert_eq!(args["zip"], "true");
    }

    #[test]
    fn value_may_contain_equals_signs() {
        let args = tool_arguments(&words(&["q=a=b"]), None).unwrap();
        assert_eq!(args["q"], "a=b");
    }

    #[test]
    fn one_json_object() {
        let args = tool_arguments(&words(&["{\"a\": 1, \"b\": [2]}"]), None).unwrap();
        assert_eq!(Value::Object(args), json!({"a": 1, "b": [2]}));
        assert!(tool_arguments(&words(&["{nope"]), None).is_err());
    }

    #[test]
    fn malformed_words_are_errors() {
        assert!(
            tool_arguments(&words(&["novalue"]), None)
                .unwrap_err()
                .contains("key=value")
        );
        assert!(tool_arguments(&words(&["=1"]), None).is_err());
        assert!(
            tool_arguments(&words(&["a=1", "a=2"]), None)
                .unwrap_err()
                .contains("twice")
        );
        assert!(string_arguments(&words(&["x"])).is_err());
    }

    #[test]
    fn prompt_arguments_are_strings() {
        let args = string_arguments(&words(&["name=Ada", "n=2"])).unwrap();
        assert_eq!(args["n"], "2");
        assert_eq!(args["name"], "Ada");
    }

    #[test]
    fn argument_detection() {
        assert!(is_argument("a=1"));
        assert!(is_argument("{\"a\":1}"));
        assert!(!is_argument("echo"));
    }
}
