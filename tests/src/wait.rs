//! Waiting for a condition that another task makes true (feature `tokio`).

use std::time::Duration;

use tokio::time::Instant;

/// How long [`eventually`] waits: 5 000 ms.
pub const EVENTUALLY: Duration = Duration::from_millis(5_000);

/// How often the condition is checked: every 10 ms.
const POLL: Duration = Duration::from_millis(10);

/// `true` once `cond()` holds, checked every 10 ms for up to
/// [`EVENTUALLY`] (5 s); `false` when it still does not hold then.
pub async fn eventually(cond: impl FnMut() -> bool) -> bool {
    eventually_within(EVENTUALLY, cond).await
}

/// `true` once `cond()` holds, checked every 10 ms for up to `limit`;
/// `false` when it still does not hold then (checked once more at the end).
/// The limit is on tokio's clock, so a test with a paused clock waits in
/// virtual time.
pub async fn eventually_within(limit: Duration, mut cond: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    while start.elapsed() < limit {
        if cond() {
            return true;
        }
        tokio::time::sleep(POLL).await;
    }
    cond()
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};

    use super::*;

    #[tokio::test]
    async fn waits_for_another_task_and_gives_up_at_the_limit() {
        let flag = Arc::new(AtomicBool::new(false));
        let setter = Arc::clone(&flag);
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(30)).await;
            setter.store(true, Ordering::SeqCst);
        });
        assert!(eventually(|| flag.load(Ordering::SeqCst)).await);
        let mut checks = 0;
        let never = eventually_within(Duration::from_millis(50), || {
            checks += 1;
            false
        })
        .await;
        assert!(!never);
        assert!(checks >= 2, "checked {checks} times");
    }
}
