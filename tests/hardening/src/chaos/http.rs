//! An HTTP server that breaks the wire under one call while 8 ordinary
//! calls share the connection: the `http-*` scenarios.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use mcp_client::{Client, RequestOptions};
use serde_json::json;

use super::{Logs, Report, describe, ms, options};
use crate::servers::HttpServer;

pub(super) async fn http_fault(name: &str) -> Result<Report, String> {
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
