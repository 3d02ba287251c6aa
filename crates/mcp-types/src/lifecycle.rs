//! Lifecycle (spec: `basic/lifecycle`; schema `InitializeRequest`,
//! `InitializeResult`, `InitializedNotification`, `ClientCapabilities`,
//! `ServerCapabilities`) and `ping` (spec: `basic/utilities/ping`).
//!
//! 2024-11-05 … 2025-11-25 start with `initialize`; 2026-07-28 has no
//! handshake (see [`crate::discovery`]) but reuses the capability types,
//! sent in every request's `_meta`.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::base::{EmptyParams, EmptyResult, Implementation, JsonObject, Meta, NotificationParams};
use crate::method::{Notification, Request};

/// Params of `initialize` (schema `InitializeRequestParams`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeRequestParams {
    /// The newest revision the client speaks, e.g. `"2025-11-25"`.
    pub protocol_version: String,
    /// What the client supports.
    pub capabilities: ClientCapabilities,
    /// Who the client is.
    pub client_info: Implementation,
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Result of `initialize` (schema `InitializeResult`).
///
/// `protocol_version` is a string: a server may answer with a revision this
/// crate does not speak, which the client must detect
/// ([`crate::ProtocolVersion::parse`] gives `None`) and then disconnect.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeResult {
    /// The revision the server chose.
    pub protocol_version: String,
    /// What the server supports.
    pub capabilities: ServerCapabilities,
    /// Who the server is.
    pub server_info: Implementation,
    /// Usage hints for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Capabilities a client declares (schema `ClientCapabilities`). A present
/// member means supported; unknown members are kept in `extra`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClientCapabilities {
    /// Non-standard experimental capabilities.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experimental: Option<Map<String, Value>>,
    /// Roots support (`roots/list`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roots: Option<RootsCapability>,
    /// Sampling support (`sampling/createMessage`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampling: Option<SamplingCapability>,
    /// Elicitation support (`elicitation/create`) [≥2025-06-18].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation: Option<ElicitationCapability>,
    /// Task support as a receiver [2025-11-25 only].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tasks: Option<ClientTasksCapability>,
    /// Extensions, keyed by extension id [2026-07-28].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<Map<String, Value>>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `ClientCapabilities.roots`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RootsCapability {
    /// The client sends `notifications/roots/list_changed` (≤2025-11-25).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `ClientCapabilities.sampling`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SamplingCapability {
    /// The client honours `includeContext` other than `"none"` [≥2025-11-25, soft-deprecated].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<JsonObject>,
    /// The client supports `tools` / `toolChoice` in sampling [≥2025-11-25].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<JsonObject>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `ClientCapabilities.elicitation`. An empty object means form mode only.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElicitationCapability {
    /// Form mode [≥2025-11-25 as an explicit member].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub form: Option<JsonObject>,
    /// URL mode [≥2025-11-25].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<JsonObject>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ElicitationCapability {
    /// Form mode is supported: declared explicitly, or implied by `{}`.
    pub fn supports_form(&self) -> bool {
        self.form.is_some() || self.url.is_none()
    }

    /// URL mode is supported.
    pub fn supports_url(&self) -> bool {
        self.url.is_some()
    }
}

/// `ClientCapabilities.tasks` [2025-11-25].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClientTasksCapability {
    /// The client answers `tasks/list`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list: Option<JsonObject>,
    /// The client answers `tasks/cancel`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancel: Option<JsonObject>,
    /// Which server→client requests may be task-augmented.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requests: Option<ClientTaskRequests>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `ClientCapabilities.tasks.requests` [2025-11-25].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClientTaskRequests {
    /// `{"createMessage": {}}` when `sampling/createMessage` may be task-augmented.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampling: Option<JsonObject>,
    /// `{"create": {}}` when `elicitation/create` may be task-augmented.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation: Option<JsonObject>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Capabilities a server declares (schema `ServerCapabilities`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerCapabilities {
    /// Non-standard experimental capabilities.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experimental: Option<Map<String, Value>>,
    /// The server sends `notifications/message` and accepts `logging/setLevel`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logging: Option<JsonObject>,
    /// The server answers `completion/complete` [≥2025-03-26].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completions: Option<JsonObject>,
    /// The server offers prompts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts: Option<PromptsCapability>,
    /// The server offers resources.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<ResourcesCapability>,
    /// The server offers tools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<ToolsCapability>,
    /// Task support [2025-11-25 only].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tasks: Option<ServerTasksCapability>,
    /// Extensions, keyed by extension id [2026-07-28].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<Map<String, Value>>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `ServerCapabilities.prompts`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptsCapability {
    /// The server sends `notifications/prompts/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `ServerCapabilities.resources`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourcesCapability {
    /// The server accepts `resources/subscribe`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subscribe: Option<bool>,
    /// The server sends `notifications/resources/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `ServerCapabilities.tools`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolsCapability {
    /// The server sends `notifications/tools/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `ServerCapabilities.tasks` [2025-11-25].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerTasksCapability {
    /// The server answers `tasks/list`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list: Option<JsonObject>,
    /// The server answers `tasks/cancel`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancel: Option<JsonObject>,
    /// Which requests may be task-augmented: `{"tools": {"call": {}}}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requests: Option<ServerTaskRequests>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `ServerCapabilities.tasks.requests` [2025-11-25].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerTaskRequests {
    /// `{"call": {}}` when `tools/call` may be task-augmented.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<JsonObject>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `initialize` (client → server, ≤2025-11-25): the first request of a connection.
#[derive(Debug)]
pub enum Initialize {}

impl Request for Initialize {
    const METHOD: &'static str = "initialize";
    type Params = InitializeRequestParams;
    type Result = InitializeResult;
}

/// `notifications/initialized` (client → server, ≤2025-11-25): sent after a
/// successful `initialize` result.
#[derive(Debug)]
pub enum Initialized {}

impl Notification for Initialized {
    const METHOD: &'static str = "notifications/initialized";
    type Params = NotificationParams;
}

/// `ping` (either direction; spec `basic/utilities/ping`): answered with an
/// empty result.
#[derive(Debug)]
pub enum Ping {}

impl Request for Ping {
    const METHOD: &'static str = "ping";
    type Params = EmptyParams;
    type Result = EmptyResult;
}
