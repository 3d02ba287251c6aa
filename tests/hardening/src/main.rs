//! `mcp-harden`: the drivers behind `cargo xtask soak` and
//! `cargo xtask chaos`. Each run prints one JSON report on stdout (what was
//! run, the figures, and `problems`: empty when the verdict is a pass) and
//! exits 1 when there are problems.
//!
//! ```text
//! mcp-harden soak --wire stdio|http-json|http-sse --calls N [--in-flight 64] [--sample-secs 10] [--server PATH]
//! mcp-harden chaos SCENARIO [--full] [--server PATH]
//! mcp-harden serve-faults          # the HTTP fault server the chaos scenarios start
//! ```
//!
//! The bench server is the `bench-server` built beside this binary (the same
//! source as `bench/bench-server`) unless `--server` names another.

mod chaos;
mod faults;
mod probe;
mod servers;
mod soak;

use std::process::ExitCode;
use std::time::Duration;

fn value(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .cloned()
}

fn print(report: &impl serde::Serialize, problems: &[String]) -> ExitCode {
    match serde_json::to_string(report) {
        Ok(text) => println!("{text}"),
        Err(e) => {
            eprintln!("mcp-harden: {e}");
            return ExitCode::FAILURE;
        }
    }
    if problems.is_empty() {
        ExitCode::SUCCESS
    } else {
        for p in problems {
            eprintln!("mcp-harden: {p}");
        }
        ExitCode::FAILURE
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("mcp-harden: tokio runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let server = value(&args, "--server");
    let outcome = runtime.block_on(async {
        match args.first().map(String::as_str) {
            Some("soak") => {
                let wire = value(&args, "--wire")
                    .as_deref()
                    .and_then(soak::Wire::parse)
                    .ok_or("--wire stdio|http-json|http-sse")?;
                let calls = value(&args, "--calls")
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(10_000);
                let in_flight = value(&args, "--in-flight")
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(64);
                let secs = value(&args, "--sample-secs")
                    .and_then(|v| v.parse::<f64>().ok())
                    .unwrap_or(10.0);
                let report = soak::soak(soak::Settings {
                    wire,
                    calls,
                    in_flight,
                    sample_every: Duration::from_secs_f64(secs.max(0.1)),
                    server,
                })
                .await?;
                Ok(print(&report, &report.problems))
            }
            Some("chaos") => {
                let name = args.get(1).ok_or("chaos SCENARIO")?;
                let full = args.iter().any(|a| a == "--full");
                let report = chaos::run(name, full, server.as_deref()).await?;
                Ok(print(&report, &report.problems))
            }
            Some("serve-faults") => faults::serve().await.map(|()| ExitCode::SUCCESS),
            _ => Err("usage: mcp-harden soak|chaos|serve-faults (see the crate docs)".to_string()),
        }
    });
    match outcome {
        Ok(code) => code,
        Err(e) => {
            eprintln!("mcp-harden: {e}");
            ExitCode::from(2)
        }
    }
}
