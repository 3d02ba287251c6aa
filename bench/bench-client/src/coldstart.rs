//! `mcp-bench coldstart`: what a person or an agent spawning a client for
//! one call pays, from exec to exit. Each command is run `--runs` times in
//! a row (its output checked); the median and the spread are reported.
//!
//! - `mcp call add a=2 b=3`: the `mcp` binary and its built-in demo server
//!   (itself, re-run as a stdio child);
//! - `mcp --stdio "<bench-server> stdio" call echo text=hi`: against the
//!   bench server;
//! - the TypeScript SDK via node (`bench/clients/ts-call.mjs`) doing the
//!   same two calls: spawn the server, initialize, call, close;
//! - the MCP Inspector CLI (`mcp-inspector --cli`), when it is installed in
//!   tests/peers, against the bench server.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use crate::Args;

/// One command's exec-to-exit times.
#[derive(Debug, Default, Clone, serde::Serialize, serde::Deserialize)]
pub struct ColdStart {
    /// What ran, for the table.
    pub name: String,
    /// Which server it talked to: `demo` or `bench-server`.
    pub server: String,
    /// Wall time of each run, ms.
    pub runs_ms: Vec<f64>,
}

/// What `mcp-bench coldstart` measured.
#[derive(Debug, Default, Clone, serde::Serialize, serde::Deserialize)]
pub struct ColdStartResult {
    pub rows: Vec<ColdStart>,
    /// Clients that were not measured, and why.
    pub skipped: Vec<String>,
}

