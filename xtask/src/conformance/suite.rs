//! One run of the official conformance suite (`conformance client --suite all`) and the
//! parsing of its results directory (`<dir>/<scenario>-<timestamp>/checks.json`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::baseline::Baseline;
use super::report::{Outcome, Row};

/// Which installed copy of `@modelcontextprotocol/conformance` to run.
#[derive(Debug, Clone)]
pub struct Suite {
    /// Short key: `stable` or `next` (names the baseline file and output dir).
    pub key: &'static str,
    /// Package directory under `tests/peers/node_modules`.
    pub package: &'static str,
}

/// The suites we run: the pinned stable release and the newest 0.2 pre-release (npm
/// alias `conformance-next` in tests/peers/package.json).
pub const SUITES: &[Suite] = &[
    Suite {
        key: "stable",
        package: "@modelcontextprotocol/conformance",
    },
    Suite {
        key: "next",
        package: "conformance-next",
    },
];

/// Counts of one scenario's checks by status.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Counts {
    /// `SUCCESS` checks.
    pub passed: usize,
    /// `FAILURE` checks.
    pub failed: usize,
    /// `WARNING` checks (count as failures).
    pub warned: usize,
    /// `SKIPPED` checks (the suite could not exercise them; 0.2 suites).
    pub skipped: usize,
}

/// One scenario's parsed result directory.
#[derive(Debug, Clone)]
pub struct ScenarioResult {
    /// Check counts.
    pub counts: Counts,
    /// `name: message` of each failed or warned check.
    pub problems: Vec<String>,
    /// `name: message` of each skipped check.
    pub skips: Vec<String>,
    /// The conformance-client's own verdict from stderr.txt: `Ok(())` when it printed
    /// `conformance-client: ok`, else the error line it printed (or a note it printed none).
    pub client: Result<(), String>,
}

impl Default for ScenarioResult {
    fn default() -> Self {
        Self {
            counts: Counts::default(),
            problems: Vec::new(),
            skips: Vec::new(),
            client: Err("not run".into()),
        }
    }
}

/// The outcome of running one suite.
#[derive(Debug)]
pub struct SuiteRun {
    /// Package version (from its package.json).
    pub version: String,
    /// Rows of the table, one per scenario the suite ran, in the suite's order.
    pub rows: Vec<Row>,
    /// Errors that fail the run (unexpected failures, stale baseline entries, …).
    pub errors: Vec<String>,
    /// The suite process's exit status was success.
    pub suite_exit_ok: bool,
}

/// Reads `"version"` from `<package dir>/package.json`.
pub fn package_version(package_dir: &Path) -> Result<String, String> {
    let path = package_dir.join("package.json");
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let v: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    v.get("version")
        .and_then(|v| v.as_str())
        .map(str::to_string)
        .ok_or_else(|| format!("{}: no version", path.display()))
}

/// Everything needed to run a suite.
#[derive(Debug)]
pub struct RunConfig<'a> {
    /// `tests/peers` (the working directory: the preload and node_modules live there).
    pub peers: &'a Path,
    /// The Node 22 binary.
    pub node: &'a Path,
    /// The conformance-client binary (its path must not contain spaces: the suite splits
    /// `--command` on single spaces).
    pub client: &'a Path,
    /// Fresh directory for the suite's `-o` output.
    pub out_dir: &'a Path,
    /// The expected-failures YAML.
    pub baseline_path: &'a Path,
    /// Per-scenario timeout passed to `--timeout`, in ms.
    pub timeout_ms: u64,
}

