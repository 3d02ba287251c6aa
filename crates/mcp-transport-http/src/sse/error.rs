//! Errors of the event-stream parser.

/// An error found while parsing an event stream.
///
/// None of these is fatal: the parser keeps working after yielding one, so a
/// transport may log it (or fail the one request it concerns) and keep the
/// stream open.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SseError {
    /// An event (its accumulated `data` plus the line being read) or a single
    /// line grew past [`SseLimits::max_event_size`](super::SseLimits)
    /// bytes. Yielded once per such event; the event is discarded and the
    /// parser skips to the next blank line (the next event boundary).
    #[error("event-stream event exceeds the limit of {limit} bytes")]
    #[non_exhaustive]
    EventTooLarge {
        /// The limit in bytes that was exceeded.
        limit: usize,
    },
}

impl SseError {
    /// True for [`SseError::EventTooLarge`].
    pub fn is_too_large(&self) -> bool {
        matches!(self, Self::EventTooLarge { .. })
    }
}
