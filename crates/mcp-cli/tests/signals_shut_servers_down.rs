//! SIGTERM and SIGHUP are handled like Ctrl-C: the stdio server (in its own
//! process group, so the signal never reaches it) is shut down and `mcp`
//! exits with 128 + the signal (143, 129).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]
mod support;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The pid of a child of `parent` whose command line ends with `tail`
/// (the program may have been resolved to a full path).
fn child_of(parent: u32, tail: &str) -> Option<u32> {
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // pid (comm) state ppid ...; comm may contain spaces: split after ')'.
        let ppid = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(1))
            .and_then(|p| p.parse::<u32>().ok());
        let line = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        if ppid == Some(parent)
            && String::from_utf8_lossy(&line)
                .replace('\0', " ")
                .trim()
                .ends_with(tail)
        {
            return Some(pid);
        }
    }
    None
}

/// `true` while `pid` exists and is not a zombie.
fn running(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .is_some_and(|state| state != "Z"),
        Err(_) => false,
    }
}

fn signal_leaves_no_server(signal: &str, expected_code: i32, seconds: &str) {
    let dir = support::temp_dir("signal");
    let server = format!("sleep {seconds}");
    let mut child = Command::new(env!("CARGO_BIN_EXE_mcp"))
        .args(["--stdio", &server, "tools"])
        .current_dir(&dir)
        .env_remove("MCP_LOG")
        // The revision memory in the test's own directory, not the user's cache.
        .env("XDG_CACHE_HOME", dir.join(".cache"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn mcp");
    let start = Instant::now();
    let server_pid = loop {
        if let Some(pid) = child_of(child.id(), &server) {
            break pid;
        }
        if start.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the stdio server never started");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let status = Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .expect("run kill");
    assert!(status.success());
    let run = support::finish(child);
    let _ = std::fs::remove_dir_all(&dir);
    // mcp kills the group of a server that never started and exits without
    // reaping it; the kernel ends the process when it is next scheduled,
    // which on a loaded machine can be a moment after mcp is gone.
    let gone_by = Instant::now() + Duration::from_secs(5);
    while running(server_pid) && Instant::now() < gone_by {
        std::thread::sleep(Duration::from_millis(20));
    }
    if running(server_pid) {
        let _ = Command::new("kill")
            .args(["-KILL", &server_pid.to_string()])
            .status();
        panic!("{server} (pid {server_pid}) outlived mcp after {signal}: {run:?}");
    }
    assert_eq!(run.code, Some(expected_code), "{run:?}");
    assert!(run.stderr.contains("the request was cancelled"), "{run:?}");
    assert!(!run.stderr.contains("panicked"), "{run:?}");
}

#[test]
fn sigterm_shuts_the_stdio_server_down_and_exits_143() {
    signal_leaves_no_server("-TERM", 143, "101.5");
}

#[test]
fn sighup_shuts_the_stdio_server_down_and_exits_129() {
    signal_leaves_no_server("-HUP", 129, "101.25");
}
