//! B18: no zombie and no orphaned grandchild after close(), after drop, and
//! after the child crashes. The server is `sh -c 'fake & wait'` style: a
//! wrapper whose child (our grandchild) ignores SIGTERM and stdin EOF.
//!
//! An orphaned grandchild is re-parented to the nearest subreaper; PID 1 of
//! some containers never reaps, so this test process makes itself the
//! subreaper and reaps the grandchild once it is dead. The direct child must
//! be reaped by the transport itself.
//!
//! Catalogue cases: B18.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]
mod support;

use std::path::Path;
use std::time::{Duration, Instant};

use mcp_transport::Transport;
use mcp_transport_stdio::{SIGTERM_GRACE, StdioConfig, StdioTransport};
use rustix::process::{Pid, WaitOptions, set_child_subreaper, waitpid};
use serde_json::json;
use support::*;

const GRACE: Duration = Duration::from_millis(500);

fn become_subreaper() {
    set_child_subreaper(Pid::from_raw(1)).expect("PR_SET_CHILD_SUBREAPER");
}

/// `sh` ignoring TERM, running the fake (ignoring TERM and EOF) in the
/// background with the wrapper's stdin, and waiting for it.
fn wrapper(pid_file: &Path) -> StdioConfig {
    StdioConfig::new("sh")
        .with_args([
            "-c".to_owned(),
            // A background job's stdin is /dev/null unless redirected: keep ours on fd 3.
            "trap '' TERM; exec 3<&0; \"$0\" --ignore-eof --pid-file \"$1\" <&3 3<&- & wait"
                .to_owned(),
            fake_server().display().to_string(),
            pid_file.display().to_string(),
        ])
        .with_shutdown_grace(GRACE)
        .with_label("wrapped")
}

/// Dead: the grandchild is gone or a zombie (then reaped here, as its subreaper).
async fn assert_dead_within(pid: u32, limit: Duration, what: &str) {
    let dead = eventually(limit, || matches!(proc_state(pid), None | Some('Z'))).await;
    assert!(dead, "{what} {pid} still alive: {:?}", proc_state(pid));
    if proc_state(pid) == Some('Z') {
        let _ = waitpid(Pid::from_raw(pid as i32), WaitOptions::NOHANG);
    }
    assert!(
        eventually(Duration::from_secs(2), || proc_state(pid).is_none()).await,
        "{what} {pid} remains as {:?}",
        proc_state(pid)
    );
}

fn limit() -> Duration {
    GRACE + SIGTERM_GRACE + Duration::from_secs(2)
}

#[tokio::test]
async fn close_ends_the_wrapper_and_the_term_ignoring_grandchild() {
    become_subreaper();
    let pid_file = temp_path("pid");
    let t = StdioTransport::spawn(wrapper(&pid_file)).await.unwrap();
    initialize(&t).await;
    let child = t.pid().unwrap();
    let grandchild = read_pid(&pid_file).await;
    let start = Instant::now();
    t.close().await.unwrap();
    assert!(
        start.elapsed() < limit() + Duration::from_secs(3),
        "close took {:?}",
        start.elapsed()
    );
    assert_eq!(proc_state(child), None, "the child is reaped: no zombie");
    assert_dead_within(grandchild, limit(), "grandchild").await;
    let _ = std::fs::remove_file(pid_file);
}

#[tokio::test]
async fn drop_without_close_ends_everything() {
    become_subreaper();
    let pid_file = temp_path("pid");
    let t = StdioTransport::spawn(wrapper(&pid_file)).await.unwrap();
    initialize(&t).await;
    let child = t.pid().unwrap();
    let grandchild = read_pid(&pid_file).await;
    drop(t);
    assert!(
        eventually(limit(), || proc_state(child).is_none()).await,
        "the child is killed and reaped after drop: {:?}",
        proc_state(child)
    );
    assert_dead_within(grandchild, limit(), "grandchild").await;
    let _ = std::fs::remove_file(pid_file);
}

#[tokio::test]
async fn a_crashed_child_leaves_no_grandchild() {
    become_subreaper();
    let pid_file = temp_path("pid");
    // The fake itself spawns a TERM-ignoring grandchild holding its stdout,
    // then crashes mid-request.
    let t = StdioTransport::spawn(
        fake(&["--grandchild", pid_file.to_str().unwrap()]).with_shutdown_grace(GRACE),
    )
    .await
    .unwrap();
    let child = t.pid().unwrap();
    let grandchild = read_pid(&pid_file).await;
    let err = script(&t, json!([{"exit": 7}]), within(10_000))
        .await
        .unwrap_err();
    assert!(err.is_closed(), "{err:?}");
    t.wait_finished().await;
    assert_eq!(proc_state(child), None, "the crashed child is reaped");
    assert_dead_within(grandchild, limit(), "grandchild").await;
    t.close().await.unwrap();
    let _ = std::fs::remove_file(pid_file);
}

