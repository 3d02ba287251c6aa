//! Version negotiation: the one seam between the handshake revisions
//! (2024-11-05 … 2025-11-25, `initialize`) and the stateless revision
//! 2026-07-28 (`server/discover`, per-request `_meta`).
//!
//! `negotiate()` runs once at connect (and again after a lost session) and
//! yields a [`Negotiated`]: the revision, the server's info, capabilities and
//! instructions. Every later request carries
//! [`Negotiated::request_meta`]: the 2026-07-28 per-request `_meta`
//! (protocol version, client capabilities, client info), built once and
//! written into `params._meta` by the transport as it serializes the
//! request; nothing for handshake revisions. Nothing else in the client depends on
//! the kind of revision.
//!
//! Negotiation across both kinds of revision follows the 2026-07-28 client checklist §0:
//! probe `server/discover`; a `DiscoverResult` or a recognised stateless-revision error
//! (`-32020`, `-32021`, `-32022`) means a stateless server; any other error, or
//! an HTTP 400/404/405 without a stateless-revision error body, means a handshake-revision server,
//! which gets `initialize`. The probe is never abandoned on a timer: when it
//! is unanswered for `discover_timeout`, `initialize` goes out beside it and
//! the first answer decides (see `probe`), so a server that starts slowly is
//! still reached in its own kind of revision.

use std::sync::Arc;
use std::time::Instant;

use mcp_transport::{RequestOptions, Transport, TransportError};
use mcp_types::META_SERVER_INFO;
use mcp_types::discovery::{Discover, DiscoverResult};
use mcp_types::errors::UnsupportedProtocolVersionData;
use mcp_types::lifecycle::{Initialize, InitializeRequestParams, InitializeResult};
use mcp_types::{ErrorCode, JsonRpcError, ProtocolVersion, RawResult, Request};
use serde_json::{Map, Value};

use crate::error::{ClientError, ServerFault};
pub use crate::negotiated::Negotiated;
use crate::negotiated::{request_meta_for, stateless_meta};
use crate::options::{ClientOptions, VersionPreference};

/// Handshake revisions this client speaks, newest first.
fn handshake_versions() -> Vec<ProtocolVersion> {
    let mut v: Vec<_> = ProtocolVersion::ALL
        .into_iter()
        .filter(|v| v.uses_handshake())
        .collect();
    v.reverse();
    v
}

fn names(versions: &[ProtocolVersion]) -> Vec<String> {
    versions.iter().map(|v| v.as_str().to_owned()).collect()
}

/// Negotiates with the server over `transport` according to
/// `options.version`. On a version mismatch the transport is closed.
///
/// Errors: [`ClientError::VersionMismatch`], [`ClientError::Server`] (e.g.
/// `initialize` answered with an error), [`ClientError::Transport`]
/// (timeout, closed), [`ClientError::Decode`].
pub(crate) async fn negotiate(
    transport: &dyn Transport,
    options: &ClientOptions,
) -> Result<Negotiated, ClientError> {
    let outcome = match options.version {
        VersionPreference::Handshake => {
            initialize(
                transport,
                options,
                ProtocolVersion::LATEST_HANDSHAKE,
                true,
                false,
            )
            .await
        }
        VersionPreference::Only(v) if v.uses_handshake() => {
            initialize(transport, options, v, false, false).await
        }
        VersionPreference::Only(v) => discover(transport, options, v, false).await,
        VersionPreference::Auto => {
            discover(transport, options, ProtocolVersion::LATEST, true).await
        }
    };
    if let Err(e) = &outcome
        && e.is_version_mismatch()
        && let Err(close) = transport.close().await
    {
        tracing::debug!(error = %close, "closing after a version mismatch failed");
    }
    outcome
}

/// Re-runs the handshake after the transport reported a lost session,
/// asking for the revision negotiated before (and accepting older ones
/// only if the preference allows).
pub(crate) async fn renegotiate(
    transport: &dyn Transport,
    options: &ClientOptions,
    previous: ProtocolVersion,
) -> Result<Negotiated, ClientError> {
    let accept_older = !matches!(options.version, VersionPreference::Only(_));
    initialize(transport, options, previous, accept_older, false).await
}

