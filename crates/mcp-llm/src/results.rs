//! A `tools/call` result as the model's tool-result content, per dialect.
//!
//! - Text blocks: text.
//! - Images: the dialect's image block where it takes one inside a tool
//!   result (Anthropic `image` with a base64 `source`, for PNG, JPEG, GIF
//!   and WebP; OpenAI Responses `input_image` with a data URL, same
//!   types; Gemini `functionResponse.parts` inline data for PNG, JPEG,
//!   WebP, HEIC and HEIF when asked, as only newer models take them);
//!   otherwise a one-line note for the model and the image handed to the
//!   caller as [`Media`] (never base64 as text).
//! - Audio: a note and [`Media`] (no dialect takes audio in a tool result).
//! - Embedded resources: their text under their URI; a blob named by URI
//!   and MIME type, handed to the caller as [`Media`].
//! - Resource links: a line naming the URI.
//! - `structuredContent`: its JSON text when no text block is there (the
//!   spec's backwards-compatible form, `server/tools` § Structured Content).
//! - `isError`: Anthropic's `is_error`, Gemini's `error` member, and an
//!   `Error:` line first in the OpenAI dialects (which have no flag).
//! - The text is cut at [`crate::ToolsetOptions::max_result_bytes`] with a
//!   notice saying how much was left out.

use mcp_types::content::{ContentBlock, ResourceContents};
use mcp_types::tools::CallToolResult;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::Dialect;

/// What a [`Media`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MediaKind {
    /// An image content block.
    Image,
    /// An audio content block.
    Audio,
    /// The blob of an embedded resource.
    Blob,
}

/// Content the dialect cannot carry in a tool result, handed to the
/// application (to show, store, or send to the model in a later user
/// message). The model's text names it by `index`.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Media {
    /// Its position among this result's media, from 0.
    pub index: usize,
    /// What it is.
    pub kind: MediaKind,
    /// Its MIME type, as the server gave it (`application/octet-stream`
    /// when a blob has none).
    pub mime_type: String,
    /// The bytes, base64 as the server sent them.
    pub data: String,
    /// The resource's URI, for a blob.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uri: Option<String>,
}

impl std::fmt::Debug for Media {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The data may be megabytes: its size only.
        f.debug_struct("Media")
            .field("index", &self.index)
            .field("kind", &self.kind)
            .field("mime_type", &self.mime_type)
            .field("data_len", &self.data.len())
            .field("uri", &self.uri)
            .finish()
    }
}

/// OpenAI Chat Completions: the `role: "tool"` message answering a call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatToolMessage {
    /// Always `"tool"`.
    pub role: String,
    /// The call's `id`.
    pub tool_call_id: String,
    /// The result as text.
    pub content: String,
}

/// OpenAI Responses: the `function_call_output` input item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionCallOutput {
    /// Always `"function_call_output"`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The call's `call_id`.
    pub call_id: String,
    /// A string, or a list of `input_text` / `input_image` items when the
    /// result has images.
    pub output: Value,
}

/// Anthropic Messages: the `tool_result` content block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnthropicToolResult {
    /// Always `"tool_result"`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The `tool_use` block's `id`.
    pub tool_use_id: String,
    /// `text` and `image` blocks.
    pub content: Vec<Value>,
    /// Present and `true` when the tool failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
}

/// Gemini: the part `{"functionResponse": {...}}` answering a call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GeminiFunctionResponsePart {
    /// The response.
    #[serde(rename = "functionResponse")]
    pub function_response: GeminiFunctionResponse,
}

/// Gemini's `functionResponse`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GeminiFunctionResponse {
    /// The call's `id`, when it had one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The function's name (the one the model called).
    pub name: String,
    /// `{"output": text}`, or `{"error": text}` when the tool failed.
    pub response: Value,
    /// The result's images as `{"inlineData": {"mimeType", "data"}}`
    /// parts, with [`crate::ToolsetOptions::gemini_inline_images`] (newer
    /// models); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parts: Option<Vec<Value>>,
}

/// A tool result in one dialect: serializes to the JSON to put in the
/// conversation (a message, an input item, a content block or a part).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ToolResult {
    /// OpenAI Chat Completions.
    OpenAiChat(ChatToolMessage),
    /// OpenAI Responses.
    OpenAiResponses(FunctionCallOutput),
    /// Anthropic Messages.
    Anthropic(AnthropicToolResult),
    /// Gemini.
    Gemini(GeminiFunctionResponsePart),
}

