//! [`Toolset`]: the definitions a model sees and the router its calls
//! come back through.

use std::collections::BTreeMap;
use std::sync::Arc;

use mcp_client::{CallOptions, RequestOptions};
use mcp_types::tools::Tool;
use serde::Serialize;
use serde_json::Value;

use crate::Dialect;
use crate::calls::{MalformedCall, ToolCall};
use crate::definitions::{
    AnthropicTool, ChatFunction, ChatTool, Definitions, FunctionDeclaration, FunctionTag,
    GeminiSchema, GeminiTool, ResponsesTool,
};
use crate::names::{NameRules, Names, ServerPrefix, fnv1a64};
use crate::results::{self, Media, ToolResult};
use crate::schema::{self, ArgumentMapping};
use crate::source::{CallFailure, ToolSource};

/// How a [`Toolset`] is made.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ToolsetOptions {
    /// The provider API.
    pub dialect: Dialect,
    /// OpenAI strict mode (`strict: true`) for every tool that has a
    /// strict form; the others are offered non-strict, with a warning.
    /// Ignored by the other dialects. Default `false`.
    pub strict: bool,
    /// Longest tool name, in bytes. Default 64 (every dialect's safe
    /// limit; Anthropic's API takes 128). At least
    /// [`crate::names::MIN_MAX_LEN`].
    pub max_name_len: usize,
    /// Which Gemini schema field is used. Default
    /// [`GeminiSchema::JsonSchema`].
    pub gemini_schema: GeminiSchema,
    /// When names carry their server's name. Default
    /// [`ServerPrefix::WhenShared`].
    pub server_prefix: ServerPrefix,
    /// Longest text of one tool result, in bytes; the rest is cut with a
    /// notice. Default 100 000.
    pub max_result_bytes: usize,
    /// Check a model's arguments against the tool's `inputSchema` before
    /// sending (needs the `schema-validation` feature). Default `true`.
    pub validate_arguments: bool,
    /// Gemini: a result's PNG, JPEG, WebP, HEIC and HEIF images as inline
    /// data in `functionResponse.parts` (multimodal function responses,
    /// which only newer models take). Default `false`: a note for the
    /// model and the image in [`ToolOutcome::media`].
    pub gemini_inline_images: bool,
}

impl ToolsetOptions {
    /// The defaults for `dialect`.
    pub fn new(dialect: Dialect) -> ToolsetOptions {
        ToolsetOptions {
            dialect,
            strict: false,
            max_name_len: 64,
            gemini_schema: GeminiSchema::default(),
            server_prefix: ServerPrefix::default(),
            max_result_bytes: 100_000,
            validate_arguments: true,
            gemini_inline_images: false,
        }
    }

    /// OpenAI strict mode on or off.
    pub fn with_strict(mut self, strict: bool) -> Self {
        self.strict = strict;
        self
    }

    /// The longest tool name (e.g. 128 for Anthropic's API).
    pub fn with_max_name_len(mut self, max: usize) -> Self {
        self.max_name_len = max;
        self
    }

    /// The Gemini schema field.
    pub fn with_gemini_schema(mut self, which: GeminiSchema) -> Self {
        self.gemini_schema = which;
        self
    }

    /// When names carry their server's name.
    pub fn with_server_prefix(mut self, prefix: ServerPrefix) -> Self {
        self.server_prefix = prefix;
        self
    }

    /// The longest text of a tool result, in bytes.
    pub fn with_max_result_bytes(mut self, max: usize) -> Self {
        self.max_result_bytes = max;
        self
    }

    /// Whether arguments are checked against the `inputSchema`.
    pub fn with_validate_arguments(mut self, on: bool) -> Self {
        self.validate_arguments = on;
        self
    }

    /// Gemini: images inline in `functionResponse.parts` (newer models).
    pub fn with_gemini_inline_images(mut self, on: bool) -> Self {
        self.gemini_inline_images = on;
        self
    }
}

/// A tool the model sees under another name than its own.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Renamed {
    /// The server.
    pub server: String,
    /// The tool's own name.
    pub tool: String,
    /// The name the model sees.
    pub name: String,
}

/// A tool left out, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LeftOut {
    /// The server.
    pub server: String,
    /// The tool's own name.
    pub tool: String,
    /// Why its schema could not be converted.
    pub reason: String,
}