/// The handshake (spec `basic/lifecycle` § Initialization): `initialize`
/// with `version`, check the answer, `notifications/initialized`.
///
/// `stateless_ok`: the preference allows the stateless revision, so a `-32022`
/// refusal is returned as [`ClientError::Server`] (see [`refused_as_stateless`])
/// for the caller to probe again, not as a version mismatch.
async fn initialize(
    transport: &dyn Transport,
    options: &ClientOptions,
    version: ProtocolVersion,
    accept_older: bool,
    stateless_ok: bool,
) -> Result<Negotiated, ClientError> {
    let mut asked = version;
    // LC-5: one retry with a version from the error's `data.supported`.
    for attempt in 0..2 {
        // HTTP sends MCP-Protocol-Version from the transport's version; the
        // spec has servers ignore it on `initialize`, so this only matters
        // after a discover probe set it to a stateless revision.
        transport.set_protocol_version(asked);
        let caps = options.capabilities_for(asked);
        let params = InitializeRequestParams {
            protocol_version: asked.as_str().to_owned(),
            capabilities: caps.clone(),
            client_info: options.client_info.clone(),
            meta: None,
            extra: Map::new(),
        };
        let params = serde_json::to_value(&params)
            .map_err(|e| ClientError::encode(Initialize::METHOD, e))?;
        let reply = transport
            .request(
                Initialize::METHOD,
                Some(&params),
                RequestOptions::default().with_timeout(options.initialize_timeout),
            )
            .await;
        let value = match reply {
            Ok(v) => v,
            Err(TransportError::JsonRpc(err))
                if stateless_ok && err.code == ErrorCode::UNSUPPORTED_PROTOCOL_VERSION =>
            {
                // The server refuses the handshake because it speaks the
                // stateless revision (a server that speaks both kinds of revision that committed to it
                // on the probe): the caller probes again instead of
                // reporting a version mismatch.
                return Err(ClientError::from_transport(
                    Initialize::METHOD,
                    TransportError::JsonRpc(err),
                ));
            }
            Err(TransportError::JsonRpc(err)) if attempt == 0 => match supported_in_error(&err) {
                Some(supported) => {
                    let ours: Vec<_> = handshake_versions()
                        .into_iter()
                        .filter(|v| accept_older || *v == version)
                        .filter(|v| *v <= version)
                        .collect();
                    match ours
                        .iter()
                        .find(|v| supported.iter().any(|s| s == v.as_str()))
                    {
                        Some(v) if *v != asked => {
                            tracing::debug!(version = %v, "retrying initialize with a version the server listed");
                            asked = *v;
                            continue;
                        }
                        _ => {
                            return Err(ClientError::VersionMismatch {
                                ours: names(&ours),
                                theirs: supported.join(", "),
                            });
                        }
                    }
                }
                None => {
                    return Err(ClientError::from_transport(
                        Initialize::METHOD,
                        TransportError::JsonRpc(err),
                    ));
                }
            },
            Err(e) => return Err(ClientError::from_transport(Initialize::METHOD, e)),
        };
        let (result, forgiven): (InitializeResult, _) =
            mcp_types::lenient::parse_result::<Initialize>(version, &value)
                .map_err(|e| crate::codec::decode_error(Initialize::METHOD, e, transport))?;
        crate::codec::log_forgiven(Initialize::METHOD, &forgiven, transport);
        let acceptable: Vec<ProtocolVersion> = handshake_versions()
            .into_iter()
            .filter(|v| {
                if accept_older {
                    *v <= version
                } else {
                    *v == asked
                }
            })
            .collect();
        let chosen =
            ProtocolVersion::parse(&result.protocol_version).filter(|v| acceptable.contains(v));
        let Some(chosen) = chosen else {
            return Err(ClientError::VersionMismatch {
                ours: names(&acceptable),
                theirs: result.protocol_version,
            });
        };
        transport.set_protocol_version(chosen);
        transport
            .notify("notifications/initialized", None)
            .await
            .map_err(|e| ClientError::from_transport("notifications/initialized", e))?;
        tracing::debug!(version = %chosen, server = %result.server_info.name, "initialized");
        return Ok(Negotiated {
            protocol_version: chosen,
            server_info: result.server_info,
            capabilities: result.capabilities,
            instructions: result.instructions,
            client_capabilities: options.capabilities_for(chosen),
            discover_ttl_ms: None,
            discover_cache_scope: None,
            negotiated_at: Instant::now(),
            request_meta: request_meta_for(
                chosen,
                &options.capabilities_for(chosen),
                &options.client_info,
            ),
        });
    }
    Err(ClientError::ServerMisbehaved {
        method: Initialize::METHOD.into(),
        fault: ServerFault::NegotiationDidNotConverge,
    })
}

