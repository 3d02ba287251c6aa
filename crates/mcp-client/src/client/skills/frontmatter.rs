//! The YAML frontmatter of a `SKILL.md`: found, parsed into a JSON object
//! and compared field by field with a skill entry's `frontmatter`. No I/O.
//!
//! The block is the Agent Skills one: the file starts (after an optional
//! byte-order mark) with a `---` line, and the next `---` line closes it.
//! The YAML is read through the parser's events, so a document of a few
//! hundred bytes whose aliases expand to millions of nodes is refused
//! rather than built: every node counts against [`MAX_NODES`], an alias
//! with the whole subtree it repeats, and nesting stops at [`MAX_DEPTH`].

use std::collections::HashMap;

use serde_json::{Map, Number, Value};
use yaml_rust2::parser::{Event, EventReceiver, Parser, Tag};
use yaml_rust2::scanner::TScalarStyle;
use yaml_rust2::yaml::Yaml;

/// Nodes (scalars and collections, each alias counting the nodes it
/// repeats) one frontmatter may build: 10 000. Frontmatter is a handful of
/// fields; this bounds what the server can make the client allocate.
pub(crate) const MAX_NODES: usize = 10_000;

/// Nesting depth of collections in one frontmatter: 64.
pub(crate) const MAX_DEPTH: usize = 64;

/// A parsed `SKILL.md`: its frontmatter fields and where the body starts.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Parsed {
    /// The frontmatter, as a JSON object.
    pub(crate) fields: Map<String, Value>,
    /// Byte offset of the body (what follows the closing `---` line).
    pub(crate) body_start: usize,
}

/// Finds and parses the frontmatter of `text`.
///
/// Errors: why there is no frontmatter to compare (no opening or closing
/// `---` line, YAML that does not parse, a document that is not a mapping,
/// a value JSON cannot carry, a key that is not a scalar, a key given
/// twice, past [`MAX_NODES`] or [`MAX_DEPTH`]).
pub(crate) fn parse(text: &str) -> Result<Parsed, String> {
    let (yaml, body_start) = split(text)?;
    let mut builder = Builder::default();
    let mut parser = Parser::new_from_str(yaml);
    parser
        .load(&mut builder, false)
        .map_err(|e| format!("the frontmatter is not YAML: {e}"))?;
    if let Some(error) = builder.error {
        return Err(error);
    }
    match builder.root {
        Some(Value::Object(fields)) => Ok(Parsed { fields, body_start }),
        None => Err("the frontmatter is empty".into()),
        Some(other) => Err(format!(
            "the frontmatter is a YAML {}, not a mapping",
            kind(&other)
        )),
    }
}

/// The YAML between the delimiter lines, and the offset of the body.
fn split(text: &str) -> Result<(&str, usize), String> {
    let start = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let mut lines = Lines::new(text, start);
    match lines.next() {
        Some((line, _)) if is_delimiter(line) => {}
        _ => return Err("SKILL.md does not begin with a `---` line".into()),
    }
    let yaml_start = lines.at;
    while let Some((line, line_start)) = lines.next() {
        if is_delimiter(line) {
            return Ok((&text[yaml_start..line_start], lines.at));
        }
    }
    Err("the frontmatter is not closed by a `---` line".into())
}

/// `---`, with spaces or tabs after it.
fn is_delimiter(line: &str) -> bool {
    line.strip_prefix("---")
        .is_some_and(|rest| rest.trim_end_matches([' ', '\t']).is_empty())
}

/// The lines of a text from an offset: each without its `\n` / `\r\n`,
/// with where it starts; `at` is where the next one starts.
struct Lines<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Lines<'a> {
    fn new(text: &'a str, at: usize) -> Self {
        Lines { text, at }
    }

    fn next(&mut self) -> Option<(&'a str, usize)> {
        if self.at >= self.text.len() {
            return None;
        }
        let start = self.at;
        let rest = &self.text[start..];
        let (line, consumed) = match rest.find('\n') {
            Some(i) => (&rest[..i], i + 1),
            None => (rest, rest.len()),
        };
        self.at = start + consumed;
        Some((line.strip_suffix('\r').unwrap_or(line), start))
    }
}

