//! `mcp-harden chaos SCENARIO [--full]`: one fault against real
//! processes, measured. `--full` runs the sizes of the reliability table
//! (and judges the time-to-fail bounds); without it the run is the short
//! one `cargo xtask test` makes, whose times are reported but not judged
//! (a CI machine shared with compilers is no place for a latency verdict).
//!
//! | scenario | what |
//! |---|---|
//! | `kill9-stdio` | 100 calls held by a stdio server, which is then killed with SIGKILL |
//! | `stopped-stdio` | the server is stopped (SIGSTOP); 64 calls of 1 MiB with a 2 s timeout (short: 16) |
//! | `never-reads-stdio` | a server that stops reading its stdin; 64 calls of 1 MiB, 2 s timeout (short: 16) |
//! | `http-drop-mid-sse` | an SSE reply cut mid-event: resumed with `Last-Event-ID` |
//! | `http-drop-mid-json` | a JSON reply cut mid-body |
//! | `http-rst` | the connection reset while a POST is in flight |
//! | `http-never-answers` | a request never answered, 1 s timeout |
//! | `http-drop-between` | the server closes its connection after every reply |
//! | `cycles-stdio`, `cycles-http` | connect / ping / close cycles (1 000; short: 100) |
//! | `flood-stdio` | 10^5 log notifications before one result (short: 10^4) |
//! | `big-result-stdio` | a 100 MiB result, past the 64 MiB line limit |
//! | `flood-http-sse` | `flood-stdio` over Streamable HTTP: the notifications and the result in one SSE reply (a JSON reply carries one message, so no flood) |
//! | `big-result-http-json`, `big-result-http-sse` | a 100 MiB result as a JSON body / one SSE event, past the 64 MiB `max_event_bytes` |
//! | `kill9-manager` | SIGKILL of a server the manager runs, 100 calls in flight; the next call after |
//! | `cycles-manager` | start / call / shutdown of a manager with 10 servers (100; short: 10) |
//! | `ctrl-c-cli-flood` | the `mcp` command line in a call that floods it with notifications, interrupted (SIGINT) after 1 s |
//! | `ctrl-c-twice-cli-flood` | the same, with a second SIGINT 500 ms after the first: the server is killed at once |
//!
//! Every HTTP fault runs beside 8 ordinary calls on the same connection,
//! which must all succeed.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use mcp_client::{ClientError, ClientHandler, ClientOptions};
use mcp_types::logging::LoggingMessageNotificationParams;
use serde::Serialize;

use crate::servers;
use crate::soak::Wire;

mod cli;
mod http;
mod load;
mod manager;
mod process;

/// Every scenario, in the order of the table.
pub(crate) const SCENARIOS: [&str; 20] = [
    "kill9-stdio",
    "stopped-stdio",
    "never-reads-stdio",
    "http-drop-mid-sse",
    "http-drop-mid-json",
    "http-rst",
    "http-never-answers",
    "http-drop-between",
    "cycles-stdio",
    "cycles-http",
    "flood-stdio",
    "big-result-stdio",
    "flood-http-sse",
    "big-result-http-json",
    "big-result-http-sse",
    "kill9-manager",
    "cycles-manager",
    "ctrl-c-cli-flood",
    "ctrl-c-twice-cli-flood",
    "help",
];

/// What a scenario measured.
#[derive(Debug, Serialize)]
pub(crate) struct Report {
    pub(crate) scenario: String,
    /// What was run, in words.
    pub(crate) run: String,
    /// The figures, by name.
    pub(crate) figures: BTreeMap<String, String>,
    pub(crate) problems: Vec<String>,
}

impl Report {
    fn new(scenario: &str, run: impl Into<String>) -> Report {
        Report {
            scenario: scenario.to_string(),
            run: run.into(),
            figures: BTreeMap::new(),
            problems: Vec::new(),
        }
    }

    fn figure(&mut self, name: &str, value: impl ToString) {
        self.figures.insert(name.to_string(), value.to_string());
    }

    fn check(&mut self, ok: bool, problem: impl FnOnce() -> String) {
        if !ok {
            self.problems.push(problem());
        }
    }
}

/// Counts the server's log messages.
#[derive(Debug, Default)]
struct Logs(AtomicU64);

#[async_trait]
impl ClientHandler for Logs {
    async fn on_logging_message(&self, _params: LoggingMessageNotificationParams) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
}

fn options(logs: &Arc<Logs>) -> ClientOptions {
    ClientOptions::new("mcp-harden-chaos", "0.1.0").with_handler(logs.clone())
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

fn mib(kib: u64) -> String {
    format!("{:.1} MiB", kib as f64 / 1024.0)
}

fn signal(pid: u32, sig: rustix::process::Signal) -> Result<(), String> {
    let pid = rustix::process::Pid::from_raw(i32::try_from(pid).map_err(|e| e.to_string())?)
        .ok_or("pid 0")?;
    rustix::process::kill_process(pid, sig).map_err(|e| format!("kill: {e}"))
}

/// Waits up to 5 s for `cond` (a process to be reaped, a group to empty).
async fn settle(cond: impl Fn() -> bool) -> bool {
    for _ in 0..100 {
        if cond() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    cond()
}

/// A call's outcome in words: the text it answered with, or the error.
fn describe(outcome: &Result<mcp_types::tools::CallToolResult, ClientError>) -> String {
    match outcome {
        Ok(res) => format!("answered: {:?}", res.text()),
        Err(e) => format!("error: {e}"),
    }
}

/// Runs scenario `name`.
pub(crate) async fn run(name: &str, full: bool, server: Option<&str>) -> Result<Report, String> {
    let server = servers::bench_server(server)?;
    match name {
        "kill9-stdio" => process::kill9(&server, full).await,
        "stopped-stdio" => process::stuck(&server, full, true).await,
        "never-reads-stdio" => process::stuck(&server, full, false).await,
        "http-drop-mid-sse" | "http-drop-mid-json" | "http-rst" | "http-never-answers"
        | "http-drop-between" => http::http_fault(name).await,
        "cycles-stdio" => load::cycles(&server, full, false).await,
        "cycles-http" => load::cycles(&server, full, true).await,
        "flood-stdio" => load::flood(&server, full, Wire::Stdio).await,
        "big-result-stdio" => load::big(&server, Wire::Stdio).await,
        "flood-http-sse" => load::flood(&server, full, Wire::HttpSse).await,
        "big-result-http-json" => load::big(&server, Wire::HttpJson).await,
        "big-result-http-sse" => load::big(&server, Wire::HttpSse).await,
        "kill9-manager" => manager::kill9_manager(&server, full).await,
        "cycles-manager" => manager::cycles_manager(&server, full).await,
        "ctrl-c-cli-flood" => cli::ctrl_c_cli(&server, full, false).await,
        "ctrl-c-twice-cli-flood" => cli::ctrl_c_cli(&server, full, true).await,
        _ => Err(format!(
            "no chaos scenario {name:?}; there are: {}",
            SCENARIOS[..SCENARIOS.len() - 1].join(", ")
        )),
    }
}