/// `data.supported` of an unsupported-version error (`-32602` in the
/// handshake revisions, `-32022` in 2026-07-28).
pub(crate) fn supported_in_error(err: &JsonRpcError) -> Option<Vec<String>> {
    let data = err.data.as_ref()?;
    serde_json::from_value::<UnsupportedProtocolVersionData>(data.clone())
        .ok()
        .map(|d| d.supported)
}

/// How the server answered the probe.
enum Probe {
    /// A stateless server, with its discover result.
    Stateless(Box<DiscoverResult>),
    /// A stateless server's error listing the supported versions (`-32022`).
    Unsupported(Vec<String>),
    /// A server of the handshake revisions (why we think so): fall back to
    /// `initialize`.
    Handshake(String),
    /// Not a sign of either kind of revision: surface it.
    Fail(ClientError),
}

fn is_stateless_code(code: ErrorCode) -> bool {
    matches!(
        code,
        ErrorCode::HEADER_MISMATCH
            | ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY
            | ErrorCode::UNSUPPORTED_PROTOCOL_VERSION
    )
}

fn classify_error(err: JsonRpcError) -> Probe {
    if err.code == ErrorCode::UNSUPPORTED_PROTOCOL_VERSION
        && let Some(supported) = supported_in_error(&err)
    {
        return Probe::Unsupported(supported);
    }
    if is_stateless_code(err.code) {
        return Probe::Fail(ClientError::Server {
            method: Discover::METHOD.into(),
            error: err,
        });
    }
    Probe::Handshake(format!("server/discover answered {err}"))
}

/// A JSON-RPC error inside an HTTP error body, if the body is one.
fn error_in_body(body: &str) -> Option<JsonRpcError> {
    let v: Value = serde_json::from_str(body).ok()?;
    serde_json::from_value(v.get("error")?.clone()).ok()
}

fn classify(reply: Result<RawResult, TransportError>) -> Probe {
    match reply {
        Ok(raw) => {
            let value = match raw.to_value() {
                Ok(value) => value,
                Err(e) => return Probe::Fail(ClientError::decode(Discover::METHOD, e)),
            };
            if value.get("supportedVersions").is_none() {
                return Probe::Handshake(
                    "server/discover answered without supportedVersions".into(),
                );
            }
            match serde_json::from_value::<DiscoverResult>(value) {
                Ok(d) => Probe::Stateless(Box::new(d)),
                Err(e) => Probe::Fail(ClientError::decode(Discover::METHOD, e)),
            }
        }
        Err(TransportError::JsonRpc(err)) => classify_error(err),
        Err(e @ TransportError::Timeout { .. }) => {
            Probe::Handshake(format!("server/discover: {e}"))
        }
        Err(e @ TransportError::Http { .. }) => {
            let status = e.http_status().unwrap_or_default();
            if matches!(status, 400 | 404 | 405) {
                let body = match &e {
                    TransportError::Http { body, .. } => body.as_str(),
                    _ => "",
                };
                match error_in_body(body) {
                    Some(err) if is_stateless_code(err.code) => classify_error(err),
                    _ => Probe::Handshake(format!("server/discover answered HTTP {status}")),
                }
            } else {
                Probe::Fail(ClientError::Transport(e))
            }
        }
        // A reply that is not an answer (a malformed one, a 2xx holding no
        // response, a session error) is no stateless sign: a handshake-revision server (checklist
        // §0 2f, "anything else").
        Err(
            e @ (TransportError::Malformed { .. }
            | TransportError::SessionExpired { .. }
            | TransportError::Protocol { .. }),
        ) => Probe::Handshake(format!("server/discover: {e}")),
        Err(e) => Probe::Fail(ClientError::from_transport(Discover::METHOD, e)),
    }
}

