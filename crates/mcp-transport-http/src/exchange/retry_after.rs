//! The `Retry-After` rule of an exchange, as a pure function: a 429 (Too
//! Many Requests) or 503 (Service Unavailable) with `Retry-After` (RFC 9110
//! § 10.2.3) is waited out and sent again, as [`RetryAfterPolicy`] and the
//! send's own deadline bound it.

use std::time::{Duration, SystemTime};

use http::header::RETRY_AFTER;
use http::{HeaderMap, StatusCode};
use tokio::time::Instant;

use crate::config::RetryAfterPolicy;

/// What a reply's `Retry-After` leads to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum RetryAfter {
    /// Wait this long and send again.
    Wait(Duration),
    /// Not a 429 or 503 with `Retry-After`: the reply stands.
    NotAsked,
    /// A `Retry-After` that is neither delay-seconds nor an HTTP-date (its
    /// text, for the log): the reply stands.
    Unreadable(String),
    /// A wait past the policy or the deadline (or one try too many): the
    /// reply stands (a wait too long is not waited, and the error is the
    /// server's refusal).
    PastBounds(Duration),
}

/// The retry budget of one send.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Budget {
    /// Retries already made.
    pub(crate) tries: u32,
    /// The connection's policy.
    pub(crate) policy: RetryAfterPolicy,
    /// The send's own deadline, when it has one.
    pub(crate) deadline: Option<Instant>,
}

/// What a reply of `status` with `headers` leads to, at `now` (`clock`
/// the same moment on the wall, for an HTTP-date): a 429 or 503 with a
/// `Retry-After` (delay-seconds or an HTTP-date, RFC 9110 § 10.2.3) is
/// waited out when the budget allows: within the number of tries, within
/// the longest wait, and ending before the deadline.
pub(crate) fn retry_wait(
    status: StatusCode,
    headers: &HeaderMap,
    budget: Budget,
    now: Instant,
    clock: SystemTime,
) -> RetryAfter {
    if !matches!(
        status,
        StatusCode::TOO_MANY_REQUESTS | StatusCode::SERVICE_UNAVAILABLE
    ) {
        return RetryAfter::NotAsked;
    }
    let Some(value) = headers.get(RETRY_AFTER) else {
        return RetryAfter::NotAsked;
    };
    let Some(wait) = parse_retry_after(value.as_bytes(), clock) else {
        return RetryAfter::Unreadable(String::from_utf8_lossy(value.as_bytes()).into_owned());
    };
    let fits_deadline = budget
        .deadline
        .is_none_or(|d| now.checked_add(wait).is_some_and(|end| end < d));
    if budget.tries >= budget.policy.max_retries || wait > budget.policy.max_wait || !fits_deadline
    {
        return RetryAfter::PastBounds(wait);
    }
    RetryAfter::Wait(wait)
}

