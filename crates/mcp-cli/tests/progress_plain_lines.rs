//! A long call's notifications/progress become plain lines on stderr when
//! stderr is not a terminal; notifications/message logs show their level.
mod support;

#[test]
fn countdown_prints_progress_lines() {
    let run = support::mcp(&["call", "countdown", "steps=3", "interval_ms=10"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(run.stdout.contains("Countdown finished after 3 steps."));
    let progress: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.starts_with("progress: "))
        .collect();
    assert_eq!(
        progress,
        [
            "progress: 1/3 (33%) step 1 of 3",
            "progress: 2/3 (67%) step 2 of 3",
            "progress: 3/3 (100%) step 3 of 3"
        ],
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("[demo mcp-demo] info: countdown: 3 steps"),
        "{}",
        run.stderr
    );
    // No escape codes of a progress bar.
    assert!(!run.stderr.contains('\x1b'));
}
