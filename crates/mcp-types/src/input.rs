//! Multi round-trip requests (2026-07-28, spec `basic/mrtr`; schema
//! `InputRequiredResult`, `InputRequest`, `InputRequests`, `InputResponse`,
//! `InputResponses`, `InputResponseRequestParams`).
//!
//! Instead of sending `sampling/createMessage`, `roots/list` or
//! `elicitation/create` as requests, a 2026-07-28 server answers
//! `tools/call`, `prompts/get` or `resources/read` with
//! `"resultType": "input_required"` and a map of input requests. The client
//! answers each and repeats the original request with `inputResponses`
//! (same keys) and the echoed `requestState`.

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::Request;
use crate::base::{EmptyParams, Meta, ResultType};
use crate::elicitation::{Elicit, ElicitRequestParams, ElicitResult};
use crate::roots::{ListRoots, ListRootsResult};
use crate::sampling::{CreateMessage, CreateMessageRequestParams, CreateMessageResult};

/// One input request (schema `InputRequest`), discriminated by `method`.
#[derive(Debug, Clone, PartialEq)]
pub enum InputRequest {
    /// `sampling/createMessage` (boxed: the params are large).
    CreateMessage(Box<CreateMessageRequestParams>),
    /// `roots/list`; `params` is optional on the wire.
    ListRoots(Option<EmptyParams>),
    /// `elicitation/create`.
    Elicit(ElicitRequestParams),
    /// A method this crate does not know, as received (`method` and `params`).
    Unknown(Value),
}

impl InputRequest {
    /// The method name.
    pub fn method(&self) -> &str {
        match self {
            InputRequest::CreateMessage(_) => CreateMessage::METHOD,
            InputRequest::ListRoots(_) => ListRoots::METHOD,
            InputRequest::Elicit(_) => Elicit::METHOD,
            InputRequest::Unknown(v) => v.get("method").and_then(Value::as_str).unwrap_or(""),
        }
    }
}