/// The first field whose values differ between a skill entry's
/// `frontmatter` (`listed`) and the file's (`file`): the field, the listed
/// value and the file's (`None`: absent). Fields are compared as JSON
/// values: numbers by value (`1` equals `1.0`), objects by their members;
/// an absent field equals `null`, at any depth. The listed fields are
/// looked at first, in order, then those only the file has.
pub(crate) fn first_difference(
    listed: &Map<String, Value>,
    file: &Map<String, Value>,
) -> Option<(String, Option<Value>, Option<Value>)> {
    let fields = listed
        .keys()
        .chain(file.keys().filter(|k| !listed.contains_key(*k)));
    for field in fields {
        let (a, b) = (listed.get(field), file.get(field));
        if !same(a.unwrap_or(&Value::Null), b.unwrap_or(&Value::Null)) {
            return Some((field.clone(), a.cloned(), b.cloned()));
        }
    }
    None
}

/// JSON equality with numbers by value and absent members as `null`.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => same_number(x, y),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Value::Object(x), Value::Object(y)) => x.keys().chain(y.keys()).all(|k| {
            same(
                x.get(k).unwrap_or(&Value::Null),
                y.get(k).unwrap_or(&Value::Null),
            )
        }),
        _ => a == b,
    }
}

fn same_number(x: &Number, y: &Number) -> bool {
    match (x.as_i64(), y.as_i64(), x.as_u64(), y.as_u64()) {
        (Some(a), Some(b), _, _) => a == b,
        (_, _, Some(a), Some(b)) => a == b,
        _ => x.as_f64() == y.as_f64(),
    }
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "sequence",
        Value::Object(_) => "mapping",
    }
}

/// A collection being built.
#[derive(Debug)]
enum Frame {
    Sequence {
        items: Vec<Value>,
        anchor: usize,
        nodes: usize,
    },
    Mapping {
        fields: Map<String, Value>,
        key: Option<String>,
        anchor: usize,
        nodes: usize,
    },
}

/// Builds JSON values from the parser's events, within the budgets.
#[derive(Debug, Default)]
struct Builder {
    stack: Vec<Frame>,
    /// Each anchored node and how many nodes it holds.
    anchors: HashMap<usize, (Value, usize)>,
    root: Option<Value>,
    nodes: usize,
    /// The first error; later events are ignored.
    error: Option<String>,
}

impl EventReceiver for Builder {
    fn on_event(&mut self, event: Event) {
        if self.error.is_some() {
            return;
        }
        if let Err(e) = self.take(event) {
            self.error = Some(e);
        }
    }
}

impl Builder {
    fn take(&mut self, event: Event) -> Result<(), String> {
        match event {
            Event::SequenceStart(anchor, _) => self.open(Frame::Sequence {
                items: Vec::new(),
                anchor,
                nodes: 1,
            }),
            Event::MappingStart(anchor, _) => self.open(Frame::Mapping {
                fields: Map::new(),
                key: None,
                anchor,
                nodes: 1,
            }),
            Event::SequenceEnd | Event::MappingEnd => {
                let (value, anchor, nodes) = match self.stack.pop() {
                    Some(Frame::Sequence {
                        items,
                        anchor,
                        nodes,
                    }) => (Value::Array(items), anchor, nodes),
                    Some(Frame::Mapping {
                        fields,
                        anchor,
                        nodes,
                        ..
                    }) => (Value::Object(fields), anchor, nodes),
                    None => return Err("the frontmatter's YAML is unbalanced".into()),
                };
                self.complete(value, anchor, nodes)
            }
            Event::Scalar(text, style, anchor, tag) => {
                self.count(1)?;
                let value = scalar(text, style, tag.as_ref())?;
                self.complete(value, anchor, 1)
            }
            Event::Alias(id) => {
                let (value, nodes) = self
                    .anchors
                    .get(&id)
                    .cloned()
                    .ok_or("the frontmatter names an alias that has no anchor")?;
                self.count(nodes)?;
                self.complete(value, 0, nodes)
            }
            Event::StreamStart
            | Event::StreamEnd
            | Event::DocumentStart
            | Event::DocumentEnd
            | Event::Nothing => Ok(()),
        }
    }

