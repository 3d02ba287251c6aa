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
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use mcp_client::{CallOptions, Client, ClientError, ClientHandler, ClientOptions, RequestOptions};
use mcp_transport::Transport;
use mcp_types::logging::LoggingMessageNotificationParams;
use serde::Serialize;
use serde_json::json;

use crate::probe::{self, Sample};
use crate::servers::{self, HttpServer};
use crate::soak::Wire;

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

/// Runs scenario `name`.
pub(crate) async fn run(name: &str, full: bool, server: Option<&str>) -> Result<Report, String> {
    let server = servers::bench_server(server)?;
    match name {
        "kill9-stdio" => kill9(&server, full).await,
        "stopped-stdio" => stuck(&server, full, true).await,
        "never-reads-stdio" => stuck(&server, full, false).await,
        "http-drop-mid-sse" | "http-drop-mid-json" | "http-rst" | "http-never-answers"
        | "http-drop-between" => http_fault(name).await,
        "cycles-stdio" => cycles(&server, full, false).await,
        "cycles-http" => cycles(&server, full, true).await,
        "flood-stdio" => flood(&server, full, Wire::Stdio).await,
        "big-result-stdio" => big(&server, Wire::Stdio).await,
        "flood-http-sse" => flood(&server, full, Wire::HttpSse).await,
        "big-result-http-json" => big(&server, Wire::HttpJson).await,
        "big-result-http-sse" => big(&server, Wire::HttpSse).await,
        "kill9-manager" => kill9_manager(&server, full).await,
        "cycles-manager" => cycles_manager(&server, full).await,
        "ctrl-c-cli-flood" => ctrl_c_cli(&server, full, false).await,
        "ctrl-c-twice-cli-flood" => ctrl_c_cli(&server, full, true).await,
        _ => Err(format!(
            "no chaos scenario {name:?}; there are: {}",
            SCENARIOS[..SCENARIOS.len() - 1].join(", ")
        )),
    }
}

async fn kill9(server: &Path, full: bool) -> Result<Report, String> {
    let calls = 100;
    let mut r = Report::new(
        "kill9-stdio",
        format!("SIGKILL with {calls} calls in flight"),
    );
    let stderr_line = "bench-server: the last words before the kill";
    let transport = servers::stdio(server, &["--stderr-line", stderr_line]).await?;
    let pid = transport.pid().ok_or("no pid")?;
    let client = Client::connect(transport, options(&Arc::default()))
        .await
        .map_err(|e| e.to_string())?;
    let (held_tx, mut held_rx) = tokio::sync::mpsc::unbounded_channel::<()>();
    let mut tasks = Vec::new();
    for i in 0..calls {
        let client = client.clone();
        let held = held_tx.clone();
        tasks.push(tokio::spawn(async move {
            let options = RequestOptions::default()
                .with_timeout(Duration::from_secs(60))
                .with_progress(move |_| {
                    let _ = held.send(());
                });
            let args = json!({"text": format!("held {i}"), "hold": true});
            let outcome = client
                .call_tool("soak", args, CallOptions::from(options))
                .await;
            (Instant::now(), outcome)
        }));
    }
    for _ in 0..calls {
        held_rx.recv().await;
    }
    let killed = Instant::now();
    signal(pid, rustix::process::Signal::KILL)?;
    let mut worst = Duration::ZERO;
    let mut hung = 0;
    let mut closed = 0;
    let mut with_status = 0;
    let mut with_stderr = 0;
    for task in tasks {
        match tokio::time::timeout(Duration::from_secs(10), task).await {
            Ok(Ok((at, Err(e)))) => {
                worst = worst.max(at.saturating_duration_since(killed));
                closed += usize::from(e.is_closed());
                let text = e.to_string();
                with_status += usize::from(text.contains("SIGKILL") || text.contains("signal: 9"));
                with_stderr += usize::from(text.contains(stderr_line));
            }
            Ok(Ok((_, Ok(_)))) => {}
            _ => hung += 1,
        }
    }
    let reaped = settle(|| probe::zombie_children() == 0).await;
    r.figure("calls failed with Closed", format!("{closed} of {calls}"));
    r.figure(
        "errors naming the signal",
        format!("{with_status} of {calls}"),
    );
    r.figure(
        "errors carrying the stderr tail",
        format!("{with_stderr} of {calls}"),
    );
    r.figure("time to fail (slowest, from the kill)", ms(worst));
    r.figure("hung", hung);
    r.figure("server reaped", reaped);
    r.check(hung == 0, || format!("{hung} calls hung"));
    r.check(closed == calls, || {
        format!("{closed} of {calls} failed with Closed")
    });
    r.check(with_status == calls, || {
        format!("{with_status} of {calls} errors name the exit status")
    });
    r.check(with_stderr == calls, || {
        format!("{with_stderr} of {calls} errors carry the server's stderr tail")
    });
    r.check(reaped, || "the killed server is a zombie".into());
    if full {
        r.check(worst <= Duration::from_millis(100), || {
            format!(
                "the slowest call failed {} after the kill (bound: 100 ms)",
                ms(worst)
            )
        });
    }
    Ok(r)
}

