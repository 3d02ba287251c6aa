//! The demo server's connection state: dispatch of incoming requests (each on
//! its own task, so a tool waiting for the client never blocks `ping` or
//! `notifications/cancelled`), correlation of its own outgoing requests
//! (`elicitation/create`), and cancellation.

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use mcp_types::lifecycle::{
    ClientCapabilities, InitializeRequestParams, InitializeResult, PromptsCapability,
    ResourcesCapability, ServerCapabilities, ToolsCapability,
};
use mcp_types::logging::{LoggingLevel, SetLevelRequestParams};
use mcp_types::notifications::CancelledNotificationParams;
use mcp_types::{
    ErrorCode, Implementation, JsonRpcError, JsonRpcMessage, JsonRpcNotification, JsonRpcRequest,
    JsonRpcResponse, ProtocolVersion, RequestId,
};
use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use super::host::ToolHost;
use super::params::{Outcome, parse_params, to_value};
use super::{catalog, tools};

/// At most this many client requests are handled at once; past it a request
/// is answered with `-32603` at once.
pub(super) const MAX_IN_FLIGHT: usize = 64;

/// How long the server waits for the client to answer one of its requests
/// (`elicitation/create`: a person is typing): 600 000 ms.
pub(super) const CLIENT_REQUEST_TIMEOUT: Duration = Duration::from_secs(600);

/// The server's name in `serverInfo`.
pub(super) const SERVER_NAME: &str = "mcp-demo";

/// What the `initialize` exchange settled.
#[derive(Debug, Clone)]
struct Session {
    version: Option<ProtocolVersion>,
    client: ClientCapabilities,
    /// Minimum severity of `notifications/message` (set by `logging/setLevel`).
    min_log_severity: u8,
}

/// One demo-server connection. Cheap to share: handlers hold an `Arc`.
#[derive(Debug)]
pub(super) struct DemoServer {
    out: Mutex<Option<mpsc::Sender<JsonRpcMessage>>>,
    session: Mutex<Session>,
    in_flight: Mutex<HashMap<RequestId, CancellationToken>>,
    outgoing: Mutex<HashMap<RequestId, oneshot::Sender<Outcome>>>,
    next_id: AtomicI64,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A handler that panicked cannot leave these maps half-updated in a way
    // that matters more than stopping the server; keep going.
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Removes an outgoing request's waiter when its future is dropped.
struct OutgoingGuard<'a> {
    server: &'a DemoServer,
    id: RequestId,
}

impl Drop for OutgoingGuard<'_> {
    fn drop(&mut self) {
        lock(&self.server.outgoing).remove(&self.id);
    }
}

impl DemoServer {
    /// A server writing its messages to `out` (the stdout writer, or a test).
    pub(super) fn new(out: mpsc::Sender<JsonRpcMessage>) -> Arc<Self> {
        Arc::new(DemoServer {
            out: Mutex::new(Some(out)),
            session: Mutex::new(Session {
                version: None,
                client: ClientCapabilities::default(),
                min_log_severity: 0,
            }),
            in_flight: Mutex::new(HashMap::new()),
            outgoing: Mutex::new(HashMap::new()),
            next_id: AtomicI64::new(1),
        })
    }

    /// The negotiated revision, once `initialize` succeeded.
    pub(super) fn version(&self) -> Option<ProtocolVersion> {
        lock(&self.session).version
    }

    /// Number of client requests being handled.
    pub(super) fn in_flight(&self) -> usize {
        lock(&self.in_flight).len()
    }

    /// Handles one framed line: decodes it and routes it. Undecodable input
    /// is answered with `-32700`/`-32600` (id `null`) and logged; the
    /// connection goes on.
    pub(super) async fn handle_bytes(self: &Arc<Self>, bytes: &[u8]) {
        match JsonRpcMessage::decode(bytes) {
            Ok(message) => self.handle(message).await,
            Err(err) => {
                tracing::warn!(error = %err, "undecodable message from the client");
                let code = match err {
                    mcp_types::DecodeError::Json(_) => ErrorCode::PARSE_ERROR,
                    _ => ErrorCode::INVALID_REQUEST,
                };
                let response = JsonRpcResponse {
                    id: err.request_id().cloned(),
                    outcome: Err(JsonRpcError::new(code, err.to_string())),
                };
                if response.id.is_none() {
                    self.send(JsonRpcMessage::Response(response)).await;
                }
            }
        }
    }

    /// Routes one decoded message.
    pub(super) async fn handle(self: &Arc<Self>, message: JsonRpcMessage) {
        match message {
            JsonRpcMessage::Request(request) => self.start_request(request).await,
            JsonRpcMessage::Notification(n) => self.on_notification(n),
            JsonRpcMessage::Response(response) => self.on_response(response),
            JsonRpcMessage::Batch(_) => {
                tracing::warn!("batch received; this server speaks no batching revision");
            }
        }
    }