#[tokio::test]
async fn a_server_that_exits_on_eof_closes_within_the_grace() {
    let t = StdioTransport::spawn(fake(&[]).with_shutdown_grace(Duration::from_secs(5)))
        .await
        .unwrap();
    initialize(&t).await;
    let child = t.pid().unwrap();
    let start = Instant::now();
    t.close().await.unwrap();
    assert!(
        start.elapsed() < Duration::from_secs(4),
        "closed on stdin EOF, within the grace: {:?}",
        start.elapsed()
    );
    assert_eq!(proc_state(child), None);
    t.close().await.unwrap(); // twice is harmless
}

/// The TERM-ignoring wrapper, initialized, with a 60 s grace (its close
/// would wait it out): the transport, the wrapper's and the grandchild's
/// pids, and the pid file to remove.
async fn stubborn_with_a_long_grace()
-> (std::sync::Arc<StdioTransport>, u32, u32, std::path::PathBuf) {
    become_subreaper();
    let pid_file = temp_path("pid");
    let t = std::sync::Arc::new(
        StdioTransport::spawn(wrapper(&pid_file).with_shutdown_grace(Duration::from_secs(60)))
            .await
            .unwrap(),
    );
    initialize(&t).await;
    let child = t.pid().unwrap();
    let grandchild = read_pid(&pid_file).await;
    (t, child, grandchild, pid_file)
}

/// `kill()` while `close()` waits out a 60 s grace for a server that ignores
/// the end of its input and SIGTERM: the close returns long before the
/// grace would have ended, and neither the wrapper nor the grandchild
/// remains.
#[tokio::test]
async fn kill_ends_a_close_waiting_out_its_grace() {
    let (t, child, grandchild, pid_file) = stubborn_with_a_long_grace().await;
    let closing = {
        let t = t.clone();
        tokio::spawn(async move { t.close().await })
    };
    // The close has begun its grace: the connection is marked closed.
    assert!(
        eventually(Duration::from_secs(10), || !t.is_connected()).await,
        "close() did not start"
    );
    assert!(
        !closing.is_finished(),
        "close() returned within a 60 s grace"
    );
    t.kill();
    let closed = tokio::time::timeout(Duration::from_secs(20), closing)
        .await
        .expect("close() still waiting 20 s after kill()")
        .unwrap();
    assert!(closed.is_ok(), "{closed:?}");
    assert_eq!(proc_state(child), None, "the wrapper is reaped: no zombie");
    assert_dead_within(grandchild, limit(), "grandchild").await;
    t.kill(); // after the reaping: nothing to do, nothing signalled
    let _ = std::fs::remove_file(pid_file);
}

/// `kill()` on an open connection with a request pending: the request fails
/// with `Closed` saying the client killed the server, and the server and
/// its grandchild are gone once `wait_finished` returns.
#[tokio::test]
async fn kill_fails_pending_requests_and_ends_the_group() {
    let (t, child, grandchild, pid_file) = stubborn_with_a_long_grace().await;
    let pending = {
        let t = t.clone();
        tokio::spawn(async move { script(&t, json!([{"sleep_ms": 60_000}]), within(60_000)).await })
    };
    // Let the request go out: a request made after the kill would fail as
    // well, but would not prove that a pending one is failed.
    tokio::time::sleep(Duration::from_millis(200)).await;
    t.kill();
    let err = tokio::time::timeout(Duration::from_secs(5), pending)
        .await
        .expect("the pending request outlived the kill")
        .unwrap()
        .unwrap_err();
    assert!(err.is_closed(), "{err:?}");
    assert!(err.to_string().contains("killed by the client"), "{err}");
    tokio::time::timeout(Duration::from_secs(20), t.wait_finished())
        .await
        .expect("not reaped 20 s after kill()");
    assert_eq!(proc_state(child), None, "the wrapper is reaped: no zombie");
    assert_dead_within(grandchild, limit(), "grandchild").await;
    let _ = std::fs::remove_file(pid_file);
}