impl Serialize for InputRequest {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        fn entry<S: Serializer, P: Serialize>(
            s: S,
            method: &str,
            params: Option<&P>,
        ) -> Result<S::Ok, S::Error> {
            let mut m = s.serialize_map(None)?;
            m.serialize_entry("method", method)?;
            if let Some(p) = params {
                m.serialize_entry("params", p)?;
            }
            m.end()
        }
        match self {
            InputRequest::CreateMessage(p) => entry(s, self.method(), Some(p.as_ref())),
            InputRequest::ListRoots(p) => entry(s, self.method(), p.as_ref()),
            InputRequest::Elicit(p) => entry(s, self.method(), Some(p)),
            InputRequest::Unknown(v) => v.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for InputRequest {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error as _;
        let value = Value::deserialize(d)?;
        let Value::Object(map) = &value else {
            return Err(D::Error::custom("an input request must be a JSON object"));
        };
        let method = match map.get("method") {
            Some(Value::String(m)) => m.as_str(),
            _ => {
                return Err(D::Error::custom(
                    "an input request needs a string \"method\"",
                ));
            }
        };
        let params = map.get("params").cloned();
        let need = |p: Option<Value>| {
            p.ok_or_else(|| D::Error::custom(format!("{method}: missing \"params\"")))
        };
        match method {
            CreateMessage::METHOD => serde_json::from_value(need(params)?)
                .map(|p| InputRequest::CreateMessage(Box::new(p)))
                .map_err(D::Error::custom),
            Elicit::METHOD => serde_json::from_value(need(params)?)
                .map(InputRequest::Elicit)
                .map_err(D::Error::custom),
            ListRoots::METHOD => params
                .map(serde_json::from_value)
                .transpose()
                .map(InputRequest::ListRoots)
                .map_err(D::Error::custom),
            _ => Ok(InputRequest::Unknown(value)),
        }
    }
}

/// One input response (schema `InputResponse`). The key it is stored under
/// says which input request it answers; decoding tells the shapes apart by
/// their required members (`action`, `roots`, `model`), never by trial.
#[derive(Debug, Clone, PartialEq)]
pub enum InputResponse {
    /// Answer to `sampling/createMessage`.
    CreateMessage(CreateMessageResult),
    /// Answer to `roots/list`.
    ListRoots(ListRootsResult),
    /// Answer to `elicitation/create`.
    Elicit(ElicitResult),
    /// A shape this crate does not recognise, as received.
    Unknown(Value),
}

impl Serialize for InputResponse {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            InputResponse::CreateMessage(r) => r.serialize(s),
            InputResponse::ListRoots(r) => r.serialize(s),
            InputResponse::Elicit(r) => r.serialize(s),
            InputResponse::Unknown(v) => v.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for InputResponse {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error as _;
        let value = Value::deserialize(d)?;
        let Value::Object(map) = &value else {
            return Err(D::Error::custom("an input response must be a JSON object"));
        };
        if map.contains_key("action") {
            serde_json::from_value(value)
                .map(InputResponse::Elicit)
                .map_err(D::Error::custom)
        } else if map.contains_key("roots") {
            serde_json::from_value(value)
                .map(InputResponse::ListRoots)
                .map_err(D::Error::custom)
        } else if map.contains_key("model") {
            serde_json::from_value(value)
                .map(InputResponse::CreateMessage)
                .map_err(D::Error::custom)
        } else {
            Ok(InputResponse::Unknown(value))
        }
    }
}

/// Input requests keyed by server-chosen ids (schema `InputRequests`).
pub type InputRequests = BTreeMap<String, InputRequest>;

/// Input responses keyed by the ids of the requests they answer (schema `InputResponses`).
pub type InputResponses = BTreeMap<String, InputResponse>;

/// A result asking for input first (schema `InputRequiredResult`,
/// `"resultType": "input_required"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InputRequiredResult {
    /// Always [`ResultType::InputRequired`].
    pub result_type: ResultType,
    /// What the server needs answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_requests: Option<InputRequests>,
    /// Opaque state to echo in the retried request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Params of a retried request (schema `InputResponseRequestParams`); the
/// same members appear on `tools/call`, `prompts/get` and `resources/read` params.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InputResponseRequestParams {
    /// Answers, keyed like the input requests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_responses: Option<InputResponses>,
    /// The echoed `requestState`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for a faithful round trip.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The result of a request that may ask for input (2026-07-28, e.g. schema
/// `CallToolResultResponse.result`): decided by `resultType` alone —
/// `"input_required"` gives [`InputRequiredOr::InputRequired`], anything
/// else (including absent, as in older revisions) decodes `T`.
#[derive(Debug, Clone, PartialEq)]
pub enum InputRequiredOr<T> {
    /// The final result.
    Complete(T),
    /// The server needs input first.
    InputRequired(InputRequiredResult),
}

impl<T: Serialize> Serialize for InputRequiredOr<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            InputRequiredOr::Complete(t) => t.serialize(s),
            InputRequiredOr::InputRequired(r) => r.serialize(s),
        }
    }
}

impl<'de, T: serde::de::DeserializeOwned> Deserialize<'de> for InputRequiredOr<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error as _;
        let value = Value::deserialize(d)?;
        let input_required =
            value.get("resultType").and_then(Value::as_str) == Some("input_required");
        if input_required {
            serde_json::from_value(value)
                .map(InputRequiredOr::InputRequired)
                .map_err(D::Error::custom)
        } else {
            serde_json::from_value(value)
                .map(InputRequiredOr::Complete)
                .map_err(D::Error::custom)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::CallToolResult;
    use serde_json::json;

    #[test]
    fn result_type_decides() {
        let r: InputRequiredOr<CallToolResult> =
            serde_json::from_value(json!({"resultType":"input_required","requestState":"s"}))
                .unwrap();
        assert!(
            matches!(r, InputRequiredOr::InputRequired(ref i) if i.request_state.as_deref() == Some("s"))
        );
        let r: InputRequiredOr<CallToolResult> =
            serde_json::from_value(json!({"content":[]})).unwrap();
        assert!(matches!(r, InputRequiredOr::Complete(_)));
        // A complete result that is malformed is an error, not input_required.
        assert!(
            serde_json::from_value::<InputRequiredOr<CallToolResult>>(
                json!({"resultType":"complete"})
            )
            .is_err()
        );
    }

    #[test]
    fn unknown_input_request_kept() {
        let v = json!({"method":"vendor/ask","params":{"q":1}});
        let r: InputRequest = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(r.method(), "vendor/ask");
        assert_eq!(serde_json::to_value(&r).unwrap(), v);
        let roots: InputRequest = serde_json::from_value(json!({"method":"roots/list"})).unwrap();
        assert_eq!(roots, InputRequest::ListRoots(None));
        assert!(
            serde_json::from_value::<InputRequest>(json!({"method":"elicitation/create"})).is_err()
        );
    }
}