/// Something about an offered tool the application should know (offered
/// non-strict, property keys renamed).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Warning {
    /// The server.
    pub server: String,
    /// The tool's own name.
    pub tool: String,
    /// What happened.
    pub message: String,
}

#[derive(Debug, Clone)]
struct Entry {
    server: String,
    tool: Arc<Tool>,
    /// The tool's `inputSchema`, normalized (root object with properties).
    schema: Value,
    mapping: ArgumentMapping,
}

/// How a call ended.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum CallStatus {
    /// The tool ran and succeeded.
    Ok,
    /// The tool ran and reported an error (`isError`).
    ToolError,
    /// The call's JSON was not a tool call of the dialect.
    Malformed,
    /// No tool has the name the model used.
    UnknownName,
    /// The tools changed since the definitions were made; the name is
    /// stale (ask for the definitions again).
    ToolsChanged,
    /// The arguments were not JSON, not an object, or refused by the
    /// tool's `inputSchema`; nothing was sent.
    InvalidArguments,
    /// The call was cancelled.
    Cancelled,
    /// The call failed on the way (server error, timeout, lost or
    /// unavailable server).
    Failed,
}

/// The outcome of a model's tool call: always a result to give the model.
#[derive(Debug, Clone)]
pub struct ToolOutcome {
    /// The tool result in the dialect's form, to put in the conversation.
    pub result: ToolResult,
    /// Images, audio and blobs the result could not carry, for the
    /// application (the result's text names each by its index).
    pub media: Vec<Media>,
    /// How the call ended.
    pub status: CallStatus,
    /// The server and tool the call was routed to, when it was.
    pub routed_to: Option<(String, String)>,
}

/// The definitions of every tool of some servers in one dialect, and the
/// router back: a model's call by a name these definitions gave goes to
/// its server and tool. Built from a snapshot of the tools; its
/// [`version`](Self::version) moves when the tools change.
#[derive(Debug, Clone)]
pub struct Toolset {
    options: ToolsetOptions,
    definitions: Definitions,
    entries: BTreeMap<String, Entry>,
    renamed: Vec<Renamed>,
    left_out: Vec<LeftOut>,
    warnings: Vec<Warning>,
    version: u64,
}

/// The version of a set of tools: a stable hash (FNV-1a 64) of every
/// `(server, tool)` in JSON, independent of the order they come in.
pub fn tools_version<'a>(tools: impl IntoIterator<Item = (&'a str, &'a Tool)>) -> u64 {
    let mut parts: Vec<(String, String)> = tools
        .into_iter()
        .map(|(s, t)| (s.to_owned(), serde_json::to_string(t).unwrap_or_default()))
        .collect();
    parts.sort();
    let mut h = 0u64;
    for (s, t) in &parts {
        h = fnv1a64(&[&h.to_le_bytes(), s.as_bytes(), t.as_bytes()]);
    }
    h
}

