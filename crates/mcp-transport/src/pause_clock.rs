//! The connection's pause clock: how long, in total, the request timeouts
//! of a connection have stood still because the client was answering a
//! server request (see `dispatcher/request_loop.rs`).
//!
//! A request reads the clock when it starts and again only when its
//! deadline comes: the time counted against it is the wall time since its
//! start less the pauses in between. Nothing is done per request while a
//! pause begins or ends, so a connection with many requests in flight pays
//! nothing for the pauses it never has; a request whose deadline comes
//! during a pause waits for the pause to end (a subscription made then, and
//! only then).

use std::time::Duration;

use tokio::sync::watch;
use tokio::time::Instant;

/// The shared state: a count of the server requests being answered and
/// the time stood still so far.
#[derive(Debug, Clone, Copy, Default)]
struct State {
    /// Server requests being answered (arrived, answer not yet sent).
    open: usize,
    /// When the current pause began (`open` went from 0 to 1).
    since: Option<Instant>,
    /// The total of the pauses that ended.
    stood: Duration,
}

/// See the module docs. Cloning shares the clock.
#[derive(Debug, Clone)]
pub(crate) struct PauseClock(watch::Sender<State>);

impl Default for PauseClock {
    fn default() -> Self {
        PauseClock(watch::Sender::new(State::default()))
    }
}

impl PauseClock {
    /// A server request arrived: the clock stands still from now until
    /// every open one is [`closed`](Self::close).
    pub(crate) fn open(&self) {
        self.0.send_modify(|s| {
            if s.open == 0 {
                s.since = Some(Instant::now());
            }
            s.open += 1;
        });
    }

    /// A server request was answered (or discarded).
    pub(crate) fn close(&self) {
        self.0.send_modify(|s| {
            s.open = s.open.saturating_sub(1);
            if s.open == 0
                && let Some(since) = s.since.take()
            {
                s.stood += since.elapsed();
            }
        });
    }

    /// The total time stood still up to `now` (a pause in progress
    /// included), and whether one is in progress.
    pub(crate) fn read(&self, now: Instant) -> (Duration, bool) {
        let s = *self.0.borrow();
        let ongoing = s
            .since
            .map_or(Duration::ZERO, |since| now.saturating_duration_since(since));
        (s.stood + ongoing, s.open > 0)
    }

    /// `true` while a pause is in progress (a server request is being
    /// answered).
    pub(crate) fn is_paused(&self) -> bool {
        self.0.borrow().open > 0
    }

    /// Completes when no pause is in progress.
    pub(crate) async fn unpaused(&self) {
        let mut rx = self.0.subscribe();
        // The sender lives in the dispatcher, which outlives every request
        // waiting here; were it gone, the timers would simply run.
        let _ = rx.wait_for(|s| s.open == 0).await;
    }
}

/// A request's view of the clock: wall time since its start, less the
/// pauses since its start.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RequestClock {
    start: Instant,
    /// The clock's total when the request started.
    base: Duration,
}

impl RequestClock {
    /// Starts counting now.
    pub(crate) fn start(clock: &PauseClock) -> Self {
        let start = Instant::now();
        RequestClock {
            start,
            base: clock.read(start).0,
        }
    }

    /// The time counted against the request at `now`, and whether the
    /// clock stands still at the moment. During a pause it is the count at
    /// the pause's start.
    pub(crate) fn counted(&self, clock: &PauseClock, now: Instant) -> (Duration, bool) {
        let (stood, paused) = clock.read(now);
        let paused_since_start = stood.saturating_sub(self.base);
        (
            now.saturating_duration_since(self.start)
                .saturating_sub(paused_since_start),
            paused,
        )
    }

    /// [`instant_of`](Self::instant_of) for a request that has just
    /// started: its start plus `at`, without reading the clocks again. A
    /// pause that began since the start only makes this early, and a
    /// deadline that comes early is checked against the count and moved
    /// (see `dispatcher/request_loop.rs`).
    pub(crate) fn first_instant_of(&self, at: Duration) -> Option<Instant> {
        self.start.checked_add(at)
    }

    /// When the count reaches `at`, if no pause begins before: `None` when
    /// that is beyond what an [`Instant`] holds (no timeout, in effect).
    pub(crate) fn instant_of(&self, clock: &PauseClock, at: Duration) -> Option<Instant> {
        let now = Instant::now();
        let (counted, _) = self.counted(clock, now);
        now.checked_add(at.saturating_sub(counted))
    }
}
