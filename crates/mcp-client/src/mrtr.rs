//! Multi round-trip requests (2026-07-28 `basic/patterns/mrtr`): a
//! `tools/call`, `prompts/get` or `resources/read` answered with
//! `"resultType": "input_required"` is completed here.
//!
//! Each round: every input request (`elicitation/create`,
//! `sampling/createMessage`, `roots/list`) is answered through the
//! [`crate::ClientHandler`] — the same handler and capability checks that
//! answer server requests of the handshake revisions — and the original
//! request is sent again as a new request (new id, fresh `_meta` and
//! headers) with `inputResponses` under the same keys and `requestState`
//! echoed verbatim (omitted when the server gave none). A state-only round
//! (no input requests) is retried after a short backoff. The loop stops
//! after [`crate::ClientOptions::max_input_rounds`] rounds.
//!
//! The loop is a layer around the pipeline (`connection/pipeline.rs`):
//! [`send`] sends the request through it, and each retry is one more
//! request through it, with its own recoveries.

use std::collections::BTreeMap;
use std::time::Duration;

use mcp_transport::{RequestOptions, TransportError};
use mcp_types::prompts::GetPrompt;
use mcp_types::resources::ReadResource;
use mcp_types::tools::CallTool;
use mcp_types::{RawResult, Request, RequestId};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::codec;
use crate::connection::Connection;
use crate::error::{ClientError, Incompatibility, ServerFault};
use crate::server_requests::{self, SERVER_REQUESTS, ServerParams, ServerRequest};

/// The methods whose result may be `input_required` (spec § Supported Requests).
const INPUT_METHODS: [&str; 3] = [CallTool::METHOD, GetPrompt::METHOD, ReadResource::METHOD];

/// The longest pause before retrying a state-only round: 2 000 ms.
const MAX_STATE_ONLY_DELAY: Duration = Duration::from_millis(2_000);

fn misbehaved(method: &str, fault: ServerFault) -> ClientError {
    ClientError::ServerMisbehaved {
        method: method.to_owned(),
        fault,
    }
}

/// Sends `method` through the pipeline ([`Connection::send`]) and, in a
/// session of the stateless revision, completes a result that asks for
/// input: each round is one more request through the pipeline.
///
/// Errors: the pipeline's, and those of [`complete`].
pub(crate) async fn send(
    conn: &Connection,
    method: &str,
    params: Option<Value>,
    options: RequestOptions,
) -> Result<RawResult, ClientError> {
    let stateless = conn.session().is_some_and(|s| s.is_stateless());
    let result = conn.send(method, params.as_ref(), options.clone()).await?;
    if !stateless || !codec::is_input_required(&result) {
        return Ok(result);
    }
    complete(conn, method, params, &options, result).await
}

/// Completes `method` whose first result `result` asked for input: answers
/// and retries until a result that is not `input_required` arrives.
///
/// Errors: [`ClientError::ServerMisbehaved`] for `input_required` on a
/// method that cannot return it, a malformed `InputRequiredResult` or input
/// request, or more than `max_input_rounds` rounds;
/// [`ClientError::Incompatible`] for an input request of a method this
/// client does not answer;
/// [`ClientError::InputRequest`] when the handler could not answer one (the
/// request is abandoned; the server does not wait for it); the retried
/// request's errors; `Transport(Cancelled)` when `options.cancel` fired.
async fn complete(
    inner: &Connection,
    method: &str,
    params: Option<Value>,
    options: &RequestOptions,
    mut result: RawResult,
) -> Result<RawResult, ClientError> {
    if !INPUT_METHODS.contains(&method) {
        return Err(misbehaved(method, ServerFault::InputRequiredNotAllowed));
    }
    let max_rounds = inner.options.max_input_rounds;
    let mut round = 0usize;
    while codec::is_input_required(&result) {
        if round >= max_rounds {
            return Err(misbehaved(
                method,
                ServerFault::TooManyInputRounds { rounds: max_rounds },
            ));
        }
        round += 1;
        let (requests, state) = parse(method, &result)?;
        let responses = fulfil(inner, method, requests, options).await?;
        if responses.is_empty() {
            // State only (e.g. load shedding): retry after a growing pause.
            let delay = Duration::from_millis(100u64.saturating_mul(1 << (round - 1).min(5)))
                .min(MAX_STATE_ONLY_DELAY);
            let cancel = options.cancel.clone().unwrap_or_default();
            tokio::select! {
                _ = tokio::time::sleep(delay) => {}
                _ = cancel.cancelled() => return Err(ClientError::Transport(TransportError::Cancelled)),
            }
        }
        tracing::debug!(%method, round, answers = responses.len(), "retrying with input responses");
        let retry = with_input(params.clone(), responses, state);
        result = inner.send(method, retry.as_ref(), options.clone()).await?;
    }
    Ok(result)
}

/// The members of an `input_required` result this loop reads, each kept as
/// its JSON text until it is checked.
#[derive(Deserialize)]
struct InputRound {
    #[serde(rename = "inputRequests", default)]
    input_requests: Option<Box<RawValue>>,
    #[serde(rename = "requestState", default)]
    request_state: Option<Box<RawValue>>,
}

/// Input requests by key, in key order, each as its JSON text.
type InputRequests = BTreeMap<String, Box<RawValue>>;

