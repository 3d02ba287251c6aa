//! The pending-request table both transports share: request id → the
//! waiter of its response.
//!
//! Ids are monotonic integers, unique per connection and never reused
//! (spec: `basic/index` § Requests: "MUST NOT have been previously used").
//! A response whose id matches nothing is logged at debug and dropped; it
//! is never fatal.
//!
//! Ids keep their JSON type (JSON-RPC 2.0 § 5: the response id is the
//! request's), with one tolerance: since every id we issue is an integer, a
//! response id that is a string holding exactly the canonical decimal digits
//! of a pending integer id (`"3"` for `3`; not `"03"`, `"+3"`, `" 3"`,
//! `"3.0"`, `"-0"`) answers that request, unless a pending string id equals
//! it. Some servers store ids as strings and echo them so; the request is
//! unambiguous, and [`IdMatch::IntegerAsString`] lets the caller warn.
//! Never the other way round: a number never answers a string id. Progress
//! tokens are not matched so: a token of another type is another token.

use std::borrow::Cow;
use std::collections::{HashMap, hash_map};
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Mutex;
use std::sync::atomic::{AtomicI64, AtomicUsize, Ordering};
use std::task::{Context, Poll, Waker};

use mcp_types::REQUEST_METHODS;
use mcp_types::RawResult;
use mcp_types::RequestId;
use tokio::sync::mpsc;

use crate::error::TransportError;
use crate::options::Progress;

/// How many progress updates may queue for one request before newer ones
/// are dropped (and logged).
pub const PROGRESS_QUEUE: usize = 64;

/// The outcome delivered to a waiting request.
pub(crate) type Outcome = Result<RawResult, TransportError>;

struct Entry {
    method: Cow<'static, str>,
    slot: Slot,
    progress: Option<mpsc::Sender<Progress>>,
}

/// Where a request's outcome waits for the request to take it.
enum Slot {
    /// No outcome yet; the waker of the request's task once it has polled.
    Waiting(Option<Waker>),
    /// The outcome, until the request takes it
    /// ([`PendingTable::poll_outcome`]). An answered request is no longer
    /// pending: it is not counted, nor answered twice, nor sent progress.
    Done(Outcome),
}

impl Entry {
    fn is_waiting(&self) -> bool {
        matches!(self.slot, Slot::Waiting(_))
    }
}

/// The waiter side of one registered request; its outcome is taken with
/// [`PendingTable::poll_outcome`].
#[derive(Debug)]
pub(crate) struct Waiter {
    /// The id that was allocated.
    pub(crate) id: RequestId,
    /// Progress updates, when progress was asked for.
    pub(crate) progress: Option<mpsc::Receiver<Progress>>,
}

/// The table. All operations take a short, uncontended-in-practice lock and
/// never await while holding it.
///
/// Per request it allocates nothing once the map has grown to the number
/// of requests in flight (a progress queue when asked): the outcome waits
/// in the request's entry rather than in a channel of its own, the method
/// of a known MCP request is a `&'static str`, and ids are hashed with
/// [`IdHasher`] (ids are our own monotonic integers, so a DoS-resistant
/// hash buys nothing here).
#[derive(Default)]
pub(crate) struct PendingTable {
    next_id: AtomicI64,
    entries: Mutex<Entries>,
    /// The number of entries waiting for their outcome, written under the
    /// lock after every change, so that the count is read without it: a
    /// transport asks for it on every send (stdio writes a request
    /// straight away only when it is alone in flight) and must not contend
    /// with the reader completing responses.
    len: AtomicUsize,
}

type Map = HashMap<RequestId, Entry, BuildHasherDefault<IdHasher>>;

/// The entries, and how many of them hold an outcome not taken yet.
#[derive(Default)]
struct Entries {
    map: Map,
    answered: usize,
}

impl Entries {
    /// Puts `outcome` in `id`'s entry when it waits for one and returns
    /// the waker to wake once the lock is released; hands `outcome` back
    /// when no entry waits on `id` (unknown, already answered).
    fn deliver(&mut self, id: &RequestId, outcome: Outcome) -> Result<Option<Waker>, Outcome> {
        let Some(slot) = self.map.get_mut(id).map(|e| &mut e.slot) else {
            return Err(outcome);
        };
        let Slot::Waiting(waker) = slot else {
            return Err(outcome);
        };
        let waker = waker.take();
        *slot = Slot::Done(outcome);
        self.answered += 1;
        Ok(waker)
    }

