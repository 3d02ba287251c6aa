//! The reconnection policy: jittered exponential backoff with a cap and a
//! maximum number of attempts. A validated value; its maths saturate at the
//! cap (no overflow for any attempt number) and hold for any jitter draw.

use std::time::Duration;

/// Default first delay: 500 ms.
pub const DEFAULT_BASE: Duration = Duration::from_millis(500);
/// Default cap on one delay: 30 000 ms.
pub const DEFAULT_CAP: Duration = Duration::from_millis(30_000);
/// Default number of reconnection attempts before a server is `Failed`: 8.
pub const DEFAULT_MAX_ATTEMPTS: u32 = 8;
/// Default jitter fraction: 0.5 (a delay is drawn from `[d/2, d]`).
pub const DEFAULT_JITTER: f64 = 0.5;

/// Why a [`Backoff`] could not be built.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum BackoffError {
    /// `base` is zero.
    #[error("backoff base must be > 0")]
    ZeroBase,
    /// `cap` is smaller than `base`.
    #[error("backoff cap ({cap:?}) is smaller than its base ({base:?})")]
    CapBelowBase {
        /// The base.
        base: Duration,
        /// The cap.
        cap: Duration,
    },
    /// `jitter` is not within `0.0..=1.0`.
    #[error("backoff jitter {0} is not within 0.0..=1.0")]
    BadJitter(f64),
}

/// Jittered exponential backoff.
///
/// Attempt `n` (1-based) waits `d(n) = min(cap, base · 2^(n-1))`, reduced by
/// a random fraction of at most `jitter`: a delay in `[d(n)·(1-jitter), d(n)]`.
/// After `max_attempts` attempts (`None`: never) the caller gives up.
///
/// ```
/// use std::time::Duration;
/// use mcp_manager::Backoff;
/// let b = Backoff::new(Duration::from_millis(100), Duration::from_secs(1), Some(5), 0.0).unwrap();
/// assert_eq!(b.ceiling(1), Duration::from_millis(100));
/// assert_eq!(b.ceiling(3), Duration::from_millis(400));
/// assert_eq!(b.ceiling(60), Duration::from_secs(1));
/// assert!(b.allows(5) && !b.allows(6));
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Backoff {
    base: Duration,
    cap: Duration,
    max_attempts: Option<u32>,
    jitter: f64,
}

impl Default for Backoff {
    /// 500 ms base, 30 000 ms cap, 8 attempts, jitter 0.5.
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
    /// A policy; `max_attempts: None` retries forever.
    ///
    /// Errors: a zero `base`, `cap < base`, `jitter` outside `0.0..=1.0` (or NaN).
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

    /// The first delay.
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

    /// `true` when attempt `attempt` (1-based) may be made.
    pub fn allows(&self, attempt: u32) -> bool {
        attempt >= 1 && self.max_attempts.is_none_or(|m| attempt <= m)
    }

    /// The un-jittered delay before attempt `attempt` (1-based; 0 is
    /// treated as 1): `min(cap, base · 2^(attempt-1))`, saturating.
    pub fn ceiling(&self, attempt: u32) -> Duration {
        let exp = attempt.saturating_sub(1);
        let base = self.base.as_nanos();
        // base · 2^exp in u128 nanoseconds; an overflow is past any cap.
        if exp >= 128 || base.leading_zeros() <= exp {
            return self.cap;
        }
        let d = base << exp;
        if d >= self.cap.as_nanos() {
            return self.cap;
        }
        // d < cap, so it fits a Duration.
        let secs = (d / 1_000_000_000) as u64;
        let nanos = (d % 1_000_000_000) as u32;
        Duration::new(secs, nanos)
    }

    /// The delay before attempt `attempt` for a jitter draw `unit` in
    /// `[0, 1]` (clamped; NaN counts as 0): `ceiling · (1 - jitter · unit)`.
    /// Pure, for tests; [`delay`](Self::delay) draws `unit` at random.
    pub fn delay_with(&self, attempt: u32, unit: f64) -> Duration {
        let unit = if unit.is_nan() {
            0.0
        } else {
            unit.clamp(0.0, 1.0)
        };
        let ceiling = self.ceiling(attempt);
        let keep = (1.0 - self.jitter * unit).clamp(0.0, 1.0);
        ceiling.mul_f64(keep).min(ceiling)
    }

