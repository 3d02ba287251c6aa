//! Subscriptions (2026-07-28, spec `basic/subscriptions`; schema
//! `SubscriptionFilter`, `SubscriptionsListenRequest`,
//! `SubscriptionsListenResult`, `SubscriptionsAcknowledgedNotification`):
//! one long-lived request that receives the list-changed and
//! resource-updated notifications the filter selects.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::base::{Meta, ResultType};
use crate::method::{Notification, Request};

/// Which notifications to receive (schema `SubscriptionFilter`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionFilter {
    /// `notifications/tools/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools_list_changed: Option<bool>,
    /// `notifications/prompts/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts_list_changed: Option<bool>,
    /// `notifications/resources/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources_list_changed: Option<bool>,
    /// URIs to receive `notifications/resources/updated` for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_subscriptions: Option<Vec<String>>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Params of `subscriptions/listen` and of
/// `notifications/subscriptions/acknowledged`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SubscriptionsParams {
    /// The filter requested (request) or granted (notification).
    pub notifications: SubscriptionFilter,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Result of `subscriptions/listen`, sent when the subscription ends
/// (schema `SubscriptionsListenResult`); `_meta` carries the subscription id
/// under [`crate::base::META_SUBSCRIPTION_ID`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionsListenResult {
    /// Result kind.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `subscriptions/listen` (client → server, 2026-07-28).
#[derive(Debug)]
pub enum SubscriptionsListen {}

impl Request for SubscriptionsListen {
    const METHOD: &'static str = "subscriptions/listen";
    type Params = SubscriptionsParams;
    type Result = SubscriptionsListenResult;
}

/// `notifications/subscriptions/acknowledged` (server → client, 2026-07-28).
#[derive(Debug)]
pub enum SubscriptionsAcknowledged {}

impl Notification for SubscriptionsAcknowledged {
    const METHOD: &'static str = "notifications/subscriptions/acknowledged";
    type Params = SubscriptionsParams;
}