impl Toolset {
    /// The definitions of `tools` (`(server, tool)`) in the dialect of
    /// `options`. Never fails: a tool whose schema has no form in the
    /// dialect is left out ([`left_out`](Self::left_out), logged at warn)
    /// and the rest are offered.
    pub fn build(
        tools: impl IntoIterator<Item = (String, Arc<Tool>)>,
        options: ToolsetOptions,
    ) -> Toolset {
        let tools: Vec<(String, Arc<Tool>)> = tools.into_iter().collect();
        let version = tools_version(tools.iter().map(|(s, t)| (s.as_str(), t.as_ref())));
        let dialect = options.dialect;
        let mut left_out = Vec::new();
        let mut warnings = Vec::new();
        // (server, tool) -> (entry, dialect schema, strict)
        let mut converted: BTreeMap<(String, String), (Entry, Option<Value>, bool)> =
            BTreeMap::new();
        for (server, tool) in tools {
            let key = (server.clone(), tool.name.clone());
            if converted.contains_key(&key) {
                continue;
            }
            let leave_out = |reason: String, left_out: &mut Vec<LeftOut>| {
                tracing::warn!(%server, tool = %tool.name, %reason, "tool left out of the model's definitions");
                left_out.push(LeftOut {
                    server: server.clone(),
                    tool: tool.name.clone(),
                    reason,
                });
            };
            let normalized = match schema::normalize_root(&tool.input_schema) {
                Ok(s) => s,
                Err(reason) => {
                    leave_out(reason, &mut left_out);
                    continue;
                }
            };
            let mut mapping = ArgumentMapping::default();
            let mut strict = false;
            let mut warn = |message: String| {
                tracing::warn!(%server, tool = %tool.name, %message, "tool definition");
                warnings.push(Warning {
                    server: server.clone(),
                    tool: tool.name.clone(),
                    message,
                });
            };
            let schema_out = match dialect {
                Dialect::OpenAiChat | Dialect::OpenAiResponses if options.strict => {
                    match schema::make_strict(&normalized) {
                        Ok(s) => {
                            strict = true;
                            mapping.strict_nulls = true;
                            Some(s)
                        }
                        Err(why) => {
                            warn(format!("offered non-strict: {why}"));
                            Some(normalized.clone())
                        }
                    }
                }
                Dialect::OpenAiChat | Dialect::OpenAiResponses => Some(normalized.clone()),
                Dialect::Anthropic => {
                    let mut s = normalized.clone();
                    let n = schema::rename_anthropic_keys(&mut s);
                    if n > 0 {
                        mapping.anthropic_keys = true;
                        warn(format!(
                            "{n} property key(s) renamed to Anthropic's pattern; mapped back on calls"
                        ));
                    }
                    Some(s)
                }
                Dialect::Gemini => match options.gemini_schema {
                    GeminiSchema::JsonSchema => Some(normalized.clone()),
                    GeminiSchema::OpenApi => match schema::to_openapi(&normalized) {
                        Ok(s) => {
                            let empty = s
                                .get("properties")
                                .and_then(Value::as_object)
                                .is_none_or(|p| p.is_empty());
                            (!empty).then_some(s)
                        }
                        Err(reason) => {
                            leave_out(reason, &mut left_out);
                            continue;
                        }
                    },
                },
            };
            let entry = Entry {
                server: server.clone(),
                tool: Arc::clone(&tool),
                schema: normalized,
                mapping,
            };
            converted.insert(key, (entry, schema_out, strict));
        }
        let rules = NameRules::of(dialect, options.max_name_len);
        let names = Names::build(
            converted.keys().map(|(s, t)| (s.as_str(), t.as_str())),
            rules,
            options.server_prefix,
        );
        let mut renamed = Vec::new();
        let mut entries = BTreeMap::new();
        let mut chat = Vec::new();
        let mut responses = Vec::new();
        let mut anthropic = Vec::new();
        let mut gemini = Vec::new();
        // In the order of the names: the same set gives the same bytes.
        for (name, (server, tool_name)) in &names.forward {
            let Some((entry, schema_out, strict)) =
                converted.remove(&(server.clone(), tool_name.clone()))
            else {
                continue;
            };
            if name != tool_name {
                renamed.push(Renamed {
                    server: server.clone(),
                    tool: tool_name.clone(),
                    name: name.clone(),
                });
            }
            let description = entry
                .tool
                .description
                .clone()
                .or_else(|| entry.tool.title.clone())
                .or_else(|| {
                    entry
                        .tool
                        .annotations
                        .as_ref()
                        .and_then(|a| a.title.clone())
                });
            let parameters = schema_out.clone().unwrap_or_else(|| entry.schema.clone());
            match dialect {
                Dialect::OpenAiChat => chat.push(ChatTool {
                    kind: FunctionTag::Function,
                    function: ChatFunction {
                        name: name.clone(),
                        description,
                        parameters,
                        strict,
                    },
                }),
                Dialect::OpenAiResponses => responses.push(ResponsesTool {
                    kind: FunctionTag::Function,
                    name: name.clone(),
                    description,
                    parameters,
                    strict,
                }),
                Dialect::Anthropic => anthropic.push(AnthropicTool {
                    name: name.clone(),
                    description,
                    input_schema: parameters,
                }),
                Dialect::Gemini => {
                    let (parameters, parameters_json_schema) = match options.gemini_schema {
                        GeminiSchema::JsonSchema => (None, Some(parameters)),
                        GeminiSchema::OpenApi => (schema_out, None),
                    };
                    gemini.push(FunctionDeclaration {
                        name: name.clone(),
                        description,
                        parameters,
                        parameters_json_schema,
                    });
                }
            }
            entries.insert(name.clone(), entry);
        }
        let definitions = match dialect {
            Dialect::OpenAiChat => Definitions::OpenAiChat(chat),
            Dialect::OpenAiResponses => Definitions::OpenAiResponses(responses),
            Dialect::Anthropic => Definitions::Anthropic(anthropic),
            Dialect::Gemini if gemini.is_empty() => Definitions::Gemini(Vec::new()),
            Dialect::Gemini => Definitions::Gemini(vec![GeminiTool {
                function_declarations: gemini,
            }]),
        };
        Toolset {
            options,
            definitions,
            entries,
            renamed,
            left_out,
            warnings,
            version,
        }
    }

