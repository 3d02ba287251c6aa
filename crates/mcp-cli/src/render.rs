//! Human-readable output.

use std::fmt::Write as _;

use mcp_types::content::{ContentBlock, ResourceContents};
use mcp_types::prompts::{GetPromptResult, Prompt};
use mcp_types::resources::{Resource, ResourceTemplate};
use mcp_types::tools::{CallToolResult, Tool};
use serde_json::Value;

/// `name(a: number, [b: string])  description` — `[]` marks optional.
pub(crate) fn tool_line(tool: &Tool) -> String {
    let required: Vec<&str> = tool
        .input_schema
        .get("required")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let params: Vec<String> = tool
        .input_schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|props| {
            props
                .iter()
                .map(|(name, p)| {
                    let ty = match p.get("type") {
                        Some(Value::String(t)) => t.clone(),
                        Some(Value::Array(ts)) => ts
                            .iter()
                            .filter_map(Value::as_str)
                            .collect::<Vec<_>>()
                            .join("|"),
                        // anyOf/oneOf/$ref (e.g. Python's Optional[str]).
                        _ => crate::arguments::property_types(&tool.input_schema, name)
                            .filter(|ts| !ts.is_empty())
                            .map_or_else(|| "any".into(), |ts| ts.join("|")),
                    };
                    if required.contains(&name.as_str()) {
                        format!("{name}: {ty}")
                    } else {
                        format!("[{name}: {ty}]")
                    }
                })
                .collect()
        })
        .unwrap_or_default();
    let mut line = format!("{}({})", tool.name, params.join(", "));
    if let Some(d) = tool.description.as_deref().or(tool.title.as_deref()) {
        let first = d.lines().next().unwrap_or("");
        let _ = write!(line, "  {first}");
    }
    line
}

/// One content block as text.
pub(crate) fn content_block(block: &ContentBlock) -> String {
    match block {
        ContentBlock::Text(t) => t.text.clone(),
        ContentBlock::Image(i) => {
            format!("[image {}, {} base64 chars]", i.mime_type, i.data.len())
        }
        ContentBlock::Audio(a) => {
            format!("[audio {}, {} base64 chars]", a.mime_type, a.data.len())
        }
        ContentBlock::ResourceLink(l) => format!("[resource link {} ({})]", l.uri, l.name),
        ContentBlock::Resource(r) => resource_contents(&r.resource),
        ContentBlock::Unknown(v) => format!("[{} content] {v}", block.type_name()),
    }
}

/// Resource contents as text; binary shown as a summary.
pub(crate) fn resource_contents(c: &ResourceContents) -> String {
    match c {
        ResourceContents::Text(t) => t.text.clone(),
        ResourceContents::Blob(b) => format!(
            "[binary {}, {} base64 chars{}]",
            b.uri,
            b.blob.len(),
            b.mime_type
                .as_deref()
                .map(|m| format!(", {m}"))
                .unwrap_or_default()
        ),
    }
}

/// A tool result: its content blocks, one after another; the structured
/// content (pretty JSON) when there is no content.
pub(crate) fn call_result(result: &CallToolResult) -> String {
    let mut parts: Vec<String> = result.content.iter().map(content_block).collect();
    if parts.is_empty()
        && let Some(s) = &result.structured_content
    {
        parts.push(serde_json::to_string_pretty(s).unwrap_or_else(|_| s.to_string()));
    }
    parts.join("\n")
}

/// `uri  name — description (mime)`.
pub(crate) fn resource_line(r: &Resource) -> String {
    let mut line = format!("{}  {}", r.uri, r.title.as_deref().unwrap_or(&r.name));
    if let Some(d) = &r.description {
        let _ = write!(line, " — {d}");
    }
    if let Some(m) = &r.mime_type {
        let _ = write!(line, " ({m})");
    }
    line
}

/// `template  name — description`.
pub(crate) fn template_line(t: &ResourceTemplate) -> String {
    let mut line = format!(
        "{}  {}",
        t.uri_template,
        t.title.as_deref().unwrap_or(&t.name)
    );
    if let Some(d) = &t.description {
        let _ = write!(line, " — {d}");
    }
    line
}

/// `name(arg, [optional])  description`.
pub(crate) fn prompt_line(p: &Prompt) -> String {
    let args: Vec<String> = p
        .arguments
        .iter()
        .flatten()
        .map(|a| {
            if a.required == Some(true) {
                a.name.clone()
            } else {
                format!("[{}]", a.name)
            }
        })
        .collect();
    let mut line = format!("{}({})", p.name, args.join(", "));
    if let Some(d) = p.description.as_deref().or(p.title.as_deref()) {
        let _ = write!(line, "  {d}");
    }
    line
}

/// A prompt's messages: `[role] text`.
pub(crate) fn prompt_result(r: &GetPromptResult) -> String {
    r.messages
        .iter()
        .map(|m| {
            let role = serde_json::to_value(m.role)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default();
            format!("[{role}] {}", content_block(&m.content))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tool_lines_show_parameters() {
        let tool = Tool {
            name: "add".into(),
            description: Some("Adds.\nMore.".into()),
            input_schema: json!({"type": "object", "properties": {
                "a": {"type": "number"}, "b": {"type": ["number", "null"]}
            }, "required": ["a"]}),
            ..Default::default()
        };
        assert_eq!(tool_line(&tool), "add(a: number, [b: number|null])  Adds.");
        let tool = Tool {
            name: "lookup".into(),
            input_schema: json!({"type": "object", "properties": {
                "zip": {"anyOf": [{"type": "null"}, {"type": "string"}]},
                "shelf": {"anyOf": [{"$ref": "#/$defs/Shelf"}, {"type": "null"}]},
                "x": {}
            }, "$defs": {"Shelf": {"enum": ["1", "2"], "type": "string"}}}),
            ..Default::default()
        };
        assert_eq!(
            tool_line(&tool),
            "lookup([shelf: string|null], [x: any], [zip: string|null])"
        );
    }

    #[test]
    fn call_result_falls_back_to_structured_content() {
        let r = CallToolResult {
            content: vec![],
            structured_content: Some(json!({"sum": 5})),
            ..Default::default()
        };
        assert!(call_result(&r).contains("\"sum\": 5"));
        let r = CallToolResult {
            content: vec![ContentBlock::text("a"), ContentBlock::text("b")],
            ..Default::default()
        };
        assert_eq!(call_result(&r), "a\nb");
    }
}
