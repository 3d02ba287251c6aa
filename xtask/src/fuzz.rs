//! `cargo xtask fuzz [--seconds N] [--runs N] [--report] [--keep-corpus] [--minimise] [TARGET…]`:
//! runs every fuzz target (or the ones named) with cargo-fuzz on nightly,
//! then merges what it found into the kept corpus.
//!
//! - cargo-fuzz is installed by `xtask/fuzz/install-cargo-fuzz.sh` (from
//!   crates.io, pinned) into `target/tools/`; a nightly toolchain must be
//!   there (libFuzzer, AddressSanitizer with its leak checker).
//! - Each target runs `--seconds` (default 60), or with `--runs` until it
//!   has executed that many inputs (and then `--seconds` only when given,
//!   as a bound), with new inputs written to
//!   a scratch directory (`target/fuzz-scratch/TARGET/`) and the kept
//!   corpus (`crates/*/fuzz/corpus/TARGET/`) as seeds; then
//!   libFuzzer's `-set_cover_merge=1` keeps a small set of inputs that
//!   reaches every edge both reach (a greedy set cover; hit counts left out,
//!   to keep it small), and that set replaces the kept corpus (skip with
//!   `--keep-corpus`). `--minimise` only does that merge on the kept
//!   corpus, with no fuzzing; with `--report` it refreshes the kept-corpus
//!   cells of the table and leaves the rest of the section as it was. `cargo test` replays the kept corpus on stable
//!   (each crate's `tests/fuzz_corpus.rs`), so CI runs every input.
//! - A crash, a leak, a timeout (10 s per input) or running out of memory
//!   (2 GiB) fails the target; libFuzzer leaves the input in
//!   `crates/*/fuzz/artifacts/TARGET/`, to become a regression test.
//! - Prints one row per target: executions, executions per second, peak
//!   RSS, kept corpus size, verdict. `--report` writes them as the fuzz
//!   section of `docs/reliability.md`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use crate::{reliability, util};

/// One fuzz target: the crate that holds it, its name, the longest input
/// libFuzzer makes for it, and what it checks.
pub(crate) struct Target {
    /// The directory of the crate under `crates/` (`mcp-types`).
    pub(crate) krate: &'static str,
    pub(crate) name: &'static str,
    max_len: usize,
    what: &'static str,
}

/// Every fuzz target of the workspace (a test holds this table equal to
/// the `fuzz_targets/` directories and to the replay tests).
pub(crate) const TARGETS: &[Target] = &[
    Target {
        krate: "mcp-types",
        name: "jsonrpc_decode",
        max_len: 4096,
        what: "`JsonRpcMessage::decode_with`, `decode_frame` vs a JSON-RPC model over serde_json",
    },
    Target {
        krate: "mcp-types",
        name: "answered_ids",
        max_len: 4096,
        what: "`answered_ids`, `invalid_request` vs serde_json's reading",
    },
    Target {
        krate: "mcp-types",
        name: "typed_decoder",
        max_len: 4096,
        what: "`RawResult::parse` (our deserializer) vs `serde_json::from_slice`",
    },
    Target {
        krate: "mcp-transport-stdio",
        name: "line_framer",
        max_len: 16384,
        what: "`LineFramer`, `sniff_id` vs a split-on-newline model, any chunking",
    },
    Target {
        krate: "mcp-transport-http",
        name: "sse_parser",
        max_len: 16384,
        what: "SSE parser vs the whole-stream WHATWG model, any chunking",
    },
    Target {
        krate: "mcp-transport-http",
        name: "header_value",
        max_len: 1024,
        what: "`header_value::encode` and a server's decoding vs the `base64` crate",
    },
    Target {
        krate: "mcp-transport-http",
        name: "legacy_endpoint",
        max_len: 1024,
        what: "legacy `endpoint` resolution vs the `url` crate (WHATWG)",
    },
    Target {
        krate: "mcp-auth",
        name: "www_authenticate",
        max_len: 2048,
        what: "`WWW-Authenticate` parser vs generated challenges, re-parse stable",
    },
    Target {
        krate: "mcp-auth",
        name: "auth_metadata",
        max_len: 4096,
        what: "PRM / AS metadata documents vs a model over serde_json; well-known URLs",
    },
    Target {
        krate: "mcp-cli",
        name: "key_value",
        max_len: 2048,
        what: "CLI `key=value` / JSON arguments typed by a schema vs serde_json",
    },
];

