//! What reaches the explorer from the connections: each server's handler
//! (log messages, list changes, resource updates, the connection closing,
//! elicitation as a dialog), the wire tap (every JSON-RPC message, requests
//! paired with their responses), and `mcp`'s own log lines, which cannot
//! go to stderr while the explorer owns the terminal.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use async_trait::async_trait;
use mcp_client::{ClientHandler, CloseReason, RequestContext};
use mcp_transport::{TapEvent, WireTap};
use mcp_types::elicitation::{ElicitAction, ElicitRequestParams, ElicitResult};
use mcp_types::logging::LoggingMessageNotificationParams;
use mcp_types::resources::ResourceUriParams;
use mcp_types::roots::{ListRootsResult, Root};
use mcp_types::sampling::{CreateMessageRequestParams, CreateMessageResult, SamplingContentBlock};
use mcp_types::tasks::Task;
use mcp_types::{ErrorCode, JsonRpcError, JsonRpcMessage};
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, Visitor};
use tokio::sync::{mpsc, oneshot};

use super::app::{Direction, Event, Form, FormTarget, LogLine, WireLine};
use crate::form::SchemaOrders;

pub(crate) type Events = mpsc::UnboundedSender<Event>;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// What the person answered a server's question with: the form's values,
/// or nothing (declined, or cancelled with `cancel`).
#[derive(Debug, Default)]
pub(crate) struct Answer {
    pub(crate) content: Option<serde_json::Map<String, serde_json::Value>>,
    pub(crate) cancel: bool,
}

/// The server questions waiting for the person, by the id their form carries.
#[derive(Debug, Default)]
pub(crate) struct Questions {
    next: AtomicU64,
    waiting: Mutex<BTreeMap<u64, oneshot::Sender<Answer>>>,
}

impl Questions {
    /// Answers question `id`.
    pub(crate) fn answer(
        &self,
        id: u64,
        content: Option<serde_json::Map<String, serde_json::Value>>,
        cancel: bool,
    ) {
        let Some(tx) = lock(&self.waiting).remove(&id) else {
            return;
        };
        // The server may have withdrawn its question meanwhile.
        let _ = tx.send(Answer { content, cancel });
    }
}

/// One server's handler: everything it hears becomes an [`Event`].
pub(crate) struct UiHandler {
    pub(crate) server: String,
    pub(crate) events: Events,
    pub(crate) questions: Arc<Questions>,
    pub(crate) orders: Arc<SchemaOrders>,
}

impl fmt::Debug for UiHandler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UiHandler")
            .field("server", &self.server)
            .finish_non_exhaustive()
    }
}

impl UiHandler {
    fn send(&self, event: Event) {
        // The explorer has ended: nothing is left to show it.
        let _ = self.events.send(event);
    }

    fn note(&self, text: String) {
        self.send(Event::Log(LogLine {
            server: self.server.clone(),
            level: "mcp".into(),
            text,
        }));
    }
}

#[async_trait]
impl ClientHandler for UiHandler {
    async fn on_logging_message(&self, params: LoggingMessageNotificationParams) {
        let logger = params
            .logger
            .as_deref()
            .map(|l| format!("{l}: "))
            .unwrap_or_default();
        self.send(Event::Log(LogLine {
            server: self.server.clone(),
            level: params.level.to_string(),
            text: format!("{logger}{}", crate::handler::log_text(&params.data)),
        }));
    }

    async fn on_resource_updated(&self, params: ResourceUriParams) {
        self.send(Event::ResourceUpdated {
            server: self.server.clone(),
            uri: params.uri,
        });
    }

    async fn on_tools_list_changed(&self) {
        self.send(Event::ListChanged {
            server: self.server.clone(),
            what: "tools",
        });
    }

    async fn on_prompts_list_changed(&self) {
        self.send(Event::ListChanged {
            server: self.server.clone(),
            what: "prompts",
        });
    }

    async fn on_resources_list_changed(&self) {
        self.send(Event::ListChanged {
            server: self.server.clone(),
            what: "resources",
        });
    }

    async fn on_task_status(&self, task: Task) {
        let status = serde_json::to_value(&task.status)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default();
        self.send(Event::Task {
            server: self.server.clone(),
            task: Box::new(task.clone()),
            tool: None,
        });
        self.note(format!(
            "task {}: {status}{}",
            task.task_id,
            task.status_message
                .as_deref()
                .map(|m| format!(" ({m})"))
                .unwrap_or_default()
        ));
    }

    async fn on_closed(&self, reason: CloseReason) {
        self.send(Event::Closed {
            server: self.server.clone(),
            reason: reason.to_string(),
        });
    }

