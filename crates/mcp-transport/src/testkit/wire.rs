//! The kit's side of one connection: what the peer received, read in any
//! order, with the rule of the check at hand named in every failure.

use std::time::Duration;

use serde_json::{Value, json};
use tokio::time::Instant;

use super::{PROMPT, Peer, Rule, Violation};

/// One received message, as JSON.
pub(super) type Message = Value;

/// The peer of one check, with what arrived and was not taken yet.
pub(super) struct Wire<P: Peer> {
    pub(super) peer: P,
    backlog: Vec<Message>,
    rule: Rule,
}

impl<P: Peer> Wire<P> {
    pub(super) fn new(peer: P, rule: Rule) -> Self {
        Wire {
            peer,
            backlog: Vec::new(),
            rule,
        }
    }

    pub(super) fn violation(&self, detail: impl Into<String>) -> Violation {
        Violation::new(self.rule, detail)
    }

    /// Reads one more message into the backlog before `deadline`; `false`
    /// when none came (or the transport's side ended).
    async fn pull(&mut self, deadline: Instant) -> Result<bool, Violation> {
        match tokio::time::timeout_at(deadline, self.peer.recv()).await {
            Ok(Some(bytes)) => match serde_json::from_slice::<Value>(&bytes) {
                Ok(value) => {
                    self.backlog.push(value);
                    Ok(true)
                }
                Err(e) => Err(self.violation(format!(
                    "the transport wrote a frame that is not JSON ({e}): {}",
                    String::from_utf8_lossy(&bytes[..bytes.len().min(200)])
                ))),
            },
            Ok(None) | Err(_) => Ok(false),
        }
    }

    /// Takes the first message matching `pred`, waiting up to [`PROMPT`].
    pub(super) async fn take(
        &mut self,
        what: &str,
        pred: impl Fn(&Message) -> bool,
    ) -> Result<Message, Violation> {
        let deadline = Instant::now() + PROMPT;
        loop {
            if let Some(i) = self.backlog.iter().position(&pred) {
                return Ok(self.backlog.remove(i));
            }
            if !self.pull(deadline).await? {
                return Err(self.violation(format!(
                    "the peer did not receive {what} within {} ms (received meanwhile: {})",
                    PROMPT.as_millis(),
                    self.shown_backlog()
                )));
            }
        }
    }

    /// Takes the next request for `method`.
    pub(super) async fn take_request(&mut self, method: &str) -> Result<Message, Violation> {
        self.take(&format!("a request for {method}"), |m| {
            is_request(m) && m["method"] == method
        })
        .await
    }

    /// Takes `n` requests for `method`, in the order they arrived.
    pub(super) async fn take_requests(
        &mut self,
        method: &str,
        n: usize,
    ) -> Result<Vec<Message>, Violation> {
        let mut out = Vec::with_capacity(n);
        for _ in 0..n {
            out.push(self.take_request(method).await?);
        }
        Ok(out)
    }

    /// Watches for `window` and takes every message matching `pred` that
    /// is (or arrives) in the backlog meanwhile; how many there were.
    pub(super) async fn count(
        &mut self,
        window: Duration,
        pred: impl Fn(&Message) -> bool,
    ) -> Result<usize, Violation> {
        let deadline = Instant::now() + window;
        while self.pull(deadline).await? {}
        let before = self.backlog.len();
        self.backlog.retain(|m| !pred(m));
        Ok(before - self.backlog.len())
    }

    /// Sends a message to the transport.
    pub(super) async fn send(&mut self, message: &Value) -> Result<(), Violation> {
        self.send_raw(message.to_string().as_bytes()).await
    }

    /// Sends raw bytes as one frame.
    pub(super) async fn send_raw(&mut self, frame: &[u8]) -> Result<(), Violation> {
        self.peer.send(frame).await.map_err(|e| {
            self.violation(format!(
                "the peer could not send to the transport ({e}): the connection is gone"
            ))
        })
    }

    /// Answers `request` with `result`.
    pub(super) async fn answer(
        &mut self,
        request: &Message,
        result: Value,
    ) -> Result<(), Violation> {
        self.send(&json!({"jsonrpc": "2.0", "id": request["id"], "result": result}))
            .await
    }

    fn shown_backlog(&self) -> String {
        if self.backlog.is_empty() {
            return "nothing".into();
        }
        let mut shown: Vec<String> = self
            .backlog
            .iter()
            .take(5)
            .map(|m| {
                let text = m.to_string();
                text.chars().take(160).collect()
            })
            .collect();
        if self.backlog.len() > 5 {
            shown.push(format!("and {} more", self.backlog.len() - 5));
        }
        shown.join(", ")
    }
}

/// `true` for a JSON-RPC request (a `method` and an `id`).
pub(super) fn is_request(m: &Message) -> bool {
    m.get("method").is_some() && m.get("id").is_some()
}

/// `true` for the response to the peer's request `id` (same JSON type).
pub(super) fn is_response_to(m: &Message, id: &Value) -> bool {
    m.get("method").is_none() && m.get("id") == Some(id)
}

/// `true` for `notifications/cancelled` naming request `id` (same JSON type).
pub(super) fn is_cancel_of(m: &Message, id: &Value) -> bool {
    m.get("id").is_none()
        && m["method"] == "notifications/cancelled"
        && m["params"]["requestId"] == *id
}
