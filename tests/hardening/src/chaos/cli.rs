//! The `mcp` command line interrupted (SIGINT) in a flooded call: the
//! `ctrl-c-*` scenarios.

use std::path::Path;
use std::time::{Duration, Instant};

use super::{Report, ms, settle, signal};
use crate::probe;

/// The `mcp` command line in a call flooded with notifications: after
/// SIGINT it must exit promptly, and take its server down with it.
pub(super) async fn ctrl_c_cli(server: &Path, full: bool, twice: bool) -> Result<Report, String> {
    let mut r = if twice {
        Report::new(
            "ctrl-c-twice-cli-flood",
            "`mcp call flood` (a server sending log notifications without end), SIGINT after 1 s and again 500 ms later",
        )
    } else {
        Report::new(
            "ctrl-c-cli-flood",
            "`mcp call flood` (a server sending log notifications without end), SIGINT after 1 s",
        )
    };
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let mcp = exe.with_file_name("mcp");
    if !mcp.is_file() {
        return Err(format!("no mcp binary at {}", mcp.display()));
    }
    let stdio = format!("{} stdio --tools 1 --list-chaos-tools", server.display());
    // The revision memory `mcp` keeps goes to a directory of this run, not the
    // user's cache.
    let cache = std::env::temp_dir().join(format!("mcp-harden-cli-cache-{}", std::process::id()));
    let mut child = tokio::process::Command::new(&mcp)
        .args(["--stdio", &stdio, "call", "flood", "count=1000000000000"])
        .env("XDG_CACHE_HOME", &cache)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("start mcp: {e}"))?;
    let pid = child.id().ok_or("mcp has no pid")?;
    tokio::time::sleep(Duration::from_secs(1)).await;
    // The server: the child of mcp, leading its own process group.
    let server_pid = probe::children_of(pid).first().copied();
    let mut interrupted = Instant::now();
    signal(pid, rustix::process::Signal::INT)?;
    if twice {
        tokio::time::sleep(Duration::from_millis(500)).await;
        interrupted = Instant::now();
        signal(pid, rustix::process::Signal::INT)?;
    }
    let exited = tokio::time::timeout(Duration::from_secs(30), child.wait()).await;
    let _ = std::fs::remove_dir_all(&cache);
    let took = interrupted.elapsed();
    let group_gone = match server_pid {
        Some(p) => settle(|| probe::alive_in_group(p) == 0).await,
        None => true,
    };
    let status = match &exited {
        Ok(Ok(status)) => status.to_string(),
        _ => "still running after 30 s".to_string(),
    };
    r.figure(
        if twice {
            "exit after the second SIGINT"
        } else {
            "exit after SIGINT"
        },
        ms(took),
    );
    r.figure("exit status", &status);
    r.figure("server process group gone", group_gone);
    r.check(server_pid.is_some(), || {
        "mcp had started no server after 1 s".into()
    });
    r.check(matches!(exited, Ok(Ok(_))), || {
        "mcp did not exit within 30 s".into()
    });
    r.check(group_gone, || "the server outlived mcp".into());
    if full {
        // The server floods and reads nothing, so it sees no end of its
        // stdin: after one SIGINT the exit waits out the stdio shutdown
        // sequence (2 s grace after stdin is closed, then SIGTERM, 1 s,
        // SIGKILL), and no longer; a second SIGINT kills it at once.
        let (bound, why) = if twice {
            (
                Duration::from_secs(1),
                "killing the server and reaping it + 1 s",
            )
        } else {
            (Duration::from_secs(4), "the 3 s shutdown sequence + 1 s")
        };
        r.check(took <= bound, || {
            format!("mcp took {} to exit (bound: {why})", ms(took))
        });
    }
    Ok(r)
}
