//! Tools (spec: `server/tools`; schema `Tool`, `ToolAnnotations`,
//! `ToolExecution`, `ListToolsRequest`/`Result`, `CallToolRequest`/`Result`).
//!
//! `inputSchema`, `outputSchema` and `structuredContent` are raw
//! [`serde_json::Value`]s: no JSON Schema keyword is lost or rewritten.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::base::{
    CacheScope, Cursor, Icon, Meta, PaginatedParams, ResultType, impl_paginated, open_enum,
};
use crate::content::ContentBlock;
use crate::input::InputResponses;
use crate::method::Request;
use crate::tasks::TaskMetadata;

/// A tool the server offers (schema `Tool`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tool {
    /// Programmatic name, used in `tools/call`.
    pub name: String,
    /// Human-readable name [≥2025-06-18].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Description for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// JSON Schema of the arguments, raw.
    pub input_schema: Value,
    /// JSON Schema of `structuredContent`, raw [≥2025-06-18].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
    /// Behaviour hints [≥2025-03-26]; untrusted unless the server is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<ToolAnnotations>,
    /// Execution properties [2025-11-25].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub execution: Option<ToolExecution>,
    /// Icons [≥2025-11-25].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Metadata [≥2025-06-18].
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Hints about a tool's behaviour (schema `ToolAnnotations`, 2025-03-26 on).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolAnnotations {
    /// Human-readable title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The tool does not modify its environment (default `false`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    /// The tool may perform destructive updates (default `true`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    /// Repeating a call with the same arguments has no extra effect (default `false`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    /// The tool interacts with an open world of external entities (default `true`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Execution properties of a tool (schema `ToolExecution`, 2025-11-25).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolExecution {
    /// Whether `tools/call` may or must be task-augmented (default `"forbidden"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_support: Option<TaskSupport>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

open_enum! {
    /// `ToolExecution.taskSupport` (2025-11-25).
    pub enum TaskSupport {
        /// The tool cannot run as a task.
        Forbidden = "forbidden",
        /// The client may run the tool as a task.
        Optional = "optional",
        /// The client must run the tool as a task.
        Required = "required",
    }
}

/// Result of `tools/list` (schema `ListToolsResult`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListToolsResult {
    /// This page of tools.
    pub tools: Vec<Tool>,
    /// Cursor of the next page, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<Cursor>,
    /// Result kind [2026-07-28].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// How long the result may be cached, in ms [2026-07-28].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// Who may reuse the cached result [2026-07-28].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Entries of this page that did not decode and were left out (each
    /// logged once by the client); never on the wire. See
    /// [`crate::lenient`].
    #[serde(skip)]
    pub problems: Vec<crate::entry_problem::EntryProblem>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl_paginated!(ListToolsResult, tools, Tool, name);

/// Params of `tools/call` (schema `CallToolRequestParams`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallToolRequestParams {
    /// The tool name.
    pub name: String,
    /// The arguments, an object.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Map<String, Value>>,
    /// Run as a task [2025-11-25]: the result is then a
    /// [`crate::tasks::CreateTaskResult`], not a [`CallToolResult`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskMetadata>,
    /// Answers to the input requests of an earlier `input_required` result [2026-07-28].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_responses: Option<InputResponses>,
    /// The opaque `requestState` of that earlier result, echoed [2026-07-28].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
    /// Request metadata (`progressToken`; in 2026-07-28 the protocol version,
    /// client info and capabilities).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl CallToolRequestParams {
    /// Params calling `name` with `arguments`.
    pub fn new(name: impl Into<String>, arguments: Option<Map<String, Value>>) -> Self {
        CallToolRequestParams {
            name: name.into(),
            arguments,
            ..Default::default()
        }
    }
}

/// Result of `tools/call` (schema `CallToolResult`). A tool-level failure
/// is `is_error: Some(true)` with the reason in `content`, not a JSON-RPC error.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallToolResult {
    /// Unstructured result; unknown block types are kept as
    /// [`ContentBlock::Unknown`].
    pub content: Vec<ContentBlock>,
    /// Structured result, raw JSON [≥2025-06-18].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
    /// The tool failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// Result kind [2026-07-28].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl CallToolResult {
    /// The text of the result: its text blocks, in order, joined with a
    /// newline (other blocks are left out; empty when there is none).
    ///
    /// ```
    /// use mcp_types::content::ContentBlock;
    /// use mcp_types::tools::CallToolResult;
    /// let result = CallToolResult {
    ///     content: vec![ContentBlock::text("5"), ContentBlock::text("done")],
    ///     ..Default::default()
    /// };
    /// assert_eq!(result.text(), "5\ndone");
    /// assert_eq!(CallToolResult::default().text(), "");
    /// ```
    pub fn text(&self) -> String {
        let texts: Vec<&str> = self
            .content
            .iter()
            .filter_map(ContentBlock::as_text)
            .collect();
        texts.join("\n")
    }
}

/// `tools/list` (client → server).
#[derive(Debug)]
pub enum ListTools {}

impl Request for ListTools {
    const METHOD: &'static str = "tools/list";
    type Params = PaginatedParams;
    type Result = ListToolsResult;
    fn set_problems(
        result: &mut ListToolsResult,
        problems: Vec<crate::entry_problem::EntryProblem>,
    ) {
        result.problems = problems;
    }
}

/// `tools/call` (client → server). In 2026-07-28 the result may instead be
/// `input_required`: decode it as
/// [`crate::input::InputRequiredOr`]`<CallToolResult>`.
///
/// A response is decoded by the method that was sent:
///
/// ```
/// use mcp_types::tools::CallTool;
/// use mcp_types::{JsonRpcMessage, Request};
///
/// let wire = br#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"42"}]}}"#;
/// let JsonRpcMessage::Response(resp) = JsonRpcMessage::decode(wire)? else { unreachable!() };
/// let result: <CallTool as Request>::Result = serde_json::from_value(resp.outcome?)?;
/// assert_eq!(result.content[0].as_text(), Some("42"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub enum CallTool {}

impl Request for CallTool {
    const METHOD: &'static str = "tools/call";
    type Params = CallToolRequestParams;
    type Result = CallToolResult;
}