    fn count(&mut self, nodes: usize) -> Result<(), String> {
        self.nodes = self.nodes.saturating_add(nodes);
        if self.nodes > MAX_NODES {
            return Err(format!(
                "the frontmatter expands to more than {MAX_NODES} YAML nodes"
            ));
        }
        Ok(())
    }

    fn open(&mut self, frame: Frame) -> Result<(), String> {
        self.count(1)?;
        if self.stack.len() >= MAX_DEPTH {
            return Err(format!(
                "the frontmatter nests deeper than {MAX_DEPTH} levels"
            ));
        }
        self.stack.push(frame);
        Ok(())
    }

    /// A node is complete: into its parent (a key or a value of a mapping,
    /// an item of a sequence) or as the root.
    fn complete(&mut self, value: Value, anchor: usize, nodes: usize) -> Result<(), String> {
        if anchor != 0 {
            // The copy kept for aliases counts too: it is memory held.
            self.count(nodes)?;
            self.anchors.insert(anchor, (value.clone(), nodes));
        }
        match self.stack.last_mut() {
            None => {
                self.root = Some(value);
                Ok(())
            }
            Some(Frame::Sequence {
                items, nodes: n, ..
            }) => {
                *n += nodes;
                items.push(value);
                Ok(())
            }
            Some(Frame::Mapping {
                fields,
                key,
                nodes: n,
                ..
            }) => {
                *n += nodes;
                match key.take() {
                    None => {
                        *key = Some(key_text(value)?);
                        Ok(())
                    }
                    Some(k) => {
                        if fields.contains_key(&k) {
                            return Err(format!("the frontmatter gives the key {k:?} twice"));
                        }
                        fields.insert(k, value);
                        Ok(())
                    }
                }
            }
        }
    }
}

/// A mapping key as a JSON object key: a string as it is, another scalar
/// as its JSON text (`1`, `true`, `null`).
fn key_text(key: Value) -> Result<String, String> {
    match key {
        Value::String(s) => Ok(s),
        Value::Array(_) | Value::Object(_) => {
            Err("the frontmatter has a mapping key that is not a scalar".into())
        }
        other => Ok(other.to_string()),
    }
}