    async fn elicit(
        &self,
        params: ElicitRequestParams,
        ctx: RequestContext,
    ) -> Result<ElicitResult, JsonRpcError> {
        let title = format!("{} asks", self.server);
        let (message, schema, order) = match params {
            ElicitRequestParams::Form(form) => {
                let names: std::collections::BTreeSet<&str> = form
                    .requested_schema
                    .get("properties")
                    .and_then(serde_json::Value::as_object)
                    .map(|p| p.keys().map(String::as_str).collect())
                    .unwrap_or_default();
                let order = self.orders.take(&self.server, &names);
                (form.message, form.requested_schema, order)
            }
            // The URL is shown, never opened by the explorer: accepting says
            // the person will open it themselves.
            ElicitRequestParams::Url(url) => (
                format!(
                    "{}\n\nOpen this URL yourself (Enter: I will; Esc: decline):\n{}",
                    url.message, url.url
                ),
                serde_json::json!({}),
                None,
            ),
            other => {
                self.note(format!(
                    "declined an elicitation of an unknown mode: {}",
                    other.message().unwrap_or("")
                ));
                return Ok(ElicitResult::new(ElicitAction::Decline));
            }
        };
        let answer = self
            .ask(title, message, &schema, order.as_deref(), &ctx)
            .await;
        Ok(match answer {
            Answer {
                content: Some(content),
                ..
            } => {
                let mut r = ElicitResult::new(ElicitAction::Accept);
                r.content = Some(content);
                r
            }
            Answer { cancel: true, .. } => ElicitResult::new(ElicitAction::Cancel),
            Answer { .. } => ElicitResult::new(ElicitAction::Decline),
        })
    }

    /// A sampling request is shown (system prompt, messages, limits) and
    /// answered by hand: what the person types is the assistant's reply,
    /// from the model `human (mcp ui)`. Declined, the server gets the
    /// user-rejection error (spec `client/sampling` § Error Handling).
    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        ctx: RequestContext,
    ) -> Result<CreateMessageResult, JsonRpcError> {
        let answer = self
            .ask(
                format!("{} asks for a model's reply (sampling)", self.server),
                sampling_text(&params),
                &serde_json::json!({
                    "type": "object",
                    "properties": {"reply": {"type": "string", "title": "Your reply",
                        "description": "sent back as the assistant's message"}},
                    "required": ["reply"]
                }),
                None,
                &ctx,
            )
            .await;
        let reply = answer
            .content
            .as_ref()
            .and_then(|c| c.get("reply"))
            .and_then(serde_json::Value::as_str);
        let Some(reply) = reply else {
            return Err(JsonRpcError::new(
                ErrorCode(-1),
                "User rejected sampling request",
            ));
        };
        serde_json::from_value(serde_json::json!({
            "role": "assistant",
            "content": {"type": "text", "text": reply},
            "model": "human (mcp ui)",
            "stopReason": "endTurn",
        }))
        .map_err(|e| JsonRpcError::new(ErrorCode::INTERNAL_ERROR, e.to_string()))
    }

    /// `roots/list`: the person confirms or edits the roots (`file://`
    /// URIs; the working directory by default). Declined: no roots.
    async fn list_roots(&self, ctx: RequestContext) -> Result<ListRootsResult, JsonRpcError> {
        let cwd = std::env::current_dir()
            .map(|d| format!("file://{}", d.display()))
            .unwrap_or_default();
        let answer = self
            .ask(
                format!("{} asks for the roots (roots/list)", self.server),
                "The directories the server may work in, as file:// URIs, comma-separated.".into(),
                &serde_json::json!({
                    "type": "object",
                    "properties": {"roots": {"type": "array", "items": {"type": "string"},
                        "title": "Roots", "default": [cwd]}},
                }),
                None,
                &ctx,
            )
            .await;
        let roots: Vec<Root> = answer
            .content
            .as_ref()
            .and_then(|c| c.get("roots"))
            .and_then(serde_json::Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(serde_json::Value::as_str)
            .filter(|u| !u.is_empty())
            .map(|uri| Root {
                uri: uri.to_owned(),
                ..Default::default()
            })
            .collect();
        Ok(ListRootsResult {
            roots,
            ..Default::default()
        })
    }
}

impl UiHandler {
    /// Puts a question to the person as a dialog and waits for the answer;
    /// a question the server withdraws (`notifications/cancelled`) is taken
    /// off the screen's queue of answers and counts as cancelled.
    async fn ask(
        &self,
        title: String,
        message: String,
        schema: &serde_json::Value,
        order: Option<&[String]>,
        ctx: &RequestContext,
    ) -> Answer {
        let id = self.questions.next.fetch_add(1, Ordering::Relaxed);
        let target = FormTarget::Question {
            server: self.server.clone(),
            id,
        };
        let form = Form::from_schema(target, title, Some(message), schema, order);
        let (tx, rx) = oneshot::channel();
        lock(&self.questions.waiting).insert(id, tx);
        self.send(Event::Ask(Box::new(form)));
        tokio::select! {
            answer = rx => answer.unwrap_or(Answer { content: None, cancel: true }),
            () = ctx.cancel.cancelled() => {
                lock(&self.questions.waiting).remove(&id);
                self.note("the server withdrew its question".into());
                Answer { content: None, cancel: true }
            }
        }
    }
}

