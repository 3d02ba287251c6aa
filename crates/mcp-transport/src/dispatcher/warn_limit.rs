//! The rate limit of the warnings about skipped input: a server that logs
//! on stdout must not flood the log (log it, rate-limited and truncated).

use std::time::Duration;

use super::Dispatcher;

/// At most this many warnings about skipped input (a line or an SSE event
/// that is not JSON-RPC) per [`SKIPPED_WARNING_WINDOW`] per connection.
pub const SKIPPED_WARNINGS_PER_WINDOW: u32 = 5;

/// The window of [`SKIPPED_WARNINGS_PER_WINDOW`]: 10 000 ms.
pub const SKIPPED_WARNING_WINDOW: Duration = Duration::from_secs(10);

/// Rate limit for the warnings about skipped input: a server that logs on
/// stdout must not flood the log (each line is logged, but rate-limited and
/// truncated). Past the limit, skipped input is logged at debug and
/// counted; the next warning says how many were not shown.
#[derive(Debug, Default)]
pub(super) struct WarnLimit {
    window_start: Option<std::time::Instant>,
    shown: u32,
    hidden: u64,
}

impl WarnLimit {
    /// `Some(hidden since the last warning)` when a warning may be shown
    /// at `now`; `None` (and counted) when it may not.
    pub(super) fn admit(&mut self, now: std::time::Instant) -> Option<u64> {
        if self
            .window_start
            .is_none_or(|start| now.saturating_duration_since(start) >= SKIPPED_WARNING_WINDOW)
        {
            self.window_start = Some(now);
            self.shown = 0;
        }
        if self.shown < SKIPPED_WARNINGS_PER_WINDOW {
            self.shown += 1;
            Some(std::mem::take(&mut self.hidden))
        } else {
            self.hidden = self.hidden.saturating_add(1);
            None
        }
    }
}

impl Dispatcher {
    /// Whether a warning about skipped input may be shown now (see
    /// [`WarnLimit`]), with the number not shown since the last one.
    pub(super) fn admit_skipped_warning(&self) -> Option<u64> {
        self.skipped_warnings
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .admit(std::time::Instant::now())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skipped_input_warnings_are_rate_limited_per_window() {
        let start = std::time::Instant::now();
        let mut limit = WarnLimit::default();
        let first: Vec<_> = (0..8).map(|_| limit.admit(start)).collect();
        assert_eq!(
            first,
            [
                Some(0),
                Some(0),
                Some(0),
                Some(0),
                Some(0),
                None,
                None,
                None
            ]
        );
        // Still inside the window: counted, not shown.
        assert_eq!(limit.admit(start + SKIPPED_WARNING_WINDOW / 2), None);
        // A new window: shown again, with the count of those not shown.
        assert_eq!(limit.admit(start + SKIPPED_WARNING_WINDOW), Some(4));
        assert_eq!(limit.admit(start + SKIPPED_WARNING_WINDOW), Some(0));
    }
}
