//! Bounds on what a peer can make the parser buffer.

/// Limits of an [`SseParser`](super::SseParser).
///
/// Build with [`SseLimits::default`] and adjust with the `with_*` methods.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct SseLimits {
    /// Maximum size of one event in bytes: the `data` accumulated so far
    /// (values plus one `\n` per `data` line) plus the raw bytes of the line
    /// being read (without its line end). This also bounds any single line
    /// (comments, `event`, `id`, unknown fields). Default
    /// [`SseLimits::DEFAULT_MAX_EVENT_SIZE`] (64 MiB). Past it the parser
    /// yields [`SseError::EventTooLarge`](super::SseError::EventTooLarge).
    pub max_event_size: usize,
}

impl SseLimits {
    /// Default for [`SseLimits::max_event_size`]: 64 MiB (64 × 1024 × 1024 bytes).
    pub const DEFAULT_MAX_EVENT_SIZE: usize = 64 * 1024 * 1024;

    /// Returns these limits with `max_event_size` set to `bytes`.
    #[must_use]
    pub fn with_max_event_size(mut self, bytes: usize) -> Self {
        self.max_event_size = bytes;
        self
    }
}

impl Default for SseLimits {
    fn default() -> Self {
        Self {
            max_event_size: Self::DEFAULT_MAX_EVENT_SIZE,
        }
    }
}
