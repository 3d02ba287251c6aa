//! `cargo xtask soak [--calls N] [--wire W[:N]]… [--debug] [--report]`: the
//! soak of `tests/hardening` (`mcp-harden soak`): N `tools/call`s (default
//! 10^6) through our client against the bench server over stdio and
//! Streamable HTTP with JSON and SSE replies, 64 in flight, sampled every
//! 10 s; see `tests/hardening/src/soak.rs` for the mix and the verdict.
//!
//! Builds `mcp-hardening` in release (`--debug`: the dev profile, which
//! `cargo xtask test` uses for its 10^4-call run). `--report` writes the
//! soak section of `docs/reliability.md`.

use std::path::{Path, PathBuf};
use std::time::Instant;

use serde_json::Value;

use crate::{reliability, util};

/// The wires a soak runs over, in the table's order.
pub(crate) const WIRES: [&str; 3] = ["stdio", "http-json", "http-sse"];

/// Builds the hardening binaries and the `mcp` command line (which a
/// chaos scenario interrupts; built together, soak and chaos share one
/// feature set and so one build); returns the directory they are in.
pub(crate) fn build(root: &Path, release: bool) -> Result<PathBuf, String> {
    let mut cargo = util::cargo(root);
    if release {
        cargo.args([
            "build",
            "--release",
            "--locked",
            "-p",
            "mcp-hardening",
            "-p",
            "mcpio-cli",
        ]);
    } else {
        // The whole workspace's bins: after `cargo test --workspace` every
        // dependency is built with these features already.
        cargo.args(["build", "--locked", "--workspace", "--bins"]);
    }
    util::run(&mut cargo, "build mcp-harden and bench-server")?;
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    Ok(target.join(if release { "release" } else { "debug" }))
}