    /// Forgets `id`'s entry; returns it.
    fn remove(&mut self, id: &RequestId) -> Option<Entry> {
        let entry = self.map.remove(id)?;
        if !entry.is_waiting() {
            self.answered -= 1;
        }
        Some(entry)
    }

    /// The entry of `id` when it still waits for its outcome.
    fn waiting(&self, id: &RequestId) -> Option<&Entry> {
        self.map.get(id).filter(|e| e.is_waiting())
    }
}

/// The table's lock guard; it publishes the count of waiting entries when
/// dropped.
struct Locked<'a> {
    entries: std::sync::MutexGuard<'a, Entries>,
    len: &'a AtomicUsize,
}

impl std::ops::Deref for Locked<'_> {
    type Target = Entries;
    fn deref(&self) -> &Entries {
        &self.entries
    }
}

impl std::ops::DerefMut for Locked<'_> {
    fn deref_mut(&mut self) -> &mut Entries {
        &mut self.entries
    }
}

impl Drop for Locked<'_> {
    fn drop(&mut self) {
        let waiting = self.entries.map.len() - self.entries.answered;
        self.len.store(waiting, Ordering::Release);
    }
}

/// A fast hasher for [`RequestId`] keys: one multiply per word (the
/// Fx hash). Our ids are allocated by us, densely; a string id a peer
/// echoes back that matches nothing only costs a miss.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct IdHasher(u64);

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl Hasher for IdHasher {
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }

    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }

    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.write_u64(u64::from(i));
    }

    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.write_u64(i as u64);
    }

    #[inline]
    fn write_i64(&mut self, i: i64) {
        self.write_u64(i as u64);
    }

    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.0 = (self.0.rotate_left(5) ^ i).wrapping_mul(SEED);
    }
}

/// How a response id found its pending request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum IdMatch {
    /// The id of a pending request, in the JSON type it was sent with.
    Exact,
    /// A string holding the canonical decimal digits of a pending integer
    /// id (and no pending string id is equal to it): the server echoed our
    /// integer id as a string.
    IntegerAsString,
    /// No pending request has this id (unknown, already answered, timed out
    /// or cancelled).
    Unknown,
}

impl IdMatch {
    /// `true` unless [`IdMatch::Unknown`].
    pub(crate) fn found(self) -> bool {
        !matches!(self, IdMatch::Unknown)
    }
}

/// `true` when a response carrying `echoed` answers the request this client
/// sent with `sent`, as the dispatcher matches responses: the same id, or
/// (every id we issue is an integer) a string of the canonical decimal
/// digits of `sent` (`"3"` for 3; not `"03"`, `"+3"`, `" 3"`, `"3.0"`,
/// `"-0"`), which some servers echo. For a transport that reads one
/// request's reply outside the dispatcher (an HTTP error body).
///
/// ```
/// use mcp_transport::echo_answers;
/// use mcp_types::RequestId;
/// assert!(echo_answers(&RequestId::Number(3), &RequestId::Number(3)));
/// assert!(echo_answers(&RequestId::Number(3), &RequestId::from("3")));
/// assert!(!echo_answers(&RequestId::Number(3), &RequestId::from("03")));
/// assert!(!echo_answers(&RequestId::from("3"), &RequestId::Number(3)));
/// ```
pub fn echo_answers(sent: &RequestId, echoed: &RequestId) -> bool {
    sent == echoed || matches!(sent, RequestId::Number(n) if canonical_integer(echoed) == Some(*n))
}

/// The integer a string id spells in canonical decimal form (what an
/// integer id looks like when a server turns it into a string), else
/// `None`: leading zeros, a sign other than `-`, `-0`, spaces, fractions
/// and exponents are not canonical, so such a string matches nothing.
fn canonical_integer(id: &RequestId) -> Option<i64> {
    let RequestId::String(s) = id else {
        return None;
    };
    // i64::MIN has 20 characters; anything longer cannot be canonical.
    if s.is_empty() || s.len() > 20 {
        return None;
    }
    let n = s.parse::<i64>().ok()?;
    (n.to_string() == *s).then_some(n)
}

