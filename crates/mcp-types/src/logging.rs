//! Logging (spec: `server/utilities/logging`; schema `LoggingLevel`,
//! `SetLevelRequest`, `LoggingMessageNotification`).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::base::{EmptyResult, Meta, open_enum};
use crate::method::{Notification, Request};

open_enum! {
    /// Syslog severity (RFC 5424) of a log message (schema `LoggingLevel`).
    /// Unknown levels (e.g. `"verbose"`, which some servers send) decode to
    /// [`LoggingLevel::Other`] instead of failing the notification.
    pub enum LoggingLevel {
        /// `debug`.
        Debug = "debug",
        /// `info`.
        Info = "info",
        /// `notice`.
        Notice = "notice",
        /// `warning`.
        Warning = "warning",
        /// `error`.
        Error = "error",
        /// `critical`.
        Critical = "critical",
        /// `alert`.
        Alert = "alert",
        /// `emergency`.
        Emergency = "emergency",
    }
}

impl LoggingLevel {
    /// Severity rank: `debug` = 0 … `emergency` = 7; `None` for an unknown level.
    pub fn severity(&self) -> Option<u8> {
        Some(match self {
            LoggingLevel::Debug => 0,
            LoggingLevel::Info => 1,
            LoggingLevel::Notice => 2,
            LoggingLevel::Warning => 3,
            LoggingLevel::Error => 4,
            LoggingLevel::Critical => 5,
            LoggingLevel::Alert => 6,
            LoggingLevel::Emergency => 7,
            LoggingLevel::Other(_) => return None,
        })
    }
}

/// Params of `logging/setLevel` (schema `SetLevelRequestParams`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SetLevelRequestParams {
    /// The minimum level the server should send.
    pub level: LoggingLevel,
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Params of `notifications/message` (schema `LoggingMessageNotificationParams`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoggingMessageNotificationParams {
    /// Severity; unknown values are kept in [`LoggingLevel::Other`].
    pub level: LoggingLevel,
    /// Logger name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logger: Option<String>,
    /// Any JSON value.
    pub data: Value,
    /// Notification metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `logging/setLevel` (client → server, ≤2025-11-25; in 2026-07-28 the level
/// travels in `_meta` instead).
#[derive(Debug)]
pub enum SetLevel {}

impl Request for SetLevel {
    const METHOD: &'static str = "logging/setLevel";
    type Params = SetLevelRequestParams;
    type Result = EmptyResult;
}

/// `notifications/message` (server → client).
#[derive(Debug)]
pub enum LoggingMessage {}

impl Notification for LoggingMessage {
    const METHOD: &'static str = "notifications/message";
    type Params = LoggingMessageNotificationParams;
}