    /// The delay before attempt `attempt`, with a random jitter draw.
    pub fn delay(&self, attempt: u32) -> Duration {
        self.delay_with(attempt, rand::random::<f64>())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn validation() {
        let ms = Duration::from_millis;
        assert_eq!(
            Backoff::new(ms(0), ms(1), None, 0.1),
            Err(BackoffError::ZeroBase)
        );
        assert!(matches!(
            Backoff::new(ms(2), ms(1), None, 0.1),
            Err(BackoffError::CapBelowBase { .. })
        ));
        assert!(matches!(
            Backoff::new(ms(1), ms(1), None, 1.5),
            Err(BackoffError::BadJitter(_))
        ));
        assert!(matches!(
            Backoff::new(ms(1), ms(1), None, f64::NAN),
            Err(BackoffError::BadJitter(_))
        ));
        assert!(matches!(
            Backoff::new(ms(1), ms(1), None, -0.1),
            Err(BackoffError::BadJitter(_))
        ));
        assert!(Backoff::new(ms(1), ms(1), Some(0), 1.0).is_ok());
    }

    #[test]
    fn doubling_then_cap() {
        let b = Backoff::new(
            Duration::from_millis(100),
            Duration::from_millis(1000),
            None,
            0.0,
        )
        .unwrap();
        let got: Vec<u128> = (1..=6).map(|n| b.ceiling(n).as_millis()).collect();
        assert_eq!(got, [100, 200, 400, 800, 1000, 1000]);
        assert_eq!(b.ceiling(0), b.ceiling(1));
        assert_eq!(b.ceiling(u32::MAX), b.cap());
        assert_eq!(
            b.delay_with(3, 0.9),
            Duration::from_millis(400),
            "no jitter"
        );
    }

    #[test]
    fn attempts_are_bounded() {
        let b = Backoff::new(
            Duration::from_millis(1),
            Duration::from_millis(1),
            Some(2),
            0.5,
        )
        .unwrap();
        assert!(!b.allows(0));
        assert!(b.allows(1) && b.allows(2) && !b.allows(3));
        let forever = Backoff::new(
            Duration::from_millis(1),
            Duration::from_millis(1),
            None,
            0.5,
        )
        .unwrap();
        assert!(forever.allows(u32::MAX));
    }

    #[test]
    fn huge_base_saturates() {
        let big = Duration::from_secs(u64::MAX / 4);
        let b = Backoff::new(big, Duration::MAX, None, 1.0).unwrap();
        assert_eq!(b.ceiling(40), Duration::MAX);
        assert!(b.delay(40) <= Duration::MAX);
    }

    proptest! {
        #[test]
        fn delay_is_within_jitter_band_and_cap(
            base_ms in 1u64..100_000,
            extra_ms in 0u64..10_000_000,
            jitter in 0.0f64..=1.0,
            attempt in 0u32..=u32::MAX,
            unit in proptest::num::f64::ANY,
        ) {
            let base = Duration::from_millis(base_ms);
            let cap = base + Duration::from_millis(extra_ms);
            let b = Backoff::new(base, cap, None, jitter).unwrap();
            let ceiling = b.ceiling(attempt);
            let d = b.delay_with(attempt, unit);
            prop_assert!(ceiling <= cap);
            prop_assert!(ceiling >= base.min(cap));
            prop_assert!(d <= ceiling);
            // lower edge of the band, with 1 ms slack for float rounding
            let floor = ceiling.mul_f64(1.0 - jitter);
            prop_assert!(d + Duration::from_millis(1) >= floor, "{d:?} < {floor:?}");
        }

        #[test]
        fn ceiling_is_monotonic(base_ms in 1u64..10_000, extra_ms in 0u64..1_000_000, n in 1u32..200) {
            let base = Duration::from_millis(base_ms);
            let b = Backoff::new(base, base + Duration::from_millis(extra_ms), None, 0.5).unwrap();
            prop_assert!(b.ceiling(n) <= b.ceiling(n + 1));
        }

        #[test]
        fn random_delay_within_cap(attempt in 0u32..100) {
            let b = Backoff::default();
            let d = b.delay(attempt);
            prop_assert!(d <= b.cap());
            prop_assert!(d >= b.ceiling(attempt).mul_f64(0.5) - Duration::from_millis(1));
        }
    }
}
