//! Stdio servers that die or stop taking input: `kill9-stdio`,
//! `stopped-stdio`, `never-reads-stdio`.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use mcp_client::{CallOptions, Client, RequestOptions};
use mcp_transport::Transport;
use serde_json::json;

use super::{Report, mib, ms, options, settle, signal};
use crate::probe::{self, Sample};
use crate::servers;

pub(super) async fn kill9(server: &Path, full: bool) -> Result<Report, String> {
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
pub(super) async fn stuck(server: &Path, full: bool, stop: bool) -> Result<Report, String> {
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
