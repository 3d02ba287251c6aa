//! Waiting out a 429 (Too Many Requests) or 503 (Service Unavailable)
//! with `Retry-After` (RFC 9110 § 10.2.3), as
//! [`RetryAfterPolicy`](crate::RetryAfterPolicy) bounds it.

use std::time::Duration;

use http::StatusCode;
use http::header::RETRY_AFTER;
use tokio::time::Instant;

use crate::connection::Connection;
use crate::exchange::Reply;

impl Connection {
    /// How long to wait before sending again, when `reply` is a 429 or 503
    /// with a `Retry-After` (delay-seconds or an HTTP-date, RFC 9110
    /// § 10.2.3) that the retry policy allows: within the number of tries,
    /// within the longest wait, and ending before `deadline`. `None`: the
    /// reply stands (a wait too long is not waited, and the error is the
    /// server's refusal).
    pub(crate) fn retry_wait(
        &self,
        reply: &Reply,
        tries: u32,
        deadline: Option<Instant>,
    ) -> Option<Duration> {
        let status = reply.response.status();
        if !matches!(
            status,
            StatusCode::TOO_MANY_REQUESTS | StatusCode::SERVICE_UNAVAILABLE
        ) {
            return None;
        }
        let value = reply.response.headers().get(RETRY_AFTER)?;
        let Some(wait) = parse_retry_after(value.as_bytes(), std::time::SystemTime::now()) else {
            tracing::debug!(connection = %self.label(), value = %String::from_utf8_lossy(value.as_bytes()), "unreadable Retry-After; not retrying");
            return None;
        };
        let policy = self.config.retry_after;
        let fits_deadline =
            || deadline.is_none_or(|d| Instant::now().checked_add(wait).is_some_and(|end| end < d));
        if tries >= policy.max_retries || wait > policy.max_wait || !fits_deadline() {
            tracing::debug!(
                connection = %self.label(),
                status = status.as_u16(),
                wait_ms = wait.as_millis() as u64,
                tries,
                "server busy; its Retry-After is past what this request waits"
            );
            return None;
        }
        Some(wait)
    }
}

/// The wait a `Retry-After` value asks for at `now`: delay-seconds, or an
/// HTTP-date (a date in the past is no wait). `None` when it is neither.
pub(crate) fn parse_retry_after(value: &[u8], now: std::time::SystemTime) -> Option<Duration> {
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
}