impl Target {
    fn fuzz_dir(&self, root: &Path) -> PathBuf {
        root.join("crates").join(self.krate).join("fuzz")
    }

    fn corpus(&self, root: &Path) -> PathBuf {
        self.fuzz_dir(root).join("corpus").join(self.name)
    }
}

/// When a target's run stops: after `seconds` (0: no time bound) or, when
/// `runs` is set, after that many executions, whichever comes first.
#[derive(Clone, Copy)]
struct Limit {
    seconds: u64,
    runs: Option<u64>,
}

impl Limit {
    /// The options of `cargo xtask fuzz` that give this limit.
    fn flags(self) -> String {
        match (self.runs, self.seconds) {
            (Some(runs), 0) => format!("--runs {runs}"),
            (Some(runs), s) => format!("--runs {runs} --seconds {s}"),
            (None, s) => format!("--seconds {s}"),
        }
    }
}

/// What one run of a target measured.
struct Outcome {
    target: &'static Target,
    seconds: u64,
    executions: Option<u64>,
    peak_rss_mb: Option<u64>,
    corpus_files: usize,
    corpus_bytes: u64,
    verdict: String,
}

impl Outcome {
    fn passed(&self) -> bool {
        self.verdict == "pass"
    }
}

/// Runs the fuzz targets; see the module docs.
pub(crate) fn fuzz(args: &[String]) -> Result<(), String> {
    let root = util::workspace_root()?;
    let mut seconds = None;
    let mut runs = None;
    let mut report = false;
    let mut merge = true;
    let mut minimise = false;
    let mut names = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--seconds" => {
                seconds = Some(
                    it.next()
                        .and_then(|v| v.parse::<u64>().ok())
                        .ok_or("--seconds needs a number")?,
                );
            }
            "--runs" => {
                runs = Some(
                    it.next()
                        .and_then(|v| v.parse::<u64>().ok())
                        .filter(|&n| n > 0)
                        .ok_or("--runs needs a positive number")?,
                );
            }
            "--report" => report = true,
            "--keep-corpus" => merge = false,
            "--minimise" => minimise = true,
            name if !name.starts_with('-') => names.push(name.to_string()),
            other => return Err(format!("unknown option {other:?}")),
        }
    }
    let targets: Vec<&'static Target> = if names.is_empty() {
        TARGETS.iter().collect()
    } else {
        names
            .iter()
            .map(|n| {
                TARGETS.iter().find(|t| t.name == n).ok_or_else(|| {
                    let all: Vec<&str> = TARGETS.iter().map(|t| t.name).collect();
                    format!("no fuzz target {n:?} (there are: {})", all.join(", "))
                })
            })
            .collect::<Result<_, _>>()?
    };
    util::run(
        util::cmd("bash", &root).arg(root.join("xtask/fuzz/install-cargo-fuzz.sh")),
        "install cargo-fuzz (xtask/fuzz/install-cargo-fuzz.sh)",
    )?;
    if minimise {
        return minimise_only(&root, &targets, report);
    }
    let started = Instant::now();
    let load_at_start = reliability::load_average();
    // The code fuzzed is the tree as it is now: a long run's rows must not
    // name a commit made while it ran.
    let commit = reliability::commit(&root);
    // `--runs` alone: no time bound (libFuzzer's 0); neither: 60 s.
    let limit = Limit {
        seconds: seconds.unwrap_or(if runs.is_some() { 0 } else { 60 }),
        runs,
    };
    let mut outcomes = Vec::new();
    for target in targets {
        outcomes.push(run_target(&root, target, limit, merge)?);
    }
    let took = started.elapsed();
    let rows: Vec<(String, String)> = outcomes
        .iter()
        .map(|o| (o.target.name.to_string(), row(o, &commit)))
        .collect();
    println!(
        "{}{}",
        TABLE_HEAD,
        rows.iter().map(|(_, r)| r.as_str()).collect::<String>()
    );
    if report {
        let named: String = names.iter().map(|n| format!(" {n}")).collect();
        let command = format!("cargo xtask fuzz {} --report{named}", limit.flags());
        let page = std::fs::read_to_string(root.join("docs/reliability.md")).unwrap_or_default();
        let body = format!(
            "## Fuzzing\n\n{}\n{}\n{}",
            reliability::provenance(&root, &command, took, &load_at_start),
            FUZZ_NOTES,
            merged_table(&root, &page, &rows)
        );
        reliability::write_section(&root, "fuzz", &body)?;
    }
    let failed: Vec<&str> = outcomes
        .iter()
        .filter(|o| !o.passed())
        .map(|o| o.target.name)
        .collect();
    if failed.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "fuzz targets failed: {} (inputs in crates/*/fuzz/artifacts/)",
            failed.join(", ")
        ))
    }
}

