//! Roots (spec: `client/roots`; schema `Root`, `ListRootsRequest`,
//! `ListRootsResult`). The list-changed notification is
//! [`crate::notifications::RootsListChanged`].

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::base::{EmptyParams, Meta};
use crate::method::Request;

/// A root the client exposes (schema `Root`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Root {
    /// The root URI; `file://` in current revisions.
    pub uri: String,
    /// Human-readable name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Metadata [≥2025-06-18].
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Result of `roots/list` (schema `ListRootsResult`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ListRootsResult {
    /// The roots.
    pub roots: Vec<Root>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `roots/list` (server → client; in 2026-07-28 an input request).
#[derive(Debug)]
pub enum ListRoots {}

impl Request for ListRoots {
    const METHOD: &'static str = "roots/list";
    type Params = EmptyParams;
    type Result = ListRootsResult;
}
