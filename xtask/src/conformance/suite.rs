//! One run of the official conformance suite (`conformance client --suite all`) and the
//! parsing of its results directory (`<dir>/<scenario>-<timestamp>/checks.json`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::baseline::Baseline;
use super::report::{Outcome, Row};

/// Which installed copy of `@modelcontextprotocol/conformance` to run, and how.
#[derive(Debug, Clone)]
pub(super) struct Suite {
    /// Short key: `stable`, `next`, `next-2026-07-28` (names the baseline file and
    /// output dir).
    pub key: &'static str,
    /// Package directory under `tests/peers/node_modules`.
    pub package: &'static str,
    /// `--spec-version` to pass, when not the suite's default.
    pub spec_version: Option<&'static str>,
}

/// The suites we run: the pinned stable release, the newest 0.2 pre-release (npm alias
/// `conformance-next` in tests/peers/package.json) at its default spec version, and the
/// same pre-release at `--spec-version 2026-07-28` (the scenarios of that revision).
pub(super) const SUITES: &[Suite] = &[
    Suite {
        key: "stable",
        package: "@modelcontextprotocol/conformance",
        spec_version: None,
    },
    Suite {
        key: "next",
        package: "conformance-next",
        spec_version: None,
    },
    Suite {
        key: "next-2026-07-28",
        package: "conformance-next",
        spec_version: Some("2026-07-28"),
    },
];

/// How the client under test exited in one scenario, as `xtask/conformance/client-exit.cjs`
/// (a preload of the suite's Node process) recorded it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct ClientExit {
    /// The exit code; `None` when a signal ended it.
    pub code: Option<i32>,
    /// The signal that ended it (`SIGTERM`: the suite's timeout), if any.
    pub signal: Option<String>,
    /// The scenario allows the client to exit with an error (its `allowClientError`).
    pub allow_client_error: bool,
}

impl ClientExit {
    /// `true` for exit code 0.
    pub(super) fn success(&self) -> bool {
        self.code == Some(0)
    }

    /// For the table: `0`, `1`, `1 (allowed)`, `SIGTERM`.
    pub(super) fn describe(&self) -> String {
        let what = match (&self.code, &self.signal) {
            (Some(c), _) => c.to_string(),
            (None, Some(s)) => s.clone(),
            (None, None) => "?".to_string(),
        };
        if self.allow_client_error && !self.success() {
            format!("{what} (allowed)")
        } else {
            what
        }
    }

    /// Parses one record file.
    pub(super) fn parse(text: &str) -> Result<Self, String> {
        let v: serde_json::Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
        Ok(Self {
            code: v
                .get("code")
                .and_then(serde_json::Value::as_i64)
                .and_then(|c| i32::try_from(c).ok()),
            signal: v.get("signal").and_then(|s| s.as_str()).map(str::to_string),
            allow_client_error: v.get("allowClientError").and_then(|a| a.as_bool()) == Some(true),
        })
    }
}

/// The record file of `scenario` in the preload's directory (`/` becomes `_`).
pub(super) fn exit_record_name(scenario: &str) -> String {
    format!("{}.json", scenario.replace(['/', '\\'], "_"))
}

/// Counts of one scenario's checks by status.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Counts {
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
pub(super) struct ScenarioResult {
    /// Check counts.
    pub counts: Counts,
    /// `name: message` of each failed or warned check.
    pub problems: Vec<String>,
    /// `name: message` of each skipped check.
    pub skips: Vec<String>,
    /// The conformance-client's own verdict from stderr.txt: `Ok(())` when it printed
    /// `conformance-client: ok`, else the error line it printed (or a note it printed none).
    pub client: Result<(), String>,
    /// How the client exited; `None` when nothing was recorded.
    pub exit: Option<ClientExit>,
}

impl Default for ScenarioResult {
    fn default() -> Self {
        Self {
            counts: Counts::default(),
            problems: Vec::new(),
            skips: Vec::new(),
            client: Err("not run".into()),
            exit: None,
        }
    }
}

