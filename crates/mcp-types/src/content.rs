//! Content blocks (spec: `server/tools` § Tool Result, `server/prompts`
//! § Data Types, `server/resources` § Resource Contents; schema
//! `ContentBlock`, `TextContent`, `ImageContent`, `AudioContent`,
//! `ResourceLink`, `EmbeddedResource`, `TextResourceContents`,
//! `BlobResourceContents`, and for sampling `ToolUseContent`,
//! `ToolResultContent`).
//!
//! Unions are decoded by their discriminator, never by trial:
//! [`ContentBlock`] by `"type"` (unknown types become
//! [`ContentBlock::Unknown`]), [`ResourceContents`] by which of `text` /
//! `blob` is present.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::base::{Annotations, Icon, Meta};
use crate::de::tagged::tagged_union;

/// Text (schema `TextContent`, `"type": "text"`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TextContent {
    /// The text.
    pub text: String,
    /// Display hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Metadata [≥2025-06-18].
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl TextContent {
    /// Plain text with no annotations.
    pub fn new(text: impl Into<String>) -> Self {
        TextContent {
            text: text.into(),
            ..Default::default()
        }
    }
}

/// An image (schema `ImageContent`, `"type": "image"`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageContent {
    /// Base64-encoded image bytes.
    pub data: String,
    /// MIME type, e.g. `image/png`.
    pub mime_type: String,
    /// Display hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Metadata [≥2025-06-18].
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Audio (schema `AudioContent`, `"type": "audio"`, 2025-03-26 on).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AudioContent {
    /// Base64-encoded audio bytes.
    pub data: String,
    /// MIME type, e.g. `audio/wav`.
    pub mime_type: String,
    /// Display hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Metadata [≥2025-06-18].
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A link to a resource the client may read with `resources/read` (schema
/// `ResourceLink`, `"type": "resource_link"`, 2025-06-18 on). Same fields as
/// [`crate::resources::Resource`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceLink {
    /// The resource URI.
    pub uri: String,
    /// Programmatic name.
    pub name: String,
    /// Human-readable name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Size of the raw content in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Icons [≥2025-11-25].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Display hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A resource's contents embedded in a message (schema `EmbeddedResource`,
/// `"type": "resource"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EmbeddedResource {
    /// The contents, text or blob.
    pub resource: ResourceContents,
    /// Display hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Metadata [≥2025-06-18].
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A content block in a tool result or prompt message (schema
/// `ContentBlock`), tagged by `"type"`.
///
/// Decoding reads `"type"` first: a known type decodes its struct (and is an
/// error if that fails); any other type becomes [`ContentBlock::Unknown`]
/// holding the raw JSON, so a newer server's block never fails the message.
#[derive(Debug, Clone, PartialEq)]
pub enum ContentBlock {
    /// `"text"`.
    Text(TextContent),
    /// `"image"`.
    Image(ImageContent),
    /// `"audio"` [≥2025-03-26].
    Audio(AudioContent),
    /// `"resource_link"` [≥2025-06-18].
    ResourceLink(ResourceLink),
    /// `"resource"`.
    Resource(EmbeddedResource),
    /// A block of a type this crate does not know, as received (including `"type"`).
    Unknown(Value),
}

tagged_union!(ContentBlock, "type", {
    "text" => Text(TextContent),
    "image" => Image(ImageContent),
    "audio" => Audio(AudioContent),
    "resource_link" => ResourceLink(ResourceLink),
    "resource" => Resource(EmbeddedResource),
});

impl ContentBlock {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        ContentBlock::Text(TextContent::new(text))
    }

    /// The text, when this is a text block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            ContentBlock::Text(t) => Some(&t.text),
            _ => None,
        }
    }

    /// The `"type"` string of this block.
    pub fn type_name(&self) -> &str {
        match self {
            ContentBlock::Text(_) => "text",
            ContentBlock::Image(_) => "image",
            ContentBlock::Audio(_) => "audio",
            ContentBlock::ResourceLink(_) => "resource_link",
            ContentBlock::Resource(_) => "resource",
            ContentBlock::Unknown(v) => v.get("type").and_then(Value::as_str).unwrap_or(""),
        }
    }
}