const FUZZ_NOTES: &str = "Each target ran under libFuzzer with AddressSanitizer \
(leaks reported), a 10 s timeout per input and a 2 GiB memory limit, seeded with \
its kept corpus; executions are libFuzzer's count for that run alone. A run of some \
targets replaces their rows and keeps the others, so each row names the commit it \
ran at (the lines above are the last run's); seconds are the fuzzing run's own wall \
time, the corpus merge after it left out. The aim is 10^7 executions per target in one \
run: `cargo xtask fuzz --runs 10000000 --report TARGET` runs a target until it has \
executed that many inputs. The kept corpus is what `cargo test` replays on stable in CI.\n";

const TABLE_HEAD: &str = "| target | checks | seconds | executions | executions/s | peak RSS | kept corpus | commit | verdict |\n\
|---|---|---:|---:|---:|---:|---:|---|---|\n";

/// The fuzz table of `page` with `rows` replacing the rows of their
/// targets, in [`TARGETS`] order.
fn merged_table(root: &Path, page: &str, rows: &[(String, String)]) -> String {
    let mut out = String::from(TABLE_HEAD);
    for t in TARGETS {
        let prefix = format!("| `{}` ", t.name);
        let fresh = rows
            .iter()
            .find(|(n, _)| n == t.name)
            .map(|(_, r)| r.clone());
        let kept = page
            .lines()
            .find(|l| l.starts_with(&prefix))
            .map(|l| format!("{}\n", with_corpus_cell(l, &corpus_cell(&t.corpus(root)))));
        if let Some(r) = fresh.or(kept) {
            out.push_str(&r);
        }
    }
    out
}

/// The index of the kept-corpus cell in a row (`| target | checks |
/// seconds | executions | executions/s | peak RSS | kept corpus | …`).
const CORPUS_CELL: usize = 7;

/// The kept-corpus cell for the corpus in `dir`, as it is now.
fn corpus_cell(dir: &Path) -> String {
    let (files, bytes) = dir_size(dir);
    format!(" {files} files, {:.1} KiB ", bytes as f64 / 1024.0)
}

/// `row` with its kept-corpus cell replaced by `cell` (the corpus is
/// what is on disk now, whichever run wrote the rest of the row).
fn with_corpus_cell(row: &str, cell: &str) -> String {
    let mut cells: Vec<&str> = row.split('|').collect();
    if let Some(c) = cells.get_mut(CORPUS_CELL) {
        *c = cell;
    }
    cells.join("|")
}

