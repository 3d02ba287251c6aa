//! Notifications shared by every feature (spec: `basic/utilities/progress`,
//! `basic/utilities/cancellation`; the `list_changed` notifications of
//! `server/tools`, `server/prompts`, `server/resources` and `client/roots`).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::base::{Meta, NotificationParams, ProgressToken, compact_f64, compact_opt_f64};
use crate::jsonrpc::RequestId;
use crate::method::Notification;

/// Params of `notifications/progress` (schema `ProgressNotificationParams`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProgressNotificationParams {
    /// The token from the request's `_meta.progressToken`.
    pub progress_token: ProgressToken,
    /// Progress so far; must increase with each notification.
    #[serde(serialize_with = "compact_f64")]
    pub progress: f64,
    /// Total, when known.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "compact_opt_f64"
    )]
    pub total: Option<f64>,
    /// Human-readable progress message [≥2025-03-26].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Notification metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Params of `notifications/cancelled` (schema `CancelledNotificationParams`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CancelledNotificationParams {
    /// The request to cancel. Required except in 2025-11-25, where a task
    /// is cancelled with `tasks/cancel` instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<RequestId>,
    /// Why, for logs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Notification metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl CancelledNotificationParams {
    /// Cancels `request_id` with an optional reason.
    pub fn new(request_id: RequestId, reason: Option<String>) -> Self {
        CancelledNotificationParams {
            request_id: Some(request_id),
            reason,
            ..Default::default()
        }
    }
}

/// `notifications/progress` (either direction; schema
/// `ProgressNotification`).
#[derive(Debug)]
pub enum ProgressNotification {}

impl Notification for ProgressNotification {
    const METHOD: &'static str = "notifications/progress";
    type Params = ProgressNotificationParams;
}

/// `notifications/cancelled` (either direction).
#[derive(Debug)]
pub enum Cancelled {}

impl Notification for Cancelled {
    const METHOD: &'static str = "notifications/cancelled";
    type Params = CancelledNotificationParams;
}

/// `notifications/tools/list_changed` (server → client).
#[derive(Debug)]
pub enum ToolListChanged {}

impl Notification for ToolListChanged {
    const METHOD: &'static str = "notifications/tools/list_changed";
    type Params = NotificationParams;
}

/// `notifications/prompts/list_changed` (server → client).
#[derive(Debug)]
pub enum PromptListChanged {}

impl Notification for PromptListChanged {
    const METHOD: &'static str = "notifications/prompts/list_changed";
    type Params = NotificationParams;
}

/// `notifications/resources/list_changed` (server → client).
#[derive(Debug)]
pub enum ResourceListChanged {}

impl Notification for ResourceListChanged {
    const METHOD: &'static str = "notifications/resources/list_changed";
    type Params = NotificationParams;
}

/// `notifications/roots/list_changed` (client → server, ≤2025-11-25).
#[derive(Debug)]
pub enum RootsListChanged {}

impl Notification for RootsListChanged {
    const METHOD: &'static str = "notifications/roots/list_changed";
    type Params = NotificationParams;
}
