//! `shutdown()` closes every server concurrently within its bound and
//! leaves no process behind: connected servers, a server that ignores
//! stdin EOF and SIGTERM, and a server still starting. Dropping the
//! manager without `shutdown()` kills them too.

mod support;

use std::time::{Duration, Instant};

use mcp_manager::{Manager, ServerStatus};
use serde_json::json;
use support::*;

/// The `mcpServers` of a shutdown test: `a` (the fixture), `stubborn` (the
/// fixture ignoring stdin EOF and SIGTERM) and `starting` (never answers,
/// `startup_ms` to start); each writes its pid to `pid_file`.
fn stubborn_and_starting(python: &str, pid_file: &str, startup_ms: u64) -> serde_json::Value {
    let stubborn_cmd = format!("trap '' TERM; exec {python} {} ", fixture_script());
    let hang_cmd = format!("echo $$ >> {pid_file}; exec sleep 1000");
    json!({
        "a": fixture_entry(python, json!({"FIXTURE_PID_FILE": pid_file}), &[]),
        "stubborn": {"command": "sh", "args": ["-c", stubborn_cmd],
                     "env": {"FIXTURE_PID_FILE": pid_file, "FIXTURE_IGNORE_EOF": "1"}},
        "starting": {"command": "sh", "args": ["-c", hang_cmd], "startupTimeout": startup_ms},
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_leaves_no_process_behind() {
    let Some(python) = python3() else { return };
    let dir = temp_dir("shutdown");
    let pid_file = dir.join("pids");
    let pid_env = pid_file.display().to_string();
    let mut servers = stubborn_and_starting(&python, &pid_env, 60_000);
    servers["b"] = fixture_entry(&python, json!({"FIXTURE_PID_FILE": pid_env}), &[]);
    let config = config(servers);
    let manager = Manager::start(
        config,
        options()
            .with_stdio_shutdown_grace(Duration::from_millis(500))
            .with_shutdown_timeout(Duration::from_secs(5)),
    )
    .await;
    let deadline = Instant::now() + Duration::from_secs(20);
    while !["a", "b", "stubborn"]
        .iter()
        .all(|s| manager.server_status(s).is_some_and(|st| st.is_connected()))
    {
        assert!(Instant::now() < deadline, "{:#?}", manager.status());
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(
        manager.server_status("starting"),
        Some(ServerStatus::Starting)
    );
    let pids = read_pids(&pid_file);
    assert_eq!(pids.len(), 4, "{pids:?}");
    assert!(pids.iter().all(|p| alive(*p)));

    let t = Instant::now();
    manager.shutdown().await;
    let took = t.elapsed();
    // Concurrent: one grace (500 ms) + SIGTERM grace (1 s) for the stubborn
    // one, not the sum over servers; generous bound.
    assert!(took < Duration::from_secs(8), "shutdown took {took:?}");
    let left = wait_gone(&pids, Duration::from_secs(3)).await;
    assert!(left.is_empty(), "left behind: {left:?}");
    assert!(
        manager
            .status()
            .values()
            .all(|s| *s == ServerStatus::Stopped)
    );
    // twice is harmless
    manager.shutdown().await;
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dropping_the_manager_kills_its_servers() {
    let Some(python) = python3() else { return };
    let dir = temp_dir("drop");
    let pid_file = dir.join("pids");
    let config = config(json!({
        "a": fixture_entry(&python, json!({"FIXTURE_PID_FILE": pid_file.display().to_string()}), &[]),
    }));
    let manager = Manager::start(config, options()).await;
    assert!(manager.wait_started(Duration::from_secs(20)).await);
    let pids = read_pids(&pid_file);
    assert_eq!(pids.len(), 1);
    assert!(alive(pids[0]));
    drop(manager);
    let left = wait_gone(&pids, Duration::from_secs(5)).await;
    assert!(left.is_empty(), "left behind: {left:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A FIFO where a server's revision memory lives (a stray `mkfifo`, a hostile
/// file in a shared home) stalls neither the start nor the shutdown: the
/// memory is read without waiting, and shutdown never waits forever on a
/// task that is stuck.
#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fifo_at_the_era_path_stalls_neither_start_nor_shutdown() {
    /// Lets a reader stuck on the FIFO go when the test ends, passed or
    /// failed, so that the runtime can stop.
    struct Release(std::path::PathBuf);
    impl Drop for Release {
        fn drop(&mut self) {
            use rustix::fs::{Mode, OFlags};
            let _ = rustix::fs::open(&self.0, OFlags::WRONLY | OFlags::NONBLOCK, Mode::empty());
        }
    }
    let Some(python) = python3() else { return };
    let dir = temp_dir("revision-memory-fifo");
    let config = config(json!({"a": fixture_entry(&python, json!({}), &[])}));
    let eras = dir.join("revisions");
    std::fs::create_dir_all(&eras).unwrap();
    let fifo =
        mcp_manager::revision_memory::RevisionMemory::new(&eras).path_for(&config.servers["a"]);
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    assert!(made.as_ref().is_ok_and(|s| s.success()), "mkfifo: {made:?}");
    let _release = Release(fifo);
    let manager = Manager::start(
        config,
        options()
            .with_revision_dir(Some(eras))
            .with_shutdown_timeout(Duration::from_secs(2)),
    )
    .await;
    let started = manager.wait_started(Duration::from_secs(20)).await;
    assert!(
        started && manager.server_status("a").is_some_and(|s| s.is_connected()),
        "{:#?}",
        manager.status()
    );
    let t = Instant::now();
    manager.shutdown().await;
    let took = t.elapsed();
    assert!(took < Duration::from_secs(8), "shutdown took {took:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `kill()` while a `shutdown()` waits out a 60 s grace for a server that
/// ignores stdin EOF and SIGTERM: both return long before the grace would
/// have ended, with that server, a connected one and one still starting
/// all gone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_ends_a_shutdown_waiting_on_a_stubborn_server() {
    let Some(python) = python3() else { return };
    let dir = temp_dir("kill");
    let pid_file = dir.join("pids");
    let pid_env = pid_file.display().to_string();
    let config = config(stubborn_and_starting(&python, &pid_env, 120_000));
    let manager = Manager::start(
        config,
        options()
            .with_stdio_shutdown_grace(Duration::from_secs(60))
            .with_shutdown_timeout(Duration::from_secs(120)),
    )
    .await;
    let deadline = Instant::now() + Duration::from_secs(20);
    while !["a", "stubborn"]
        .iter()
        .all(|s| manager.server_status(s).is_some_and(|st| st.is_connected()))
        || read_pids(&pid_file).len() < 3
    {
        assert!(Instant::now() < deadline, "{:#?}", manager.status());
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let pids = read_pids(&pid_file);
    let shutdown = tokio::spawn({
        let manager = manager.clone();
        async move { manager.shutdown().await }
    });
    // The shutdown has closed the servers' input and waits out the grace.
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(
        !shutdown.is_finished(),
        "shutdown returned within a 60 s grace"
    );
    tokio::time::timeout(Duration::from_secs(20), manager.kill())
        .await
        .expect("kill() still running after 20 s");
    tokio::time::timeout(Duration::from_secs(20), shutdown)
        .await
        .expect("the running shutdown still waits 20 s after kill()")
        .expect("the shutdown task");
    let left = wait_gone(&pids, Duration::from_secs(3)).await;
    assert!(left.is_empty(), "left behind: {left:?}");
    assert!(
        manager
            .status()
            .values()
            .all(|s| *s == ServerStatus::Stopped),
        "{:#?}",
        manager.status()
    );
    let _ = std::fs::remove_dir_all(&dir);
}