/// `true` when `initialize` was refused with `-32022` (unsupported protocol
/// version): the server speaks the stateless revision. A server that speaks both kinds of revision
/// answers so once a `server/discover` probe committed it to 2026-07-28.
fn refused_as_stateless(e: &ClientError) -> bool {
    matches!(e, ClientError::Server { method, error }
        if method == Initialize::METHOD && error.code == ErrorCode::UNSUPPORTED_PROTOCOL_VERSION)
}

/// How one probe ended: with the server's answer to `server/discover`
/// (classified), or with the outcome of an `initialize` that went out
/// beside a probe the server had not answered yet.
enum Step {
    Probe(Probe),
    Initialized(Box<Result<Negotiated, ClientError>>),
}

/// Sends one `server/discover` with `asked` and waits for what decides the
/// kind of revision.
///
/// The probe is never abandoned: the kind of revision is decided by what the server
/// says, not by a timer. It waits up to [`ClientOptions::initialize_timeout`]
/// in all. When falling back is allowed and the server is silent for
/// [`ClientOptions::discover_timeout`] (a handshake-revision server that ignores unknown
/// methods, or any server still starting: a cold `npx`/`uvx`, a model
/// loading), `initialize` goes out too, and the first answer decides (when
/// both are already there at one look, the probe's: a server reads its input
/// in order, so it answered the probe first):
/// - the probe's answer (a `DiscoverResult` or a stateless-revision error): a stateless
///   server; the pending `initialize` is dropped (a server reads its stdin
///   in order, so it answered the probe first);
/// - an `InitializeResult`: a handshake server that ignored the probe;
/// - `initialize` refused with `-32022`, or failing while the probe is still
///   open: the probe's answer, when it comes, decides;
/// - the probe answered with a handshake-revision sign (`-32601` …): `initialize`
///   decides.
///
/// A late answer to a probe whose wait ended is dropped by the transport as
/// the answer to an abandoned request (debug log), never taken as another
/// request's.
async fn probe(
    transport: &dyn Transport,
    options: &ClientOptions,
    asked: ProtocolVersion,
    fallback: bool,
) -> Step {
    let caps = options.capabilities_for(asked);
    transport.set_protocol_version(asked);
    let meta = Arc::new(stateless_meta(asked, &caps, &options.client_info));
    let started = Instant::now();
    let request = transport.request(
        Discover::METHOD,
        None,
        // A handshake-revision server must see nothing before `initialize`, so a
        // probe that is given up is not followed by notifications/cancelled.
        RequestOptions::default()
            .with_timeout(options.initialize_timeout)
            .without_cancel_notification()
            .with_params_meta(meta),
    );
    tokio::pin!(request);
    if !fallback {
        return Step::Probe(classify(request.await));
    }
    tokio::select! {
        biased;
        reply = &mut request => return Step::Probe(classify(reply)),
        _ = tokio::time::sleep(options.discover_timeout) => {}
    }
    tracing::debug!(
        silent_ms = options.discover_timeout.as_millis() as u64,
        "no answer to server/discover yet: sending initialize too; the first answer decides the kind of revision"
    );
    let init = initialize(
        transport,
        options,
        ProtocolVersion::LATEST_HANDSHAKE,
        true,
        true,
    );
    tokio::pin!(init);
    let mut handshake_answer = false;
    let init_error = loop {
        tokio::select! {
            biased;
            reply = &mut request, if !handshake_answer => match classify(reply) {
                Probe::Handshake(why) => {
                    tracing::debug!(reason = %why, "handshake-revision server: initialize decides");
                    handshake_answer = true;
                }
                decided => {
                    // The handshake's version was set by `initialize`; the
                    // probe's revision is the one in play again.
                    transport.set_protocol_version(asked);
                    return Step::Probe(decided);
                }
            },
            outcome = &mut init => match outcome {
                Ok(negotiated) => return Step::Initialized(Box::new(Ok(negotiated))),
                Err(e) if handshake_answer => return Step::Initialized(Box::new(Err(e))),
                Err(e) => break e,
            },
        }
    };
    // `initialize` failed (refused as stateless, or anything else) while the
    // probe is open: its answer decides, within what is left of the wait.
    tracing::debug!(error = %init_error, "initialize failed while server/discover is open: waiting for the probe's answer");
    let left = options.initialize_timeout.saturating_sub(started.elapsed());
    match tokio::time::timeout(left, &mut request).await {
        Ok(reply) => match classify(reply) {
            Probe::Handshake(_) => Step::Initialized(Box::new(Err(init_error))),
            decided => {
                transport.set_protocol_version(asked);
                Step::Probe(decided)
            }
        },
        Err(_) => Step::Initialized(Box::new(Err(init_error))),
    }
}