/// The outcome of running one suite.
#[derive(Debug)]
pub(super) struct SuiteRun {
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
pub(super) fn package_version(package_dir: &Path) -> Result<String, String> {
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
pub(super) struct RunConfig<'a> {
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
    /// `xtask/conformance/client-exit.cjs`, preloaded to record each client's exit.
    pub exit_recorder: &'a Path,
}

/// Runs `suite` with the suite's own `--expected-failures`, then evaluates the results
/// ourselves (stricter: a scenario with no passing check, or whose client run reported an
/// error, fails too).
pub(super) fn run(
    suite: &Suite,
    cfg: &RunConfig<'_>,
    baseline: &Baseline,
) -> Result<SuiteRun, String> {
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

    let exit_dir = cfg.out_dir.join("client-exit");
    let mut cmd = Command::new(cfg.node);
    cmd.current_dir(cfg.peers)
        .arg("--require")
        .arg(cfg.peers.join("loopback.cjs"))
        .arg("--require")
        .arg(cfg.exit_recorder)
        .arg(&entry)
        .args(["client", "--suite", "all", "--command", client, "--timeout"])
        .arg(cfg.timeout_ms.to_string())
        .arg("-o")
        .arg(cfg.out_dir)
        .arg("--expected-failures")
        .arg(cfg.baseline_path)
        .env("MCP_XTASK_CLIENT_EXIT_DIR", &exit_dir)
        .env("NO_COLOR", "1")
        .env("FORCE_COLOR", "0");
    if let Some(v) = suite.spec_version {
        cmd.args(["--spec-version", v]);
    }
    eprintln!(
        "==> conformance suite {} ({} {version}): client --suite all{}",
        suite.key,
        suite.package,
        suite
            .spec_version
            .map(|v| format!(" --spec-version {v}"))
            .unwrap_or_default()
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
    let mut results = read_results(cfg.out_dir)?;
    for (scenario, result) in &mut results {
        result.exit = std::fs::read_to_string(exit_dir.join(exit_record_name(scenario)))
            .ok()
            .and_then(|t| ClientExit::parse(&t).ok());
    }
    let mut rows = Vec::new();
    let mut errors = Vec::new();
    for scenario in &ran {
        let result = results.get(scenario);
        let (counts, verdict) = match result {
            None => (
                Counts::default(),
                Verdict::Fail("no results directory".to_string()),
            ),
            Some(r) => (r.counts.clone(), verdict_of(r)),
        };
        let expected = baseline.get(scenario);
        let outcome = match (&verdict, expected) {
            (Verdict::Pass, None) => Outcome::Pass,
            (Verdict::Skipped(why), None) => Outcome::Skipped(why.clone()),
            (Verdict::Vacuous(why), None) => Outcome::Vacuous(why.clone()),
            (Verdict::Fail(p), None) => {
                errors.push(format!(
                    "[{}] {scenario}: unexpected failure: {p}",
                    suite.key
                ));
                Outcome::Fail(p.clone())
            }
            (Verdict::Fail(_), Some(e)) => Outcome::ExpectedFail(e.reason.clone()),
            (Verdict::Pass | Verdict::Skipped(_) | Verdict::Vacuous(_), Some(_)) => {
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
            client_exit: result
                .and_then(|r| r.exit.as_ref())
                .map_or_else(|| "not recorded".to_string(), ClientExit::describe),
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
    /// The checks passed, but the client exited with an error the scenario allows: the
    /// pass rests on the client stopping before it attempted what is checked.
    Vacuous(String),
    Fail(String),
}

fn verdict_of(r: &ScenarioResult) -> Verdict {
    let only_skipped = r.counts.failed == 0
        && r.counts.warned == 0
        && r.counts.passed == 0
        && r.counts.skipped > 0;
    if only_skipped && exit_problem(r).is_none() {
        return Verdict::Skipped(r.skips.first().cloned().unwrap_or_default());
    }
    if let Some(p) = problem_of(r) {
        return Verdict::Fail(p);
    }
    if let Some(exit) = &r.exit
        && !exit.success()
    {
        let why = match &r.client {
            Err(e) => e.clone(),
            Ok(()) => "no error line".to_string(),
        };
        return Verdict::Vacuous(format!(
            "nothing attempted: the client stopped with exit {} ({why}), which this scenario allows",
            exit.describe()
        ));
    }
    Verdict::Pass
}

/// Why a scenario counts as failed, or `None` when it did not fail. Failed or warned
/// checks fail it; so does the client's exit code, in every scenario the suite does not
/// mark as allowing a client error (`allowClientError`): it must exit 0 with its ok
/// line. A scenario with no passing check fails too.
fn problem_of(r: &ScenarioResult) -> Option<String> {
    if r.counts.failed > 0 || r.counts.warned > 0 {
        return Some(
            r.problems
                .first()
                .cloned()
                .unwrap_or_else(|| "failed checks".into()),
        );
    }
    if let Some(p) = exit_problem(r) {
        return Some(p);
    }
    if r.counts.passed == 0 {
        return Some("no check passed (the scenario asserted nothing)".into());
    }
    None
}

/// The client's exit, counted unless the scenario allows a client error: not recorded,
/// non-zero, or 0 without the client's ok line.
fn exit_problem(r: &ScenarioResult) -> Option<String> {
    match &r.exit {
        None => Some("the client's exit was not recorded".into()),
        Some(exit) if !exit.allow_client_error => {
            if !exit.success() {
                let line = r.client.as_ref().err().map_or("", String::as_str);
                Some(format!("client exited {}: {line}", exit.describe()))
            } else {
                r.client.as_ref().err().map(|e| format!("client: {e}"))
            }
        }
        Some(_) => None,
    }
}

/// Scenario names from the suite's `=== SUITE SUMMARY ===` lines (`✓ name: …`).
pub(super) fn summary_scenarios(stdout: &str) -> Vec<String> {
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
pub(super) fn strip_timestamp(dir_name: &str) -> &str {
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
pub(super) fn read_results(dir: &Path) -> Result<BTreeMap<String, ScenarioResult>, String> {
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
pub(super) fn parse_checks(text: &str) -> Result<ScenarioResult, String> {
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
pub(super) fn client_verdict(stderr: &str) -> Result<(), String> {
    match stderr
        .lines()
        .rev()
        .find(|l| l.starts_with("conformance-client: "))
    {
        Some("conformance-client: ok") => Ok(()),
        Some(line) => Err(without_ports(&line["conformance-client: ".len()..])),
        None => Err("no verdict line on stderr (crashed or was killed?)".to_string()),
    }
}

/// `text` with the port of every loopback address (`localhost:41557`,
/// `127.0.0.1:8080`) written as `<port>`: the suite's servers listen on
/// ephemeral ports, and the report quotes client errors that name them, so
/// without this two runs of the same code would write different reports.
fn without_ports(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = ["localhost:", "127.0.0.1:"]
        .iter()
        .filter_map(|host| rest.find(host).map(|i| i + host.len()))
        .min()
    {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 {
            out.push_str("<port>");
        }
        rest = &rest[digits..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_errors_name_no_ephemeral_port() {
        for (line, said) in [
            (
                "conformance-client: error: denied for http://localhost:45297/mcp: no",
                "error: denied for http://localhost:<port>/mcp: no",
            ),
            (
                "conformance-client: error: 127.0.0.1:8080 and localhost:1 refused",
                "error: 127.0.0.1:<port> and localhost:<port> refused",
            ),
            (
                "conformance-client: error: localhost: no port, localhost:x",
                "error: localhost: no port, localhost:x",
            ),
        ] {
            assert_eq!(client_verdict(line), Err(said.to_string()), "{line}");
        }
    }

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

    fn exited(code: i32, allow_client_error: bool) -> Option<ClientExit> {
        Some(ClientExit {
            code: Some(code),
            signal: None,
            allow_client_error,
        })
    }

    fn passing() -> ScenarioResult {
        ScenarioResult {
            counts: Counts {
                passed: 2,
                ..Default::default()
            },
            client: Ok(()),
            exit: exited(0, false),
            ..Default::default()
        }
    }

    #[test]
    fn a_scenario_without_passing_checks_fails() {
        let r = ScenarioResult {
            client: Ok(()),
            exit: exited(0, false),
            ..Default::default()
        };
        assert!(problem_of(&r).is_some());
        assert!(problem_of(&passing()).is_none());
        assert_eq!(verdict_of(&passing()), Verdict::Pass);
    }

    /// The exit code counts in every scenario that does not allow a client error
    /// (auth/* included); where it is allowed, a pass with a non-zero exit is marked as
    /// resting on nothing attempted.
    #[test]
    fn the_client_exit_code_counts_unless_the_scenario_allows_an_error() {
        let stopped = |allowed| ScenarioResult {
            client: Err("error: HTTP 401".into()),
            exit: exited(1, allowed),
            ..passing()
        };
        // (result, expected verdict kind)
        let rows: Vec<(ScenarioResult, &str)> = vec![
            (passing(), "pass"),
            (stopped(false), "fail"),
            (stopped(true), "vacuous"),
            (
                ScenarioResult {
                    exit: exited(0, true),
                    ..passing()
                },
                "pass",
            ),
            (
                ScenarioResult {
                    exit: Some(ClientExit {
                        code: None,
                        signal: Some("SIGTERM".into()),
                        allow_client_error: false,
                    }),
                    ..passing()
                },
                "fail",
            ),
            (
                ScenarioResult {
                    exit: None,
                    ..passing()
                },
                "fail",
            ),
            // Exit 0 without the ok line.
            (
                ScenarioResult {
                    client: Err("no verdict line on stderr".into()),
                    ..passing()
                },
                "fail",
            ),
        ];
        for (i, (r, want)) in rows.iter().enumerate() {
            let got = match verdict_of(r) {
                Verdict::Pass => "pass",
                Verdict::Fail(_) => "fail",
                Verdict::Vacuous(_) => "vacuous",
                Verdict::Skipped(_) => "skipped",
            };
            assert_eq!(got, *want, "row {i}: {r:?}");
        }
        match verdict_of(&stopped(true)) {
            Verdict::Vacuous(why) => {
                assert!(why.contains("nothing attempted"), "{why}");
                assert!(why.contains("1 (allowed)"), "{why}");
            }
            other => panic!("{other:?}"),
        }
        match verdict_of(&stopped(false)) {
            Verdict::Fail(why) => assert!(why.contains("client exited 1"), "{why}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn client_exit_records_parse_and_describe() {
        let e = ClientExit::parse(
            r#"{"scenario":"auth/x","code":1,"signal":null,"allowClientError":true}"#,
        )
        .unwrap();
        assert_eq!(e.describe(), "1 (allowed)");
        let e = ClientExit::parse(r#"{"scenario":"x","code":0,"signal":null}"#).unwrap();
        assert!(e.success() && !e.allow_client_error);
        assert_eq!(e.describe(), "0");
        let e = ClientExit::parse(r#"{"code":null,"signal":"SIGTERM","allowClientError":false}"#)
            .unwrap();
        assert_eq!(e.describe(), "SIGTERM");
        assert!(ClientExit::parse("nope").is_err());
        assert_eq!(
            exit_record_name("auth/metadata-var1"),
            "auth_metadata-var1.json"
        );
    }

    #[test]
    fn only_skipped_checks_is_skipped_not_pass() {
        let r = parse_checks(r#"[{"status":"SKIPPED","name":"s","errorMessage":"never called"}]"#)
            .map(|mut r| {
                r.client = Ok(());
                r.exit = exited(0, false);
                r
            })
            .unwrap();
        assert!(matches!(verdict_of(&r), Verdict::Skipped(_)));
        // A client that failed where no error is allowed is a failure, skips or not.
        let crashed = ScenarioResult {
            exit: exited(101, false),
            client: Err("no verdict line".into()),
            ..r.clone()
        };
        assert!(matches!(verdict_of(&crashed), Verdict::Fail(_)));
        let empty = ScenarioResult {
            client: Ok(()),
            exit: exited(0, false),
            ..Default::default()
        };
        assert!(matches!(verdict_of(&empty), Verdict::Fail(_)));
    }
}
