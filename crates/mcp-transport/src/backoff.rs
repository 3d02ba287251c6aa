//! The retry policy of every reconnection: jittered exponential backoff with
//! a floor, a cap and a maximum number of attempts. The HTTP transport uses
//! it to resume an SSE stream and to reopen the GET listening stream (spec
//! `basic/transports` § Resumability and Redelivery), with the server's
//! `retry:` hint; the manager uses it to reconnect a server that went away.
//!
//! A validated value; its maths saturate at the cap (no overflow for any
//! attempt number) and hold for any jitter draw. Pure arithmetic, no I/O.

use std::time::Duration;

/// Default first delay: 500 ms.
const DEFAULT_BASE: Duration = Duration::from_millis(500);
/// Default cap on one delay: 30 000 ms.
const DEFAULT_CAP: Duration = Duration::from_millis(30_000);
/// Default number of attempts before the caller gives up: 8.
const DEFAULT_MAX_ATTEMPTS: u32 = 8;
/// Default jitter fraction: 0.5 (up to half of a delay is removed at random).
const DEFAULT_JITTER: f64 = 0.5;

/// Why a [`Backoff`] could not be built.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum BackoffError {
    /// `base` is zero: every delay would be zero, and a retry loop would
    /// spin against a peer that keeps failing.
    #[error("backoff base must be > 0")]
    ZeroBase,
    /// `cap` is smaller than `base`.
    #[error("backoff cap ({cap:?}) is smaller than its base ({base:?})")]
    #[non_exhaustive]
    CapBelowBase {
        /// The base.
        base: Duration,
        /// The cap.
        cap: Duration,
    },
    /// `jitter` is not within `0.0..=1.0` (or is NaN).
    #[error("backoff jitter {0} is not within 0.0..=1.0")]
    BadJitter(f64),
}

/// Jittered exponential backoff.
///
/// # Attempt numbers
/// Attempts are numbered from 1: attempt 1 is the first retry after a
/// failure (the first reconnection), and waits about `base`. A caller that
/// counts failed retries from 0 asks about attempt `failed + 1`.
///
/// # Delays
/// Attempt `n` has the ceiling `d(n) = min(cap, b · 2^(n-1))`, where `b` is
/// `base`, or a hint of the peer (an SSE `retry:` field) clamped to
/// `[base, cap]`. The delay is the ceiling reduced by a random fraction of at
/// most `jitter`, and never below `base`: a delay in
/// `[max(base, d(n)·(1-jitter)), d(n)]`. After `max_attempts` attempts
/// (`None`: never) the caller gives up ([`allows`](Self::allows)).
///
/// ```
/// use std::time::Duration;
/// use mcp_transport::Backoff;
/// let b = Backoff::new(Duration::from_millis(100), Duration::from_secs(1), Some(5), 0.0).unwrap();
/// assert_eq!(b.ceiling(1), Duration::from_millis(100));
/// assert_eq!(b.ceiling(3), Duration::from_millis(400));
/// assert_eq!(b.ceiling(60), Duration::from_secs(1)); // capped
/// assert!(b.allows(5) && !b.allows(6));
/// // A server asking for 60 s between attempts is clamped to the cap.
/// assert_eq!(b.delay_with(1, Some(Duration::from_secs(60)), 0.5), Duration::from_secs(1));
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Backoff {
    base: Duration,
    cap: Duration,
    max_attempts: Option<u32>,
    jitter: f64,
}

impl Default for Backoff {
    /// A first delay of 500 ms doubling up to 30 000 ms, at most 8
    /// attempts, each delay randomised by up to half (jitter 0.5).
    fn default() -> Self {
        Backoff {
            base: DEFAULT_BASE,
            cap: DEFAULT_CAP,
            max_attempts: Some(DEFAULT_MAX_ATTEMPTS),
            jitter: DEFAULT_JITTER,
        }
    }
}

impl Backoff {
    /// A policy; `max_attempts: None` retries forever, `Some(0)` never.
    ///
    /// Errors: a zero `base`, `cap < base`, `jitter` outside `0.0..=1.0`
    /// (or NaN).
    pub fn new(
        base: Duration,
        cap: Duration,
        max_attempts: Option<u32>,
        jitter: f64,
    ) -> Result<Backoff, BackoffError> {
        if base.is_zero() {
            return Err(BackoffError::ZeroBase);
        }
        if cap < base {
            return Err(BackoffError::CapBelowBase { base, cap });
        }
        if !(0.0..=1.0).contains(&jitter) {
            return Err(BackoffError::BadJitter(jitter));
        }
        Ok(Backoff {
            base,
            cap,
            max_attempts,
            jitter,
        })
    }

