//! Elicitation (spec: `client/elicitation`, 2025-06-18 on; URL mode
//! 2025-11-25; schema `ElicitRequest`, `ElicitRequestFormParams`,
//! `ElicitRequestURLParams`, `ElicitResult`,
//! `ElicitationCompleteNotification`, `URLElicitationRequiredError`).
//!
//! `requestedSchema` is kept raw: its primitive schema definitions
//! (`StringSchema`, `EnumSchema`, …) are JSON Schema and are not modelled.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::base::{Meta, open_enum};
use crate::method::{Notification, Request};
use crate::tasks::TaskMetadata;

/// Params of a form-mode `elicitation/create` (schema `ElicitRequestFormParams`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElicitRequestFormParams {
    /// `Some("form")` when the server wrote the mode; absent in 2025-06-18.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    /// The message to show the user.
    pub message: String,
    /// A restricted JSON Schema (flat object of primitives), raw.
    pub requested_schema: Value,
    /// Run as a task [2025-11-25].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskMetadata>,
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Params of a URL-mode `elicitation/create` (schema
/// `ElicitRequestURLParams`, 2025-11-25 on). `mode` is `"url"` on the wire.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElicitRequestUrlParams {
    /// The message to show the user.
    pub message: String,
    /// The URL to open, after the user consents.
    pub url: String,
    /// Id correlating `notifications/elicitation/complete` (2025-11-25; absent in 2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation_id: Option<String>,
    /// Run as a task [2025-11-25].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskMetadata>,
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Params of `elicitation/create` (schema `ElicitRequestParams`),
/// discriminated by `mode`: absent or `"form"` is form mode, `"url"` URL
/// mode, anything else [`ElicitRequestParams::Unknown`] (the client should
/// answer it with an error or `decline`).
#[derive(Debug, Clone, PartialEq)]
pub enum ElicitRequestParams {
    /// Form mode.
    Form(ElicitRequestFormParams),
    /// URL mode [≥2025-11-25].
    Url(ElicitRequestUrlParams),
    /// A mode this crate does not know, as received.
    Unknown(Value),
}

impl ElicitRequestParams {
    /// The message to show the user, for any known mode.
    pub fn message(&self) -> Option<&str> {
        match self {
            ElicitRequestParams::Form(f) => Some(&f.message),
            ElicitRequestParams::Url(u) => Some(&u.message),
            ElicitRequestParams::Unknown(v) => v.get("message").and_then(Value::as_str),
        }
    }
}

impl Serialize for ElicitRequestParams {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            ElicitRequestParams::Form(f) => f.serialize(s),
            ElicitRequestParams::Url(u) => crate::de::tagged::serialize_tagged("mode", "url", u, s),
            ElicitRequestParams::Unknown(v) => v.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for ElicitRequestParams {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error as _;
        let Value::Object(mut map) = Value::deserialize(d)? else {
            return Err(D::Error::custom("elicitation params must be a JSON object"));
        };
        let mode = match map.get("mode") {
            None => None,
            Some(Value::String(m)) => Some(m.clone()),
            Some(_) => return Err(D::Error::custom("\"mode\" must be a string")),
        };
        match mode.as_deref() {
            None | Some("form") => serde_json::from_value(Value::Object(map))
                .map(ElicitRequestParams::Form)
                .map_err(D::Error::custom),
            Some("url") => {
                map.remove("mode");
                serde_json::from_value(Value::Object(map))
                    .map(ElicitRequestParams::Url)
                    .map_err(D::Error::custom)
            }
            Some(_) => Ok(ElicitRequestParams::Unknown(Value::Object(map))),
        }
    }
}

open_enum! {
    /// The user's answer (`ElicitResult.action`).
    pub enum ElicitAction {
        /// Submitted / confirmed.
        Accept = "accept",
        /// Explicitly declined.
        Decline = "decline",
        /// Dismissed without a choice.
        Cancel = "cancel",
    }
}

/// Result of `elicitation/create` (schema `ElicitResult`), sent by the client.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ElicitResult {
    /// What the user did.
    pub action: ElicitAction,
    /// The submitted values (form mode, `accept` only): string, number,
    /// boolean or array of strings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<Map<String, Value>>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ElicitResult {
    /// A result with `action` and no content.
    pub fn new(action: ElicitAction) -> Self {
        ElicitResult {
            action,
            content: None,
            meta: None,
            extra: Map::new(),
        }
    }

    /// The user submitted the form: `accept` with the values, keyed by the
    /// requested schema's property names (each a string, number, boolean or
    /// array of strings).
    ///
    /// ```
    /// use mcp_types::elicitation::{ElicitAction, ElicitResult};
    /// let mut content = serde_json::Map::new();
    /// content.insert("name".into(), "Ada".into());
    /// let result = ElicitResult::accept(content);
    /// assert_eq!(result.action, ElicitAction::Accept);
    /// assert_eq!(
    ///     serde_json::to_value(&result).unwrap(),
    ///     serde_json::json!({"action": "accept", "content": {"name": "Ada"}})
    /// );
    /// ```
    pub fn accept(content: Map<String, Value>) -> Self {
        ElicitResult {
            content: Some(content),
            ..ElicitResult::new(ElicitAction::Accept)
        }
    }

    /// The user declined: `decline`, no content.
    pub fn decline() -> Self {
        ElicitResult::new(ElicitAction::Decline)
    }

    /// The user dismissed the request without a choice: `cancel`, no content.
    pub fn cancel() -> Self {
        ElicitResult::new(ElicitAction::Cancel)
    }
}

/// Params of `notifications/elicitation/complete` (2025-11-25).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElicitationCompleteNotificationParams {
    /// The [`ElicitRequestUrlParams::elicitation_id`] that finished.
    pub elicitation_id: String,
    /// Notification metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `data` of a `-32042` URL-elicitation-required error (2025-11-25).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct UrlElicitationRequiredData {
    /// The URL elicitations to complete before retrying.
    pub elicitations: Vec<ElicitRequestUrlParams>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `elicitation/create` (server → client; in 2026-07-28 an input request).
#[derive(Debug)]
pub enum Elicit {}

impl Request for Elicit {
    const METHOD: &'static str = "elicitation/create";
    type Params = ElicitRequestParams;
    type Result = ElicitResult;
}

/// `notifications/elicitation/complete` (server → client, 2025-11-25).
#[derive(Debug)]
pub enum ElicitationComplete {}

impl Notification for ElicitationComplete {
    const METHOD: &'static str = "notifications/elicitation/complete";
    type Params = ElicitationCompleteNotificationParams;
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn mode_discriminates() {
        let form: ElicitRequestParams = serde_json::from_value(
            json!({"message":"m","requestedSchema":{"type":"object","properties":{}}}),
        )
        .unwrap();
        assert!(matches!(form, ElicitRequestParams::Form(_)));
        let v = json!({"mode":"url","message":"m","url":"https://x.example","elicitationId":"e1"});
        let url: ElicitRequestParams = serde_json::from_value(v.clone()).unwrap();
        assert!(
            matches!(&url, ElicitRequestParams::Url(u) if u.elicitation_id.as_deref() == Some("e1"))
        );
        assert_eq!(serde_json::to_value(&url).unwrap(), v);
        let other: ElicitRequestParams =
            serde_json::from_value(json!({"mode":"voice","message":"m"})).unwrap();
        assert!(matches!(other, ElicitRequestParams::Unknown(_)));
        assert_eq!(other.message(), Some("m"));
        // URL mode without its required url is an error.
        assert!(
            serde_json::from_value::<ElicitRequestParams>(json!({"mode":"url","message":"m"}))
                .is_err()
        );
    }
}