/// A server that takes no input: stopped (SIGSTOP) or one that stops
/// reading. Every call must time out at its own deadline, memory stays
/// bounded, and close tears the process group down.
async fn stuck(server: &Path, full: bool, stop: bool) -> Result<Report, String> {
    let (name, how) = if stop {
        ("stopped-stdio", "the server stopped with SIGSTOP")
    } else {
        ("never-reads-stdio", "a server that stops reading its stdin")
    };
    // Far past what the pipe (256 KiB) takes either way.
    let calls = if full { 64 } else { 16 };
    let size = 1 << 20;
    let timeout = Duration::from_secs(2);
    let mut r = Report::new(
        name,
        format!(
            "{how}; {calls} calls of 1 MiB, {} s timeout each",
            timeout.as_secs()
        ),
    );
    let extra: &[&str] = if stop {
        &[]
    } else {
        &["--stop-reading-after", "2"]
    };
    let transport = Arc::new(servers::stdio(server, extra).await?);
    let pid = transport.pid().ok_or("no pid")?;
    let client = Client::connect_shared(transport.clone(), options(&Arc::default()))
        .await
        .map_err(|e| e.to_string())?;
    if stop {
        signal(pid, rustix::process::Signal::STOP)?;
    }
    let start = Instant::now();
    let before = Sample::take(start, 0, 0);
    let peak = Arc::new(AtomicU64::new(before.rss_kib));
    let sampler = {
        let peak = peak.clone();
        tokio::spawn(async move {
            loop {
                peak.fetch_max(Sample::take(start, 0, 0).rss_kib, Ordering::Relaxed);
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        })
    };
    let filler = "x".repeat(size);
    let mut tasks = Vec::new();
    for _ in 0..calls {
        let client = client.clone();
        let text = filler.clone();
        tasks.push(tokio::spawn(async move {
            let sent = Instant::now();
            let outcome = client
                .call_tool(
                    "soak",
                    json!({ "text": text }),
                    RequestOptions::default().with_timeout(timeout),
                )
                .await;
            (sent.elapsed(), outcome)
        }));
    }
    let mut late = Duration::ZERO;
    let mut timeouts = 0;
    let mut other = Vec::new();
    let mut hung = 0;
    for task in tasks {
        match tokio::time::timeout(Duration::from_secs(30), task).await {
            Ok(Ok((took, Err(e)))) if e.is_timeout() => {
                timeouts += 1;
                late = late.max(took.saturating_sub(timeout));
            }
            Ok(Ok((_, outcome))) => {
                other.push(format!("{outcome:?}").chars().take(120).collect::<String>())
            }
            _ => hung += 1,
        }
    }
    sampler.abort();
    let pending = transport.pending_requests();
    let closing = Instant::now();
    let closed = tokio::time::timeout(Duration::from_secs(30), client.close()).await;
    let close_took = closing.elapsed();
    let group_gone = settle(|| probe::alive_in_group(pid) == 0).await;
    let reaped = settle(|| probe::zombie_children() == 0).await;
    let growth = peak.load(Ordering::Relaxed).saturating_sub(before.rss_kib);
    r.figure("calls timed out", format!("{timeouts} of {calls}"));
    r.figure("latest timeout past its deadline", ms(late));
    r.figure("RSS growth (peak)", mib(growth));
    r.figure("pending after the timeouts", pending);
    r.figure("close took", ms(close_took));
    r.figure("process group gone", group_gone);
    r.check(hung == 0, || format!("{hung} calls hung"));
    r.check(timeouts == calls, || {
        format!("{timeouts} of {calls} timed out; others: {other:?}")
    });
    r.check(pending == 0, || format!("{pending} requests left pending"));
    r.check(matches!(closed, Ok(Ok(()))), || {
        format!("close: {closed:?}")
    });
    r.check(group_gone, || {
        "the server's process group outlived close".into()
    });
    r.check(reaped, || "the server is a zombie".into());
    // What is held is the callers' own: each call's text, its arguments
    // and its serialized message (the write queue holds the messages it
    // has room for, 256, and no more) until the call times out: about
    // three copies of calls × size, plus the runtime's own.
    let bound = (calls * size / 1024) as u64 * 3 + 64 * 1024;
    r.check(growth <= bound, || {
        format!("RSS grew {} (bound {})", mib(growth), mib(bound))
    });
    if full {
        r.check(late <= Duration::from_millis(500), || {
            format!("a timeout came {} past its deadline", ms(late))
        });
    }
    Ok(r)
}

async fn http_fault(name: &str) -> Result<Report, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let faults = HttpServer::start(&exe, &["serve-faults"]).await?;
    let (tool, timeout, run) = match name {
        "http-drop-mid-sse" => ("drop_sse", 10, "an SSE reply cut mid-event"),
        "http-drop-mid-json" => ("drop_json", 10, "a JSON reply cut mid-body"),
        "http-rst" => (
            "rst",
            10,
            "the connection reset (RST) with the POST in flight",
        ),
        "http-never-answers" => ("hang", 1, "a POST never answered"),
        _ => ("drop_after", 10, "the connection closed after every reply"),
    };
    let mut r = Report::new(name, format!("{run}; 8 ordinary calls beside it"));
    let logs = Arc::new(Logs::default());
    let transport = faults.connect(|c| c).await?;
    let client = Client::connect(transport, options(&logs))
        .await
        .map_err(|e| e.to_string())?;
    let ordinary = |i: usize| {
        let client = client.clone();
        async move {
            let text = format!("ordinary {i}");
            match client
                .call_tool("ok", json!({ "text": text }), RequestOptions::default())
                .await
            {
                Ok(result) if result.text() == text => Ok(()),
                other => Err(format!("{other:?}")),
            }
        }
    };
    let started = Instant::now();
    let faulty = {
        let client = client.clone();
        tokio::spawn(async move {
            let outcome = client
                .call_tool(
                    tool,
                    json!({"text": "through the fault"}),
                    RequestOptions::default().with_timeout(Duration::from_secs(timeout)),
                )
                .await;
            (started.elapsed(), outcome)
        })
    };
    let mut others = Vec::new();
    for i in 0..8 {
        others.push(tokio::spawn(ordinary(i)));
    }
    let (took, outcome) = tokio::time::timeout(Duration::from_secs(30), faulty)
        .await
        .map_err(|_| "the faulty call hung past 30 s".to_string())?
        .map_err(|e| e.to_string())?;
    let mut failed_others = Vec::new();
    for o in others {
        if let Ok(Err(e)) | Err(e) = o.await.map_err(|e| e.to_string()) {
            failed_others.push(e);
        }
    }
    // One more after the fault: the connection is still usable.
    let after = ordinary(99).await;
    r.figure("faulty call", describe(&outcome));
    r.figure("faulty call ended after", ms(took));
    r.figure("ordinary calls that failed", failed_others.len());
    r.check(failed_others.is_empty(), || {
        format!("ordinary calls failed: {failed_others:?}")
    });
    r.check(after.is_ok(), || {
        format!("a call after the fault: {after:?}")
    });
    match name {
        "http-drop-mid-sse" | "http-drop-between" => {
            let ok = matches!(&outcome, Ok(res) if res.text() == "through the fault");
            r.check(ok, || {
                format!("the call was not resumed: {}", describe(&outcome))
            });
            if name == "http-drop-mid-sse" {
                let seen = logs.0.load(Ordering::Relaxed);
                r.figure("notifications before the cut", seen);
                r.check(seen == 1, || {
                    format!("{seen} log messages arrived (1 sent)")
                });
            }
        }
        "http-never-answers" => {
            let ok = matches!(&outcome, Err(e) if e.is_timeout());
            r.check(ok, || format!("not a timeout: {}", describe(&outcome)));
            r.check(took < Duration::from_secs(timeout + 5), || {
                format!("the timeout came after {}", ms(took))
            });
        }
        _ => {
            let ok = matches!(&outcome, Err(e) if !e.is_timeout());
            r.check(ok, || {
                format!("not a prompt clear error: {}", describe(&outcome))
            });
        }
    }
    let _ = client.close().await;
    drop(faults);
    Ok(r)
}

