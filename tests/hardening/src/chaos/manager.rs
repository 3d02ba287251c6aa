//! `mcp-manager` under faults: a managed server killed mid-call, and
//! start / call / shutdown cycles of ten servers.

use std::path::Path;
use std::time::{Duration, Instant};

use mcp_client::{CallOptions, RequestOptions};
use serde_json::json;

use super::{Report, mib, ms, settle, signal};
use crate::probe::{self, Sample};

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

pub(super) async fn kill9_manager(server: &Path, full: bool) -> Result<Report, String> {
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

pub(super) async fn cycles_manager(server: &Path, full: bool) -> Result<Report, String> {
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