/// Runs `mcp-harden ARGS`; returns its JSON report (also when its verdict
/// is a failure).
pub(crate) fn harden(bin: &Path, args: &[String]) -> Result<Value, String> {
    eprintln!("==> mcp-harden {}", args.join(" "));
    let out = std::process::Command::new(bin.join("mcp-harden"))
        .args(args)
        .stderr(std::process::Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot run mcp-harden: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(text.trim()).map_err(|e| {
        format!(
            "mcp-harden {} gave no report ({}): {e}",
            args.join(" "),
            out.status
        )
    })
}

/// The problems a report lists (empty: a pass).
pub(crate) fn problems(report: &Value) -> Vec<String> {
    report["problems"]
        .as_array()
        .map(|p| {
            p.iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// Runs the soaks; see the module docs.
pub(crate) fn soak(args: &[String]) -> Result<(), String> {
    let root = util::workspace_root()?;
    let mut calls: u64 = 1_000_000;
    let mut wires = Vec::new();
    let mut release = true;
    let mut report = false;
    let mut sample_secs = "10".to_string();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--calls" => {
                calls = it
                    .next()
                    .and_then(|v| v.parse().ok())
                    .ok_or("--calls needs a number")?;
            }
            "--wire" => wires.push(it.next().ok_or("--wire stdio|http-json|http-sse")?.clone()),
            "--sample-secs" => sample_secs = it.next().ok_or("--sample-secs N")?.clone(),
            "--debug" => release = false,
            "--report" => report = true,
            other => return Err(format!("unknown option {other:?}")),
        }
    }
    if wires.is_empty() {
        wires = WIRES.iter().map(|w| (*w).to_string()).collect();
    }
    // `--wire NAME:CALLS` gives that wire its own number of calls.
    let wires: Vec<(String, u64)> = wires
        .iter()
        .map(|w| match w.split_once(':') {
            Some((name, n)) => n
                .parse()
                .map(|n| (name.to_string(), n))
                .map_err(|_| format!("--wire {w}: not a number of calls")),
            None => Ok((w.clone(), calls)),
        })
        .collect::<Result<_, _>>()?;
    let bin = build(&root, release)?;
    let started = Instant::now();
    let load_at_start = reliability::load_average();
    let mut reports = Vec::new();
    for (wire, calls) in &wires {
        let args: Vec<String> = [
            "soak",
            "--wire",
            wire,
            "--calls",
            &calls.to_string(),
            "--sample-secs",
            &sample_secs,
        ]
        .iter()
        .map(|s| (*s).to_string())
        .collect();
        reports.push(harden(&bin, &args)?);
    }
    let took = started.elapsed();
    let table = table(&reports);
    println!("{table}");
    if report {
        let profile = if release { "" } else { " --debug" };
        let per_wire: String = wires
            .iter()
            .map(|(w, n)| format!(" --wire {w}:{n}"))
            .collect();
        let command = format!("cargo xtask soak{per_wire}{profile} --report");
        let body = format!(
            "## Soak\n\n{}\n{}\n{}\n{}",
            reliability::provenance(&root, &command, took, &load_at_start),
            SOAK_NOTES,
            table,
            samples(&reports, &sample_secs)
        );
        reliability::write_section(&root, "soak", &body)?;
    }
    let failed: Vec<String> = reports
        .iter()
        .filter(|r| !problems(r).is_empty())
        .map(|r| r["wire"].as_str().unwrap_or("?").to_string())
        .collect();
    if failed.is_empty() {
        Ok(())
    } else {
        Err(format!("soak failed over: {}", failed.join(", ")))
    }
}

const SOAK_NOTES: &str = "Each row: that many `tools/call`s through `mcp_client::Client` \
against the bench server (a separate process), 64 in flight; call `i` carries 1 MiB when \
`i % 100 == 50`, 64 KiB when `i % 10 == 5`, 8 KiB when `i % 10 == 1`, else 100–999 bytes, \
and checks its echo; one call in 100 is held by the server and dropped by the client, \
which must send exactly one `notifications/cancelled` for it (counted by the server); \
progress notifications and log messages are counted where the wire carries them (a JSON \
reply cannot). Warm-up: the first tenth of the calls (at least 1 000); the warm and end \
samples are taken with nothing in flight. Verdict: no call lost, failed or answered with \
another's echo; cancellations exact; pending table empty; live heap (bytes allocated and \
not freed, counted by the process's allocator) within 4 MiB of the warm sample; RSS within \
10 % + 8 MiB of it from 10^5 calls on (shorter runs report it: the allocator's own growth \
is as large as that bound there); fds, threads and tokio tasks within 2 (HTTP: within the \
32 idle connections the pool may keep).\n";

fn kib(v: &Value) -> String {
    v.as_u64()
        .map_or_else(|| "?".into(), |k| format!("{:.1} MiB", k as f64 / 1024.0))
}

fn table(reports: &[Value]) -> String {
    let mut out = String::from(
        "| wire | calls | answered / cancelled / failed | calls/s | progress, logs received | cancellations (server) | live heap warm → end | RSS warm → end | fds | threads | tasks | pending at end | verdict |\n\
         |---|---:|---|---:|---|---|---|---|---|---|---|---:|---|\n",
    );
    for r in reports {
        let (w, e) = (&r["warm"], &r["end"]);
        let p = problems(r);
        let s = &r["server_cancellations"];
        out.push_str(&format!(
            "| {} | {} | {} / {} / {} | {:.0} | {}/{}, {}/{} | {} held, {} once, {} twice+, {} unknown | {} → {} | {} → {} | {} → {} | {} → {} | {} → {} | {} | {} |\n",
            r["wire"].as_str().unwrap_or("?"),
            r["calls"],
            r["answered"],
            r["cancelled"],
            r["failed"],
            r["calls_per_s"].as_f64().unwrap_or(0.0),
            r["progress_received"],
            r["progress_expected"],
            r["logs_received"],
            r["logs_expected"],
            s["held"],
            s["cancelled_once"],
            s["cancelled_more"],
            s["cancelled_unknown"],
            kib(&w["heap_kib"]),
            kib(&e["heap_kib"]),
            kib(&w["rss_kib"]),
            kib(&e["rss_kib"]),
            w["fds"],
            e["fds"],
            w["threads"],
            e["threads"],
            w["tasks"],
            e["tasks"],
            e["pending"],
            if p.is_empty() {
                "pass".to_string()
            } else {
                format!("FAIL: {}", p.join("; "))
            }
        ));
    }
    out
}

/// The samples of each wire (taken every `every_secs` seconds), at most 12
/// of them evenly spread, as a line of RSS and pending over time.
fn samples(reports: &[Value], every_secs: &str) -> String {
    let mut out = format!("\nSamples (every {every_secs} s; at most 12 shown per wire):\n\n");
    for r in reports {
        let Some(samples) = r["samples"].as_array() else {
            continue;
        };
        out.push_str(&format!("- {}: ", r["wire"].as_str().unwrap_or("?")));
        let step = samples.len().div_ceil(12).max(1);
        let shown: Vec<String> = samples
            .iter()
            .step_by(step)
            .map(|s| {
                format!(
                    "{:.0} s: {} calls, live heap {}, RSS {}, {} fds, {} threads, {} tasks, {} pending",
                    s["at_s"].as_f64().unwrap_or(0.0),
                    s["done"],
                    kib(&s["heap_kib"]),
                    kib(&s["rss_kib"]),
                    s["fds"],
                    s["threads"],
                    s["tasks"],
                    s["pending"]
                )
            })
            .collect();
        if shown.is_empty() {
            out.push_str("(the run was shorter than one sample)\n");
        } else {
            out.push_str(&shown.join("; "));
            out.push('\n');
        }
    }
    out
}