fn describe(outcome: &Result<mcp_types::tools::CallToolResult, ClientError>) -> String {
    match outcome {
        Ok(res) => format!("answered: {:?}", res.text()),
        Err(e) => format!("error: {e}"),
    }
}

async fn cycles(server: &Path, full: bool, http: bool) -> Result<Report, String> {
    let n = if full { 1000 } else { 100 };
    let warm_at = n / 10;
    let name = if http { "cycles-http" } else { "cycles-stdio" };
    let mut r = Report::new(name, format!("{n} connect / ping / close cycles"));
    let http_server = if http {
        Some(HttpServer::bench(server, false).await?)
    } else {
        None
    };
    let start = Instant::now();
    let mut warm = None;
    let mut groups_left = 0;
    for i in 0..n {
        if i == warm_at {
            warm = Some(Sample::take(start, 0, i));
        }
        let mut pid = None;
        let transport: Arc<dyn Transport> = match &http_server {
            Some(s) => Arc::new(s.connect(|c| c).await?),
            None => {
                let t = servers::stdio(server, &[]).await?;
                pid = t.pid();
                Arc::new(t)
            }
        };
        let client = Client::connect_shared(transport, options(&Arc::default()))
            .await
            .map_err(|e| format!("cycle {i}: {e}"))?;
        client
            .ping(RequestOptions::default())
            .await
            .map_err(|e| format!("cycle {i}: ping: {e}"))?;
        client
            .close()
            .await
            .map_err(|e| format!("cycle {i}: close: {e}"))?;
        drop(client);
        if let Some(pid) = pid
            && !settle(|| probe::alive_in_group(pid) == 0).await
        {
            groups_left += 1;
        }
    }
    let zombies_gone = settle(|| probe::zombie_children() == 0).await;
    let children_gone = settle(|| probe::children() == usize::from(http)).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    let end = Sample::take(start, 0, n);
    let warm = warm.unwrap_or(end);
    r.figure(
        "RSS after warm-up → end",
        format!("{} → {}", mib(warm.rss_kib), mib(end.rss_kib)),
    );
    r.figure("fds", format!("{} → {}", warm.fds, end.fds));
    r.figure("threads", format!("{} → {}", warm.threads, end.threads));
    r.figure("tokio tasks", format!("{} → {}", warm.tasks, end.tasks));
    r.figure(
        "seconds per cycle",
        format!("{:.4}", start.elapsed().as_secs_f64() / n as f64),
    );
    r.figure("zombies", if zombies_gone { "0" } else { "some" });
    r.check(zombies_gone, || "zombie children remain".into());
    r.check(children_gone, || {
        format!("{} children remain", probe::children())
    });
    r.check(groups_left == 0, || {
        format!("{groups_left} process groups outlived close")
    });
    r.check(end.fds <= warm.fds + 2, || {
        format!("fds grew {} → {}", warm.fds, end.fds)
    });
    r.check(end.threads <= warm.threads + 2, || {
        format!("threads grew {} → {}", warm.threads, end.threads)
    });
    r.check(end.tasks <= warm.tasks + 2, || {
        format!("tokio tasks grew {} → {}", warm.tasks, end.tasks)
    });
    r.check(
        end.rss_kib as f64 <= warm.rss_kib as f64 * 1.10 + 1024.0,
        || format!("RSS grew {} → {}", mib(warm.rss_kib), mib(end.rss_kib)),
    );
    drop(http_server);
    Ok(r)
}