/// A sampling request as text: the system prompt, each message by role,
/// the limits.
fn sampling_text(params: &CreateMessageRequestParams) -> String {
    let mut text = String::new();
    if let Some(system) = &params.system_prompt {
        text.push_str(&format!("system: {system}\n"));
    }
    for m in &params.messages {
        let role = serde_json::to_value(m.role)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default();
        for block in m.content.blocks() {
            let shown = match block {
                SamplingContentBlock::Text(t) => t.text.clone(),
                other => format!(
                    "[{} block]",
                    serde_json::to_value(other)
                        .ok()
                        .and_then(|v| v.get("type").and_then(|t| t.as_str().map(str::to_owned)))
                        .unwrap_or_else(|| "unknown".into())
                ),
            };
            text.push_str(&format!("{role}: {shown}\n"));
        }
    }
    text.push_str(&format!("(maxTokens {})", params.max_tokens));
    text
}

/// Each tool's `inputSchema` property order, per server, read from the
/// `tools/list` results as received (see `form/order.rs` for why the
/// parsed schema cannot tell it).
#[derive(Debug, Default)]
pub(crate) struct ToolOrders(Mutex<BTreeMap<String, BTreeMap<String, Vec<String>>>>);

impl ToolOrders {
    pub(crate) fn of(&self, server: &str) -> BTreeMap<String, Vec<String>> {
        lock(&self.0).get(server).cloned().unwrap_or_default()
    }

    fn record(&self, server: &str, frame: &str) {
        if !frame.contains("inputSchema") {
            return;
        }
        let Ok(found) = serde_json::from_str::<ToolsFrame>(frame) else {
            return;
        };
        let Some(result) = found.result else {
            return;
        };
        let mut all = lock(&self.0);
        let known = all.entry(server.to_owned()).or_default();
        for tool in result.tools {
            if let Some(Keys(keys)) = tool.input_schema.and_then(|s| s.properties) {
                known.insert(tool.name, keys);
            }
        }
    }
}

#[derive(serde::Deserialize)]
struct ToolsFrame {
    result: Option<ToolsResult>,
}

#[derive(serde::Deserialize)]
struct ToolsResult {
    tools: Vec<ToolOrder>,
}

#[derive(serde::Deserialize)]
struct ToolOrder {
    name: String,
    #[serde(rename = "inputSchema")]
    input_schema: Option<SchemaOrder>,
}

#[derive(serde::Deserialize)]
struct SchemaOrder {
    properties: Option<Keys>,
}

/// An object's keys in the order written.
struct Keys(Vec<String>);

impl<'de> serde::Deserialize<'de> for Keys {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Keys;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Keys, A::Error> {
                let mut keys = Vec::new();
                while let Some(k) = map.next_key::<String>()? {
                    map.next_value::<IgnoredAny>()?;
                    keys.push(k);
                }
                Ok(Keys(keys))
            }
        }
        d.deserialize_map(V).map_err(de::Error::custom)
    }
}

/// The explorer's wire tap: every message of every connection, as the
/// dispatcher shows it (secrets already `***`, as with `--verbose`), each
/// response timed against its request.
pub(crate) struct UiTap {
    pub(crate) events: Events,
    pub(crate) started: Instant,
    pub(crate) orders: Arc<ToolOrders>,
    /// When each request in flight went out, by server and direction and id.
    pending: Mutex<HashMap<(String, bool, String), Instant>>,
}

impl UiTap {
    pub(crate) fn new(events: Events, started: Instant, orders: Arc<ToolOrders>) -> Self {
        UiTap {
            events,
            started,
            orders,
            pending: Mutex::default(),
        }
    }
}