/// A scalar by the YAML 1.2 core schema: quoted and block scalars are
/// strings; a plain one is `null`, a boolean, an integer, a float or a
/// string; the core tags (`!!str`, `!!int`, …) are honoured, others read
/// as strings.
fn scalar(text: String, style: TScalarStyle, tag: Option<&Tag>) -> Result<Value, String> {
    if style != TScalarStyle::Plain {
        return Ok(Value::String(text));
    }
    let yaml = match tag {
        Some(Tag { handle, suffix }) if handle == "tag:yaml.org,2002:" => match suffix.as_str() {
            "str" => Yaml::String(text),
            "bool" | "int" | "float" | "null" => Yaml::from_str(&text),
            _ => Yaml::String(text),
        },
        Some(_) => Yaml::String(text),
        None => Yaml::from_str(&text),
    };
    match yaml {
        Yaml::String(s) => Ok(Value::String(s)),
        Yaml::Integer(i) => Ok(Value::from(i)),
        Yaml::Boolean(b) => Ok(Value::Bool(b)),
        Yaml::Null => Ok(Value::Null),
        Yaml::Real(ref s) => yaml
            .as_f64()
            .and_then(Number::from_f64)
            .map(Value::Number)
            .ok_or_else(|| {
                format!("the frontmatter holds the number {s}, which JSON cannot carry")
            }),
        _ => Err("the frontmatter holds a YAML value JSON cannot carry".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn fields(text: &str) -> Value {
        Value::Object(parse(text).unwrap().fields)
    }

    #[test]
    fn the_block_between_the_delimiters_is_read() {
        let text = "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\n---\n\nSkill body.\n";
        let parsed = parse(text).unwrap();
        assert_eq!(
            Value::Object(parsed.fields),
            json!({"name": "pdf-processing", "description": "Extract, fill, and assemble PDF documents"})
        );
        assert_eq!(&text[parsed.body_start..], "\nSkill body.\n");
        // A byte-order mark, CRLF, spaces after the delimiters, no body.
        assert_eq!(
            fields("\u{feff}---  \r\nname: a\r\ndescription: b\r\n--- \t"),
            json!({"name": "a", "description": "b"})
        );
    }

    #[test]
    fn scalars_follow_the_core_schema() {
        let text = "---\nname: a\nversion: 1.0\ncount: 3\nhex: 0x10\nyes: yes\nok: true\nnone: ~\n\
                    quoted: \"3\"\ntagged: !!str 4\nlist: [x, 2]\nmeta:\n  k: v\nblock: |\n  line\n---\n";
        assert_eq!(
            fields(text),
            json!({"name": "a", "version": 1.0, "count": 3, "hex": 16, "yes": "yes", "ok": true,
                   "none": null, "quoted": "3", "tagged": "4", "list": ["x", 2],
                   "meta": {"k": "v"}, "block": "line\n"})
        );
    }

    #[test]
    fn what_is_not_frontmatter_is_refused_with_why() {
        for (text, why) in [
            ("name: a\n---\n", "does not begin"),
            ("---\nname: a\n", "not closed"),
            ("---\n---\n", "empty"),
            ("---\n- a\n- b\n---\n", "sequence"),
            ("---\nname: [a\n---\n", "not YAML"),
            ("---\nname: a\nname: b\n---\n", "twice"),
            ("---\n? [a]\n: b\n---\n", "not a scalar"),
            ("---\nx: .nan\n---\n", "cannot carry"),
        ] {
            let e = parse(text).unwrap_err();
            assert!(e.contains(why), "{text:?}: {e}");
        }
    }

    /// Aliases expand within the node budget; a "billion laughs" document
    /// is refused after [`MAX_NODES`] nodes, not built.
    #[test]
    fn alias_expansion_is_bounded() {
        assert_eq!(
            fields("---\nbase: &b {k: v}\ncopy: *b\n---\n"),
            json!({"base": {"k": "v"}, "copy": {"k": "v"}})
        );
        let mut text = String::from("---\na0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..9 {
            let refs = vec![format!("*a{}", i - 1); 10].join(", ");
            text.push_str(&format!("a{i}: &a{i} [{refs}]\n"));
        }
        text.push_str("---\n");
        let e = parse(&text).unwrap_err();
        assert!(e.contains("more than 10000"), "{e}");
        let deep = format!("---\nx: {}{}\n---\n", "[".repeat(100), "]".repeat(100));
        assert!(parse(&deep).unwrap_err().contains("deeper than 64"));
    }

    #[test]
    fn differences_name_the_field_and_both_values() {
        let listed = json!({"name": "a", "description": "Extract", "metadata": {"v": 1}});
        let file = json!({"name": "a", "description": "Exfiltrate", "metadata": {"v": 1.0}});
        let (Value::Object(listed), Value::Object(file)) = (listed, file) else {
            unreachable!()
        };
        assert_eq!(
            first_difference(&listed, &file),
            Some((
                "description".into(),
                Some(json!("Extract")),
                Some(json!("Exfiltrate"))
            ))
        );
        let mut extra = listed.clone();
        extra.insert("allowed-tools".into(), json!("Bash"));
        assert_eq!(
            first_difference(&listed, &extra),
            Some(("allowed-tools".into(), None, Some(json!("Bash"))))
        );
        // Absent and null are the same; numbers compare by value.
        let mut null = listed.clone();
        null.insert("license".into(), Value::Null);
        assert_eq!(first_difference(&listed, &null), None);
        let mut float = listed.clone();
        float.insert("metadata".into(), json!({"v": 1.0, "w": null}));
        assert_eq!(first_difference(&listed, &float), None);
    }
}