/// The probe for either kind of revision (2026-07-28 client checklist §0 steps 1–3).
///
/// A `-32022` answer (or a discover result) listing a stateless revision
/// this client may use gets one more probe with that revision — also when it
/// is the one just asked for: the server says it speaks it, so the refusal
/// was about this attempt (SEP-2575 "retry with a supported version"). A
/// second refusal falls back to `initialize` (when allowed) or fails with
/// [`ClientError::VersionMismatch`]. An `initialize` refused with `-32022`
/// after a handshake verdict means the server is stateless after all: it is
/// probed once more.
async fn discover(
    transport: &dyn Transport,
    options: &ClientOptions,
    version: ProtocolVersion,
    fallback: bool,
) -> Result<Negotiated, ClientError> {
    let mut asked = version;
    for attempt in 0..2 {
        let retry_with = |supported: &[String]| {
            stateless_retry(version, fallback, supported).filter(|_| attempt == 0)
        };
        let probed = match probe(transport, options, asked, fallback).await {
            Step::Probe(probed) => probed,
            Step::Initialized(outcome) => match *outcome {
                Err(e) if refused_as_stateless(&e) && attempt == 0 => {
                    tracing::debug!(
                        "initialize refused with -32022: the server is stateless; probing again"
                    );
                    continue;
                }
                outcome => return outcome,
            },
        };
        match probed {
            Probe::Stateless(result) => {
                if result
                    .supported_versions
                    .iter()
                    .any(|s| s == asked.as_str())
                {
                    let server_info = result
                        .meta
                        .as_ref()
                        .and_then(|m| m.get(META_SERVER_INFO))
                        .and_then(|v| serde_json::from_value(v.clone()).ok())
                        .unwrap_or_default();
                    tracing::debug!(version = %asked, "stateless server");
                    let caps = options.capabilities_for(asked);
                    return Ok(Negotiated {
                        protocol_version: asked,
                        server_info,
                        capabilities: result.capabilities,
                        instructions: result.instructions,
                        request_meta: request_meta_for(asked, &caps, &options.client_info),
                        client_capabilities: caps,
                        discover_ttl_ms: result.ttl_ms,
                        discover_cache_scope: result.cache_scope.clone(),
                        negotiated_at: Instant::now(),
                    });
                }
                if let Some(v) = retry_with(&result.supported_versions) {
                    tracing::debug!(version = %v, "retrying server/discover with a stateless revision the server listed");
                    asked = v;
                    continue;
                }
                return pick_handshake(
                    transport,
                    options,
                    version,
                    fallback,
                    &result.supported_versions,
                )
                .await;
            }
            Probe::Unsupported(supported) => {
                if let Some(v) = retry_with(&supported) {
                    tracing::debug!(version = %v, refused = %asked, "server/discover refused with -32022; retrying with a stateless revision the server listed");
                    asked = v;
                    continue;
                }
                return pick_handshake(transport, options, version, fallback, &supported).await;
            }
            Probe::Handshake(why) if fallback => {
                tracing::debug!(reason = %why, "handshake-revision server: falling back to initialize");
                match initialize(
                    transport,
                    options,
                    ProtocolVersion::LATEST_HANDSHAKE,
                    true,
                    true,
                )
                .await
                {
                    Err(e) if refused_as_stateless(&e) && attempt == 0 => {
                        tracing::debug!(
                            "initialize refused with -32022: the server is stateless; probing again"
                        );
                        continue;
                    }
                    outcome => return outcome,
                }
            }
            Probe::Handshake(why) => {
                return Err(ClientError::VersionMismatch {
                    ours: vec![asked.as_str().to_owned()],
                    theirs: format!("a server without server/discover ({why})"),
                });
            }
            Probe::Fail(e) => return Err(crate::codec::shown_error(e, transport)),
        }
    }
    Err(ClientError::ServerMisbehaved {
        method: Discover::METHOD.into(),
        fault: ServerFault::NegotiationDidNotConverge,
    })
}

