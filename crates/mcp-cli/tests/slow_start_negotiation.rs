//! A server that starts slowly (a cold `npx`/`uvx`, a model or database
//! loading, a loaded machine) is reached in its own kind of revision: the `server/discover`
//! probe is never abandoned, so its late answer decides, and a handshake
//! server that ignores or refuses the probe still gets `initialize`.
//!
//! Real peers behind `sh -c 'sleep N; exec …'` with N = 0, 2, 5, 10 s (the
//! probe's silence timeout is 3 s): the Python SDK's server that speaks both kinds of revision
//! (py_server.py, which commits to 2026-07-28 on the probe) and the
//! handshake-only server-everything. Skipped, saying why, when a peer is not
//! installed.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]
mod support;

use mcp_tests::peers::{everything_stdio_command, python_stdio_command, require_command};

const DELAYS: [u32; 4] = [0, 2, 5, 10];

fn quoted(program: String, args: Vec<String>) -> String {
    std::iter::once(program)
        .chain(args)
        .map(|w| format!("'{}'", w.replace('\'', r"'\''")))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Runs `mcp --stdio "sh -c 'sleep N; exec SERVER'" servers` for every
/// delay at once and checks each connected with `revision`.
fn connects_behind_each_delay(server: String, revision: &str) {
    let runs: Vec<_> = DELAYS
        .iter()
        .map(|delay| {
            let line = format!("sh -c \"sleep {delay}; exec {server}\"");
            let thread = std::thread::spawn(move || support::mcp(&["--stdio", &line, "servers"]));
            (delay, thread)
        })
        .collect();
    for (delay, thread) in runs {
        let run = thread.join().expect("mcp run");
        assert_eq!(run.code, Some(0), "delay {delay} s: {run:?}");
        assert!(
            run.stdout.contains(" connected ") && run.stdout.contains(revision),
            "delay {delay} s: expected a connection on {revision}: {run:?}"
        );
    }
}

#[test]
fn dual_era_python_server_is_reached_in_2026_07_28_behind_any_delay() {
    let Some((python, args)) = require_command("py_server.py (stdio)", python_stdio_command())
    else {
        return;
    };
    connects_behind_each_delay(quoted(python, args), "2026-07-28");
}

#[test]
fn handshake_only_server_is_reached_behind_any_delay() {
    let Some((node, args)) =
        require_command("server-everything (stdio)", everything_stdio_command())
    else {
        return;
    };
    connects_behind_each_delay(quoted(node, args), "2025-");
}
