//! The pending-request table both transports share: request id → the
//! waiter of its response.
//!
//! Ids are monotonic integers, unique per connection and never reused
//! (spec: `basic/index` § Requests: "MUST NOT have been previously used").
//! A response whose id matches nothing is logged at debug and dropped; it
//! is never fatal.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicI64, Ordering};

use mcp_types::RequestId;
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

use crate::error::TransportError;
use crate::options::Progress;

/// How many progress updates may queue for one request before newer ones
/// are dropped (and logged).
pub const PROGRESS_QUEUE: usize = 64;

/// The outcome delivered to a waiting request.
pub type Outcome = Result<Value, TransportError>;

struct Entry {
    method: Box<str>,
    done: oneshot::Sender<Outcome>,
    progress: Option<mpsc::Sender<Progress>>,
}

/// The waiter side of one registered request.
#[derive(Debug)]
pub struct Waiter {
    /// The id that was allocated.
    pub id: RequestId,
    /// Resolves with the response, or the error that ended the request.
    pub done: oneshot::Receiver<Outcome>,
    /// Progress updates, when progress was asked for.
    pub progress: Option<mpsc::Receiver<Progress>>,
}

/// The table. All operations take a short, uncontended-in-practice lock and
/// never await while holding it.
#[derive(Default)]
pub struct PendingTable {
    next_id: AtomicI64,
    entries: Mutex<HashMap<RequestId, Entry>>,
}

impl std::fmt::Debug for PendingTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PendingTable")
            .field("len", &self.len())
            .finish()
    }
}

impl PendingTable {
    /// An empty table whose first id is 0.
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<RequestId, Entry>> {
        // A panic while holding this lock cannot leave the map inconsistent
        // (every operation is a single insert/remove), so poison is ignored.
        self.entries.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Allocates the next id and registers a waiter for it.
    pub fn register(&self, method: &str, want_progress: bool) -> Waiter {
        let id = RequestId::Number(self.next_id.fetch_add(1, Ordering::Relaxed));
        let (tx, rx) = oneshot::channel();
        let (ptx, prx) = if want_progress {
            let (a, b) = mpsc::channel(PROGRESS_QUEUE);
            (Some(a), Some(b))
        } else {
            (None, None)
        };
        self.lock().insert(
            id.clone(),
            Entry {
                method: method.into(),
                done: tx,
                progress: ptx,
            },
        );
        Waiter {
            id,
            done: rx,
            progress: prx,
        }
    }

    /// Delivers an outcome to request `id`. Returns `false` when no request
    /// waits on `id` (unknown, already answered, timed out or cancelled).
    pub fn complete(&self, id: &RequestId, outcome: Outcome) -> bool {
        let entry = self.lock().remove(id);
        match entry {
            Some(e) => {
                // The waiter may have gone away a moment ago; that is fine.
                let _ = e.done.send(outcome);
                true
            }
            None => false,
        }
    }

    /// The method of pending request `id`.
    pub fn method_of(&self, id: &RequestId) -> Option<String> {
        self.lock().get(id).map(|e| e.method.to_string())
    }

    /// Hands a progress update to request `token`, when it asked for
    /// progress. Returns `false` when no pending request has that token.
    pub fn progress(&self, token: &RequestId, update: Progress) -> bool {
        let guard = self.lock();
        match guard.get(token).and_then(|e| e.progress.as_ref()) {
            Some(tx) => {
                if tx.try_send(update).is_err() {
                    tracing::debug!(%token, "progress queue full; update dropped");
                }
                true
            }
            None => false,
        }
    }

    /// Forgets request `id` without delivering anything (timeout, cancel, drop).
    pub fn remove(&self, id: &RequestId) -> bool {
        self.lock().remove(id).is_some()
    }

    /// Fails every pending request with `error` (connection closed).
    pub fn fail_all(&self, error: &TransportError) {
        let drained: Vec<Entry> = self.lock().drain().map(|(_, e)| e).collect();
        for e in drained {
            let _ = e.done.send(Err(error.clone()));
        }
    }

    /// How many requests are pending.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// `true` when no request is pending.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_monotonic_and_unique() {
        let t = PendingTable::new();
        let a = t.register("x", false);
        let b = t.register("x", false);
        assert_eq!(a.id, RequestId::Number(0));
        assert_eq!(b.id, RequestId::Number(1));
        assert!(t.remove(&a.id));
        let c = t.register("x", false);
        assert_eq!(c.id, RequestId::Number(2), "ids are never reused");
    }

    #[tokio::test]
    async fn unknown_id_is_not_fatal() {
        let t = PendingTable::new();
        let w = t.register("tools/list", false);
        assert!(
            !t.complete(&RequestId::from("0"), Ok(Value::Null)),
            "string \"0\" is not id 0"
        );
        assert!(t.complete(&w.id, Ok(Value::Bool(true))));
        assert_eq!(w.done.await.unwrap().unwrap(), Value::Bool(true));
        assert!(
            !t.complete(&RequestId::Number(0), Ok(Value::Null)),
            "late duplicate is dropped"
        );
    }

    #[tokio::test]
    async fn fail_all_reaches_every_waiter() {
        let t = PendingTable::new();
        let a = t.register("a", false);
        let b = t.register("b", false);
        t.fail_all(&TransportError::Cancelled);
        assert!(a.done.await.unwrap().unwrap_err().is_cancelled());
        assert!(b.done.await.unwrap().unwrap_err().is_cancelled());
        assert!(t.is_empty());
    }
}
