//! `cargo xtask chaos [--quick] [--debug] [--report] [SCENARIO…]`: the
//! chaos scenarios of `tests/hardening` (`mcp-harden chaos`), each a fault
//! against real processes; see `tests/hardening/src/chaos.rs` for the list
//! and the verdicts. Without `--quick` each runs at the size of the
//! reliability table and its time bounds are judged; `--quick` is the short
//! run `cargo xtask test` makes. `--report` writes the chaos section of
//! `docs/reliability.md`.

use std::time::Instant;

use serde_json::Value;

use crate::soak::{build, harden, problems};
use crate::{reliability, util};

/// Every scenario, in the table's order.
pub(crate) const SCENARIOS: [&str; 19] = [
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
];

/// Runs the scenarios on already built binaries; returns their reports.
pub(crate) fn run_all(
    bin: &std::path::Path,
    scenarios: &[String],
    full: bool,
) -> Result<Vec<Value>, String> {
    let mut reports = Vec::new();
    for s in scenarios {
        let mut args = vec!["chaos".to_string(), s.clone()];
        if full {
            args.push("--full".into());
        }
        let started = Instant::now();
        let mut report = harden(bin, &args)?;
        report["seconds"] = Value::from(started.elapsed().as_secs_f64());
        reports.push(report);
    }
    Ok(reports)
}

/// Runs the chaos scenarios; see the module docs.
pub(crate) fn chaos(args: &[String]) -> Result<(), String> {
    let root = util::workspace_root()?;
    let mut full = true;
    let mut release = true;
    let mut report = false;
    let mut scenarios = Vec::new();
    for a in args {
        match a.as_str() {
            "--quick" => full = false,
            "--debug" => release = false,
            "--report" => report = true,
            name if !name.starts_with('-') => {
                if !SCENARIOS.contains(&name) {
                    return Err(format!(
                        "no chaos scenario {name:?}; there are: {}",
                        SCENARIOS.join(", ")
                    ));
                }
                scenarios.push(name.to_string());
            }
            other => return Err(format!("unknown option {other:?}")),
        }
    }
    if scenarios.is_empty() {
        scenarios = SCENARIOS.iter().map(|s| (*s).to_string()).collect();
    }
    let bin = build(&root, release)?;
    let started = Instant::now();
    let load_at_start = reliability::load_average();
    let reports = run_all(&bin, &scenarios, full)?;
    let took = started.elapsed();
    let table = table(&reports);
    println!("{table}");
    if report {
        let mut command = String::from("cargo xtask chaos");
        if !full {
            command.push_str(" --quick");
        }
        if !release {
            command.push_str(" --debug");
        }
        command.push_str(" --report");
        let body = format!(
            "## Chaos\n\n{}\n{}\n{}",
            reliability::provenance(&root, &command, took, &load_at_start),
            CHAOS_NOTES,
            table
        );
        reliability::write_section(&root, "chaos", &body)?;
    }
    verdict(&reports)
}

/// `Ok` when every report is a pass.
pub(crate) fn verdict(reports: &[Value]) -> Result<(), String> {
    let failed: Vec<&str> = reports
        .iter()
        .filter(|r| !problems(r).is_empty())
        .map(|r| r["scenario"].as_str().unwrap_or("?"))
        .collect();
    if failed.is_empty() {
        Ok(())
    } else {
        Err(format!("chaos scenarios failed: {}", failed.join(", ")))
    }
}

const CHAOS_NOTES: &str = "Each scenario runs our client (`mcp-harden`, release build) \
against a real server process: the bench server (stdio, Streamable HTTP), or \
`mcp-harden serve-faults`, a hand-written HTTP/1.1 server that breaks the wire (a reply \
cut mid-event or mid-body, a reset, a reply that never comes, a connection closed after \
each reply). The time-to-fail bounds (100 ms after a SIGKILL, 500 ms past a timeout's \
deadline) are judged here and only reported by the short run in `cargo xtask test`.\n";

fn table(reports: &[Value]) -> String {
    let mut out = String::from(
        "| scenario | what was run | figures | seconds | verdict |\n|---|---|---|---:|---|\n",
    );
    for r in reports {
        let figures = r["figures"]
            .as_object()
            .map(|f| {
                f.iter()
                    .map(|(k, v)| format!("{k}: {}", v.as_str().unwrap_or("?")))
                    .collect::<Vec<_>>()
                    .join("; ")
            })
            .unwrap_or_default();
        let p = problems(r);
        out.push_str(&format!(
            "| `{}` | {} | {} | {:.1} | {} |\n",
            r["scenario"].as_str().unwrap_or("?"),
            r["run"].as_str().unwrap_or("?"),
            figures.replace('|', "/"),
            r["seconds"].as_f64().unwrap_or(0.0),
            if p.is_empty() {
                "pass".to_string()
            } else {
                format!("FAIL: {}", p.join("; ").replace('|', "/"))
            }
        ));
    }
    out
}

/// The short hardening runs of `cargo xtask test`, on the dev-profile
/// binaries the workspace tests just built: a 10^4-call soak over stdio and
/// 2 000 calls over each HTTP wire, and every chaos scenario at its short
/// size. The kept fuzz corpora are replayed by `cargo test` itself (each
/// crate's `tests/fuzz_corpus.rs`).
pub(crate) fn short_runs(root: &std::path::Path) -> Result<(), String> {
    let started = Instant::now();
    let bin = build(root, false)?;
    let mut failed = Vec::new();
    for (wire, calls) in [("stdio", 10_000), ("http-json", 2_000), ("http-sse", 2_000)] {
        let args: Vec<String> = ["soak", "--wire", wire, "--calls", &calls.to_string()]
            .iter()
            .map(|s| (*s).to_string())
            .collect();
        let report = harden(&bin, &args)?;
        let p = problems(&report);
        if !p.is_empty() {
            failed.push(format!("soak over {wire}: {}", p.join("; ")));
        }
    }
    let scenarios: Vec<String> = SCENARIOS.iter().map(|s| (*s).to_string()).collect();
    for r in run_all(&bin, &scenarios, false)? {
        let p = problems(&r);
        if !p.is_empty() {
            failed.push(format!(
                "chaos {}: {}",
                r["scenario"].as_str().unwrap_or("?"),
                p.join("; ")
            ));
        }
    }
    eprintln!(
        "==> short soak and chaos runs took {}",
        reliability::human(started.elapsed())
    );
    if failed.is_empty() {
        Ok(())
    } else {
        Err(failed.join("\n"))
    }
}
