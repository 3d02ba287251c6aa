//! Runs the built `mcp` binary with a deadline and captures its output;
//! [`tmux`] runs it on a real terminal.
#![allow(dead_code)]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

use std::io::Read;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub(crate) mod tmux;

#[allow(unused_imports)] // each test file uses a subset
pub(crate) use mcp_tests::temp_dir;

/// Generous upper bound for one `mcp` run.
pub(crate) const DEADLINE: Duration = Duration::from_secs(60);

/// What a run produced.
#[derive(Debug)]
pub(crate) struct Run {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

/// `mcp` with `args`, stdin from /dev/null, in `dir` (a fresh temp dir by
/// default, so no ./.mcp.json is picked up).
pub(crate) fn mcp_in(dir: &Path, args: &[&str]) -> Run {
    mcp_in_env(dir, args, &[])
}

/// [`mcp_in`] with the variables `vars` set.
pub(crate) fn mcp_in_env(dir: &Path, args: &[&str], vars: &[(&str, &str)]) -> Run {
    let child = Command::new(env!("CARGO_BIN_EXE_mcp"))
        .args(args)
        .current_dir(dir)
        .env_remove("MCP_LOG")
        // The store is the run's own choice, never the developer's.
        .env_remove("MCP_CREDENTIAL_STORE")
        .envs(vars.iter().copied())
        // The revision memory lives in the run's own directory unless a test says
        // otherwise: one run's verdict never changes another test's wire.
        .env("XDG_CACHE_HOME", dir.join(".cache"))
        // So are stored logins.
        .env("MCP_CREDENTIALS_DIR", dir.join(".credentials"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn mcp");
    finish(child)
}

/// `mcp` with `args` in an empty temp directory.
pub(crate) fn mcp(args: &[&str]) -> Run {
    let dir = temp_dir("run");
    let run = mcp_in(&dir, args);
    let _ = std::fs::remove_dir_all(&dir);
    run
}

/// Waits for `child` (killing it past [`DEADLINE`]) and collects its output.
pub(crate) fn finish(mut child: Child) -> Run {
    // Either stream may already have been taken by the caller.
    let out = child.stdout.take();
    let err = child.stderr.take();
    let out_thread = std::thread::spawn(move || {
        let mut s = String::new();
        if let Some(mut out) = out {
            let _ = out.read_to_string(&mut s);
        }
        s
    });
    let err_thread = std::thread::spawn(move || {
        let mut s = String::new();
        if let Some(mut err) = err {
            let _ = err.read_to_string(&mut s);
        }
        s
    });
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for mcp") {
            break status;
        }
        if start.elapsed() > DEADLINE {
            let _ = child.kill();
            let _ = child.wait();
            panic!("mcp did not finish within {DEADLINE:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Run {
        code: status.code(),
        stdout: out_thread.join().unwrap_or_default(),
        stderr: err_thread.join().unwrap_or_default(),
    }
}

/// `(verification_uri, user_code)` from mcp's line "To log in, open URI on
/// any device and enter the code CODE (valid N min)."
pub(crate) fn device_prompt(line: &str) -> Option<(String, String)> {
    let uri = line.split("open ").nth(1)?.split(" on any device").next()?;
    let code = line
        .split("enter the code ")
        .nth(1)?
        .split(" (valid")
        .next()?;
    Some((uri.to_owned(), code.to_owned()))
}