/// The wait a `Retry-After` value asks for at `now`: delay-seconds, or an
/// HTTP-date (a date in the past is no wait). `None` when it is neither.
pub(crate) fn parse_retry_after(value: &[u8], now: SystemTime) -> Option<Duration> {
    let text = std::str::from_utf8(value).ok()?.trim();
    if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
        // A huge number is a long wait, not an error.
        return Some(Duration::from_secs(text.parse::<u64>().unwrap_or(u64::MAX)));
    }
    let date = httpdate::parse_http_date(text).ok()?;
    Some(date.duration_since(now).unwrap_or(Duration::ZERO))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_values() {
        let now = std::time::UNIX_EPOCH + Duration::from_secs(1_445_412_480);
        let parse = |v: &str| parse_retry_after(v.as_bytes(), now);
        assert_eq!(parse("0"), Some(Duration::ZERO));
        assert_eq!(parse(" 120 "), Some(Duration::from_secs(120)));
        assert_eq!(
            parse("99999999999999999999"),
            Some(Duration::from_secs(u64::MAX))
        );
        // RFC 9110's example date is 1445412480 s after the epoch.
        assert_eq!(parse("Wed, 21 Oct 2015 07:28:00 GMT"), Some(Duration::ZERO));
        assert_eq!(
            parse("Wed, 21 Oct 2015 07:29:00 GMT"),
            Some(Duration::from_secs(60))
        );
        assert_eq!(parse("Tue, 20 Oct 2015 07:28:00 GMT"), Some(Duration::ZERO));
        for bad in ["", "-1", "1.5", "soon", "0x10"] {
            assert_eq!(parse(bad), None, "{bad:?}");
        }
    }

    /// One row per bound: (status, `Retry-After`, tries so far, the
    /// deadline from now) → what the reply leads to. The policy: 3 tries,
    /// each wait at most 10 s.
    #[test]
    fn what_a_busy_reply_leads_to() {
        use RetryAfter::*;
        let secs = Duration::from_secs;
        let wall = std::time::UNIX_EPOCH + secs(1_445_412_480);
        let now = Instant::now();
        let policy = RetryAfterPolicy::new(3, secs(10));
        type Case<'a> = (u16, Option<&'a str>, u32, Option<Duration>, RetryAfter);
        #[rustfmt::skip]
        let cases: &[Case<'_>] = &[
            (429, Some("2"), 0, None, Wait(secs(2))),
            (503, Some("2"), 0, None, Wait(secs(2))),
            (503, Some("Wed, 21 Oct 2015 07:28:05 GMT"), 0, None, Wait(secs(5))),
            (503, Some("Wed, 21 Oct 2015 07:00:00 GMT"), 0, None, Wait(Duration::ZERO)),
            (429, Some("0"), 2, None, Wait(Duration::ZERO)),
            (200, Some("2"), 0, None, NotAsked),
            (500, Some("2"), 0, None, NotAsked),
            (502, Some("2"), 0, None, NotAsked),
            (429, None, 0, None, NotAsked),
            (503, None, 0, None, NotAsked),
            (429, Some("soon"), 0, None, Unreadable("soon".into())),
            (429, Some("-1"), 0, None, Unreadable("-1".into())),
            (429, Some("2"), 3, None, PastBounds(secs(2))),
            (429, Some("10"), 0, None, Wait(secs(10))),
            (429, Some("11"), 0, None, PastBounds(secs(11))),
            (429, Some("3600"), 0, None, PastBounds(secs(3600))),
            (429, Some("2"), 0, Some(secs(3)), Wait(secs(2))),
            (429, Some("2"), 0, Some(secs(2)), PastBounds(secs(2))),
            (429, Some("2"), 0, Some(secs(1)), PastBounds(secs(2))),
            (429, Some("99999999999999999999"), 0, None, PastBounds(secs(u64::MAX))),
        ];
        for (status, value, tries, deadline, want) in cases {
            let mut headers = HeaderMap::new();
            if let Some(v) = value {
                headers.insert(RETRY_AFTER, v.parse().unwrap());
            }
            let budget = Budget {
                tries: *tries,
                policy,
                deadline: deadline.map(|d| now + d),
            };
            let got = retry_wait(
                StatusCode::from_u16(*status).unwrap(),
                &headers,
                budget,
                now,
                wall,
            );
            assert_eq!(
                got, *want,
                "{status} {value:?} tries {tries} deadline {deadline:?}"
            );
        }
    }

    /// A policy of no retries waits for nothing.
    #[test]
    fn retrying_turned_off() {
        let mut headers = HeaderMap::new();
        headers.insert(RETRY_AFTER, "1".parse().unwrap());
        let budget = Budget {
            tries: 0,
            policy: RetryAfterPolicy::new(0, Duration::from_secs(10)),
            deadline: None,
        };
        assert_eq!(
            retry_wait(
                StatusCode::TOO_MANY_REQUESTS,
                &headers,
                budget,
                Instant::now(),
                SystemTime::now()
            ),
            RetryAfter::PastBounds(Duration::from_secs(1))
        );
    }
}