impl ToolResult {
    /// The JSON (what `serde_json::to_value` gives).
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// The result's text as the model reads it (images left out).
    pub fn text(&self) -> String {
        match self {
            ToolResult::OpenAiChat(m) => m.content.clone(),
            ToolResult::OpenAiResponses(o) => match &o.output {
                Value::String(s) => s.clone(),
                Value::Array(items) => items
                    .iter()
                    .filter_map(|i| i.get("text").and_then(Value::as_str))
                    .collect::<Vec<_>>()
                    .join("\n"),
                _ => String::new(),
            },
            ToolResult::Anthropic(r) => r
                .content
                .iter()
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("\n"),
            ToolResult::Gemini(p) => {
                let r = &p.function_response.response;
                r.get("output")
                    .or_else(|| r.get("error"))
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned()
            }
        }
    }

    /// `true` when the result says the call failed (the tool's
    /// `isError`, or a call refused before it reached the server). The
    /// OpenAI dialects have no error flag: there this reads the `Error: `
    /// the text starts with, which a successful tool's own text could also
    /// start with; [`crate::ToolOutcome::status`] is exact.
    pub fn is_error(&self) -> bool {
        match self {
            ToolResult::OpenAiChat(m) => m.content.starts_with(ERROR_PREFIX),
            ToolResult::OpenAiResponses(_) => self.text().starts_with(ERROR_PREFIX),
            ToolResult::Anthropic(r) => r.is_error == Some(true),
            ToolResult::Gemini(p) => p.function_response.response.get("error").is_some(),
        }
    }

    /// How many images the model sees inline.
    pub fn inline_images(&self) -> usize {
        match self {
            ToolResult::OpenAiResponses(o) => o.output.as_array().map_or(0, |a| {
                a.iter().filter(|i| i["type"] == "input_image").count()
            }),
            ToolResult::Anthropic(r) => r.content.iter().filter(|b| b["type"] == "image").count(),
            ToolResult::Gemini(p) => p.function_response.parts.as_ref().map_or(0, Vec::len),
            ToolResult::OpenAiChat(_) => 0,
        }
    }
}

/// The first words of an error result in the OpenAI dialects.
pub(crate) const ERROR_PREFIX: &str = "Error: ";

/// The image types Anthropic and OpenAI take inline.
const INLINE_IMAGE_TYPES: &[&str] = &["image/png", "image/jpeg", "image/gif", "image/webp"];

enum Piece {
    Text(String),
    Image { mime: String, data: String },
}

/// Bytes a base64 text stands for (about).
fn decoded_len(b64: &str) -> usize {
    b64.trim_end_matches('=').len() * 3 / 4
}

/// The image types Gemini takes as inline data.
const GEMINI_IMAGE_TYPES: &[&str] = &[
    "image/png",
    "image/jpeg",
    "image/webp",
    "image/heic",
    "image/heif",
];

/// Whether `dialect` carries an image of type `mime` inside a tool result:
/// Anthropic and OpenAI Responses always; Gemini when asked
/// (`gemini_inline_images`: its `functionResponse.parts`, which only newer
/// models take).
fn takes_inline_image(dialect: Dialect, gemini_inline_images: bool, mime: &str) -> bool {
    match dialect {
        Dialect::Anthropic | Dialect::OpenAiResponses => INLINE_IMAGE_TYPES.contains(&mime),
        Dialect::Gemini => gemini_inline_images && GEMINI_IMAGE_TYPES.contains(&mime),
        Dialect::OpenAiChat => false,
    }
}

/// How a result is converted ([`convert`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct ResultOptions {
    /// Longest text, in bytes.
    pub(crate) max_bytes: usize,
    /// Gemini: images as `functionResponse.parts` inline data.
    pub(crate) gemini_inline_images: bool,
}