/// Runs `suite` with the suite's own `--expected-failures`, then evaluates the results
/// ourselves (stricter: a scenario with no passing check, or whose client run reported an
/// error, fails too).
pub fn run(suite: &Suite, cfg: &RunConfig<'_>, baseline: &Baseline) -> Result<SuiteRun, String> {
    let package_dir = cfg.peers.join("node_modules").join(suite.package);
    let version = package_version(&package_dir)?;
    let entry = package_dir.join("dist/index.js");
    let client = cfg.client.to_str().ok_or("client path is not UTF-8")?;
    if client.contains(' ') {
        return Err(format!(
            "the conformance suite splits --command on spaces; {client:?} contains one \
             (set CARGO_TARGET_DIR to a path without spaces)"
        ));
    }
    if cfg.out_dir.exists() {
        std::fs::remove_dir_all(cfg.out_dir)
            .map_err(|e| format!("cannot clear {}: {e}", cfg.out_dir.display()))?;
    }
    std::fs::create_dir_all(cfg.out_dir)
        .map_err(|e| format!("cannot create {}: {e}", cfg.out_dir.display()))?;

    let mut cmd = Command::new(cfg.node);
    cmd.current_dir(cfg.peers)
        .arg("--require")
        .arg(cfg.peers.join("loopback.cjs"))
        .arg(&entry)
        .args(["client", "--suite", "all", "--command", client, "--timeout"])
        .arg(cfg.timeout_ms.to_string())
        .arg("-o")
        .arg(cfg.out_dir)
        .arg("--expected-failures")
        .arg(cfg.baseline_path)
        .env("NO_COLOR", "1")
        .env("FORCE_COLOR", "0");
    eprintln!(
        "==> conformance suite {} ({} {version}): client --suite all",
        suite.key, suite.package
    );
    let output = cmd
        .output()
        .map_err(|e| format!("cannot run {}: {e}", cfg.node.display()))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let log = cfg.out_dir.join("suite.log");
    let _ = std::fs::write(
        &log,
        format!(
            "{stdout}\n--- stderr ---\n{}",
            String::from_utf8_lossy(&output.stderr)
        ),
    );
    let ran = summary_scenarios(&stdout);
    if ran.is_empty() {
        return Err(format!(
            "suite {} printed no summary (exit {}); see {}",
            suite.key,
            output.status,
            log.display()
        ));
    }
    let results = read_results(cfg.out_dir)?;
    let mut rows = Vec::new();
    let mut errors = Vec::new();
    for scenario in &ran {
        let result = results.get(scenario);
        let (counts, verdict) = match result {
            None => (
                Counts::default(),
                Verdict::Fail("no results directory".to_string()),
            ),
            Some(r) => (r.counts.clone(), verdict_of(scenario, r)),
        };
        let expected = baseline.get(scenario);
        let outcome = match (&verdict, expected) {
            (Verdict::Pass, None) => Outcome::Pass,
            (Verdict::Skipped(why), None) => Outcome::Skipped(why.clone()),
            (Verdict::Fail(p), None) => {
                errors.push(format!(
                    "[{}] {scenario}: unexpected failure: {p}",
                    suite.key
                ));
                Outcome::Fail(p.clone())
            }
            (Verdict::Fail(_), Some(e)) => Outcome::ExpectedFail(e.reason.clone()),
            (Verdict::Pass | Verdict::Skipped(_), Some(_)) => {
                errors.push(format!(
                    "[{}] {scenario} passes but is in the baseline: remove it from {}",
                    suite.key,
                    cfg.baseline_path.display()
                ));
                Outcome::Stale
            }
        };
        rows.push(Row {
            name: scenario.clone(),
            passed: counts.passed,
            failed: counts.failed,
            warned: counts.warned,
            outcome,
        });
    }
    for entry in &baseline.client {
        if !ran.contains(&entry.scenario) {
            errors.push(format!(
                "[{}] baseline lists {}, which the suite does not run: remove it",
                suite.key, entry.scenario
            ));
        }
    }
    let suite_exit_ok = output.status.success();
    if !suite_exit_ok && errors.is_empty() {
        errors.push(format!(
            "[{}] the suite's own baseline check failed (exit {}); see {}",
            suite.key,
            output.status,
            log.display()
        ));
    }
    Ok(SuiteRun {
        version,
        rows,
        errors,
        suite_exit_ok,
    })
}

/// What a scenario's result means, before the baseline is consulted.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Verdict {
    Pass,
    /// Only `SKIPPED` checks: the suite could not exercise it (its own verdict: not failed).
    Skipped(String),
    Fail(String),
}

fn verdict_of(scenario: &str, r: &ScenarioResult) -> Verdict {
    if let Some(p) = problem_of(scenario, r) {
        if r.counts.failed == 0
            && r.counts.warned == 0
            && r.counts.passed == 0
            && r.counts.skipped > 0
        {
            return Verdict::Skipped(r.skips.first().cloned().unwrap_or_default());
        }
        return Verdict::Fail(p);
    }
    Verdict::Pass
}