impl WireTap for UiTap {
    fn observe(&self, label: &str, event: TapEvent<'_>) {
        let (direction, text) = match event {
            TapEvent::Sent(t) => (Direction::Sent, t),
            TapEvent::Received(t) => (Direction::Received, t),
            TapEvent::Local(t) => (Direction::Local, t),
            _ => return,
        };
        let now = Instant::now();
        let mut took_ms = None;
        let summary = if direction == Direction::Local {
            "(local)".to_owned()
        } else {
            match JsonRpcMessage::decode(text.as_bytes()) {
                Ok(message) => {
                    let ours = direction == Direction::Sent;
                    match &message {
                        JsonRpcMessage::Request(r) => {
                            lock(&self.pending)
                                .insert((label.to_owned(), ours, r.id.to_string()), now);
                        }
                        JsonRpcMessage::Response(r) => {
                            if let Some(id) = &r.id {
                                // A response answers a request that went the other way.
                                took_ms = lock(&self.pending)
                                    .remove(&(label.to_owned(), !ours, id.to_string()))
                                    .map(|at| now.duration_since(at).as_millis());
                            }
                        }
                        _ => {}
                    }
                    crate::wiretap::describe_message(&message)
                }
                Err(_) => "unreadable".to_owned(),
            }
        };
        if direction == Direction::Received {
            self.orders.record(label, text);
        }
        let _ = self.events.send(Event::Wire(WireLine {
            at_ms: now.duration_since(self.started).as_millis(),
            server: label.to_owned(),
            direction,
            summary,
            text: text.to_owned(),
            took_ms,
        }));
    }
}

/// Set before logging starts when the command is `mcp ui`: log lines then
/// go to the explorer's log pane while it runs.
static CAPTURE: AtomicBool = AtomicBool::new(false);

/// Where captured log lines go while the explorer runs.
static SINK: Mutex<Option<Events>> = Mutex::new(None);

/// Marks this process as the explorer's: `mcp`'s own log lines go to its
/// log pane while it owns the terminal (stderr before and after).
pub(crate) fn capture_log() {
    CAPTURE.store(true, Ordering::Relaxed);
}

/// `true` after [`capture_log`]: log lines are plain (no colours), for the pane.
pub(crate) fn log_captured() -> bool {
    CAPTURE.load(Ordering::Relaxed)
}

/// Sends log lines to `events` (`Some`) or back to stderr (`None`).
pub(crate) fn set_log_sink(events: Option<Events>) {
    *lock(&SINK) = events;
}

/// The log's writer: stderr, or the explorer's log pane while it runs.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct LogWriter;

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for LogWriter {
    type Writer = LineWriter;
    fn make_writer(&'a self) -> LineWriter {
        LineWriter(Vec::new())
    }
}

/// One log event's text, sent where it belongs when dropped.
#[derive(Debug)]
pub(crate) struct LineWriter(Vec<u8>);

impl Write for LineWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Drop for LineWriter {
    fn drop(&mut self) {
        if self.0.is_empty() {
            return;
        }
        if log_captured()
            && let Some(events) = lock(&SINK).as_ref()
        {
            let text = String::from_utf8_lossy(&self.0);
            for line in text.lines().filter(|l| !l.is_empty()) {
                let _ = events.send(Event::Log(LogLine {
                    server: "mcp".into(),
                    level: "mcp".into(),
                    text: line.to_owned(),
                }));
            }
            return;
        }
        let mut err = std::io::stderr().lock();
        let _ = err.write_all(&self.0);
        let _ = err.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_orders_are_read_as_written() {
        let orders = ToolOrders::default();
        orders.record(
            "s",
            r#"{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"add","inputSchema":{"type":"object","properties":{"zeta":{},"alpha":{"type":"number"}}}},{"name":"none","inputSchema":{}}]}}"#,
        );
        assert_eq!(orders.of("s")["add"], ["zeta", "alpha"]);
        assert!(!orders.of("s").contains_key("none"));
        // Anything else is left alone.
        orders.record(
            "s",
            r#"{"jsonrpc":"2.0","method":"x","params":{"inputSchema":1}}"#,
        );
        orders.record("s", "not json inputSchema");
        assert_eq!(orders.of("s").len(), 1);
    }

    #[test]
    fn a_response_is_timed_against_its_request() {
        let (tx, mut rx) = mpsc::unbounded_channel();
        let tap = UiTap::new(tx, Instant::now(), Arc::default());
        tap.observe(
            "s",
            TapEvent::Sent(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#),
        );
        tap.observe(
            "s",
            TapEvent::Received(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#),
        );
        // A server request and this side's answer pair the other way round.
        tap.observe(
            "s",
            TapEvent::Received(r#"{"jsonrpc":"2.0","id":1,"method":"roots/list"}"#),
        );
        tap.observe(
            "s",
            TapEvent::Sent(r#"{"jsonrpc":"2.0","id":1,"result":{"roots":[]}}"#),
        );
        let mut lines = Vec::new();
        while let Ok(Event::Wire(w)) = rx.try_recv() {
            lines.push(w);
        }
        assert_eq!(lines.len(), 4);
        assert_eq!(lines[0].summary, "request ping (id 1)");
        assert_eq!(lines[0].took_ms, None);
        assert_eq!(lines[1].summary, "result of 1");
        assert!(lines[1].took_ms.is_some());
        assert!(lines[3].took_ms.is_some());
    }
}