/// What a run must print: exactly `text` (a line), or JSON holding it.
#[derive(Clone, Copy)]
enum Expect<'a> {
    Line(&'a str),
    Within(&'a str),
}

fn time_runs(cmd: &mut Command, runs: usize, expect: Expect<'_>) -> anyhow::Result<Vec<f64>> {
    let mut times = Vec::with_capacity(runs);
    // One untimed run: the page cache holds the binaries from then on, as
    // it does for anyone who runs a command twice.
    for i in 0..=runs {
        let start = Instant::now();
        let out = cmd.stdin(Stdio::null()).stderr(Stdio::piped()).output()?;
        let ms = start.elapsed().as_secs_f64() * 1e3;
        let stdout = String::from_utf8_lossy(&out.stdout);
        anyhow::ensure!(
            out.status.success()
                && match expect {
                    Expect::Line(text) => stdout.trim() == text,
                    Expect::Within(text) => stdout.contains(text),
                },
            "{:?} printed {:?} ({}): {}",
            cmd.get_program(),
            stdout.trim(),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        );
        if i > 0 {
            times.push(ms);
        }
    }
    Ok(times)
}

/// The Inspector CLI's entry point in `peers`, when installed.
fn inspector(peers: &Path) -> Option<PathBuf> {
    let bin = peers.join("node_modules/.bin/mcp-inspector");
    bin.exists().then_some(bin)
}

pub fn main(args: &Args) -> anyhow::Result<()> {
    // Absolute: the commands run in a scratch directory.
    let mcp = std::fs::canonicalize(args.required("--mcp")?)?;
    let server = std::fs::canonicalize(args.required("--server")?)?
        .to_string_lossy()
        .into_owned();
    let root = std::fs::canonicalize(args.required("--root")?)?;
    let runs: usize = args
        .value("--runs")
        .and_then(|v| v.parse().ok())
        .unwrap_or(10);
    let peers = root.join("tests/peers");
    let node = std::env::var("MCP_TEST_NODE").unwrap_or_else(|_| "node".into());
    let mut result = ColdStartResult::default();
    let row = |result: &mut ColdStartResult,
               name: &str,
               server: &str,
               cmd: &mut Command,
               expect: Expect<'_>| {
        match time_runs(cmd, runs, expect) {
            Ok(runs_ms) => result.rows.push(ColdStart {
                name: name.into(),
                server: server.into(),
                runs_ms,
            }),
            Err(e) => result.skipped.push(format!("{name}: {e:#}")),
        }
    };
    // The demo server inherits nothing from a config in the working
    // directory: run where no `.mcp.json` is.
    let scratch = std::env::temp_dir();
    row(
        &mut result,
        "`mcp call add a=2 b=3`",
        "demo",
        Command::new(&mcp)
            .args(["call", "add", "a=2", "b=3"])
            .current_dir(&scratch),
        Expect::Line("5"),
    );
    row(
        &mut result,
        "`mcp --stdio … call echo text=hi`",
        "bench-server",
        Command::new(&mcp)
            .arg("--stdio")
            .arg(format!("{server} stdio"))
            .args(["call", "echo", "text=hi"])
            .current_dir(&scratch),
        Expect::Line("hi"),
    );
    let sdk = peers.join("node_modules/@modelcontextprotocol/sdk");
    if sdk.exists() {
        let script = root.join("bench/clients/ts-call.mjs");
        row(
            &mut result,
            "TypeScript SDK (node), call add",
            "demo",
            Command::new(&node)
                .arg(&script)
                .arg("--peers")
                .arg(&peers)
                .args(["--tool", "add", "--args", r#"{"a":2,"b":3}"#, "--"])
                .arg(&mcp)
                .arg("serve-demo"),
            Expect::Line("5"),
        );
        row(
            &mut result,
            "TypeScript SDK (node), call echo",
            "bench-server",
            Command::new(&node)
                .arg(&script)
                .arg("--peers")
                .arg(&peers)
                .args(["--tool", "echo", "--args", r#"{"text":"hi"}"#, "--"])
                .arg(&server)
                .arg("stdio"),
            Expect::Line("hi"),
        );
    } else {
        result
            .skipped
            .push("TypeScript SDK: not installed (run tests/peers/setup.sh)".into());
    }
    match inspector(&peers) {
        Some(bin) => row(
            &mut result,
            "MCP Inspector CLI, call echo",
            "bench-server",
            Command::new(bin)
                .arg("--cli")
                .arg(&server)
                .arg("stdio")
                .args(["--method", "tools/call", "--tool-name", "echo"])
                .args(["--tool-arg", "text=hi"]),
            Expect::Within("\"hi\""),
        ),
        None => result
            .skipped
            .push("MCP Inspector CLI: not installed in tests/peers".into()),
    }
    println!("RESULT {}", serde_json::to_string(&result)?);
    Ok(())
}

/// What the explorer costs the other commands' cold start: a study made by
/// hand (alternated pairs of release builds with and without it), kept
/// here so that every run of the report carries it beside the rows it
/// explains. Its figures are of that study, not of this run.
const EXPLORER_COST: &str = r#"What the explorer (`mcp ui`: ratatui and crossterm, in the CLI) costs the other commands, measured by hand rather than by `cargo xtask bench`: release `mcp` binaries of 631e332 (the commit before the explorer), 6d310ab (the explorer added) and e62ed9a (later), and e62ed9a with the explorer module and ratatui taken out, ran `mcp call add a=2 b=3` (no config, the demo) in alternated pairs, 1,500 to 2,000 pairs a comparison, each binary with a cache and home of its own. The machine (2 cores) was shared and loaded (load average 2 to 5; single runs ranged from 6.5 ms to over 50 ms), so the per-pair difference is given as its median with a bootstrap 95% interval. The page faults are those of `mcp` and its demo child together (medians).

| A → B | size, MB | median, ms | B − A per pair, ms | minor page faults |
|---|---:|---:|---:|---:|
| 631e332 → 6d310ab (the explorer commit) | 31.98 → 33.12 | 8.74 → 8.69 | −0.02 [−0.08, +0.06] | 1101 → 1104 |
| e62ed9a without → with the explorer | 33.24 → 34.50 | 8.15 → 8.27 | +0.10 [+0.07, +0.13] | 1133 → 1157 |
| 631e332 → e62ed9a | 31.98 → 34.50 | 9.58 → 9.72 | +0.09 [+0.01, +0.16] | 1111 → 1158 |

Two earlier runs of the last comparison, under heavier load, gave +0.24 [+0.11, +0.35] and +0.16 [−0.04, +0.33]. No explorer code runs for the other commands (their one change is the log writer, which reads a flag at start and when a line is written); the 0.1 ms (about 1%) at e62ed9a is the dynamic loader relocating a larger binary: `mcp --version` alone takes 13 more minor page faults with the explorer (398 → 411), its `.rela.dyn` and `.data.rel.ro` being 19 KB and 13 KB larger. The rest of the growth since 631e332 comes from the commits after the explorer."#;

/// The cold-start section of the report; its targets go to `verdicts`.
pub fn render(cs: &ColdStartResult, verdicts: &mut String) -> String {
    use std::fmt::Write as _;
    let mut md = String::from(
        "## Cold start of the CLI\n\nWall time from exec to exit of one tool call, what a person or \
         an agent spawning a client pays: the release `mcp` binary (`mcp call`, no config file), \
         the TypeScript SDK's client run by node (`bench/clients/ts-call.mjs`: import the SDK, \
         spawn the server, initialize, call, close) and the MCP Inspector CLI where installed. \
         `demo` is the built-in demo server (`mcp serve-demo`, the same binary); `bench-server` \
         the stdio server of the tables above. Runs one after another after one untimed run; \
         median and spread.\n\n\
         | command | server | ms | ± | ÷ TypeScript SDK |\n|---|---|---:|---:|---:|\n",
    );
    let median = |runs: &[f64]| crate::report::median_spread(runs);
    let ts = |server: &str| {
        cs.rows
            .iter()
            .find(|r| r.server == server && r.name.starts_with("TypeScript"))
            .and_then(|r| median(&r.runs_ms))
            .map(|(m, _)| m)
    };
    for r in &cs.rows {
        let Some((m, spread)) = median(&r.runs_ms) else {
            continue;
        };
        let vs = ts(&r.server).map_or("–".into(), |t| format!("{:.3}×", m / t));
        let _ = writeln!(
            md,
            "| {} | {} | {m:.1} | {spread:.0}% | {vs} |",
            r.name, r.server
        );
        if r.name.starts_with("`mcp")
            && let Some(t) = ts(&r.server)
        {
            let ratio = m / t;
            let _ = writeln!(
                verdicts,
                "| CLI cold start ≤ 1/10 of the TypeScript SDK's | stdio | {} | {} | {ratio:.3}× | {} |",
                r.server,
                r.name,
                if ratio <= 0.1 { "met" } else { "**not met**" }
            );
        }
    }
    for s in &cs.skipped {
        let _ = writeln!(md, "\n- not measured: {s}");
    }
    md.push('\n');
    md.push_str(EXPLORER_COST);
    md.push_str("\n\n");
    md
}