    async fn start_request(self: &Arc<Self>, request: JsonRpcRequest) {
        let token = CancellationToken::new();
        let refusal = {
            let mut in_flight = lock(&self.in_flight);
            if in_flight.contains_key(&request.id) {
                Some(JsonRpcError::new(
                    ErrorCode::INVALID_REQUEST,
                    format!("request id {} is already in use", request.id),
                ))
            } else if in_flight.len() >= MAX_IN_FLIGHT {
                Some(JsonRpcError::new(
                    ErrorCode::INTERNAL_ERROR,
                    format!("too many requests in flight (limit {MAX_IN_FLIGHT})"),
                ))
            } else {
                in_flight.insert(request.id.clone(), token.clone());
                None
            }
        };
        if let Some(error) = refusal {
            self.send(JsonRpcMessage::Response(JsonRpcResponse::error(
                request.id, error,
            )))
            .await;
            return;
        }
        let server = Arc::clone(self);
        tokio::spawn(async move {
            let id = request.id.clone();
            let outcome = tokio::select! {
                outcome = server.dispatch(&request) => Some(outcome),
                () = token.cancelled() => None,
            };
            lock(&server.in_flight).remove(&id);
            match outcome {
                Some(outcome) => {
                    let response = JsonRpcResponse {
                        id: Some(id),
                        outcome,
                    };
                    server.send(JsonRpcMessage::Response(response)).await;
                }
                // Spec `basic/utilities/cancellation`: no response for a cancelled request.
                None => tracing::info!(%id, method = %request.method, "request cancelled"),
            }
        });
    }

    fn on_notification(&self, n: JsonRpcNotification) {
        match n.method.as_str() {
            "notifications/cancelled" => {
                match parse_params::<CancelledNotificationParams>(n.params.as_ref()) {
                    Ok(CancelledNotificationParams {
                        request_id: Some(id),
                        reason,
                        ..
                    }) => {
                        let token = lock(&self.in_flight).get(&id).cloned();
                        match token {
                            Some(token) => {
                                tracing::info!(%id, ?reason, "client cancelled a request");
                                token.cancel();
                            }
                            None => {
                                tracing::debug!(%id, "cancellation for an unknown or finished request")
                            }
                        }
                    }
                    Ok(_) => tracing::debug!("cancellation without a requestId ignored"),
                    Err(e) => tracing::warn!(error = %e.message, "bad notifications/cancelled"),
                }
            }
            "notifications/initialized" => tracing::debug!("client initialized"),
            other => tracing::debug!(method = other, "notification ignored"),
        }
    }

    fn on_response(&self, response: JsonRpcResponse) {
        let waiter = response
            .id
            .as_ref()
            .and_then(|id| lock(&self.outgoing).remove(id));
        match waiter {
            Some(waiter) => {
                // The requester may have gone (cancelled); nothing to do then.
                let _ = waiter.send(response.outcome);
            }
            None => tracing::warn!(id = ?response.id, "response to no request of ours"),
        }
    }

    async fn dispatch(self: &Arc<Self>, request: &JsonRpcRequest) -> Outcome {
        let params = request.params.as_ref();
        match request.method.as_str() {
            "initialize" => self.initialize(params),
            "ping" => Ok(json!({})),
            "logging/setLevel" => {
                let p: SetLevelRequestParams = parse_params(params)?;
                let severity = p.level.severity().ok_or_else(|| {
                    JsonRpcError::new(
                        ErrorCode::INVALID_PARAMS,
                        format!("unknown logging level {:?}", p.level.as_str()),
                    )
                })?;
                lock(&self.session).min_log_severity = severity;
                Ok(json!({}))
            }
            "tools/list" => Ok(json!({ "tools": tools::list() })),
            "tools/call" => tools::call(self.as_ref(), params).await,
            "resources/list" => Ok(json!({ "resources": catalog::resources() })),
            "resources/templates/list" => Ok(json!({ "resourceTemplates": [] })),
            "resources/read" => catalog::read_resource(params),
            "prompts/list" => Ok(json!({ "prompts": catalog::prompts() })),
            "prompts/get" => catalog::get_prompt(params),
            "completion/complete" => catalog::complete(params),
            other => Err(JsonRpcError::method_not_found(other)),
        }
    }