/// Text contents of a resource (schema `TextResourceContents`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TextResourceContents {
    /// The resource URI.
    pub uri: String,
    /// MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// The text.
    pub text: String,
    /// Metadata [≥2025-06-18].
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Binary contents of a resource (schema `BlobResourceContents`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BlobResourceContents {
    /// The resource URI.
    pub uri: String,
    /// MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Base64-encoded bytes.
    pub blob: String,
    /// Metadata [≥2025-06-18].
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Resource contents, text or blob (schema `TextResourceContents |
/// BlobResourceContents`). Discriminated by which member is present:
/// `text` gives [`ResourceContents::Text`], `blob` gives
/// [`ResourceContents::Blob`]; neither or both is an error.
#[derive(Debug, Clone, PartialEq)]
pub enum ResourceContents {
    /// Has `text`.
    Text(TextResourceContents),
    /// Has `blob`.
    Blob(BlobResourceContents),
}

impl ResourceContents {
    /// The resource URI.
    pub fn uri(&self) -> &str {
        match self {
            ResourceContents::Text(t) => &t.uri,
            ResourceContents::Blob(b) => &b.uri,
        }
    }
}

impl Serialize for ResourceContents {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            ResourceContents::Text(t) => t.serialize(s),
            ResourceContents::Blob(b) => b.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for ResourceContents {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error as _;
        let value = Value::deserialize(d)?;
        let (has_text, has_blob) = match &value {
            Value::Object(m) => (m.contains_key("text"), m.contains_key("blob")),
            _ => return Err(D::Error::custom("resource contents must be a JSON object")),
        };
        match (has_text, has_blob) {
            (true, false) => serde_json::from_value(value)
                .map(ResourceContents::Text)
                .map_err(D::Error::custom),
            (false, true) => serde_json::from_value(value)
                .map(ResourceContents::Blob)
                .map_err(D::Error::custom),
            (true, true) => Err(D::Error::custom(
                "resource contents has both \"text\" and \"blob\"",
            )),
            (false, false) => Err(D::Error::custom(
                "resource contents has neither \"text\" nor \"blob\"",
            )),
        }
    }
}

/// A model's request to call a tool, in sampling (schema `ToolUseContent`,
/// `"type": "tool_use"`, 2025-11-25 on).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolUseContent {
    /// Unique id of this tool use, echoed by the matching [`ToolResultContent`].
    pub id: String,
    /// The tool name.
    pub name: String,
    /// The tool arguments.
    pub input: Map<String, Value>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The result of a tool use, in sampling (schema `ToolResultContent`,
/// `"type": "tool_result"`, 2025-11-25 on).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResultContent {
    /// The [`ToolUseContent::id`] this answers.
    pub tool_use_id: String,
    /// Unstructured result.
    pub content: Vec<ContentBlock>,
    /// Structured result, raw JSON.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
    /// Whether the tool use failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn text_roundtrip_and_tag() {
        let v = json!({"type":"text","text":"hi","_meta":{"a":1},"future":true});
        let b: ContentBlock = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(b.as_text(), Some("hi"));
        assert_eq!(serde_json::to_value(&b).unwrap(), v);
    }

    #[test]
    fn unknown_type_kept_raw() {
        let v = json!({"type":"hologram","frames":[1,2]});
        let b: ContentBlock = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(b, ContentBlock::Unknown(v.clone()));
        assert_eq!(b.type_name(), "hologram");
        assert_eq!(serde_json::to_value(&b).unwrap(), v);
    }

    #[test]
    fn known_type_bad_shape_is_error() {
        assert!(
            serde_json::from_value::<ContentBlock>(json!({"type":"image","data":"x"})).is_err()
        );
        assert!(serde_json::from_value::<ContentBlock>(json!({"text":"no type"})).is_err());
    }

    #[test]
    fn resource_contents_by_member() {
        let t: ResourceContents =
            serde_json::from_value(json!({"uri":"file:///a","text":"x"})).unwrap();
        assert!(matches!(t, ResourceContents::Text(_)));
        let b: ResourceContents =
            serde_json::from_value(json!({"uri":"file:///a","blob":"AA=="})).unwrap();
        assert!(matches!(b, ResourceContents::Blob(_)));
        assert!(serde_json::from_value::<ResourceContents>(json!({"uri":"u"})).is_err());
        assert!(
            serde_json::from_value::<ResourceContents>(json!({"uri":"u","text":"","blob":""}))
                .is_err()
        );
    }
}