/// The bench server over `wire`: a client connected to it, and the HTTP
/// server process to hold (and so keep alive) while the client is used.
async fn bench_client(
    server: &Path,
    wire: Wire,
    logs: &Arc<Logs>,
) -> Result<(Client, Option<HttpServer>), String> {
    let (transport, http): (Arc<dyn Transport>, _) = match wire {
        Wire::Stdio => (Arc::new(servers::stdio(server, &[]).await?), None),
        Wire::HttpJson | Wire::HttpSse => {
            let s = HttpServer::bench(server, wire == Wire::HttpSse).await?;
            (Arc::new(s.connect(|c| c).await?), Some(s))
        }
    };
    let client = Client::connect_shared(transport, options(logs))
        .await
        .map_err(|e| e.to_string())?;
    Ok((client, http))
}

async fn flood(server: &Path, full: bool, wire: Wire) -> Result<Report, String> {
    let count: u64 = if full { 100_000 } else { 10_000 };
    let (name, carried) = match wire {
        Wire::Stdio => ("flood-stdio", "before one result"),
        _ => (
            "flood-http-sse",
            "before one result, all in the call's SSE reply",
        ),
    };
    let mut r = Report::new(name, format!("{count} log notifications {carried}"));
    let logs = Arc::new(Logs::default());
    let (client, http) = bench_client(server, wire, &logs).await?;
    let start = Instant::now();
    let before = Sample::take(start, 0, 0);
    let peak = Arc::new(AtomicU64::new(before.rss_kib));
    let sampler = {
        let peak = peak.clone();
        tokio::spawn(async move {
            loop {
                peak.fetch_max(Sample::take(start, 0, 0).rss_kib, Ordering::Relaxed);
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        })
    };
    let outcome = client
        .call_tool(
            "flood",
            json!({ "count": count }),
            RequestOptions::default().with_timeout(Duration::from_secs(300)),
        )
        .await;
    let took = start.elapsed();
    // The result can overtake the last notifications on their way to the
    // handler: wait for them.
    let all = settle(|| logs.0.load(Ordering::Relaxed) == count).await;
    sampler.abort();
    let ping = client.ping(RequestOptions::default()).await;
    let growth = peak.load(Ordering::Relaxed).saturating_sub(before.rss_kib);
    r.figure("notifications received", logs.0.load(Ordering::Relaxed));
    r.figure(
        "notifications per second",
        format!("{:.0}", count as f64 / took.as_secs_f64()),
    );
    r.figure("RSS growth (peak)", mib(growth));
    r.check(outcome.is_ok(), || format!("the call: {outcome:?}"));
    r.check(all, || {
        format!(
            "{} of {count} notifications arrived",
            logs.0.load(Ordering::Relaxed)
        )
    });
    r.check(ping.is_ok(), || format!("ping after the flood: {ping:?}"));
    r.check(growth <= 64 * 1024, || {
        format!("RSS grew {} (bound 64 MiB)", mib(growth))
    });
    let _ = client.close().await;
    drop(http);
    Ok(r)
}

async fn big(server: &Path, wire: Wire) -> Result<Report, String> {
    let bytes: u64 = 100 << 20;
    let (name, run) = match wire {
        Wire::Stdio => (
            "big-result-stdio",
            "a 100 MiB result (the line limit is 64 MiB)",
        ),
        Wire::HttpJson => (
            "big-result-http-json",
            "a 100 MiB result as a JSON body (the body limit is 64 MiB)",
        ),
        Wire::HttpSse => (
            "big-result-http-sse",
            "a 100 MiB result as one SSE event (the event limit is 64 MiB)",
        ),
    };
    let mut r = Report::new(name, run);
    let (client, http) = bench_client(server, wire, &Arc::default()).await?;
    let start = Instant::now();
    let before = Sample::take(start, 0, 0);
    let peak = Arc::new(AtomicU64::new(before.rss_kib));
    let sampler = {
        let peak = peak.clone();
        tokio::spawn(async move {
            loop {
                peak.fetch_max(Sample::take(start, 0, 0).rss_kib, Ordering::Relaxed);
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        })
    };
    let big_call = client.call_tool(
        "big",
        json!({ "bytes": bytes }),
        RequestOptions::default().with_timeout(Duration::from_secs(300)),
    );
    // Calls in flight beside the big one: only the big one may fail.
    let others: Vec<_> = (0..8)
        .map(|i| {
            let client = client.clone();
            tokio::spawn(async move {
                let text = format!("beside {i}");
                let outcome = client
                    .call_tool("echo", json!({ "text": text }), RequestOptions::default())
                    .await;
                match outcome {
                    Ok(res) if res.text() == text => Ok(()),
                    other => Err(describe(&other)),
                }
            })
        })
        .collect();
    let outcome = big_call.await;
    let took = start.elapsed();
    let mut failed_others = Vec::new();
    for o in others {
        if let Ok(Err(e)) | Err(e) = o.await.map_err(|e| e.to_string()) {
            failed_others.push(e);
        }
    }
    sampler.abort();
    let ping = client.ping(RequestOptions::default()).await;
    let growth = peak.load(Ordering::Relaxed).saturating_sub(before.rss_kib);
    r.figure("outcome", describe(&outcome));
    r.figure("took", ms(took));
    r.figure("RSS growth (peak)", mib(growth));
    r.figure(
        "calls beside it that failed",
        format!("{} of 8", failed_others.len()),
    );
    r.check(failed_others.is_empty(), || {
        format!("calls beside the big one failed: {failed_others:?}")
    });
    let too_large = matches!(&outcome, Err(e) if e.to_string().contains("too large")
        || e.to_string().contains("limit"));
    r.check(too_large, || {
        format!("not MessageTooLarge: {}", describe(&outcome))
    });
    r.check(ping.is_ok(), || format!("ping afterwards: {ping:?}"));
    r.check(growth <= 96 * 1024, || {
        format!("RSS grew {} (bound 96 MiB)", mib(growth))
    });
    let _ = client.close().await;
    drop(http);
    Ok(r)
}

/// A manager configuration of `n` bench servers over stdio, `b0` … .
fn manager_config(server: &Path, n: usize) -> Result<mcp_manager::McpConfig, String> {
    let servers: serde_json::Map<String, serde_json::Value> = (0..n)
        .map(|i| {
            (
                format!("b{i}"),
                json!({"command": server.to_string_lossy(), "args": ["stdio", "--tools", "1"]}),
            )
        })
        .collect();
    mcp_manager::McpConfig::from_json(&json!({ "mcpServers": servers }).to_string())
        .map_err(|e| e.to_string())
}

fn manager_options() -> mcp_manager::ManagerOptions {
    mcp_manager::ManagerOptions::new("mcp-harden-chaos", "0.1.0")
}

async fn kill9_manager(server: &Path, full: bool) -> Result<Report, String> {
    let calls = 100;
    let mut r = Report::new(
        "kill9-manager",
        format!(
            "SIGKILL of a managed stdio server with {calls} calls in flight, then one more call"
        ),
    );
    let manager = mcp_manager::Manager::start(manager_config(server, 1)?, manager_options()).await;
    if !manager.wait_started(Duration::from_secs(30)).await {
        return Err("the managed server did not start".into());
    }
    let pid = manager.pid("b0").ok_or("no pid")?;
    let client = manager.client("b0").ok_or("no client")?;
    let echo = manager
        .tools()
        .into_iter()
        .find(|t| t.tool.name == "echo")
        .map(|t| t.qualified_name)
        .ok_or("the manager lists no echo tool")?;
    let (held_tx, mut held_rx) = tokio::sync::mpsc::unbounded_channel::<()>();
    let mut tasks = Vec::new();
    for i in 0..calls {
        let client = client.clone();
        let held = held_tx.clone();
        tasks.push(tokio::spawn(async move {
            let options = RequestOptions::default()
                .with_timeout(Duration::from_secs(60))
                .with_progress(move |_| {
                    let _ = held.send(());
                });
            let args = json!({"text": format!("held {i}"), "hold": true});
            let outcome = client
                .call_tool("soak", args, CallOptions::from(options))
                .await;
            (Instant::now(), outcome)
        }));
    }
    for _ in 0..calls {
        held_rx.recv().await;
    }
    let killed = Instant::now();
    signal(pid, rustix::process::Signal::KILL)?;
    let mut worst = Duration::ZERO;
    let mut failed = 0;
    let mut hung = 0;
    for task in tasks {
        match tokio::time::timeout(Duration::from_secs(10), task).await {
            Ok(Ok((at, Err(_)))) => {
                failed += 1;
                worst = worst.max(at.saturating_duration_since(killed));
            }
            Ok(Ok((_, Ok(_)))) => {}
            _ => hung += 1,
        }
    }
    let mut args = serde_json::Map::new();
    args.insert("text".into(), json!("after the kill"));
    let next = tokio::time::timeout(
        Duration::from_secs(60),
        manager.call_tool(&echo, Some(args), CallOptions::default()),
    )
    .await;
    let reconnected_after = killed.elapsed();
    let new_pid = manager.pid("b0");
    manager.shutdown().await;
    let reaped = settle(|| probe::zombie_children() == 0 && probe::children() == 0).await;
    r.figure("calls failed", format!("{failed} of {calls}"));
    r.figure("time to fail (slowest, from the kill)", ms(worst));
    r.figure(
        "next call answered after (from the kill)",
        ms(reconnected_after),
    );
    r.figure("server restarted", new_pid.is_some_and(|p| p != pid));
    r.check(hung == 0, || format!("{hung} calls hung"));
    r.check(failed == calls, || format!("{failed} of {calls} failed"));
    let ok = matches!(&next, Ok(Ok(res)) if res.text() == "after the kill");
    r.check(ok, || format!("the call after the kill: {next:?}"));
    r.check(reaped, || {
        "processes outlived the manager's shutdown".into()
    });
    if full {
        r.check(worst <= Duration::from_millis(100), || {
            format!(
                "the slowest call failed {} after the kill (bound: 100 ms)",
                ms(worst)
            )
        });
    }
    Ok(r)
}

async fn cycles_manager(server: &Path, full: bool) -> Result<Report, String> {
    let n = if full { 100 } else { 10 };
    let servers = 10;
    let mut r = Report::new(
        "cycles-manager",
        format!("{n} start / call / shutdown cycles of a manager with {servers} stdio servers"),
    );
    let start = Instant::now();
    let mut warm = None;
    for i in 0..n {
        if i == 1 {
            warm = Some(Sample::take(start, 0, i));
        }
        let manager =
            mcp_manager::Manager::start(manager_config(server, servers)?, manager_options()).await;
        if !manager.wait_started(Duration::from_secs(60)).await {
            return Err(format!("cycle {i}: the servers did not start"));
        }
        let client = manager.client("b3").ok_or("no client b3")?;
        let result = client
            .call_tool("echo", json!({"text": "cycle"}), RequestOptions::default())
            .await
            .map_err(|e| format!("cycle {i}: {e}"))?;
        if result.text() != "cycle" {
            return Err(format!("cycle {i}: wrong echo"));
        }
        drop(client);
        manager.shutdown().await;
        drop(manager);
        if !settle(|| probe::children() == 0).await {
            r.problems
                .push(format!("cycle {i}: {} children left", probe::children()));
            break;
        }
    }
    let zombies_gone = settle(|| probe::zombie_children() == 0).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    let end = Sample::take(start, 0, n);
    let warm = warm.unwrap_or(end);
    r.figure(
        "RSS after warm-up → end",
        format!("{} → {}", mib(warm.rss_kib), mib(end.rss_kib)),
    );
    r.figure("fds", format!("{} → {}", warm.fds, end.fds));
    r.figure("threads", format!("{} → {}", warm.threads, end.threads));
    r.figure("tokio tasks", format!("{} → {}", warm.tasks, end.tasks));
    r.figure(
        "seconds per cycle",
        format!("{:.3}", start.elapsed().as_secs_f64() / n as f64),
    );
    r.check(zombies_gone, || "zombie children remain".into());
    r.check(end.fds <= warm.fds + 2, || {
        format!("fds grew {} → {}", warm.fds, end.fds)
    });
    r.check(end.threads <= warm.threads + 2, || {
        format!("threads grew {} → {}", warm.threads, end.threads)
    });
    r.check(end.tasks <= warm.tasks + 2, || {
        format!("tokio tasks grew {} → {}", warm.tasks, end.tasks)
    });
    r.check(
        end.rss_kib as f64 <= warm.rss_kib as f64 * 1.10 + 1024.0,
        || format!("RSS grew {} → {}", mib(warm.rss_kib), mib(end.rss_kib)),
    );
    Ok(r)
}

/// The `mcp` command line in a call flooded with notifications: after
/// SIGINT it must exit promptly, and take its server down with it.
async fn ctrl_c_cli(server: &Path, full: bool, twice: bool) -> Result<Report, String> {
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
    let mut child = tokio::process::Command::new(&mcp)
        .args(["--stdio", &stdio, "call", "flood", "count=1000000000000"])
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
