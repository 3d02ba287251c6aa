//! Completion (spec: `server/utilities/completion`; schema
//! `CompleteRequest`, `CompleteRequestParams`, `CompleteResult`,
//! `PromptReference`, `ResourceTemplateReference` (named
//! `ResourceReference` in 2024-11-05 and 2025-03-26)).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::base::{Meta, ResultType};
use crate::de::tagged::tagged_union;
use crate::method::Request;

/// `ref/prompt`: completes an argument of a prompt (schema `PromptReference`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PromptReference {
    /// The prompt name.
    pub name: String,
    /// Human-readable name [≥2025-06-18].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `ref/resource`: completes a variable of a resource template (schema
/// `ResourceTemplateReference`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ResourceTemplateReference {
    /// The URI template.
    pub uri: String,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// What is being completed, tagged by `"type"`.
#[derive(Debug, Clone, PartialEq)]
pub enum CompletionReference {
    /// `"ref/prompt"`.
    Prompt(PromptReference),
    /// `"ref/resource"`.
    Resource(ResourceTemplateReference),
    /// A reference type this crate does not know, as received.
    Unknown(Value),
}

tagged_union!(CompletionReference, "type", {
    "ref/prompt" => Prompt(PromptReference),
    "ref/resource" => Resource(ResourceTemplateReference),
});

/// The argument being completed (`CompleteRequestParams.argument`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CompletionArgument {
    /// Argument name.
    pub name: String,
    /// The partial value typed so far.
    pub value: String,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Already-resolved arguments (`CompleteRequestParams.context`, 2025-06-18 on).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CompletionContext {
    /// Argument values given so far.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<BTreeMap<String, String>>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Params of `completion/complete` (schema `CompleteRequestParams`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompleteRequestParams {
    /// What is being completed.
    #[serde(rename = "ref")]
    pub reference: CompletionReference,
    /// The argument and its partial value.
    pub argument: CompletionArgument,
    /// Context [≥2025-06-18].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<CompletionContext>,
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The suggestions (`CompleteResult.completion`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Completion {
    /// Up to 100 suggestions.
    pub values: Vec<String>,
    /// Total number of suggestions, possibly more than returned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
    /// More suggestions exist than returned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub has_more: Option<bool>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Result of `completion/complete` (schema `CompleteResult`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CompleteResult {
    /// The suggestions.
    pub completion: Completion,
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

/// `completion/complete` (client → server).
#[derive(Debug)]
pub enum Complete {}

impl Request for Complete {
    const METHOD: &'static str = "completion/complete";
    type Params = CompleteRequestParams;
    type Result = CompleteResult;
}
