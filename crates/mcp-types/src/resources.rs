//! Resources (spec: `server/resources`; schema `Resource`,
//! `ResourceTemplate`, `ListResourcesRequest`/`Result`,
//! `ListResourceTemplatesRequest`/`Result`, `ReadResourceRequest`/`Result`,
//! `SubscribeRequest`, `UnsubscribeRequest`, `ResourceUpdatedNotification`).
//! Contents types live in [`crate::content`]; the list-changed notification
//! is [`crate::notifications::ResourceListChanged`].

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::base::{
    Annotations, CacheScope, Cursor, EmptyResult, Icon, Meta, PaginatedParams, ResultType,
    impl_paginated,
};
use crate::content::ResourceContents;
use crate::input::InputResponses;
use crate::method::{Notification, Request};

/// A resource the server offers (schema `Resource`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Resource {
    /// The resource URI.
    pub uri: String,
    /// Programmatic name.
    pub name: String,
    /// Human-readable name [≥2025-06-18].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Size of the raw content, in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Icons [≥2025-11-25].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
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

/// A parameterised family of resources (schema `ResourceTemplate`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceTemplate {
    /// RFC 6570 URI template.
    pub uri_template: String,
    /// Programmatic name.
    pub name: String,
    /// Human-readable name [≥2025-06-18].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// MIME type of every matching resource, when uniform.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Icons [≥2025-11-25].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
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

/// Result of `resources/list` (schema `ListResourcesResult`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListResourcesResult {
    /// This page of resources.
    pub resources: Vec<Resource>,
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

impl_paginated!(ListResourcesResult, resources, Resource, uri);

/// Result of `resources/templates/list` (schema `ListResourceTemplatesResult`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListResourceTemplatesResult {
    /// This page of templates.
    pub resource_templates: Vec<ResourceTemplate>,
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

impl_paginated!(
    ListResourceTemplatesResult,
    resource_templates,
    ResourceTemplate,
    uri_template
);

/// Params of `resources/read` (schema `ReadResourceRequestParams`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadResourceRequestParams {
    /// The resource URI.
    pub uri: String,
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

/// Result of `resources/read` (schema `ReadResourceResult`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadResourceResult {
    /// The contents (one resource may yield several, e.g. a directory).
    pub contents: Vec<ResourceContents>,
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
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Params naming one resource (schema `SubscribeRequestParams`,
/// `UnsubscribeRequestParams`, `ResourceUpdatedNotificationParams`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceUriParams {
    /// The resource URI.
    pub uri: String,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ResourceUriParams {
    /// Params for `uri`.
    pub fn new(uri: impl Into<String>) -> Self {
        ResourceUriParams {
            uri: uri.into(),
            ..Default::default()
        }
    }
}

/// `resources/list` (client → server).
#[derive(Debug)]
pub enum ListResources {}

impl Request for ListResources {
    const METHOD: &'static str = "resources/list";
    type Params = PaginatedParams;
    type Result = ListResourcesResult;
    fn set_problems(
        result: &mut ListResourcesResult,
        problems: Vec<crate::entry_problem::EntryProblem>,
    ) {
        result.problems = problems;
    }
}

/// `resources/templates/list` (client → server).
#[derive(Debug)]
pub enum ListResourceTemplates {}

impl Request for ListResourceTemplates {
    const METHOD: &'static str = "resources/templates/list";
    type Params = PaginatedParams;
    type Result = ListResourceTemplatesResult;
    fn set_problems(
        result: &mut ListResourceTemplatesResult,
        problems: Vec<crate::entry_problem::EntryProblem>,
    ) {
        result.problems = problems;
    }
}

/// `resources/read` (client → server). In 2026-07-28 decode the result as
/// [`crate::input::InputRequiredOr`]`<ReadResourceResult>`.
#[derive(Debug)]
pub enum ReadResource {}

impl Request for ReadResource {
    const METHOD: &'static str = "resources/read";
    type Params = ReadResourceRequestParams;
    type Result = ReadResourceResult;
}

/// `resources/subscribe` (client → server, ≤2025-11-25; replaced by
/// `subscriptions/listen` in 2026-07-28).
#[derive(Debug)]
pub enum Subscribe {}

impl Request for Subscribe {
    const METHOD: &'static str = "resources/subscribe";
    type Params = ResourceUriParams;
    type Result = EmptyResult;
}

/// `resources/unsubscribe` (client → server, ≤2025-11-25).
#[derive(Debug)]
pub enum Unsubscribe {}

impl Request for Unsubscribe {
    const METHOD: &'static str = "resources/unsubscribe";
    type Params = ResourceUriParams;
    type Result = EmptyResult;
}

/// `notifications/resources/updated` (server → client).
#[derive(Debug)]
pub enum ResourceUpdated {}

impl Notification for ResourceUpdated {
    const METHOD: &'static str = "notifications/resources/updated";
    type Params = ResourceUriParams;
}