    /// The same policy with another number of attempts (`None`: unlimited).
    pub fn with_max_attempts(mut self, max_attempts: Option<u32>) -> Self {
        self.max_attempts = max_attempts;
        self
    }

    /// The first delay, and the smallest.
    pub fn base(&self) -> Duration {
        self.base
    }

    /// The largest delay.
    pub fn cap(&self) -> Duration {
        self.cap
    }

    /// Attempts before giving up (`None`: unlimited).
    pub fn max_attempts(&self) -> Option<u32> {
        self.max_attempts
    }

    /// The jitter fraction, `0.0..=1.0`.
    pub fn jitter(&self) -> f64 {
        self.jitter
    }

    /// `true` when attempt `attempt` (from 1) may be made.
    pub fn allows(&self, attempt: u32) -> bool {
        attempt >= 1 && self.max_attempts.is_none_or(|m| attempt <= m)
    }

    /// A peer's hint (an SSE `retry:` field) clamped to `[base, cap]`.
    pub fn clamp_hint(&self, hint: Duration) -> Duration {
        hint.clamp(self.base, self.cap)
    }

    /// The un-jittered delay before attempt `attempt` (from 1; 0 is treated
    /// as 1): `min(cap, base · 2^(attempt-1))`, saturating.
    pub fn ceiling(&self, attempt: u32) -> Duration {
        self.ceiling_from(self.base, attempt)
    }

    /// `min(cap, first · 2^(attempt-1))`, saturating; `first <= cap`.
    fn ceiling_from(&self, first: Duration, attempt: u32) -> Duration {
        let exp = attempt.saturating_sub(1);
        let first = first.as_nanos();
        // first · 2^exp in u128 nanoseconds; an overflow is past any cap.
        if exp >= 128 || first.leading_zeros() <= exp {
            return self.cap;
        }
        let d = first << exp;
        if d >= self.cap.as_nanos() {
            return self.cap;
        }
        // d < cap, so it fits a Duration.
        let secs = (d / 1_000_000_000) as u64;
        let nanos = (d % 1_000_000_000) as u32;
        Duration::new(secs, nanos)
    }

    /// The delay before attempt `attempt`, given the peer's `hint` (clamped
    /// with [`clamp_hint`](Self::clamp_hint), then doubled per attempt like
    /// `base`) and a jitter draw `unit` in `[0, 1]` (clamped; NaN counts as
    /// 0): `ceiling · (1 - jitter · unit)`, within `[base, cap]`. Pure, for
    /// tests; [`delay`](Self::delay) draws `unit` at random.
    pub fn delay_with(&self, attempt: u32, hint: Option<Duration>, unit: f64) -> Duration {
        let unit = if unit.is_nan() {
            0.0
        } else {
            unit.clamp(0.0, 1.0)
        };
        let first = hint.map_or(self.base, |h| self.clamp_hint(h));
        let ceiling = self.ceiling_from(first, attempt);
        let keep = (1.0 - self.jitter * unit).clamp(0.0, 1.0);
        // `mul_f64` panics when rounding takes a huge ceiling past
        // `Duration::MAX`; the checked form keeps the ceiling instead.
        Duration::try_from_secs_f64(ceiling.as_secs_f64() * keep)
            .unwrap_or(ceiling)
            .clamp(self.base, ceiling)
    }

