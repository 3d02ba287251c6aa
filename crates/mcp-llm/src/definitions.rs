//! What each provider API takes as a tool definition: typed structs that
//! serialize to exactly that JSON (the `tools` member of a request).

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The `"function"` tag of an OpenAI tool.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum FunctionTag {
    /// `"function"`.
    #[default]
    #[serde(rename = "function")]
    Function,
}

/// One tool of OpenAI Chat Completions: `{"type": "function", "function":
/// {...}}` in the request's `tools`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatTool {
    /// Always `"function"`.
    #[serde(rename = "type")]
    pub kind: FunctionTag,
    /// The function.
    pub function: ChatFunction,
}

/// The `function` of a [`ChatTool`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatFunction {
    /// `^[a-zA-Z0-9_-]{1,64}$`.
    pub name: String,
    /// What the tool does, for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The JSON Schema of the arguments (root `type: object`).
    pub parameters: Value,
    /// Strict mode: the model's arguments always match `parameters`.
    pub strict: bool,
}

/// One tool of the OpenAI Responses API: `{"type": "function", "name",
/// "description", "parameters", "strict"}`. `strict` is always written:
/// the Responses API takes an absent `strict` as `true`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResponsesTool {
    /// Always `"function"`.
    #[serde(rename = "type")]
    pub kind: FunctionTag,
    /// `^[a-zA-Z0-9_-]{1,64}$`.
    pub name: String,
    /// What the tool does, for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The JSON Schema of the arguments (root `type: object`).
    pub parameters: Value,
    /// Strict mode.
    pub strict: bool,
}

/// One tool of the Anthropic Messages API: `{"name", "description",
/// "input_schema"}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnthropicTool {
    /// `^[a-zA-Z0-9_-]{1,64}$` (128 on request).
    pub name: String,
    /// What the tool does, for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The JSON Schema (2020-12) of the input: root `type: object`,
    /// property keys `^[a-zA-Z0-9_.-]{1,64}$`.
    pub input_schema: Value,
}

/// One Gemini tool: `{"functionDeclarations": [...]}`. Never empty (the
/// API refuses an empty list): with no tool, the definitions are `[]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GeminiTool {
    /// The functions.
    #[serde(rename = "functionDeclarations")]
    pub function_declarations: Vec<FunctionDeclaration>,
}

/// A Gemini function declaration: exactly one of `parametersJsonSchema`
/// (full JSON Schema, the default) and `parameters` (the OpenAPI 3.0
/// subset), or neither for a tool without arguments in the latter form.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionDeclaration {
    /// A letter or `_`, then `[a-zA-Z0-9_.:-]`; at most 64.
    pub name: String,
    /// What the tool does, for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The OpenAPI-subset schema ([`GeminiSchema::OpenApi`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parameters: Option<Value>,
    /// The JSON Schema ([`GeminiSchema::JsonSchema`]).
    #[serde(
        rename = "parametersJsonSchema",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub parameters_json_schema: Option<Value>,
}

/// Which Gemini schema field a declaration uses.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum GeminiSchema {
    /// `parametersJsonSchema`: full JSON Schema (`$defs`, `$ref`,
    /// `anyOf`, `additionalProperties`), `$schema` stripped. The default.
    #[default]
    JsonSchema,
    /// `parameters`: the OpenAPI 3.0 subset (older models and APIs).
    OpenApi,
}

/// The tool definitions of one dialect, as the request's `tools` member:
/// serializes to a JSON array.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Definitions {
    /// OpenAI Chat Completions.
    OpenAiChat(Vec<ChatTool>),
    /// OpenAI Responses.
    OpenAiResponses(Vec<ResponsesTool>),
    /// Anthropic Messages.
    Anthropic(Vec<AnthropicTool>),
    /// Gemini: one [`GeminiTool`] holding every declaration, or none.
    Gemini(Vec<GeminiTool>),
}

impl Definitions {
    /// How many tools are offered.
    pub fn len(&self) -> usize {
        match self {
            Definitions::OpenAiChat(v) => v.len(),
            Definitions::OpenAiResponses(v) => v.len(),
            Definitions::Anthropic(v) => v.len(),
            Definitions::Gemini(v) => v.iter().map(|t| t.function_declarations.len()).sum(),
        }
    }

    /// `true` when no tool is offered.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The JSON array (what `serde_json::to_value` gives).
    pub fn to_json(&self) -> Value {
        match serde_json::to_value(self) {
            Ok(v) => v,
            // Plain structs of strings and values: serializing cannot fail.
            Err(_) => Value::Array(Vec::new()),
        }
    }
}