    /// [`build`](Self::build) from the tools `source` has now.
    ///
    /// Errors: the source's, when its tools could not be listed.
    pub async fn from_source(
        source: &(impl ToolSource + ?Sized),
        options: ToolsetOptions,
    ) -> Result<Toolset, String> {
        Ok(Toolset::build(source.current_tools().await?, options))
    }

    /// The definitions: the request's `tools` member.
    pub fn definitions(&self) -> &Definitions {
        &self.definitions
    }

    /// The options it was built with.
    pub fn options(&self) -> &ToolsetOptions {
        &self.options
    }

    /// The tools offered under another name than their own, sorted by
    /// the name the model sees.
    pub fn renamed(&self) -> &[Renamed] {
        &self.renamed
    }

    /// The tools left out, and why.
    pub fn left_out(&self) -> &[LeftOut] {
        &self.left_out
    }

    /// Notes about offered tools (non-strict fallback, renamed keys).
    pub fn warnings(&self) -> &[Warning] {
        &self.warnings
    }

    /// The version of the tools these definitions were made from
    /// ([`tools_version`]): compare with a source's now to know whether
    /// to build again ([`is_current`](Self::is_current)).
    pub fn version(&self) -> u64 {
        self.version
    }

    /// `true` when `source`'s tools are still those these definitions
    /// were made from (`false` also when they cannot be listed).
    pub async fn is_current(&self, source: &(impl ToolSource + ?Sized)) -> bool {
        match source.current_tools().await {
            Ok(tools) => {
                tools_version(tools.iter().map(|(s, t)| (s.as_str(), t.as_ref()))) == self.version
            }
            Err(_) => false,
        }
    }

    /// The server and tool a model-visible name stands for.
    pub fn route(&self, name: &str) -> Option<(&str, &str)> {
        self.entries
            .get(name)
            .map(|e| (e.server.as_str(), e.tool.name.as_str()))
    }

    /// The name the model sees for `tool` of `server`.
    pub fn name_of(&self, server: &str, tool: &str) -> Option<&str> {
        self.entries
            .iter()
            .find(|(_, e)| e.server == server && e.tool.name == tool)
            .map(|(n, _)| n.as_str())
    }