    fn initialize(&self, params: Option<&Value>) -> Outcome {
        let p: InitializeRequestParams = parse_params(params)?;
        // Answer the client's revision when we speak it and it has a
        // handshake; otherwise our newest handshake revision (spec
        // `basic/lifecycle` § Version Negotiation).
        let version = ProtocolVersion::parse(&p.protocol_version)
            .filter(|v| v.uses_handshake())
            .unwrap_or(ProtocolVersion::LATEST_HANDSHAKE);
        {
            let mut session = lock(&self.session);
            session.version = Some(version);
            session.client = p.capabilities;
        }
        tracing::info!(
            client = %p.client_info.name,
            proposed = %p.protocol_version,
            chosen = %version,
            "initialize"
        );
        to_value(InitializeResult {
            protocol_version: version.as_str().to_owned(),
            capabilities: ServerCapabilities {
                logging: Some(Default::default()),
                completions: Some(Default::default()),
                prompts: Some(PromptsCapability {
                    list_changed: Some(false),
                    ..Default::default()
                }),
                resources: Some(ResourcesCapability {
                    subscribe: Some(false),
                    list_changed: Some(false),
                    ..Default::default()
                }),
                tools: Some(ToolsCapability {
                    list_changed: Some(false),
                    ..Default::default()
                }),
                ..Default::default()
            },
            server_info: Implementation {
                name: SERVER_NAME.into(),
                version: env!("CARGO_PKG_VERSION").into(),
                ..Default::default()
            },
            instructions: Some(
                "A demo server: try the tools echo, add, countdown, fail and ask_name.".into(),
            ),
            ..Default::default()
        })
    }

    /// `true` when the client declared form-mode elicitation.
    pub(super) fn client_supports_form_elicitation(&self) -> bool {
        lock(&self.session)
            .client
            .elicitation
            .as_ref()
            .is_some_and(|e| e.supports_form())
    }

    /// Sends `notifications/message` at `level` when the client's
    /// `logging/setLevel` lets it through.
    pub(super) async fn log(&self, level: LoggingLevel, data: Value) {
        let min = lock(&self.session).min_log_severity;
        if level.severity().unwrap_or(u8::MAX) < min {
            return;
        }
        self.notify(
            "notifications/message",
            json!({ "level": level, "logger": SERVER_NAME, "data": data }),
        )
        .await;
    }

    /// Sends a notification.
    pub(super) async fn notify(&self, method: &str, params: Value) {
        self.send(JsonRpcMessage::Notification(JsonRpcNotification {
            method: method.into(),
            params: Some(params),
        }))
        .await;
    }

    /// Sends a request to the client and waits for its response (or
    /// [`CLIENT_REQUEST_TIMEOUT`]). Dropping the future forgets the request.
    ///
    /// Errors: the client's error response; `-32603` on timeout or when the
    /// connection closed.
    pub(super) async fn request(&self, method: &str, params: Value) -> Outcome {
        let id = RequestId::Number(self.next_id.fetch_add(1, Ordering::Relaxed));
        let (tx, rx) = oneshot::channel();
        lock(&self.outgoing).insert(id.clone(), tx);
        let _guard = OutgoingGuard {
            server: self,
            id: id.clone(),
        };
        self.send(JsonRpcMessage::Request(JsonRpcRequest {
            id,
            method: method.into(),
            params: Some(params),
        }))
        .await;
        match tokio::time::timeout(CLIENT_REQUEST_TIMEOUT, rx).await {
            Ok(Ok(outcome)) => outcome,
            Ok(Err(_)) => Err(JsonRpcError::new(
                ErrorCode::INTERNAL_ERROR,
                format!("connection closed before the client answered {method}"),
            )),
            Err(_) => Err(JsonRpcError::new(
                ErrorCode::INTERNAL_ERROR,
                format!(
                    "the client did not answer {method} within {} ms",
                    CLIENT_REQUEST_TIMEOUT.as_millis()
                ),
            )),
        }
    }

    async fn send(&self, message: JsonRpcMessage) {
        let out = lock(&self.out).clone();
        match out {
            Some(out) => {
                if out.send(message).await.is_err() {
                    tracing::debug!("output closed; message dropped");
                }
            }
            None => tracing::debug!("output closed; message dropped"),
        }
    }

    /// The input ended: fail our outgoing requests (their tools finish with
    /// an error result).
    pub(super) fn input_closed(&self) {
        lock(&self.outgoing).clear();
    }

    /// Cancels every request still in flight (shutdown).
    pub(super) fn cancel_all(&self) {
        for token in lock(&self.in_flight).values() {
            token.cancel();
        }
    }

    /// Drops the output sender so the writer ends once queued messages are out.
    pub(super) fn close_output(&self) {
        lock(&self.out).take();
    }
}

impl ToolHost for DemoServer {
    fn version(&self) -> Option<ProtocolVersion> {
        DemoServer::version(self)
    }

    fn client_supports_form_elicitation(&self) -> bool {
        DemoServer::client_supports_form_elicitation(self)
    }

    fn log(&self, level: LoggingLevel, data: Value) -> impl Future<Output = ()> + Send {
        DemoServer::log(self, level, data)
    }

    fn notify(&self, method: &str, params: Value) -> impl Future<Output = ()> + Send {
        DemoServer::notify(self, method, params)
    }

    fn request(&self, method: &str, params: Value) -> impl Future<Output = Outcome> + Send {
        DemoServer::request(self, method, params)
    }
}