/// `method` without an allocation when it is a request the schema names.
pub(crate) fn method_name(method: &str) -> Cow<'static, str> {
    match REQUEST_METHODS.iter().find(|m| **m == method) {
        Some(m) => Cow::Borrowed(m),
        None => Cow::Owned(method.to_owned()),
    }
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
    pub(crate) fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> Locked<'_> {
        // A panic while holding this lock cannot leave the map inconsistent
        // (every operation is a single insert/remove), so poison is ignored.
        Locked {
            entries: self.entries.lock().unwrap_or_else(|p| p.into_inner()),
            len: &self.len,
        }
    }

    /// Allocates the next id and registers a waiter for it.
    pub(crate) fn register(&self, method: Cow<'static, str>, want_progress: bool) -> Waiter {
        let id = RequestId::Number(self.next_id.fetch_add(1, Ordering::Relaxed));
        let (ptx, prx) = if want_progress {
            let (a, b) = mpsc::channel(PROGRESS_QUEUE);
            (Some(a), Some(b))
        } else {
            (None, None)
        };
        self.lock().map.insert(
            id.clone(),
            Entry {
                method,
                slot: Slot::Waiting(None),
                progress: ptx,
            },
        );
        Waiter { id, progress: prx }
    }

    /// The outcome of request `id` once it has one (taken: the entry is
    /// forgotten); `Ready(None)` when the entry is gone without one (it
    /// was removed). Until then the task's waker is kept for the outcome
    /// to wake.
    pub(crate) fn poll_outcome(
        &self,
        id: &RequestId,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Outcome>> {
        let mut entries = self.lock();
        // One lookup for both cases (our ids are integers: the key's copy
        // allocates nothing).
        let hash_map::Entry::Occupied(mut entry) = entries.map.entry(id.clone()) else {
            return Poll::Ready(None);
        };
        if let Slot::Waiting(waker) = &mut entry.get_mut().slot {
            match waker {
                Some(w) if w.will_wake(cx.waker()) => {}
                _ => *waker = Some(cx.waker().clone()),
            }
            return Poll::Pending;
        }
        let slot = entry.remove().slot;
        entries.answered -= 1;
        match slot {
            Slot::Done(outcome) => Poll::Ready(Some(outcome)),
            Slot::Waiting(_) => Poll::Ready(None),
        }
    }

    /// Forgets request `id` and returns its outcome, when one arrived and
    /// was not taken yet.
    pub(crate) fn take(&self, id: &RequestId) -> Option<Outcome> {
        match self.lock().remove(id)?.slot {
            Slot::Done(outcome) => Some(outcome),
            Slot::Waiting(_) => None,
        }
    }

    /// Delivers an outcome to request `id`. Returns `false` when no request
    /// waits on `id` (unknown, already answered, timed out or cancelled).
    pub(crate) fn complete(&self, id: &RequestId, outcome: Outcome) -> bool {
        // The lock is released before the request's task is woken.
        let delivered = self.lock().deliver(id, outcome);
        match delivered {
            Ok(waker) => {
                if let Some(waker) = waker {
                    waker.wake();
                }
                true
            }
            Err(_) => false,
        }
    }

    /// Delivers the outcome of a response whose id is `id`, matched as
    /// described in the [module docs](self): exactly, or a string echo of
    /// one of our integer ids. Says which.
    pub(crate) fn complete_response(&self, id: &RequestId, outcome: Outcome) -> IdMatch {
        let (how, waker) = {
            let mut entries = self.lock();
            match entries.deliver(id, outcome) {
                Ok(waker) => (IdMatch::Exact, waker),
                Err(outcome) => match canonical_integer(id)
                    .and_then(|n| entries.deliver(&RequestId::Number(n), outcome).ok())
                {
                    Some(waker) => (IdMatch::IntegerAsString, waker),
                    None => (IdMatch::Unknown, None),
                },
            }
        };
        if let Some(waker) = waker {
            waker.wake();
        }
        how
    }

    /// The method of the pending request a response id `id` answers, matched
    /// as [`complete_response`](Self::complete_response) matches it.
    pub(crate) fn method_of_response(&self, id: &RequestId) -> Option<String> {
        let entries = self.lock();
        let entry = entries
            .waiting(id)
            .or_else(|| canonical_integer(id).and_then(|n| entries.waiting(&RequestId::Number(n))));
        entry.map(|e| e.method.to_string())
    }

    /// The method of pending request `id`.
    #[cfg(test)]
    pub(crate) fn method_of(&self, id: &RequestId) -> Option<String> {
        self.lock().waiting(id).map(|e| e.method.to_string())
    }

    /// Hands a progress update to request `token`, when it asked for
    /// progress. Returns `false` when no pending request has that token.
    pub(crate) fn progress(&self, token: &RequestId, update: Progress) -> bool {
        let guard = self.lock();
        match guard.waiting(token).and_then(|e| e.progress.as_ref()) {
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
    pub(crate) fn remove(&self, id: &RequestId) -> bool {
        self.lock().remove(id).is_some()
    }

    /// Fails every pending request with `error` (connection closed).
    pub(crate) fn fail_all(&self, error: &TransportError) {
        let wakers: Vec<Waker> = {
            let mut entries = self.lock();
            let mut failed = 0;
            let wakers = entries
                .map
                .values_mut()
                .filter(|e| e.is_waiting())
                .filter_map(|e| {
                    failed += 1;
                    match std::mem::replace(&mut e.slot, Slot::Done(Err(error.clone()))) {
                        Slot::Waiting(waker) => waker,
                        Slot::Done(_) => None,
                    }
                })
                .collect();
            entries.answered += failed;
            wakers
        };
        for waker in wakers {
            waker.wake();
        }
    }

    /// How many requests are pending (no lock taken: the count as the
    /// last change left it).
    pub(crate) fn len(&self) -> usize {
        self.len.load(Ordering::Acquire)
    }

    /// `true` when no request is pending.
    #[cfg(test)]
    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn methods_are_kept_known_or_not() {
        let t = PendingTable::new();
        let a = t.register(method_name("tools/call"), false);
        let b = t.register(method_name("x-vendor/custom"), false);
        assert_eq!(t.method_of(&a.id).as_deref(), Some("tools/call"));
        assert!(matches!(method_name("tools/call"), Cow::Borrowed(_)));
        assert_eq!(t.method_of(&b.id).as_deref(), Some("x-vendor/custom"));
        assert_eq!(t.method_of(&RequestId::from("0")), None);
    }

    #[test]
    fn id_hasher_separates_number_and_string_ids() {
        use std::hash::BuildHasher;
        let h = |id: &RequestId| BuildHasherDefault::<IdHasher>::default().hash_one(id);
        assert_ne!(h(&RequestId::Number(1)), h(&RequestId::Number(2)));
        assert_ne!(h(&RequestId::Number(1)), h(&RequestId::from("1")));
        let t = PendingTable::new();
        let ws: Vec<_> = (0..1000)
            .map(|_| t.register(method_name("ping"), false))
            .collect();
        for w in &ws {
            assert!(t.remove(&w.id));
        }
        assert!(t.is_empty());
    }

    #[test]
    fn ids_are_monotonic_and_unique() {
        let t = PendingTable::new();
        let a = t.register(method_name("x"), false);
        let b = t.register(method_name("x"), false);
        assert_eq!(a.id, RequestId::Number(0));
        assert_eq!(b.id, RequestId::Number(1));
        assert!(t.remove(&a.id));
        let c = t.register(method_name("x"), false);
        assert_eq!(c.id, RequestId::Number(2), "ids are never reused");
    }

    #[tokio::test]
    async fn unknown_id_is_not_fatal() {
        let t = PendingTable::new();
        let w = t.register(method_name("tools/list"), false);
        assert!(
            !t.complete(
                &RequestId::from("0"),
                Ok(RawResult::from_value(&serde_json::Value::Null))
            ),
            "string \"0\" is not id 0"
        );
        assert!(t.complete(
            &w.id,
            Ok(RawResult::from_value(&serde_json::Value::Bool(true)))
        ));
        assert_eq!(t.len(), 0, "an answered request is not pending");
        assert_eq!(
            outcome(&t, &w.id).await.unwrap().unwrap().as_bytes(),
            b"true"
        );
        assert_eq!(outcome(&t, &w.id).await.map(|_| ()), None, "taken once");
        assert!(
            !t.complete(
                &RequestId::Number(0),
                Ok(RawResult::from_value(&serde_json::Value::Null))
            ),
            "late duplicate is dropped"
        );
    }

    /// Registers a waiter under an id of our choosing (the table itself only
    /// issues integers), to check how string ids are matched.
    fn register_as(t: &PendingTable, id: RequestId) {
        t.lock().map.insert(
            id,
            Entry {
                method: method_name("x"),
                slot: Slot::Waiting(None),
                progress: None,
            },
        );
    }

    /// The outcome of `id`, once it has one.
    async fn outcome(t: &PendingTable, id: &RequestId) -> Option<Outcome> {
        std::future::poll_fn(|cx| t.poll_outcome(id, cx)).await
    }

    /// `true` when `id` has an outcome waiting to be taken.
    fn answered(t: &PendingTable, id: &RequestId) -> bool {
        t.lock().map.get(id).is_some_and(|e| !e.is_waiting())
    }

    fn ok() -> Outcome {
        Ok(RawResult::from_value(&serde_json::Value::Null))
    }

    #[test]
    fn canonical_integers_only() {
        for (s, want) in [
            ("0", Some(0)),
            ("3", Some(3)),
            ("-7", Some(-7)),
            ("9223372036854775807", Some(i64::MAX)),
            ("-9223372036854775808", Some(i64::MIN)),
            ("03", None),
            ("+3", None),
            (" 3", None),
            ("3 ", None),
            ("3.0", None),
            ("3e0", None),
            ("-0", None),
            ("", None),
            ("9223372036854775808", None),
            ("0x3", None),
            ("٣", None),
        ] {
            assert_eq!(canonical_integer(&RequestId::from(s)), want, "{s:?}");
        }
        assert_eq!(canonical_integer(&RequestId::Number(3)), None);
    }

    /// A pending string id that equals the echo wins over the integer id; a
    /// number never answers a string id.
    #[test]
    fn string_echo_prefers_a_pending_string_id_and_never_goes_the_other_way() {
        let t = PendingTable::new();
        let int = t.register(method_name("x"), false);
        assert_eq!(int.id, RequestId::Number(0));
        register_as(&t, RequestId::from("0"));
        assert_eq!(
            t.complete_response(&RequestId::from("0"), ok()),
            IdMatch::Exact
        );
        assert!(answered(&t, &RequestId::from("0")), "the string id got it");
        assert_eq!(t.len(), 1, "the integer id still waits");
        assert_eq!(
            t.complete_response(&RequestId::from("0"), ok()),
            IdMatch::IntegerAsString
        );
        assert!(t.is_empty());

        register_as(&t, RequestId::from("5"));
        assert_eq!(
            t.complete_response(&RequestId::Number(5), ok()),
            IdMatch::Unknown,
            "a number does not answer a string id"
        );
        assert!(!answered(&t, &RequestId::from("5")));
        assert_eq!(t.method_of_response(&RequestId::Number(5)), None);
        assert_eq!(
            t.method_of_response(&RequestId::from("5")).as_deref(),
            Some("x")
        );
    }

    /// A request waiting for its outcome is woken by it; an answered
    /// request is not pending any more (not counted, not answered twice,
    /// sent no progress), and forgetting it takes its outcome along.
    #[tokio::test]
    async fn an_outcome_wakes_its_request_and_ends_its_pending() {
        let t = std::sync::Arc::new(PendingTable::new());
        let w = t.register(method_name("tools/call"), true);
        let id = w.id.clone();
        let waiting = {
            let t = t.clone();
            let id = id.clone();
            tokio::spawn(async move { outcome(&t, &id).await })
        };
        tokio::task::yield_now().await;
        assert_eq!(t.len(), 1);
        assert!(t.complete(&id, ok()));
        assert!(!t.complete(&id, ok()), "answered once");
        assert_eq!(
            t.complete_response(&RequestId::from("0"), ok()),
            IdMatch::Unknown
        );
        assert_eq!(t.method_of_response(&id), None);
        let update = Progress {
            progress: 1.0,
            total: None,
            message: None,
        };
        assert!(!t.progress(&id, update), "no progress once answered");
        assert!(waiting.await.unwrap().unwrap().is_ok());
        assert!(t.lock().map.is_empty());

        let w = t.register(method_name("tools/call"), false);
        assert!(t.complete(&w.id, ok()));
        assert!(t.take(&w.id).unwrap().is_ok());
        let w = t.register(method_name("tools/call"), false);
        assert!(t.take(&w.id).is_none(), "no outcome to take");
        // Dropped after its answer arrived, before it took it.
        let w = t.register(method_name("tools/call"), false);
        assert!(t.complete(&w.id, ok()));
        assert!(t.remove(&w.id));
        assert!(t.lock().map.is_empty());
        assert_eq!(t.lock().answered, 0);
    }

    #[tokio::test]
    async fn fail_all_reaches_every_waiter() {
        let t = PendingTable::new();
        let a = t.register(method_name("a"), false);
        let b = t.register(method_name("b"), false);
        t.fail_all(&TransportError::Cancelled);
        assert!(t.is_empty(), "failed requests are not pending");
        assert!(
            outcome(&t, &a.id)
                .await
                .unwrap()
                .unwrap_err()
                .is_cancelled()
        );
        assert!(
            outcome(&t, &b.id)
                .await
                .unwrap()
                .unwrap_err()
                .is_cancelled()
        );
        assert!(t.lock().map.is_empty(), "every outcome was taken");
    }
}