    /// Every model-visible name, sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.entries.keys().map(String::as_str)
    }

    /// Carries out a model's tool call given as the dialect's JSON (see
    /// [`ToolCall::parse`]) on `source`, with `request`'s timeout,
    /// cancellation and progress. Never fails: a malformed call, an
    /// unknown or stale name, arguments that are not JSON or that the
    /// schema refuses, and a failed call each give a tool-result error
    /// the model can read and act on ([`ToolOutcome::status`] says which).
    pub async fn call(
        &self,
        source: &(impl ToolSource + ?Sized),
        call: &Value,
        request: RequestOptions,
    ) -> ToolOutcome {
        match ToolCall::parse(self.options.dialect, call) {
            Ok(c) => self.call_parsed(source, &c, request).await,
            Err(MalformedCall { reason, id, name }) => {
                tracing::debug!(%reason, "malformed tool call");
                let name = name.unwrap_or_default();
                self.refuse(
                    id.as_deref(),
                    &name,
                    CallStatus::Malformed,
                    &format!("{reason}."),
                    None,
                )
            }
        }
    }

    fn refuse(
        &self,
        id: Option<&str>,
        name: &str,
        status: CallStatus,
        text: &str,
        routed_to: Option<(String, String)>,
    ) -> ToolOutcome {
        ToolOutcome {
            result: results::error_result(self.options.dialect, id, name, text),
            media: Vec::new(),
            status,
            routed_to,
        }
    }

    /// [`call`](Self::call) for a call already read.
    pub async fn call_parsed(
        &self,
        source: &(impl ToolSource + ?Sized),
        call: &ToolCall,
        request: RequestOptions,
    ) -> ToolOutcome {
        let id = call.id.as_deref();
        let name = call.name.as_str();
        let current = source.current_tools().await;
        let changed_text = |what: &str| {
            format!(
                "the tools changed since this tool list was given: {what}. \
                 Ask for the current tool list, then call again."
            )
        };
        let Some(entry) = self.entries.get(name) else {
            let stale = match &current {
                Ok(tools) => {
                    tools_version(tools.iter().map(|(s, t)| (s.as_str(), t.as_ref())))
                        != self.version
                }
                Err(_) => false,
            };
            if stale {
                return self.refuse(
                    id,
                    name,
                    CallStatus::ToolsChanged,
                    &changed_text(&format!("no tool is named {name:?}")),
                    None,
                );
            }
            let mut available: Vec<&str> = self.names().collect();
            let more = available.len().saturating_sub(20);
            available.truncate(20);
            let mut list = available.join(", ");
            if more > 0 {
                list.push_str(&format!(" and {more} more"));
            }
            return self.refuse(
                id,
                name,
                CallStatus::UnknownName,
                &format!("no tool is named {name:?}. The tools are: {list}. Call one of them by its exact name."),
                None,
            );
        };
        let routed = Some((entry.server.clone(), entry.tool.name.clone()));
        // The tool must still be the one the model was shown: its schema
        // (and so the names of its arguments) may have changed.
        let same = match &current {
            Ok(tools) => tools
                .iter()
                .any(|(s, t)| *s == entry.server && t.as_ref() == entry.tool.as_ref()),
            // Unknown: let the call itself tell.
            Err(e) => {
                tracing::debug!(error = %e, "tools not listable before a call; calling anyway");
                true
            }
        };
        if !same {
            return self.refuse(
                id,
                name,
                CallStatus::ToolsChanged,
                &changed_text(&format!("{name:?} is no longer offered as it was")),
                routed,
            );
        }
        let arguments = match call.arguments_object() {
            Ok(a) => a,
            Err(why) => {
                return self.refuse(
                    id,
                    name,
                    CallStatus::InvalidArguments,
                    &format!("{why}."),
                    routed,
                );
            }
        };
        let arguments =
            match schema::map_arguments(&entry.schema, Value::Object(arguments), entry.mapping) {
                Value::Object(a) => a,
                _ => serde_json::Map::new(),
            };
        let mut options = CallOptions::from(request);
        options.validate_arguments = self.options.validate_arguments;
        match source
            .call_tool(&entry.server, &entry.tool.name, arguments, options)
            .await
        {
            Ok(result) => {
                let (converted, media) = results::convert(
                    self.options.dialect,
                    id,
                    name,
                    &result,
                    results::ResultOptions {
                        max_bytes: self.options.max_result_bytes,
                        gemini_inline_images: self.options.gemini_inline_images,
                    },
                );
                let status = if result.is_error == Some(true) {
                    CallStatus::ToolError
                } else {
                    CallStatus::Ok
                };
                ToolOutcome {
                    result: converted,
                    media,
                    status,
                    routed_to: routed,
                }
            }
            Err(CallFailure::InvalidArguments(why)) => self.refuse(
                id,
                name,
                CallStatus::InvalidArguments,
                &format!("{why}. Fix the arguments and call again."),
                routed,
            ),
            Err(CallFailure::ToolGone) => self.refuse(
                id,
                name,
                CallStatus::ToolsChanged,
                &changed_text(&format!("{name:?} is no longer offered")),
                routed,
            ),
            Err(CallFailure::Cancelled) => self.refuse(
                id,
                name,
                CallStatus::Cancelled,
                "the call was cancelled.",
                routed,
            ),
            Err(CallFailure::Failed(why)) => {
                tracing::warn!(server = %entry.server, tool = %entry.tool.name, error = %why, "tool call failed");
                self.refuse(
                    id,
                    name,
                    CallStatus::Failed,
                    &format!("the call failed: {why}"),
                    routed,
                )
            }
        }
    }
}
