//! Sampling (spec: `client/sampling`; schema `CreateMessageRequest`,
//! `CreateMessageRequestParams`, `CreateMessageResult`, `SamplingMessage`,
//! `SamplingMessageContentBlock`, `ModelPreferences`, `ModelHint`,
//! `ToolChoice`). Tools in sampling (`tools`, `toolChoice`, `tool_use` /
//! `tool_result` content) arrived in 2025-11-25.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::base::{Meta, Role, compact_opt_f64, open_enum};
use crate::content::{AudioContent, ImageContent, TextContent, ToolResultContent, ToolUseContent};
use crate::de::tagged::tagged_union;
use crate::method::Request;
use crate::tasks::TaskMetadata;
use crate::tools::Tool;

/// One content block of a sampling message (schema
/// `SamplingMessageContentBlock`), tagged by `"type"`; unknown types are kept
/// raw in [`SamplingContentBlock::Unknown`].
#[derive(Debug, Clone, PartialEq)]
pub enum SamplingContentBlock {
    /// `"text"`.
    Text(TextContent),
    /// `"image"`.
    Image(ImageContent),
    /// `"audio"` [≥2025-03-26].
    Audio(AudioContent),
    /// `"tool_use"` [≥2025-11-25].
    ToolUse(ToolUseContent),
    /// `"tool_result"` [≥2025-11-25].
    ToolResult(ToolResultContent),
    /// A block of a type this crate does not know, as received.
    Unknown(Value),
}

tagged_union!(SamplingContentBlock, "type", {
    "text" => Text(TextContent),
    "image" => Image(ImageContent),
    "audio" => Audio(AudioContent),
    "tool_use" => ToolUse(ToolUseContent),
    "tool_result" => ToolResult(ToolResultContent),
});

/// The `content` of a sampling message: one block, or (2025-11-25 on) an
/// array of blocks. Discriminated by the JSON shape (object or array).
#[derive(Debug, Clone, PartialEq)]
pub enum SamplingContent {
    /// A single block (every revision).
    Single(SamplingContentBlock),
    /// Several blocks [≥2025-11-25].
    Multiple(Vec<SamplingContentBlock>),
}

impl SamplingContent {
    /// The blocks, one or many, as a slice-like iterator.
    pub fn blocks(&self) -> impl Iterator<Item = &SamplingContentBlock> {
        match self {
            SamplingContent::Single(b) => std::slice::from_ref(b).iter(),
            SamplingContent::Multiple(v) => v.iter(),
        }
    }
}

impl Serialize for SamplingContent {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            SamplingContent::Single(b) => b.serialize(s),
            SamplingContent::Multiple(v) => v.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for SamplingContent {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error as _;
        match Value::deserialize(d)? {
            v @ Value::Object(_) => serde_json::from_value(v)
                .map(SamplingContent::Single)
                .map_err(D::Error::custom),
            v @ Value::Array(_) => serde_json::from_value(v)
                .map(SamplingContent::Multiple)
                .map_err(D::Error::custom),
            _ => Err(D::Error::custom(
                "sampling content must be an object or an array",
            )),
        }
    }
}

/// A message in a sampling conversation (schema `SamplingMessage`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SamplingMessage {
    /// Who speaks.
    pub role: Role,
    /// What is said.
    pub content: SamplingContent,
    /// Metadata [≥2025-11-25].
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The server's model preferences (schema `ModelPreferences`); priorities are 0..=1.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelPreferences {
    /// Model name hints, in order of preference.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hints: Option<Vec<ModelHint>>,
    /// How much cost matters.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "compact_opt_f64"
    )]
    pub cost_priority: Option<f64>,
    /// How much speed matters.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "compact_opt_f64"
    )]
    pub speed_priority: Option<f64>,
    /// How much capability matters.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "compact_opt_f64"
    )]
    pub intelligence_priority: Option<f64>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A model name hint (schema `ModelHint`): a substring of a model name.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ModelHint {
    /// Model name or family substring.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

open_enum! {
    /// `CreateMessageRequestParams.includeContext`.
    pub enum IncludeContext {
        /// No server context.
        None = "none",
        /// Context from the requesting server.
        ThisServer = "thisServer",
        /// Context from every connected server.
        AllServers = "allServers",
    }
}

/// How the model may use the offered tools (schema `ToolChoice`, 2025-11-25).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ToolChoice {
    /// `auto` (default), `required` or `none`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<ToolChoiceMode>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

open_enum! {
    /// `ToolChoice.mode`.
    pub enum ToolChoiceMode {
        /// The model decides.
        Auto = "auto",
        /// The model must use a tool.
        Required = "required",
        /// The model must not use tools.
        None = "none",
    }
}

/// Params of `sampling/createMessage` (schema `CreateMessageRequestParams`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateMessageRequestParams {
    /// The conversation.
    pub messages: Vec<SamplingMessage>,
    /// Model preferences.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_preferences: Option<ModelPreferences>,
    /// System prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// Which server context to include (soft-deprecated in 2025-11-25).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_context: Option<IncludeContext>,
    /// Sampling temperature.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "compact_opt_f64"
    )]
    pub temperature: Option<f64>,
    /// Maximum tokens to generate.
    pub max_tokens: u64,
    /// Stop sequences.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_sequences: Option<Vec<String>>,
    /// Provider-specific metadata, raw.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Value>,
    /// Tools the model may call [≥2025-11-25].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<Tool>>,
    /// Tool choice [≥2025-11-25].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ToolChoice>,
    /// Run as a task [2025-11-25].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskMetadata>,
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

open_enum! {
    /// Why sampling stopped (`CreateMessageResult.stopReason`).
    pub enum StopReason {
        /// The model finished its turn.
        EndTurn = "endTurn",
        /// A stop sequence matched.
        StopSequence = "stopSequence",
        /// `maxTokens` was reached.
        MaxTokens = "maxTokens",
        /// The model wants to call a tool [≥2025-11-25].
        ToolUse = "toolUse",
    }
}

/// Result of `sampling/createMessage` (schema `CreateMessageResult`), sent by the client.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateMessageResult {
    /// Normally `assistant`.
    pub role: Role,
    /// The generated content.
    pub content: SamplingContent,
    /// The model that produced it.
    pub model: String,
    /// Why generation stopped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<StopReason>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `sampling/createMessage` (server → client; in 2026-07-28 an input request).
#[derive(Debug)]
pub enum CreateMessage {}

impl Request for CreateMessage {
    const METHOD: &'static str = "sampling/createMessage";
    type Params = CreateMessageRequestParams;
    type Result = CreateMessageResult;
}