/// Why a scenario counts as failed, or `None` when it passed. The client must exit with
/// its ok line, except in `auth/*` scenarios: without OAuth the client correctly stops at
/// the 401 (the checks then decide).
fn problem_of(scenario: &str, r: &ScenarioResult) -> Option<String> {
    if r.counts.failed > 0 || r.counts.warned > 0 {
        return Some(
            r.problems
                .first()
                .cloned()
                .unwrap_or_else(|| "failed checks".into()),
        );
    }
    if let Err(e) = &r.client
        && !scenario.starts_with("auth/")
    {
        return Some(format!("client: {e}"));
    }
    if r.counts.passed == 0 {
        return Some("no check passed (the scenario asserted nothing)".into());
    }
    None
}

/// Scenario names from the suite's `=== SUITE SUMMARY ===` lines (`✓ name: …`).
pub fn summary_scenarios(stdout: &str) -> Vec<String> {
    let Some(start) = stdout.find("SUITE SUMMARY") else {
        return Vec::new();
    };
    stdout[start..]
        .lines()
        .filter_map(|l| {
            let l = l.trim();
            let rest = l.strip_prefix('✓').or_else(|| l.strip_prefix('✗'))?;
            let (name, _) = rest.trim_start().split_once(": ")?;
            Some(name.to_string())
        })
        .collect()
}

/// Strips the `-<ISO timestamp>` suffix the suite appends to result directory names
/// (`initialize-2026-11-30T01-31-21-940Z` → `initialize`).
pub fn strip_timestamp(dir_name: &str) -> &str {
    // The suffix is `-YYYY-MM-DDTHH-MM-SS-mmmZ` (24 characters plus the dash).
    const SUFFIX: usize = "-2026-11-30T01-31-21-940Z".len();
    if dir_name.len() > SUFFIX && dir_name.ends_with('Z') {
        let (head, tail) = dir_name.split_at(dir_name.len() - SUFFIX);
        let t = tail.as_bytes();
        if t[0] == b'-' && t[11] == b'T' && t[1..5].iter().all(u8::is_ascii_digit) {
            return head;
        }
    }
    dir_name
}

/// Reads every `checks.json` under `dir` into scenario → result.
pub fn read_results(dir: &Path) -> Result<BTreeMap<String, ScenarioResult>, String> {
    let mut files = Vec::new();
    collect_checks(dir, &mut files)?;
    let mut out = BTreeMap::new();
    for file in files {
        let scenario_dir = file.parent().ok_or("checks.json without a parent")?;
        let rel = scenario_dir
            .strip_prefix(dir)
            .map_err(|e| e.to_string())?
            .to_string_lossy()
            .replace('\\', "/");
        let scenario = strip_timestamp(&rel).to_string();
        let text = std::fs::read_to_string(&file)
            .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
        let mut result = parse_checks(&text).map_err(|e| format!("{}: {e}", file.display()))?;
        let stderr = std::fs::read_to_string(scenario_dir.join("stderr.txt")).unwrap_or_default();
        result.client = client_verdict(&stderr);
        out.insert(scenario, result);
    }
    Ok(out)
}

fn collect_checks(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("cannot list {}: {e}", dir.display()))?;
    for entry in entries {
        let path = entry.map_err(|e| e.to_string())?.path();
        if path.is_dir() {
            collect_checks(&path, out)?;
        } else if path.file_name().is_some_and(|n| n == "checks.json") {
            out.push(path);
        }
    }
    Ok(())
}