/// Converts `result` for `dialect`, answering call `id` to `name`.
pub(crate) fn convert(
    dialect: Dialect,
    id: Option<&str>,
    name: &str,
    result: &CallToolResult,
    options: ResultOptions,
) -> (ToolResult, Vec<Media>) {
    let max_bytes = options.max_bytes;
    let mut pieces = Vec::new();
    let mut media = Vec::new();
    let mut has_text = false;
    let hand_over = |media: &mut Vec<Media>, kind, mime: &str, data: &str, uri: Option<&str>| {
        let index = media.len();
        media.push(Media {
            index,
            kind,
            mime_type: mime.to_owned(),
            data: data.to_owned(),
            uri: uri.map(str::to_owned),
        });
        index
    };
    for block in &result.content {
        match block {
            ContentBlock::Text(t) => {
                has_text = true;
                pieces.push(Piece::Text(t.text.clone()));
            }
            ContentBlock::Image(i) => {
                let mime = i.mime_type.to_ascii_lowercase();
                if takes_inline_image(dialect, options.gemini_inline_images, &mime) {
                    pieces.push(Piece::Image {
                        mime,
                        data: i.data.clone(),
                    });
                } else {
                    let n = hand_over(&mut media, MediaKind::Image, &i.mime_type, &i.data, None);
                    pieces.push(Piece::Text(format!(
                        "[image #{n}: {}, {} bytes; it cannot be shown in this tool result and was passed to the application]",
                        i.mime_type,
                        decoded_len(&i.data)
                    )));
                }
            }
            ContentBlock::Audio(a) => {
                let n = hand_over(&mut media, MediaKind::Audio, &a.mime_type, &a.data, None);
                pieces.push(Piece::Text(format!(
                    "[audio #{n}: {}, {} bytes; passed to the application]",
                    a.mime_type,
                    decoded_len(&a.data)
                )));
            }
            ContentBlock::ResourceLink(l) => {
                let mut line = format!("[resource link: {} <{}>", l.name, l.uri);
                if let Some(m) = &l.mime_type {
                    line.push_str(&format!(", {m}"));
                }
                if let Some(d) = &l.description {
                    line.push_str(&format!(": {d}"));
                }
                line.push(']');
                pieces.push(Piece::Text(line));
            }
            ContentBlock::Resource(r) => match &r.resource {
                ResourceContents::Text(t) => {
                    has_text = true;
                    let mime = t
                        .mime_type
                        .as_deref()
                        .map(|m| format!(", {m}"))
                        .unwrap_or_default();
                    pieces.push(Piece::Text(format!(
                        "[resource <{}>{mime}]\n{}",
                        t.uri, t.text
                    )));
                }
                ResourceContents::Blob(b) => {
                    let mime = b.mime_type.as_deref().unwrap_or("application/octet-stream");
                    let n = hand_over(&mut media, MediaKind::Blob, mime, &b.blob, Some(&b.uri));
                    pieces.push(Piece::Text(format!(
                        "[resource <{}>: {mime}, {} bytes of binary data; passed to the application as media #{n}]",
                        b.uri,
                        decoded_len(&b.blob)
                    )));
                }
            },
            ContentBlock::Unknown(v) => {
                let kind = v.get("type").and_then(Value::as_str).unwrap_or("unknown");
                tracing::debug!(
                    kind,
                    "tool result block of an unknown type: named, not shown"
                );
                pieces.push(Piece::Text(format!("[content of type {kind:?} not shown]")));
            }
        }
    }
    if !has_text && let Some(structured) = &result.structured_content {
        pieces.insert(0, Piece::Text(structured.to_string()));
    }
    let is_error = result.is_error == Some(true);
    if pieces.is_empty() {
        pieces.push(Piece::Text("(the tool returned no content)".into()));
    }
    cap_text(&mut pieces, max_bytes);
    (assemble(dialect, id, name, pieces, is_error), media)
}

/// Cuts the text pieces so their total stays within `max` bytes, with a
/// notice of how much was left out.
fn cap_text(pieces: &mut Vec<Piece>, max: usize) {
    let total: usize = pieces
        .iter()
        .map(|p| match p {
            Piece::Text(t) => t.len(),
            Piece::Image { .. } => 0,
        })
        .sum();
    if total <= max {
        return;
    }
    let mut budget = max;
    let mut out = Vec::with_capacity(pieces.len());
    for p in pieces.drain(..) {
        match p {
            Piece::Text(mut t) => {
                if budget == 0 {
                    continue;
                }
                if t.len() > budget {
                    let mut cut = budget;
                    while !t.is_char_boundary(cut) {
                        cut -= 1;
                    }
                    t.truncate(cut);
                }
                budget -= t.len();
                out.push(Piece::Text(t));
            }
            image => out.push(image),
        }
    }
    out.push(Piece::Text(format!(
        "[truncated: {max} of {total} bytes of text shown]"
    )));
    *pieces = out;
}