    /// The delay before attempt `attempt` (from 1), with the peer's `hint`
    /// when it gave one, and a random jitter draw.
    pub fn delay(&self, attempt: u32, hint: Option<Duration>) -> Duration {
        self.delay_with(attempt, hint, rand::random::<f64>())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn validation() {
        assert_eq!(
            Backoff::new(ms(0), ms(1), None, 0.1),
            Err(BackoffError::ZeroBase)
        );
        assert!(matches!(
            Backoff::new(ms(2), ms(1), None, 0.1),
            Err(BackoffError::CapBelowBase { .. })
        ));
        for jitter in [1.5, -0.1, f64::NAN, f64::INFINITY] {
            assert!(
                matches!(
                    Backoff::new(ms(1), ms(1), None, jitter),
                    Err(BackoffError::BadJitter(_))
                ),
                "{jitter}"
            );
        }
        assert!(Backoff::new(ms(1), ms(1), Some(0), 1.0).is_ok());
        assert!(Backoff::new(ms(1), ms(1), Some(0), 0.0).is_ok());
    }

    #[test]
    fn doubling_then_cap() {
        let b = Backoff::new(ms(100), ms(1000), None, 0.0).unwrap();
        let got: Vec<u128> = (1..=6).map(|n| b.ceiling(n).as_millis()).collect();
        assert_eq!(got, [100, 200, 400, 800, 1000, 1000]);
        assert_eq!(b.ceiling(0), b.ceiling(1));
        assert_eq!(b.ceiling(u32::MAX), b.cap());
        assert_eq!(b.delay_with(3, None, 0.9), ms(400), "no jitter");
    }

    #[test]
    fn attempts_are_counted_from_one_and_bounded() {
        let b = Backoff::new(ms(1), ms(1), Some(2), 0.5).unwrap();
        assert!(!b.allows(0));
        assert!(b.allows(1) && b.allows(2) && !b.allows(3));
        let never = b.with_max_attempts(Some(0));
        assert!(!never.allows(1));
        let forever = b.with_max_attempts(None);
        assert!(forever.allows(u32::MAX));
    }

    #[test]
    fn jitter_never_goes_below_base() {
        let b = Backoff::new(ms(100), ms(10_000), None, 1.0).unwrap();
        assert_eq!(b.delay_with(1, None, 1.0), ms(100));
        assert_eq!(b.delay_with(4, None, 0.5), ms(400));
        assert_eq!(b.delay_with(4, None, 1.0), ms(100));
    }

    #[test]
    fn hint_is_clamped_both_ways_and_doubled() {
        let b = Backoff::new(ms(100), Duration::from_secs(5), Some(3), 0.0).unwrap();
        assert_eq!(b.clamp_hint(Duration::ZERO), ms(100));
        assert_eq!(
            b.clamp_hint(Duration::from_secs(3600)),
            Duration::from_secs(5)
        );
        assert_eq!(b.delay_with(1, Some(ms(2500)), 0.0), ms(2500));
        assert_eq!(b.delay_with(2, Some(ms(2500)), 0.0), Duration::from_secs(5));
        assert_eq!(b.delay_with(1, Some(ms(1)), 0.0), ms(100));
    }

    #[test]
    fn huge_base_saturates() {
        let big = Duration::from_secs(u64::MAX / 4);
        let b = Backoff::new(big, Duration::MAX, None, 1.0).unwrap();
        assert_eq!(b.ceiling(40), Duration::MAX);
        assert!(b.delay(40, None) <= Duration::MAX);
        assert_eq!(b.delay_with(40, Some(Duration::MAX), 0.0), Duration::MAX);
    }

    proptest! {
        #[test]
        fn delay_is_within_jitter_band_floor_and_cap(
            base_ms in 1u64..100_000,
            extra_ms in 0u64..10_000_000,
            jitter in 0.0f64..=1.0,
            attempt in 0u32..=u32::MAX,
            hint in proptest::option::of(0u64..u64::MAX / 4),
            unit in proptest::num::f64::ANY,
        ) {
            let base = ms(base_ms);
            let cap = base + ms(extra_ms);
            let b = Backoff::new(base, cap, None, jitter).unwrap();
            let hint = hint.map(ms);
            let first = hint.map_or(base, |h| b.clamp_hint(h));
            let ceiling = b.ceiling_from(first, attempt);
            let d = b.delay_with(attempt, hint, unit);
            prop_assert!(ceiling <= cap);
            prop_assert!(ceiling >= first);
            prop_assert!(d <= ceiling);
            prop_assert!(d >= base, "{d:?} < {base:?}");
            // lower edge of the band, with 1 ms slack for float rounding
            let floor = ceiling.mul_f64(1.0 - jitter);
            prop_assert!(d + ms(1) >= floor, "{d:?} < {floor:?}");
        }

        #[test]
        fn ceiling_is_monotonic(base_ms in 1u64..10_000, extra_ms in 0u64..1_000_000, n in 1u32..200) {
            let base = ms(base_ms);
            let b = Backoff::new(base, base + ms(extra_ms), None, 0.5).unwrap();
            prop_assert!(b.ceiling(n) <= b.ceiling(n + 1));
        }

        #[test]
        fn without_jitter_delay_never_shrinks(base_ms in 1u64..1000, attempt in 1u32..64) {
            let b = Backoff::new(ms(base_ms), Duration::from_secs(60), Some(3), 0.0).unwrap();
            prop_assert!(b.delay_with(attempt + 1, None, 0.3) >= b.delay_with(attempt, None, 0.3));
        }

        #[test]
        fn random_delay_within_band(attempt in 0u32..100) {
            let b = Backoff::default();
            let d = b.delay(attempt, None);
            prop_assert!(d <= b.cap());
            prop_assert!(d >= b.base());
            prop_assert!(d + ms(1) >= b.ceiling(attempt).mul_f64(0.5));
        }
    }
}