/// Counts a `checks.json` array by `status`.
pub fn parse_checks(text: &str) -> Result<ScenarioResult, String> {
    let v: serde_json::Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
    let checks = v.as_array().ok_or("checks.json is not an array")?;
    let mut r = ScenarioResult::default();
    for c in checks {
        let status = c.get("status").and_then(|s| s.as_str()).unwrap_or("");
        let describe = || {
            let name = c.get("name").and_then(|s| s.as_str()).unwrap_or("?");
            let msg = c
                .get("errorMessage")
                .and_then(|s| s.as_str())
                .or_else(|| c.get("description").and_then(|s| s.as_str()))
                .unwrap_or("");
            format!("{status} {name}: {msg}")
        };
        match status {
            "SUCCESS" => r.counts.passed += 1,
            "FAILURE" => {
                r.counts.failed += 1;
                r.problems.push(describe());
            }
            "WARNING" => {
                r.counts.warned += 1;
                r.problems.push(describe());
            }
            "SKIPPED" => {
                r.counts.skipped += 1;
                r.skips.push(describe());
            }
            _ => {}
        }
    }
    Ok(r)
}

/// The conformance-client prints `conformance-client: ok` as its last stderr line on
/// success and `conformance-client: error: …` on failure.
pub fn client_verdict(stderr: &str) -> Result<(), String> {
    match stderr
        .lines()
        .rev()
        .find(|l| l.starts_with("conformance-client: "))
    {
        Some("conformance-client: ok") => Ok(()),
        Some(line) => Err(line["conformance-client: ".len()..].to_string()),
        None => Err("no verdict line on stderr (crashed or was killed?)".to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_the_timestamp_suffix() {
        assert_eq!(
            strip_timestamp("initialize-2026-11-30T01-31-21-940Z"),
            "initialize"
        );
        assert_eq!(
            strip_timestamp("auth/metadata-var1-2026-11-30T01-31-24-903Z"),
            "auth/metadata-var1"
        );
        assert_eq!(strip_timestamp("sse-retry"), "sse-retry");
    }

    #[test]
    fn counts_checks_by_status() {
        let r = parse_checks(
            r#"[{"status":"SUCCESS","name":"a"},{"status":"INFO","name":"i"},
                {"status":"FAILURE","name":"b","errorMessage":"bad"},{"status":"WARNING","name":"c"}]"#,
        )
        .unwrap();
        assert_eq!(
            r.counts,
            Counts {
                passed: 1,
                failed: 1,
                warned: 1,
                skipped: 0
            }
        );
        assert_eq!(r.problems[0], "FAILURE b: bad");
        assert!(parse_checks("{}").is_err());
    }

    #[test]
    fn reads_the_summary_lines() {
        let out = "noise\n=== SUITE SUMMARY ===\n\n✓ initialize: 1 passed, 0 failed\n\
                   ✗ auth/x: 0 passed, 1 failed, 2 warnings\n\nTotal: 1 passed\n";
        assert_eq!(summary_scenarios(out), vec!["initialize", "auth/x"]);
        assert!(summary_scenarios("no summary").is_empty());
    }

    #[test]
    fn client_verdict_needs_the_ok_line() {
        assert!(client_verdict("log\nconformance-client: ok\n").is_ok());
        assert_eq!(
            client_verdict("conformance-client: error: HTTP 401").unwrap_err(),
            "error: HTTP 401"
        );
        assert!(client_verdict("panicked").is_err());
    }

    #[test]
    fn a_scenario_without_passing_checks_fails() {
        let r = ScenarioResult {
            client: Ok(()),
            ..Default::default()
        };
        assert!(problem_of("x", &r).is_some());
        let ok = ScenarioResult {
            counts: Counts {
                passed: 2,
                ..Default::default()
            },
            client: Ok(()),
            ..Default::default()
        };
        assert!(problem_of("x", &ok).is_none());
        let auth_401 = ScenarioResult {
            client: Err("error: HTTP 401".into()),
            ..ok.clone()
        };
        assert!(problem_of("auth/x", &auth_401).is_none());
        assert!(problem_of("initialize", &auth_401).is_some());
    }

    #[test]
    fn only_skipped_checks_is_skipped_not_pass() {
        let r = parse_checks(r#"[{"status":"SKIPPED","name":"s","errorMessage":"never called"}]"#)
            .map(|mut r| {
                r.client = Ok(());
                r
            })
            .unwrap();
        assert!(matches!(verdict_of("x", &r), Verdict::Skipped(_)));
        let empty = ScenarioResult {
            client: Ok(()),
            ..Default::default()
        };
        assert!(matches!(verdict_of("x", &empty), Verdict::Fail(_)));
    }
}