fn joined_text(pieces: &[Piece]) -> String {
    pieces
        .iter()
        .filter_map(|p| match p {
            Piece::Text(t) => Some(t.as_str()),
            Piece::Image { .. } => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn assemble(
    dialect: Dialect,
    id: Option<&str>,
    name: &str,
    pieces: Vec<Piece>,
    is_error: bool,
) -> ToolResult {
    let id_or_empty = id.unwrap_or_default().to_owned();
    match dialect {
        Dialect::OpenAiChat => {
            let text = joined_text(&pieces);
            let content = if is_error {
                format!("{ERROR_PREFIX}{text}")
            } else {
                text
            };
            ToolResult::OpenAiChat(ChatToolMessage {
                role: "tool".into(),
                tool_call_id: id_or_empty,
                content,
            })
        }
        Dialect::OpenAiResponses => {
            let has_images = pieces.iter().any(|p| matches!(p, Piece::Image { .. }));
            let output = if has_images {
                let mut items = Vec::new();
                if is_error {
                    items.push(json!({"type": "input_text", "text": ERROR_PREFIX.trim_end()}));
                }
                for p in pieces {
                    items.push(match p {
                        Piece::Text(t) => json!({"type": "input_text", "text": t}),
                        Piece::Image { mime, data } => json!({
                            "type": "input_image",
                            "image_url": format!("data:{mime};base64,{data}"),
                            "detail": "auto",
                        }),
                    });
                }
                Value::Array(items)
            } else {
                let text = joined_text(&pieces);
                Value::String(if is_error {
                    format!("{ERROR_PREFIX}{text}")
                } else {
                    text
                })
            };
            ToolResult::OpenAiResponses(FunctionCallOutput {
                kind: "function_call_output".into(),
                call_id: id_or_empty,
                output,
            })
        }
        Dialect::Anthropic => {
            let content = pieces
                .into_iter()
                .map(|p| match p {
                    Piece::Text(t) => json!({"type": "text", "text": t}),
                    Piece::Image { mime, data } => json!({
                        "type": "image",
                        "source": {"type": "base64", "media_type": mime, "data": data},
                    }),
                })
                .collect();
            ToolResult::Anthropic(AnthropicToolResult {
                kind: "tool_result".into(),
                tool_use_id: id_or_empty,
                content,
                is_error: is_error.then_some(true),
            })
        }
        Dialect::Gemini => {
            let text = joined_text(&pieces);
            let response = if is_error {
                json!({"error": text})
            } else {
                json!({"output": text})
            };
            let parts: Vec<Value> = pieces
                .into_iter()
                .filter_map(|p| match p {
                    Piece::Image { mime, data } => {
                        Some(json!({"inlineData": {"mimeType": mime, "data": data}}))
                    }
                    Piece::Text(_) => None,
                })
                .collect();
            ToolResult::Gemini(GeminiFunctionResponsePart {
                function_response: GeminiFunctionResponse {
                    id: id.map(str::to_owned),
                    name: name.to_owned(),
                    response,
                    parts: (!parts.is_empty()).then_some(parts),
                },
            })
        }
    }
}

/// A tool-result error for a call that never reached a tool (or failed on
/// the way): the text tells the model what to fix.
pub(crate) fn error_result(
    dialect: Dialect,
    id: Option<&str>,
    name: &str,
    text: &str,
) -> ToolResult {
    assemble(dialect, id, name, vec![Piece::Text(text.to_owned())], true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(content: Value) -> CallToolResult {
        serde_json::from_value(content).unwrap()
    }

    const PNG: &str = "iVBORw0KGgo=";

    fn opts(max_bytes: usize) -> ResultOptions {
        ResultOptions {
            max_bytes,
            gemini_inline_images: false,
        }
    }

    #[test]
    fn gemini_takes_images_inline_when_asked() {
        let r = result(
            json!({"content": [{"type": "text", "text": "here"}, {"type": "image", "data": PNG, "mimeType": "image/png"}]}),
        );
        let asked = ResultOptions {
            max_bytes: 1000,
            gemini_inline_images: true,
        };
        let (g, media) = convert(Dialect::Gemini, Some("g"), "x", &r, asked);
        assert!(media.is_empty());
        assert_eq!(g.inline_images(), 1);
        let j = g.to_json();
        assert_eq!(
            j["functionResponse"]["parts"][0]["inlineData"],
            json!({"mimeType": "image/png", "data": PNG})
        );
        assert_eq!(j["functionResponse"]["response"]["output"], "here");
        // Not asked: a note and the image handed over, no `parts`.
        let (g, media) = convert(Dialect::Gemini, Some("g"), "x", &r, opts(1000));
        assert_eq!(media.len(), 1);
        assert!(g.to_json()["functionResponse"].get("parts").is_none());
    }

    #[test]
    fn an_image_result_is_an_image_block_or_media() {
        let r = result(
            json!({"content": [{"type": "text", "text": "here"}, {"type": "image", "data": PNG, "mimeType": "image/png"}]}),
        );
        let (a, media) = convert(Dialect::Anthropic, Some("t1"), "x", &r, opts(1000));
        assert!(media.is_empty());
        let j = a.to_json();
        assert_eq!(j["content"][1]["type"], "image");
        assert_eq!(j["content"][1]["source"]["data"], PNG);
        let (o, _) = convert(Dialect::OpenAiResponses, Some("c1"), "x", &r, opts(1000));
        assert!(
            o.to_json()["output"][1]["image_url"]
                .as_str()
                .unwrap()
                .starts_with("data:image/png;base64,")
        );
        for d in [Dialect::OpenAiChat, Dialect::Gemini] {
            let (c, media) = convert(d, Some("c1"), "x", &r, opts(1000));
            assert_eq!(media.len(), 1);
            assert_eq!(media[0].data, PNG);
            let text = c.text();
            assert!(text.contains("[image #0: image/png"), "{text}");
            assert!(!c.to_json().to_string().contains(PNG), "no base64 as text");
        }
        // A type Anthropic does not take: handed over.
        let r = result(
            json!({"content": [{"type": "image", "data": PNG, "mimeType": "application/png"}]}),
        );
        let (a, media) = convert(Dialect::Anthropic, Some("t1"), "x", &r, opts(1000));
        assert_eq!(media.len(), 1);
        assert_eq!(a.inline_images(), 0);
    }

    #[test]
    fn an_is_error_result_carries_the_dialect_flag() {
        let r = result(json!({"content": [{"type": "text", "text": "boom"}], "isError": true}));
        let (a, _) = convert(Dialect::Anthropic, Some("t"), "x", &r, opts(1000));
        assert_eq!(a.to_json()["is_error"], true);
        let (g, _) = convert(Dialect::Gemini, None, "x", &r, opts(1000));
        assert_eq!(
            g.to_json()["functionResponse"]["response"],
            json!({"error": "boom"})
        );
        let (c, _) = convert(Dialect::OpenAiChat, Some("c"), "x", &r, opts(1000));
        assert_eq!(c.to_json()["content"], "Error: boom");
        for d in Dialect::ALL {
            assert!(convert(d, Some("c"), "x", &r, opts(1000)).0.is_error());
        }
        let ok = result(json!({"content": [{"type": "text", "text": "fine"}]}));
        let (a, _) = convert(Dialect::Anthropic, Some("t"), "x", &ok, opts(1000));
        assert!(a.to_json().get("is_error").is_none());
    }

    #[test]
    fn structured_content_resources_audio_and_the_cap() {
        let r = result(json!({"content": [], "structuredContent": {"t": 21}}));
        assert_eq!(
            convert(Dialect::OpenAiChat, Some("c"), "x", &r, opts(1000))
                .0
                .text(),
            "{\"t\":21}"
        );
        let r = result(json!({"content": [
            {"type": "resource", "resource": {"uri": "file:///a.txt", "mimeType": "text/plain", "text": "hello"}},
            {"type": "resource", "resource": {"uri": "file:///b.bin", "blob": "AAAA"}},
            {"type": "resource_link", "uri": "file:///c", "name": "c"},
            {"type": "audio", "data": "AAAA", "mimeType": "audio/wav"}
        ]}));
        let (c, media) = convert(Dialect::Anthropic, Some("t"), "x", &r, opts(1000));
        let text = c.text();
        assert!(
            text.contains("hello") && text.contains("file:///b.bin") && text.contains("file:///c"),
            "{text}"
        );
        assert_eq!(media.len(), 2);
        assert_eq!(media[0].uri.as_deref(), Some("file:///b.bin"));
        assert_eq!(media[1].kind, MediaKind::Audio);
        let long = result(json!({"content": [{"type": "text", "text": "é".repeat(100)}]}));
        let text = convert(Dialect::OpenAiChat, Some("c"), "x", &long, opts(51))
            .0
            .text();
        assert!(text.contains("[truncated: 51 of 200 bytes"), "{text}");
    }
}