/// The stateless revision to probe again with, given the server's list:
/// the newest one this client speaks that the server listed — `version`
/// itself, or (when falling back is allowed) an older stateless one.
fn stateless_retry(
    version: ProtocolVersion,
    fallback: bool,
    supported: &[String],
) -> Option<ProtocolVersion> {
    ProtocolVersion::ALL
        .into_iter()
        .rev()
        .filter(|v| v.is_stateless())
        .filter(|v| {
            if fallback {
                *v <= version
            } else {
                *v == version
            }
        })
        .find(|v| supported.iter().any(|s| s == v.as_str()))
}

/// A stateless server that does not list our stateless revision: use the
/// newest common handshake revision via `initialize` (checklist [AMBIG-1]),
/// when falling back is allowed.
async fn pick_handshake(
    transport: &dyn Transport,
    options: &ClientOptions,
    version: ProtocolVersion,
    fallback: bool,
    supported: &[String],
) -> Result<Negotiated, ClientError> {
    let common = handshake_versions()
        .into_iter()
        .find(|v| supported.iter().any(|s| s == v.as_str()));
    match common {
        Some(v) if fallback => initialize(transport, options, v, false, false).await,
        _ => {
            let mut ours = vec![version.as_str().to_owned()];
            if fallback {
                ours.extend(names(&handshake_versions()));
            }
            Err(ClientError::VersionMismatch {
                ours,
                theirs: supported.join(", "),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn probe_classification() {
        assert!(matches!(
            classify(Err(TransportError::JsonRpc(
                JsonRpcError::method_not_found("server/discover")
            ))),
            Probe::Handshake(_)
        ));
        assert!(matches!(
            classify(Err(TransportError::JsonRpc(JsonRpcError::new(
                ErrorCode(-32000),
                "not initialized"
            )))),
            Probe::Handshake(_)
        ));
        let mut e = JsonRpcError::new(ErrorCode::UNSUPPORTED_PROTOCOL_VERSION, "nope");
        e.data = Some(json!({"supported": ["2025-11-25"], "requested": "2026-07-28"}));
        assert!(
            matches!(classify(Err(TransportError::JsonRpc(e))), Probe::Unsupported(s) if s == ["2025-11-25"])
        );
        assert!(matches!(
            classify(Err(TransportError::JsonRpc(JsonRpcError::new(
                ErrorCode::HEADER_MISMATCH,
                "x"
            )))),
            Probe::Fail(_)
        ));
        assert!(matches!(
            classify(Err(TransportError::http(400, String::new(), None))),
            Probe::Handshake(_)
        ));
        assert!(matches!(
            classify(Err(TransportError::http(401, String::new(), None))),
            Probe::Fail(_)
        ));
        assert!(matches!(
            classify(Err(TransportError::http(400, json!({"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"x","data":{"supported":["2026-07-28"]}}}).to_string(), None))),
            Probe::Unsupported(_)
        ));
        assert!(matches!(
            classify(Ok(
                json!({"supportedVersions": ["2026-07-28"], "capabilities": {}}).into()
            )),
            Probe::Stateless(_)
        ));
        assert!(matches!(
            classify(Ok(json!({}).into())),
            Probe::Handshake(_)
        ));
        // An HTTP 2xx to the probe that held no response.
        assert!(matches!(
            classify(Err(TransportError::protocol_in_request(
                mcp_types::RequestId::Number(0),
                "the HTTP 202 reply to request 0 held no response"
            ))),
            Probe::Handshake(_)
        ));
    }
}
