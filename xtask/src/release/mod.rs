//! `cargo xtask release-check [--quick] [--write-api]`: whether the crates
//! can be released, or exactly what blocks it (docs/releasing.md).
//!
//! The checks, one file each: metadata (`metadata.rs`; the names on
//! crates.io, full check only, `names.rs`), packaging
//! (`package.rs`), each layer alone (`layers.rs`), features
//! (`features.rs`), API files and semver (`api.rs`; the API as text in
//! `api_text.rs` and `api_text/signatures.rs`), MSRV
//! (`msrv.rs`), docs (`docs.rs`), licences and duplicates (`deny.rs`), the
//! changelog (`changelog.rs`); in the full check, the packaged facade
//! built and run by a downstream crate (`downstream.rs`).
//!
//! `--quick` (run by `cargo xtask test`, so in CI) needs only cargo and git:
//! metadata, `cargo package --no-verify` with the file lists, the layers'
//! dependency trees, clippy without default features, the API files, the
//! static MSRV and docs checks, and the changelog. The full check adds
//! what builds a lot or needs a tool from crates.io: each packaged crate
//! built on its own, a cold release build per layer, the feature powerset
//! (cargo-hack), cargo-semver-checks, clippy's MSRV lint with all features
//! and a build with the declared toolchain, rustdoc and doctests with all
//! features, cargo-deny. Those tools are installed into `target/tools/` by
//! `.ci/install-tools --full`, which the full check runs first; a tool that
//! could not be installed makes the full check end NOT READY.
//!
//! `--write-api` rewrites `docs/api/*.txt` from the code, then checks.

mod api;
mod api_text;
mod changelog;
mod deny;
mod docs;
mod downstream;
mod features;
mod layers;
mod metadata;
mod msrv;
mod names;
mod package;
mod tools;
mod workspace;

#[cfg(test)]
mod scratch;

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::process::ExitCode;
use std::time::Instant;

use crate::util;
use workspace::Workspace;

/// When xtask runs as cargo's `RUSTDOC` (see `api.rs`), the real rustdoc.
pub(crate) fn as_rustdoc() -> Option<OsString> {
    std::env::var_os(api::AS_RUSTDOC)
}

