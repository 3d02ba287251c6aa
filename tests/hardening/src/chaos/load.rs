//! Load a client must absorb without leaking or growing past its bounds:
//! connect / close cycles, notification floods, results over the limits.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use mcp_client::{Client, RequestOptions};
use mcp_transport::Transport;
use serde_json::json;

use super::{Logs, Report, describe, mib, ms, options, settle};
use crate::probe::{self, Sample};
use crate::servers::{self, HttpServer};
use crate::soak::Wire;

pub(super) async fn cycles(server: &Path, full: bool, http: bool) -> Result<Report, String> {
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

pub(super) async fn flood(server: &Path, full: bool, wire: Wire) -> Result<Report, String> {
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

pub(super) async fn big(server: &Path, wire: Wire) -> Result<Report, String> {
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
