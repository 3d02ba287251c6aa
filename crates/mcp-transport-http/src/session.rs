//! [`Session`]: the session side of one MCP connection over HTTP: the `Mcp-Session-Id`, the negotiated revision, which
//! transport it speaks (Streamable HTTP, legacy HTTP+SSE, or not decided
//! yet), and the background tasks that belong to the session (the GET
//! listener, the legacy reader).
//!
//! It is the MCP session (spec: `basic/transports` § Session Management),
//! which outlives TCP connections. It sends nothing
//! itself: the request path is the [`Exchange`](crate::exchange::Exchange),
//! which reads the session's headers through [`SessionHeaders`] at each hop.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use http::HeaderMap;
use mcp_types::ProtocolVersion;
use tokio::task::AbortHandle;

use crate::exchange::SessionHeaders;
use crate::lock::lock;
use crate::mode::ModeState;
use crate::wire_rules::{MCP_SESSION_ID, WireRules, wire_rules};

/// The session state of one MCP connection over HTTP.
pub(crate) struct Session {
    /// The connection's name in logs.
    label: String,
    session: Mutex<Option<String>>,
    version: Mutex<Option<ProtocolVersion>>,
    mode: Mutex<ModeState>,
    /// Held while auto mode falls back to legacy, so that concurrent first
    /// requests open one SSE stream, not several.
    fallback: tokio::sync::Mutex<()>,
    /// The GET listener's task, when one runs.
    listener: Mutex<Option<AbortHandle>>,
    /// A GET listener was started for the current session.
    listener_started: AtomicBool,
    /// The legacy SSE reader's task, when one runs.
    legacy_reader: Mutex<Option<AbortHandle>>,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("label", &self.label)
            .field("mode", &self.mode())
            .field("version", &self.version())
            .finish()
    }
}

impl Session {
    /// A connection with no session yet, in mode `initial`; `label` names it
    /// in logs.
    pub(crate) fn new(label: &str, initial: ModeState) -> Session {
        Session {
            label: label.to_owned(),
            session: Mutex::new(None),
            version: Mutex::new(None),
            mode: Mutex::new(initial),
            fallback: tokio::sync::Mutex::new(()),
            listener: Mutex::new(None),
            listener_started: AtomicBool::new(false),
            legacy_reader: Mutex::new(None),
        }
    }

    /// The wire rules of the negotiated revision.
    pub(crate) fn rules(&self) -> WireRules {
        wire_rules(*lock(&self.version))
    }

    /// The negotiated revision, once set.
    pub(crate) fn version(&self) -> Option<ProtocolVersion> {
        *lock(&self.version)
    }

    /// Records the negotiated revision.
    pub(crate) fn set_version(&self, v: ProtocolVersion) {
        *lock(&self.version) = Some(v);
    }

    /// The current `Mcp-Session-Id`.
    pub(crate) fn session_id(&self) -> Option<String> {
        lock(&self.session).clone()
    }

    /// Sets (or clears) the `Mcp-Session-Id`.
    pub(crate) fn set_session_id(&self, s: Option<String>) {
        *lock(&self.session) = s;
    }

    /// Takes the session id (for the DELETE on close).
    pub(crate) fn take_session_id(&self) -> Option<String> {
        lock(&self.session).take()
    }

    /// Drops the session id if it is still `sent`.
    pub(crate) fn drop_session_id(&self, sent: &str) {
        let mut s = lock(&self.session);
        if s.as_deref() == Some(sent) {
            *s = None;
        }
    }

    /// The `Mcp-Session-Id` a response assigned, when valid (visible ASCII).
    pub(crate) fn capture_session_id(&self, headers: &HeaderMap) {
        if !self.rules().sessions {
            return;
        }
        match headers.get(MCP_SESSION_ID).map(|v| v.to_str()) {
            Some(Ok(s)) if !s.is_empty() && s.bytes().all(|b| (0x21..=0x7e).contains(&b)) => {
                let previous = lock(&self.session).replace(s.to_owned());
                if previous.as_deref() != Some(s) {
                    // A new session (after an expiry, say) gets its own GET
                    // stream: the old one belongs to the old session.
                    self.reset_listener();
                }
            }
            Some(_) => {
                tracing::warn!(connection = %self.label, "ignoring an Mcp-Session-Id with characters outside visible ASCII");
                self.set_session_id(None);
            }
            None => self.set_session_id(None),
        }
    }

    /// The current mode.
    pub(crate) fn mode(&self) -> ModeState {
        lock(&self.mode).clone()
    }

    /// Sets the mode.
    pub(crate) fn set_mode(&self, m: ModeState) {
        *lock(&self.mode) = m;
    }

    /// Waits for, and holds, the right to switch to legacy HTTP+SSE.
    pub(crate) async fn lock_fallback(&self) -> tokio::sync::MutexGuard<'_, ()> {
        self.fallback.lock().await
    }

    /// `true` when this call may start the session's GET listener: none was
    /// started for the current session (later calls get `false`).
    pub(crate) fn claim_listener(&self) -> bool {
        !self.listener_started.swap(true, Ordering::AcqRel)
    }

    /// Keeps the task of the GET listener that [`claim_listener`]
    /// allowed.
    ///
    /// [`claim_listener`]: Self::claim_listener
    pub(crate) fn set_listener(&self, task: AbortHandle) {
        *lock(&self.listener) = Some(task);
    }

    /// Ends the GET listener, if any, and lets the next
    /// `notifications/initialized` (or `start_listening`) open a new one.
    pub(crate) fn reset_listener(&self) {
        if let Some(task) = lock(&self.listener).take() {
            task.abort();
        }
        self.listener_started.store(false, Ordering::Release);
    }

    /// Keeps the task that reads the legacy SSE stream.
    pub(crate) fn set_legacy_reader(&self, task: AbortHandle) {
        *lock(&self.legacy_reader) = Some(task);
    }

    /// Stops the background tasks (the GET listener, the legacy reader).
    pub(crate) fn stop_tasks(&self) {
        for slot in [&self.listener, &self.legacy_reader] {
            if let Some(task) = lock(slot).take() {
                task.abort();
            }
        }
    }
}

impl SessionHeaders for Session {
    fn protocol_version(&self) -> Option<ProtocolVersion> {
        self.version()
    }

    fn session_id(&self) -> Option<String> {
        self.session_id()
    }
}