/// The input requests (key → request, in key order) and the `requestState`
/// of an `input_required` result, read from its bytes: each request's
/// params stay text until the router decodes them into their type.
fn parse(method: &str, result: &RawResult) -> Result<(InputRequests, Option<String>), ClientError> {
    let round: InputRound = result.parse().map_err(|e| ClientError::decode(method, e))?;
    let requests = match round.input_requests {
        None => BTreeMap::new(),
        Some(requests) => serde_json::from_str(requests.get()).map_err(|_| {
            misbehaved(
                method,
                ServerFault::MalformedInputRequired {
                    member: "inputRequests",
                    expected: "an object",
                },
            )
        })?,
    };
    let state = match round.request_state {
        None => None,
        Some(state) => Some(serde_json::from_str(state.get()).map_err(|_| {
            misbehaved(
                method,
                ServerFault::MalformedInputRequired {
                    member: "requestState",
                    expected: "a string",
                },
            )
        })?),
    };
    if requests.is_empty() && state.is_none() {
        return Err(misbehaved(method, ServerFault::EmptyInputRequired));
    }
    Ok((requests, state))
}

/// Answers every input request through the handler, in key order.
async fn fulfil(
    inner: &Connection,
    method: &str,
    requests: InputRequests,
    options: &RequestOptions,
) -> Result<Map<String, Value>, ClientError> {
    let caps = inner.declared_capabilities();
    let cancel = options.cancel.clone().unwrap_or_default();
    let mut responses = Map::new();
    for (key, request) in requests {
        // A request that is not an object, or whose method is not a
        // string, is malformed; a method the router does not answer is one
        // this client does not implement.
        // Read as a map, never a struct: serde would take a struct from an
        // array too.
        let mut members =
            serde_json::from_str::<BTreeMap<String, Box<RawValue>>>(request.get()).ok();
        let Some(input_method) = members
            .as_ref()
            .and_then(|m| m.get("method"))
            .and_then(|m| serde_json::from_str::<String>(m.get()).ok())
        else {
            return Err(misbehaved(
                method,
                ServerFault::MalformedInputRequest { key },
            ));
        };
        if !SERVER_REQUESTS.contains(&input_method.as_str()) {
            return Err(ClientError::Incompatible {
                method: method.to_owned(),
                incompatibility: Incompatibility::InputRequestMethod {
                    key,
                    method: input_method,
                },
            });
        }
        let params = members.as_mut().and_then(|m| m.remove("params"));
        let params = match params.as_deref() {
            Some(params) => ServerParams::Raw(params),
            None => ServerParams::Absent,
        };
        let answer = server_requests::answer(
            inner.options.handler.as_ref(),
            &caps,
            ServerRequest {
                id: RequestId::String(key.clone()),
                method: &input_method,
                params,
                cancel: cancel.clone(),
            },
        )
        .await;
        if cancel.is_cancelled() {
            return Err(ClientError::Transport(TransportError::Cancelled));
        }
        match answer {
            Ok(v) => {
                responses.insert(key, v);
            }
            Err(error) => {
                return Err(ClientError::InputRequest {
                    method: method.to_owned(),
                    key,
                    input_method,
                    error: Box::new(error),
                });
            }
        }
    }
    Ok(responses)
}

/// The retried request's params: the original ones plus `inputResponses`
/// (when any) and the echoed `requestState` (only when the server sent one).
fn with_input(
    params: Option<Value>,
    responses: Map<String, Value>,
    state: Option<String>,
) -> Option<Value> {
    let mut obj = match params {
        Some(Value::Object(m)) => m,
        _ => Map::new(),
    };
    obj.remove("inputResponses");
    obj.remove("requestState");
    if !responses.is_empty() {
        obj.insert("inputResponses".into(), Value::Object(responses));
    }
    if let Some(s) = state {
        obj.insert("requestState".into(), Value::String(s));
    }
    Some(Value::Object(obj))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn retry_params_echo_state_and_answers() {
        let mut answers = Map::new();
        answers.insert("k".into(), json!({"action": "decline"}));
        let p = with_input(
            Some(json!({"name": "t", "arguments": {}})),
            answers,
            Some("s1".into()),
        );
        assert_eq!(
            p,
            Some(
                json!({"name": "t", "arguments": {}, "inputResponses": {"k": {"action": "decline"}}, "requestState": "s1"})
            )
        );
        // No state in the result: none in the retry (spec MUST NOT).
        let p = with_input(
            Some(json!({"name": "t", "requestState": "old"})),
            Map::new(),
            None,
        );
        assert_eq!(p, Some(json!({"name": "t"})));
    }

    fn parsed(result: Value) -> Result<(InputRequests, Option<String>), ClientError> {
        parse("tools/call", &RawResult::from_value(&result))
    }

    #[test]
    fn malformed_input_required_results() {
        assert!(parsed(json!({"resultType": "input_required"})).is_err());
        assert!(parsed(json!({"resultType": "input_required", "inputRequests": []})).is_err());
        assert!(parsed(json!({"resultType": "input_required", "requestState": 1})).is_err());
        // `null` members count as absent.
        assert!(
            parsed(
                json!({"resultType": "input_required", "inputRequests": null, "requestState": null})
            )
            .is_err()
        );
        let (r, s) = parsed(
            json!({"resultType": "input_required", "inputRequests": null, "requestState": "x"}),
        )
        .unwrap();
        assert!(r.is_empty());
        assert_eq!(s.as_deref(), Some("x"));
        // Each request stays the text it arrived as, in key order.
        let (r, s) = parsed(json!({
            "resultType": "input_required",
            "inputRequests": {"b": {"method": "roots/list"}, "a": [1]}
        }))
        .unwrap();
        assert_eq!(s, None);
        let texts: Vec<_> = r.iter().map(|(k, v)| (k.as_str(), v.get())).collect();
        assert_eq!(texts, [("a", "[1]"), ("b", r#"{"method":"roots/list"}"#)]);
    }
}
