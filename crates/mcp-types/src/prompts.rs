//! Prompts (spec: `server/prompts`; schema `Prompt`, `PromptArgument`,
//! `PromptMessage`, `ListPromptsRequest`/`Result`, `GetPromptRequest`/`Result`).
//! The list-changed notification is [`crate::notifications::PromptListChanged`].

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::base::{
    CacheScope, Cursor, Icon, Meta, PaginatedParams, ResultType, Role, impl_paginated,
};
use crate::content::ContentBlock;
use crate::input::InputResponses;
use crate::method::Request;

/// A prompt template the server offers (schema `Prompt`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Prompt {
    /// Programmatic name, used in `prompts/get`.
    pub name: String,
    /// Human-readable name [≥2025-06-18].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Arguments the template takes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Vec<PromptArgument>>,
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

/// An argument of a prompt (schema `PromptArgument`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptArgument {
    /// Argument name.
    pub name: String,
    /// Human-readable name [≥2025-06-18].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Whether it must be given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One message of a prompt (schema `PromptMessage`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PromptMessage {
    /// Who speaks.
    pub role: Role,
    /// The content; unknown types are kept as [`ContentBlock::Unknown`].
    pub content: ContentBlock,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Result of `prompts/list` (schema `ListPromptsResult`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListPromptsResult {
    /// This page of prompts.
    pub prompts: Vec<Prompt>,
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

impl_paginated!(ListPromptsResult, prompts, Prompt, name);

/// Params of `prompts/get` (schema `GetPromptRequestParams`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetPromptRequestParams {
    /// The prompt name.
    pub name: String,
    /// Argument values (strings).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<BTreeMap<String, String>>,
    /// Answers to an earlier `input_required` result [2026-07-28].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_responses: Option<InputResponses>,
    /// The echoed `requestState` [2026-07-28].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Result of `prompts/get` (schema `GetPromptResult`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetPromptResult {
    /// Description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The messages.
    pub messages: Vec<PromptMessage>,
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

/// `prompts/list` (client → server).
#[derive(Debug)]
pub enum ListPrompts {}

impl Request for ListPrompts {
    const METHOD: &'static str = "prompts/list";
    type Params = PaginatedParams;
    type Result = ListPromptsResult;
    fn set_problems(
        result: &mut ListPromptsResult,
        problems: Vec<crate::entry_problem::EntryProblem>,
    ) {
        result.problems = problems;
    }
}

/// `prompts/get` (client → server). In 2026-07-28 decode the result as
/// [`crate::input::InputRequiredOr`]`<GetPromptResult>`.
#[derive(Debug)]
pub enum GetPrompt {}

impl Request for GetPrompt {
    const METHOD: &'static str = "prompts/get";
    type Params = GetPromptRequestParams;
    type Result = GetPromptResult;
}