/// Runs the real rustdoc for the API files' JSON.
pub(crate) fn run_as_rustdoc(real: OsString) -> ExitCode {
    api::run_as_rustdoc(real)
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Mode {
    Quick,
    Full,
}

/// How one check ended.
#[derive(Debug)]
enum Outcome {
    Passed,
    Failed(Vec<String>),
    /// It could not run (a tool absent, a commit missing): never a pass.
    NotRun(String),
}

impl Outcome {
    fn from_problems(problems: Vec<String>) -> Outcome {
        if problems.is_empty() {
            Outcome::Passed
        } else {
            Outcome::Failed(problems)
        }
    }
}

/// One line of the per-crate table.
#[derive(Default)]
struct Row {
    version: String,
    size: Option<u64>,
    dependencies: Option<usize>,
    features: String,
    api_changed: String,
    semver: String,
}

struct Report {
    mode: Mode,
    checks: Vec<(&'static str, Outcome)>,
    rows: BTreeMap<String, Row>,
    order: Vec<String>,
    layers: Vec<layers::LayerResult>,
    /// What this machine cannot check, said with the verdict.
    not_checked_here: Vec<String>,
}

/// `cargo xtask release-check [--quick] [--write-api]`.
pub(crate) fn release_check(args: &[String]) -> Result<(), String> {
    let flag = |name: &str| args.iter().any(|a| a == name);
    let mut only = None;
    let mut rest = args.iter();
    while let Some(a) = rest.next() {
        match a.as_str() {
            "--quick" | "--write-api" => {}
            "--only" => {
                let list = rest.next().ok_or("--only needs a list of checks")?;
                let names: Vec<String> = list.split(',').map(str::to_string).collect();
                if let Some(bad) = names.iter().find(|n| !CHECKS.contains(&n.as_str())) {
                    return Err(format!(
                        "release-check: no check {bad:?} (checks: {})",
                        CHECKS.join(", ")
                    ));
                }
                only = Some(names);
            }
            _ => {
                return Err(format!(
                    "release-check: unknown argument {a:?} (usage: cargo xtask release-check \
                     [--quick] [--write-api] [--only {}])",
                    CHECKS.join(",")
                ));
            }
        }
    }
    let mode = if flag("--quick") {
        Mode::Quick
    } else {
        Mode::Full
    };
    let root = util::workspace_root()?;
    let started = Instant::now();
    let report = run(
        &Workspace::load(&root)?,
        mode,
        flag("--write-api"),
        only.as_deref(),
    )?;
    report.print();
    eprintln!(
        "release-check took {:.0} s",
        started.elapsed().as_secs_f64()
    );
    report.verdict()
}

/// The quick check inside `cargo xtask test`: `Err` when a check failed;
/// otherwise what did not run (listed in the test's last line).
pub(crate) fn quick_for_tests(root: &std::path::Path) -> Result<Vec<String>, String> {
    let started = Instant::now();
    let report = run(&Workspace::load(root)?, Mode::Quick, false, None)?;
    report.print();
    eprintln!(
        "release-check --quick took {:.0} s",
        started.elapsed().as_secs_f64()
    );
    report.verdict()?;
    Ok(report
        .checks
        .iter()
        .filter_map(|(name, o)| match o {
            Outcome::NotRun(why) => Some(format!("release-check {name} ({why})")),
            _ => None,
        })
        .collect())
}

/// The checks, by the names `--only` takes.
const CHECKS: [&str; 11] = [
    "metadata",
    "packaging",
    "downstream",
    "layers",
    "features",
    "api",
    "semver",
    "msrv",
    "docs",
    "licences",
    "changelog",
];

fn run(
    ws: &Workspace,
    mode: Mode,
    write_api: bool,
    only: Option<&[String]>,
) -> Result<Report, String> {
    let full = mode == Mode::Full;
    let wanted = |name: &str| only.is_none_or(|o| o.iter().any(|n| n == name));
    let mut r = Report {
        mode,
        checks: Vec::new(),
        rows: BTreeMap::new(),
        order: Vec::new(),
        layers: Vec::new(),
        not_checked_here: Vec::new(),
    };
    for p in ws.published() {
        r.order.push(p.name.clone());
        let features = p.features();
        r.rows.insert(
            p.name.clone(),
            Row {
                version: p.version().to_string(),
                features: if features.is_empty() {
                    "default".to_string()
                } else if full {
                    "not checked".to_string()
                } else {
                    "default, none".to_string()
                },
                api_changed: if p.has_lib() { "?" } else { "(binary)" }.to_string(),
                semver: if full && p.has_lib() {
                    "not checked"
                } else {
                    "-"
                }
                .to_string(),
                ..Row::default()
            },
        );
        if let Ok(tree) = layers::tree(&ws.root, Some(&p.name))
            && let Some(row) = r.rows.get_mut(&p.name)
        {
            row.dependencies = Some(tree.len().saturating_sub(1));
        }
    }

    if full && ["features", "semver", "licences"].iter().any(|c| wanted(c)) {
        // The tools the full check needs; a failed install shows in the
        // checks that need the missing tool (NOT RUN, never passed).
        if let Err(e) = tools::install(&ws.root) {
            eprintln!("xtask: {e}");
        }
    }

    if wanted("metadata") {
        // 1. metadata
        let mut problems = metadata::check(ws);
        problems.extend(metadata::outside(&ws.root));
        if full {
            problems.extend(names::check(ws));
        }
        r.checks
            .push(("metadata", Outcome::from_problems(problems)));
    }

    if wanted("packaging") {
        // 2. packaging
        r.checks.push((
            "packaging",
            match package::check(ws, full) {
                Ok(packaged) => {
                    for (name, size) in packaged.sizes {
                        if let Some(row) = r.rows.get_mut(&name) {
                            row.size = Some(size);
                        }
                    }
                    Outcome::from_problems(packaged.problems)
                }
                Err(e) => Outcome::Failed(vec![e]),
            },
        ));
    }

    if full && wanted("downstream") {
        // 2b. the packaged facade in a downstream crate (needs the packages)
        let packaged = r
            .checks
            .iter()
            .find(|(name, _)| *name == "packaging")
            .map(|(_, o)| matches!(o, Outcome::Passed));
        r.checks.push((
            "downstream",
            match packaged {
                Some(false) => Outcome::NotRun("packaging failed".to_string()),
                None => Outcome::NotRun(
                    "needs the packaging check (--only packaging,downstream)".to_string(),
                ),
                Some(true) => match downstream::check(ws) {
                    Ok(()) => Outcome::Passed,
                    Err(e) => Outcome::Failed(vec![e]),
                },
            },
        ));
    }

    if wanted("layers") {
        // 3. each layer alone
        r.checks.push((
            "layers",
            match layers::check(ws, full) {
                Ok((problems, results)) => {
                    r.layers = results;
                    Outcome::from_problems(problems)
                }
                Err(e) => Outcome::Failed(vec![e]),
            },
        ));
    }

    if wanted("features") {
        // 4. features
        let features = if full {
            match features::check_powerset(ws) {
                Ok(problems) => {
                    for p in ws.libraries() {
                        let f = p.features();
                        if let Some(row) = r.rows.get_mut(&p.name) {
                            row.features = if f.is_empty() {
                                "default (no features)".to_string()
                            } else {
                                format!("powerset of {}", f.join(", "))
                            };
                        }
                    }
                    Outcome::from_problems(problems)
                }
                Err(why) => Outcome::NotRun(why),
            }
        } else {
            Outcome::from_problems(features::check_no_default(ws))
        };
        r.checks.push(("features", features));
    }

    if wanted("api") {
        // 5. API files
        let api = match api::check(ws, write_api) {
            Ok(found) => {
                for name in &found.written {
                    eprintln!("xtask: wrote docs/api/{name}.txt");
                }
                Outcome::from_problems(found.problems)
            }
            Err(e) => Outcome::Failed(vec![e]),
        };
        r.checks.push(("api", api));
    }

    // 9. changelog (before semver: it decides the comparison point)
    let base = changelog::base(ws);
    let changelog = match &base {
        Err(e) => Outcome::Failed(vec![e.clone()]),
        Ok(base) if !changelog::has_commit(&ws.root, base) => Outcome::NotRun(format!(
            "{base} is not in this clone (a shallow clone? `git fetch --unshallow`)"
        )),
        Ok(base) => {
            let (problems, changed) = changelog::check(ws, base);
            let short: String = base.chars().take(12).collect();
            for (name, differs) in changed {
                if let Some(row) = r.rows.get_mut(&name) {
                    row.api_changed = if differs {
                        format!("yes (since {short})")
                    } else {
                        "no".to_string()
                    };
                }
            }
            Outcome::from_problems(problems)
        }
    };

    // 5b. semver
    if full && wanted("semver") {
        let semver = match &base {
            Err(e) => Outcome::Failed(vec![e.clone()]),
            Ok(_) if !tools::SEMVER_CHECKS.present(&ws.root) => {
                Outcome::NotRun(tools::SEMVER_CHECKS.absent())
            }
            Ok(base) => match api::semver(ws, base) {
                Ok((problems, verdicts)) => {
                    for (name, verdict) in verdicts {
                        if let Some(row) = r.rows.get_mut(&name) {
                            row.semver = verdict;
                        }
                    }
                    Outcome::from_problems(problems)
                }
                Err(e) => Outcome::Failed(vec![e]),
            },
        };
        r.checks.push(("semver", semver));
    }

    if wanted("msrv") {
        // 6. MSRV
        let mut problems = msrv::check_static(ws);
        if full {
            let (more, note) = msrv::check_build(ws);
            problems.extend(more);
            r.not_checked_here.extend(note);
        }
        r.checks.push(("msrv", Outcome::from_problems(problems)));
    }

    if wanted("docs") {
        // 7. docs
        let mut problems = docs::check_static(ws);
        if full {
            problems.extend(docs::check_build(ws));
        }
        r.checks.push(("docs", Outcome::from_problems(problems)));
    }

    // 8. licences and duplicates
    if full && wanted("licences") {
        let deny = match deny::check(ws) {
            Ok(problems) => Outcome::from_problems(problems),
            Err(why) => Outcome::NotRun(why),
        };
        r.checks.push(("licences", deny));
        r.not_checked_here
            .push(deny::ADVISORIES_NOT_CHECKED.to_string());
    }

    if wanted("changelog") {
        r.checks.push(("changelog", changelog));
    }
    Ok(r)
}

fn size(bytes: Option<u64>) -> String {
    match bytes {
        Some(b) => format!("{:.1} KiB", b as f64 / 1024.0),
        None => "-".to_string(),
    }
}

impl Report {
    fn print(&self) {
        let mode = match self.mode {
            Mode::Quick => "quick",
            Mode::Full => "full",
        };
        println!();
        println!("release-check ({mode}):");
        for (name, outcome) in &self.checks {
            match outcome {
                Outcome::Passed => println!("  {name:<10} passed"),
                Outcome::NotRun(why) => println!("  {name:<10} NOT RUN: {why}"),
                Outcome::Failed(problems) => {
                    println!("  {name:<10} FAILED");
                    for p in problems {
                        println!("    - {p}");
                    }
                }
            }
        }
        println!();
        // Each column as wide as its widest cell, so long feature lists
        // and crate names keep the table readable.
        let rows: Vec<[String; 7]> = self
            .order
            .iter()
            .filter_map(|name| self.rows.get(name).map(|row| (name, row)))
            .map(|(name, row)| {
                [
                    name.clone(),
                    row.version.clone(),
                    size(row.size),
                    row.dependencies.map_or("-".to_string(), |d| d.to_string()),
                    row.features.clone(),
                    row.api_changed.clone(),
                    row.semver.clone(),
                ]
            })
            .collect();
        let head = [
            "crate",
            "version",
            "package",
            "deps",
            "features checked",
            "API changed?",
            "semver",
        ]
        .map(str::to_string);
        let mut widths = head.clone().map(|h| h.chars().count());
        for row in &rows {
            for (w, cell) in widths.iter_mut().zip(row) {
                *w = (*w).max(cell.chars().count());
            }
        }
        for row in std::iter::once(&head).chain(&rows) {
            let cells: Vec<String> = row
                .iter()
                .zip(widths)
                .enumerate()
                .map(|(i, (cell, w))| {
                    // Sizes and counts right-aligned, words left-aligned.
                    if i == 2 || i == 3 {
                        format!("{cell:>w$}")
                    } else {
                        format!("{cell:<w$}")
                    }
                })
                .collect();
            println!("{}", cells.join("  ").trim_end());
        }
        if !self.layers.is_empty() {
            println!();
            println!(
                "{:<50} {:>5}  release build (cold, own target dir)",
                "layer", "deps"
            );
            for l in &self.layers {
                println!(
                    "{:<50} {:>5}  {}",
                    l.label,
                    l.dependencies,
                    l.release_build_secs
                        .map_or("- (full check only)".to_string(), |s| format!("{s:.0} s"))
                );
            }
        }
        for note in &self.not_checked_here {
            println!("not checked here: {note}");
        }
    }

    /// `Ok` when every check passed; for the full check, also only when
    /// every check ran.
    fn verdict(&self) -> Result<(), String> {
        let failed: Vec<&str> = self
            .checks
            .iter()
            .filter(|(_, o)| matches!(o, Outcome::Failed(_)))
            .map(|(n, _)| *n)
            .collect();
        let not_run: Vec<&str> = self
            .checks
            .iter()
            .filter(|(_, o)| matches!(o, Outcome::NotRun(_)))
            .map(|(n, _)| *n)
            .collect();
        if !failed.is_empty() {
            return Err(format!(
                "release-check: FAILED: {} (each problem above says what to do)",
                failed.join(", ")
            ));
        }
        if self.mode == Mode::Full && !not_run.is_empty() {
            return Err(format!(
                "release-check: NOT READY: nothing failed, but not run: {} (see above)",
                not_run.join(", ")
            ));
        }
        if self.not_checked_here.is_empty() && not_run.is_empty() {
            println!("release-check: PASSED");
        } else {
            let mut missing: Vec<String> = not_run.iter().map(|s| s.to_string()).collect();
            missing.extend(
                self.not_checked_here
                    .iter()
                    .map(|n| n.split(':').next().unwrap_or(n).to_string()),
            );
            println!(
                "release-check: PASSED, except what could not be checked here: {}",
                missing.join(", ")
            );
        }
        Ok(())
    }
}
