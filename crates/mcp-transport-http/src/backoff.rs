//! The reconnection policy: jittered exponential backoff with a retry cap,
//! used to resume an SSE stream (`Last-Event-ID`, spec
//! `basic/transports` § Resumability and Redelivery) and to reopen the GET
//! listening stream. Pure arithmetic, no I/O.

use std::time::Duration;

/// A validated backoff policy.
///
/// The delay before attempt `n` (0-based) is `base × 2ⁿ`, saturating at
/// [`max`](Self::max), minus a random fraction of up to
/// [`jitter`](Self::jitter) of it, and never below [`min`](Self::min).
/// `base` is [`min`](Self::min), or the server's `retry:` hint clamped to
/// `[min, max]`.
///
/// ```
/// use std::time::Duration;
/// use mcp_transport_http::Backoff;
/// let b = Backoff::new(Duration::from_millis(100), Duration::from_secs(2), 0.0, 3).unwrap();
/// assert_eq!(b.delay(0, None, 0.5), Duration::from_millis(100));
/// assert_eq!(b.delay(3, None, 0.5), Duration::from_millis(800));
/// assert_eq!(b.delay(9, None, 0.5), Duration::from_secs(2)); // capped
/// // A server asking for 60 s is clamped to max.
/// assert_eq!(b.delay(0, Some(Duration::from_secs(60)), 0.5), Duration::from_secs(2));
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Backoff {
    min: Duration,
    max: Duration,
    jitter: f64,
    max_retries: u32,
}

/// Why a [`Backoff`] was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BackoffError {
    /// `min` was greater than `max`.
    #[error("backoff min must not exceed max")]
    MinAboveMax,
    /// `jitter` was not a number in `0.0..=1.0`.
    #[error("backoff jitter must be within 0.0..=1.0")]
    Jitter,
}

impl Default for Backoff {
    /// min 500 ms, max 30 000 ms, jitter 0.5, 5 retries.
    fn default() -> Self {
        Backoff {
            min: Duration::from_millis(500),
            max: Duration::from_millis(30_000),
            jitter: 0.5,
            max_retries: 5,
        }
    }
}

impl Backoff {
    /// A policy. `jitter` is the fraction (0.0–1.0) of each delay that may be
    /// randomly removed; `max_retries` caps consecutive failed attempts.
    ///
    /// Errors: [`BackoffError`] when `min > max` or `jitter` is out of range.
    pub fn new(
        min: Duration,
        max: Duration,
        jitter: f64,
        max_retries: u32,
    ) -> Result<Backoff, BackoffError> {
        if min > max {
            return Err(BackoffError::MinAboveMax);
        }
        if !(0.0..=1.0).contains(&jitter) {
            return Err(BackoffError::Jitter);
        }
        Ok(Backoff {
            min,
            max,
            jitter,
            max_retries,
        })
    }

    /// The smallest delay.
    pub fn min(&self) -> Duration {
        self.min
    }

    /// The largest delay.
    pub fn max(&self) -> Duration {
        self.max
    }

    /// The jitter fraction.
    pub fn jitter(&self) -> f64 {
        self.jitter
    }

    /// How many consecutive failed attempts are allowed before giving up.
    pub fn max_retries(&self) -> u32 {
        self.max_retries
    }

    /// A server `retry:` hint clamped to `[min, max]`.
    pub fn clamp_hint(&self, hint: Duration) -> Duration {
        hint.clamp(self.min, self.max)
    }

    /// The delay before attempt `attempt` (0-based), given the server's
    /// `retry:` hint and a random sample `r` in `0.0..1.0` (values outside
    /// are clamped). Always within `[min, max]`.
    pub fn delay(&self, attempt: u32, hint: Option<Duration>, r: f64) -> Duration {
        let base = hint.map_or(self.min, |h| self.clamp_hint(h));
        let factor = 1u32.checked_shl(attempt.min(31)).unwrap_or(u32::MAX);
        let full = base.saturating_mul(factor).min(self.max);
        let r = if r.is_finite() {
            r.clamp(0.0, 1.0)
        } else {
            0.0
        };
        let cut = full.mul_f64(self.jitter * r);
        full.saturating_sub(cut).clamp(self.min, self.max)
    }

    /// [`delay`](Self::delay) with a fresh random sample.
    pub fn delay_random(&self, attempt: u32, hint: Option<Duration>) -> Duration {
        self.delay(attempt, hint, rand::random::<f64>())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn rejects_invalid_policies() {
        let s = Duration::from_secs(1);
        assert_eq!(
            Backoff::new(s * 2, s, 0.1, 1),
            Err(BackoffError::MinAboveMax)
        );
        assert_eq!(Backoff::new(s, s, 1.5, 1), Err(BackoffError::Jitter));
        assert_eq!(Backoff::new(s, s, f64::NAN, 1), Err(BackoffError::Jitter));
    }

    #[test]
    fn hint_is_clamped_both_ways() {
        let b = Backoff::new(Duration::from_millis(100), Duration::from_secs(5), 0.0, 3).unwrap();
        assert_eq!(b.clamp_hint(Duration::ZERO), Duration::from_millis(100));
        assert_eq!(
            b.clamp_hint(Duration::from_secs(3600)),
            Duration::from_secs(5)
        );
        assert_eq!(
            b.delay(1, Some(Duration::from_millis(2500)), 0.0),
            Duration::from_secs(5)
        );
        assert_eq!(
            b.delay(0, Some(Duration::from_millis(2500)), 0.0),
            Duration::from_millis(2500)
        );
    }

    proptest! {
        #[test]
        fn delay_stays_within_bounds(
            min_ms in 0u64..10_000,
            extra_ms in 0u64..100_000,
            jitter in 0.0f64..=1.0,
            attempt in 0u32..100,
            hint in proptest::option::of(0u64..u64::MAX / 4),
            r in -1.0f64..2.0,
        ) {
            let min = Duration::from_millis(min_ms);
            let max = Duration::from_millis(min_ms + extra_ms);
            let b = Backoff::new(min, max, jitter, 3).unwrap();
            let d = b.delay(attempt, hint.map(Duration::from_millis), r);
            prop_assert!(d >= min && d <= max, "{d:?} not in [{min:?}, {max:?}]");
        }

        #[test]
        fn without_jitter_delay_never_shrinks(min_ms in 1u64..1000, attempt in 0u32..64) {
            let b = Backoff::new(Duration::from_millis(min_ms), Duration::from_secs(60), 0.0, 3).unwrap();
            prop_assert!(b.delay(attempt + 1, None, 0.3) >= b.delay(attempt, None, 0.3));
        }
    }
}