/// `--minimise`: the merge alone, on each kept corpus; with `report`, the
/// fuzz section keeps its lines and rows with the corpus cells refreshed.
fn minimise_only(root: &Path, targets: &[&'static Target], report: bool) -> Result<(), String> {
    for target in targets {
        let kept = target.corpus(root);
        let empty = root
            .join("target/fuzz-scratch")
            .join(format!("{}-empty", target.name));
        let _ = std::fs::remove_dir_all(&empty);
        std::fs::create_dir_all(&empty).map_err(|e| format!("{}: {e}", empty.display()))?;
        let before = dir_size(&kept);
        merge_corpus(root, target, &kept, &empty)?;
        let after = dir_size(&kept);
        eprintln!(
            "==> {}: kept corpus {} files, {} bytes -> {} files, {} bytes",
            target.name, before.0, before.1, after.0, after.1
        );
    }
    if report {
        let page = std::fs::read_to_string(root.join("docs/reliability.md")).unwrap_or_default();
        let begin = "<!-- section:fuzz -->";
        let section = page
            .find(begin)
            .and_then(|at| {
                let text = &page[at + begin.len()..];
                text.find("<!-- /section:fuzz -->").map(|end| &text[..end])
            })
            .ok_or("docs/reliability.md has no fuzz section to refresh")?;
        let head_end = section.find(TABLE_HEAD).unwrap_or(section.len());
        let body = format!("{}{}", &section[..head_end], merged_table(root, &page, &[]));
        reliability::write_section(root, "fuzz", body.trim())?;
    }
    Ok(())
}

fn tools_path(root: &Path) -> std::ffi::OsString {
    let tools = root.join("target/tools/bin");
    let mut paths = vec![tools];
    if let Some(path) = std::env::var_os("PATH") {
        paths.extend(std::env::split_paths(&path));
    }
    std::env::join_paths(paths).unwrap_or_default()
}

/// `cargo fuzz ARGS` on nightly from the target's crate, with cargo-fuzz
/// from `target/tools/`.
fn cargo_fuzz(root: &Path, target: &Target) -> Command {
    let mut c = util::cmd("rustup", &target.fuzz_dir(root).join(".."));
    c.args(["run", "nightly", "cargo", "fuzz"])
        .env("PATH", tools_path(root))
        // The outer cargo's variables must not steer the nightly build.
        .env_remove("CARGO")
        .env_remove("CARGO_TARGET_DIR")
        .env_remove("RUSTFLAGS")
        .env_remove("RUSTUP_TOOLCHAIN");
    c
}

/// One build directory for every fuzz crate: libFuzzer (C++) and the
/// shared dependencies are built once, not once per crate.
fn fuzz_build_dir(root: &Path) -> PathBuf {
    root.join("target/fuzz-build")
}

fn run_target(
    root: &Path,
    target: &'static Target,
    limit: Limit,
    merge: bool,
) -> Result<Outcome, String> {
    let kept = target.corpus(root);
    std::fs::create_dir_all(&kept).map_err(|e| format!("{}: {e}", kept.display()))?;
    let scratch = root.join("target/fuzz-scratch").join(target.name);
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).map_err(|e| format!("{}: {e}", scratch.display()))?;
    eprintln!("==> fuzz {} ({})", target.name, limit.flags());
    let max_len = format!("-max_len={}", target.max_len);
    let runs = limit.runs.map(|n| format!("-runs={n}"));
    // Built first, so the timed run below is fuzzing alone.
    let mut build = cargo_fuzz(root, target);
    build
        .args(["build", target.name])
        .arg("--target-dir")
        .arg(fuzz_build_dir(root));
    util::run(
        &mut build,
        &format!("build the fuzz target {}", target.name),
    )?;
    let mut run = cargo_fuzz(root, target);
    run.args(["run", target.name])
        .arg("--target-dir")
        .arg(fuzz_build_dir(root))
        .arg(&scratch)
        .arg(&kept)
        .args([
            "--",
            &format!("-max_total_time={}", limit.seconds),
            &max_len,
            "-timeout=10",
            "-rss_limit_mb=2048",
            "-print_final_stats=1",
        ])
        .args(runs.as_deref())
        .stdout(Stdio::inherit())
        .stderr(Stdio::piped());
    let started = Instant::now();
    let output = run
        .output()
        .map_err(|e| format!("cannot run cargo fuzz: {e}"))?;
    let seconds = started.elapsed().as_secs();
    let log = String::from_utf8_lossy(&output.stderr);
    let log_path = root
        .join("target/fuzz-scratch")
        .join(format!("{}.log", target.name));
    let _ = std::fs::write(&log_path, log.as_bytes());
    let executions = stat(&log, "stat::number_of_executed_units:");
    let peak_rss_mb = stat(&log, "stat::peak_rss_mb:");
    let verdict = if output.status.success() {
        "pass".to_string()
    } else {
        let why = failure_kind(&log);
        eprintln!(
            "xtask: fuzz target {} failed: {why} (log: {})",
            target.name,
            log_path.display()
        );
        why
    };
    if merge && output.status.success() {
        merge_corpus(root, target, &kept, &scratch)?;
    }
    let (corpus_files, corpus_bytes) = dir_size(&kept);
    Ok(Outcome {
        target,
        seconds,
        executions,
        peak_rss_mb,
        corpus_files,
        corpus_bytes,
        verdict,
    })
}

/// Replaces the kept corpus with libFuzzer's minimal merge of it and the
/// scratch inputs.
fn merge_corpus(root: &Path, target: &Target, kept: &Path, scratch: &Path) -> Result<(), String> {
    let merged = root
        .join("target/fuzz-scratch")
        .join(format!("{}-merged", target.name));
    let _ = std::fs::remove_dir_all(&merged);
    std::fs::create_dir_all(&merged).map_err(|e| format!("{}: {e}", merged.display()))?;
    let mut run = cargo_fuzz(root, target);
    run.args(["run", target.name])
        .arg("--target-dir")
        .arg(fuzz_build_dir(root))
        .arg(&merged)
        .arg(kept)
        .arg(scratch)
        // Edges only (no hit counts): the smallest set that reaches every
        // edge the inputs reach, so the kept corpus stays small.
        .args([
            "--",
            "-set_cover_merge=1",
            "-use_counters=0",
            &format!("-max_len={}", target.max_len),
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    util::run(&mut run, &format!("merge the corpus of {}", target.name))?;
    if std::fs::read_dir(&merged).map_or(0, Iterator::count) == 0 {
        return Err(format!("the merge of {} kept nothing", target.name));
    }
    std::fs::remove_dir_all(kept).map_err(|e| format!("{}: {e}", kept.display()))?;
    std::fs::rename(&merged, kept).map_err(|e| format!("{}: {e}", kept.display()))?;
    Ok(())
}

/// The number after `key` in libFuzzer's final stats.
fn stat(log: &str, key: &str) -> Option<u64> {
    log.lines()
        .rev()
        .find_map(|l| l.trim().strip_prefix(key))
        .and_then(|v| v.trim().parse().ok())
}

/// What libFuzzer or a sanitizer said when a run failed.
fn failure_kind(log: &str) -> String {
    for (needle, kind) in [
        // Stopped from outside (Ctrl-C, SIGINT): no input is at fault.
        ("libFuzzer: run interrupted", "interrupted"),
        ("ERROR: LeakSanitizer", "leak"),
        ("ERROR: libFuzzer: timeout", "timeout"),
        ("ERROR: libFuzzer: out-of-memory", "out of memory"),
        ("ERROR: AddressSanitizer", "memory error"),
        ("panicked at", "panic"),
        ("ERROR: libFuzzer: deadly signal", "crash"),
        ("error: could not compile", "build failed"),
    ] {
        if log.contains(needle) {
            return kind.to_string();
        }
    }
    "failed".to_string()
}

fn dir_size(dir: &Path) -> (usize, u64) {
    std::fs::read_dir(dir).map_or((0, 0), |entries| {
        entries
            .filter_map(Result::ok)
            .filter_map(|e| e.metadata().ok())
            .filter(std::fs::Metadata::is_file)
            .fold((0, 0), |(n, b), m| (n + 1, b + m.len()))
    })
}

fn row(o: &Outcome, commit: &str) -> String {
    let execs = o.executions.map_or_else(|| "?".to_string(), thousands);
    let rate = o
        .executions
        .map_or_else(|| "?".to_string(), |e| thousands(e / o.seconds.max(1)));
    let rss = o
        .peak_rss_mb
        .map_or_else(|| "?".to_string(), |m| format!("{m} MiB"));
    format!(
        "| `{}` ({}) | {} | {} | {execs} | {rate} | {rss} | {} files, {:.1} KiB | {commit} | {} |\n",
        o.target.name,
        o.target.krate,
        o.target.what,
        o.seconds,
        o.corpus_files,
        o.corpus_bytes as f64 / 1024.0,
        o.verdict
    )
}

/// `1234567` as `1 234 567`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(' ');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every `fuzz_targets/*.rs` of the workspace is in [`TARGETS`], every
    /// entry has its file, a `[[bin]]` in its fuzz manifest, a kept corpus
    /// and a replay test in its crate's `tests/fuzz_corpus.rs`.
    #[test]
    fn the_target_table_matches_the_tree() {
        let root = util::workspace_root().unwrap();
        let mut on_disk = Vec::new();
        for krate in std::fs::read_dir(root.join("crates")).unwrap() {
            let dir = krate.unwrap().path().join("fuzz/fuzz_targets");
            if let Ok(files) = std::fs::read_dir(&dir) {
                for f in files {
                    let name = f.unwrap().file_name().to_string_lossy().into_owned();
                    if let Some(stem) = name.strip_suffix(".rs") {
                        on_disk.push(stem.to_string());
                    }
                }
            }
        }
        on_disk.sort();
        let mut listed: Vec<String> = TARGETS.iter().map(|t| t.name.to_string()).collect();
        listed.sort();
        assert_eq!(on_disk, listed);
        for t in TARGETS {
            let dir = t.fuzz_dir(&root);
            let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
            assert!(
                manifest.contains(&format!("name = \"{}\"", t.name)),
                "{} has no [[bin]] in {}",
                t.name,
                dir.display()
            );
            assert!(
                dir_size(&t.corpus(&root)).0 > 0,
                "{} has no kept corpus",
                t.name
            );
            let replay = std::fs::read_to_string(
                root.join("crates")
                    .join(t.krate)
                    .join("tests/fuzz_corpus.rs"),
            )
            .unwrap();
            assert!(
                replay.contains(&format!("\"{}\"", t.name)),
                "{} is not replayed by {}/tests/fuzz_corpus.rs",
                t.name,
                t.krate
            );
        }
    }

    #[test]
    fn reads_libfuzzer_stats_and_failures() {
        let log = "INFO: seed\nstat::number_of_executed_units: 123456\nstat::peak_rss_mb: 77\n";
        assert_eq!(stat(log, "stat::number_of_executed_units:"), Some(123_456));
        assert_eq!(stat(log, "stat::peak_rss_mb:"), Some(77));
        assert_eq!(stat(log, "stat::nothing:"), None);
        assert_eq!(failure_kind("==1==ERROR: LeakSanitizer: detected"), "leak");
        assert_eq!(failure_kind("thread '<unnamed>' panicked at x"), "panic");
        assert_eq!(
            failure_kind("==7== libFuzzer: run interrupted; exiting"),
            "interrupted"
        );
        assert_eq!(thousands(12_345_678), "12 345 678");
        assert_eq!(thousands(999), "999");
    }

    #[test]
    fn a_run_of_some_targets_keeps_the_other_rows() {
        let page = format!(
            "{TABLE_HEAD}| `answered_ids` (mcp-types) | old |\n| `key_value` (mcp-cli) | kept |\n"
        );
        let rows = vec![(
            "answered_ids".to_string(),
            "| `answered_ids` (mcp-types) | new |\n".to_string(),
        )];
        let root = util::workspace_root().unwrap();
        let table = merged_table(&root, &page, &rows);
        assert!(
            table.contains("| new |") && table.contains("| kept |") && !table.contains("| old |")
        );
        assert!(table.find("answered_ids").unwrap() < table.find("key_value").unwrap());
    }

    #[test]
    fn a_kept_row_gets_the_corpus_as_it_is_now() {
        let row = "| `t` (c) | checks | 10 | 1 | 1 | 5 MiB | 1827 files, 34.2 KiB | `abc` | pass |";
        assert_eq!(
            with_corpus_cell(row, " 12 files, 1.0 KiB "),
            "| `t` (c) | checks | 10 | 1 | 1 | 5 MiB | 12 files, 1.0 KiB | `abc` | pass |"
        );
    }
}
